package governance

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance/redistest"
)

// TestJobStoreRecordLookupExpiryEviction: a record is found by its job ID
// until its TTL; past it, or once evicted for room, the lookup says which,
// and to whom the job belonged; evictions (not expiries) reach the hook.
func TestJobStoreRecordLookupExpiryEviction(t *testing.T) {
	now := redistest.Today(t, 10)
	var evicted atomic.Int64
	s := NewJobStore(JobStoreConfig{Size: 2, TTL: time.Hour, OnEvict: func() { evicted.Add(1) }})
	s.now = func() time.Time { return now }

	s.Record(JobRecord{ID: "a", Principal: "token:1", Location: "EU", ThroughView: true, Reservation: "r1"})
	got, err := s.Lookup("a")
	if err != nil || got.Principal != "token:1" || got.Location != "EU" || !got.ThroughView || got.Reservation != "r1" || !got.Started.Equal(now) {
		t.Fatalf("Lookup(a) = %+v, %v", got, err)
	}
	if _, err := s.Lookup("never"); !errors.Is(err, ErrJobNotRecorded) {
		t.Errorf("Lookup(never) = %v, want ErrJobNotRecorded", err)
	}

	// Expiry.
	now = now.Add(time.Hour)
	_, err = s.Lookup("a")
	var f *ForgottenJobError
	if !errors.As(err, &f) || !f.Expired || f.Principal != "token:1" {
		t.Fatalf("Lookup(a) after its TTL = %v, want an expired ForgottenJobError", err)
	}
	if !strings.Contains(err.Error(), "expired") {
		t.Errorf("expired error %q does not say why", err)
	}

	// Eviction: a third record pushes out the least recently used.
	s.Record(JobRecord{ID: "b", Principal: "token:2"})
	s.Record(JobRecord{ID: "c", Principal: "token:2"})
	s.Record(JobRecord{ID: "d", Principal: "token:1"})
	_, err = s.Lookup("b")
	if !errors.As(err, &f) || f.Expired || f.Principal != "token:2" || f.Size != 2 {
		t.Fatalf("Lookup(b) after eviction = %v, want an evicted ForgottenJobError of token:2", err)
	}
	if !strings.Contains(err.Error(), "evicted") || !strings.Contains(err.Error(), "2 jobs") {
		t.Errorf("evicted error %q does not say why", err)
	}
	if n := evicted.Load(); n != 1 {
		t.Errorf("eviction hook called %d times, want 1 (expiry is not eviction)", n)
	}
	for _, id := range []string{"c", "d"} {
		if _, err := s.Lookup(id); err != nil {
			t.Errorf("Lookup(%s) = %v", id, err)
		}
	}
}

// TestReservationArithmetic: a reservation counts against both limits
// until it is settled (charging the job's bytes billed instead) or
// released (charging nothing); settling twice charges once.
func TestReservationArithmetic(t *testing.T) {
	now := redistest.Today(t, 23)
	b := NewBudget(Limits{MaxBytesPerSession: 300, MaxBytesPerDay: 100})
	b.now = func() time.Time { return now }

	r1, err := b.Reserve("alice", 60)
	if err != nil {
		t.Fatal(err)
	}
	if left, _ := b.Left("alice"); left != 40 {
		t.Errorf("left = %d, want 40 (100 a day less 60 held)", left)
	}
	_, err = b.Reserve("alice", 50)
	if e, ok := bqerr.As(err); !ok || e.Code != bqerr.ResourceExhausted || !strings.Contains(e.Message, "held by queries still running") {
		t.Fatalf("Reserve past what is left = %v, want RESOURCE_EXHAUSTED naming the held bytes", err)
	}
	if err := b.Check("alice", 50); err == nil {
		t.Error("Check ignores the held bytes")
	}
	if r := b.Report("alice"); r.Reserved != 60 || r.Today.BytesBilled != 0 {
		t.Errorf("report = %+v, want 60 reserved", r)
	}

	// The job billed less than its estimate.
	if !b.Settle(r1, Usage{Jobs: 1, BytesProcessed: 45, BytesBilled: 45}) {
		t.Fatal("Settle = false for an open reservation")
	}
	if b.Settle(r1, Usage{Jobs: 1, BytesBilled: 45}) {
		t.Error("a second Settle of the same reservation charged again")
	}
	if r := b.Report("alice"); r.Reserved != 0 || r.Today.BytesBilled != 45 || r.Today.Jobs != 1 || *r.Left != 55 {
		t.Errorf("report after settle = %+v, want 45 billed, 55 left", r)
	}

	// A job that never started gives its bytes back.
	r2, err := b.Reserve("alice", 55)
	if err != nil {
		t.Fatal(err)
	}
	if !b.Release(r2) || b.Release(r2) || b.Settle(r2, Usage{BytesBilled: 1}) {
		t.Error("Release is not once-only")
	}
	if r := b.Report("alice"); r.Reserved != 0 || r.Today.BytesBilled != 45 || r.Today.Jobs != 1 {
		t.Errorf("report after release = %+v", r)
	}

	// A hold made before midnight still counts after it, against the new
	// day as well as the session.
	r3, err := b.Reserve("alice", 50)
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Hour)
	if left, _ := b.Left("alice"); left != 50 {
		t.Errorf("left on the new day = %d, want 50 (100 less 50 held)", left)
	}
	b.Settle(r3, Usage{Jobs: 1, BytesBilled: 70})
	if r := b.Report("alice"); r.Today.BytesBilled != 70 || r.Session.BytesBilled != 115 || *r.Left != 30 {
		t.Errorf("report = %+v, want 70 today, 115 this session, 30 left", r)
	}
}

// TestParallelReserveNeverOversubscribes: many callers reserving at once
// get exactly as many holds as the budget has room for (run with -race).
func TestParallelReserveNeverOversubscribes(t *testing.T) {
	const budget, each, callers = 1000, 70, 200
	st := NewMemory(NewBudget(Limits{MaxBytesPerDay: budget}), nil)
	ctx := context.Background()
	var granted atomic.Int64
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			if _, err := st.Reserve(ctx, "p", each); err == nil {
				granted.Add(1)
			}
		})
	}
	wg.Wait()
	if got, want := granted.Load(), int64(budget/each); got != want {
		t.Errorf("%d reservations granted, want %d", got, want)
	}
	r, _ := st.Report(ctx, "p")
	if r.Reserved != granted.Load()*each || r.Reserved > budget {
		t.Errorf("reserved = %d, want %d within %d", r.Reserved, granted.Load()*each, budget)
	}
}

// TestUnlimitedStateStillCounts: without limits a reservation refuses
// nothing but its job is still charged once when settled.
func TestUnlimitedStateStillCounts(t *testing.T) {
	st := NewMemory(NewBudget(Limits{}), nil)
	ctx := context.Background()
	id, err := st.Reserve(ctx, "", 1<<50)
	if err != nil || id == "" {
		t.Fatalf("Reserve = %q, %v", id, err)
	}
	for range 2 {
		_, _ = st.Settle(ctx, id, Usage{Jobs: 1, BytesBilled: 10})
	}
	if r, _ := st.Report(ctx, ""); r.Session.Jobs != 1 || r.Session.BytesBilled != 10 || r.Reserved != 0 || r.Left != nil {
		t.Errorf("report = %+v", r)
	}
	none := NewMemory(nil, nil)
	if id, err := none.Reserve(ctx, "", 1); err != nil || id != "" {
		t.Errorf("a nil budget reserved %q, %v", id, err)
	}
}
