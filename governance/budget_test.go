package governance

import (
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance/redistest"
)

func TestBudgetPerPrincipalAndDay(t *testing.T) {
	now := redistest.Today(t, 23)
	b := NewBudget(Limits{MaxBytesPerSession: 300, MaxBytesPerDay: 100})
	b.now = func() time.Time { return now }
	add(b, "alice", Usage{Jobs: 1, BytesProcessed: 80, BytesBilled: 80})
	if err := b.Check("alice", 30); err == nil {
		t.Error("alice passed her daily budget")
	} else if e, _ := bqerr.As(err); e.Code != bqerr.ResourceExhausted {
		t.Errorf("Check = %v, want RESOURCE_EXHAUSTED", err)
	}
	if err := b.Check("bob", 100); err != nil {
		t.Errorf("bob is charged for alice: %v", err)
	}
	now = now.Add(2 * time.Hour) // the next UTC day
	if err := b.Check("alice", 100); err != nil {
		t.Errorf("a new day did not reset the daily budget: %v", err)
	}
	add(b, "alice", Usage{Jobs: 1, BytesBilled: 100})
	add(b, "alice", Usage{Jobs: 1, BytesBilled: 0})
	r := b.Report("alice")
	if r.Session.Jobs != 3 || r.Session.BytesBilled != 180 || r.Today.BytesBilled != 100 || r.Left == nil || *r.Left != 0 {
		t.Errorf("report = %+v", r)
	}
	// The session limit binds once days stop doing so.
	now = now.Add(24 * time.Hour)
	if left, _ := b.Left("alice"); left != 100 {
		t.Errorf("left = %d, want 100 (the day's limit)", left)
	}
	add(b, "alice", Usage{BytesBilled: 90})
	if left, _ := b.Left("alice"); left != 10 {
		t.Errorf("left = %d, want 10", left)
	}
}

func TestUnlimitedBudgetCountsOnly(t *testing.T) {
	b := NewBudget(Limits{})
	add(b, "", Usage{Jobs: 1, BytesBilled: 1 << 40})
	if b.Limited() || b.Check("", 1<<50) != nil {
		t.Error("an unlimited budget refused a query")
	}
	if r := b.Report(""); r.Session.Jobs != 1 || r.Left != nil {
		t.Errorf("report = %+v", r)
	}
	var none *Budget
	add(none, "", Usage{Jobs: 1})
	if none.Check("", 1) != nil || none.Report("").Session.Jobs != 0 {
		t.Error("a nil budget must count and refuse nothing")
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 10 << 30: "10.0 GiB", 3 << 40: "3.0 TiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// add charges u to principal, as Settle does for a job, without a
// reservation first.
func add(b *Budget, principal string, u Usage) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.account(principal).charge(u)
}
