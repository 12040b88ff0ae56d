package governance

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance/redistest"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// fleet is instances of the server sharing one Redis with --state-fail-open,
// each with its own state breaker (the wiring's resilience executor, with
// short timings so that no step waits long on a real clock, and closed
// when the store's probe finds it back, as the wiring does), and the
// fleet's real bill: what BigQuery billed for every job that ran,
// whatever the store counted.
type fleet struct {
	t         *testing.T
	states    []*Redis
	executors []*resilience.Executor
	// opened counts each instance's state breaker opening; failedOpen
	// each instance's steps that went on without the store.
	opened, failedOpen []atomic.Int64
	budget             int64

	mu    sync.Mutex
	spent int64
	// ran are the reservations of jobs that ran, with what each billed.
	ran map[string]int64
}

// fleetOptions are a fleet's state breaker and background probe.
type fleetOptions struct {
	breaker resilience.Breaker
	// retryEvery is RedisConfig.RetryEvery.
	retryEvery time.Duration
}

func newFleet(t *testing.T, srv *redistest.Server, prefix string, n int, budget int64, c *clock) *fleet {
	t.Helper()
	return newFleetWith(t, srv, prefix, n, budget, c, fleetOptions{breaker: resilience.Breaker{Failures: 2, Open: 50 * time.Millisecond, Successes: 1}, retryEvery: testRetryEvery})
}

func newFleetWith(t *testing.T, srv *redistest.Server, prefix string, n int, budget int64, c *clock, o fleetOptions) *fleet {
	t.Helper()
	f := &fleet{t: t, budget: budget, ran: map[string]int64{}, opened: make([]atomic.Int64, n), failedOpen: make([]atomic.Int64, n)}
	for i := range n {
		cfg := resilience.Defaults()
		cfg.Retry[resilience.State] = resilience.Policy{Attempts: 1, Timeout: 300 * time.Millisecond}
		cfg.Breaker = o.breaker
		ex, err := resilience.NewExecutor(cfg, resilience.Hooks{BreakerChanged: func(_ string, _, to resilience.BreakerState) {
			if to == resilience.Open {
				f.opened[i].Add(1)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		// The server's client settings (NewRedisClient); a paused Redis
		// costs redistest.PausedWait a step.
		st := NewRedis(RedisConfig{Client: testClient(t, srv), StatePrefix: prefix, Limits: Limits{MaxBytesPerDay: budget}, StateFailOpen: true, Now: c.Now, RetryEvery: o.retryEvery,
			Do: func(ctx context.Context, fn func(context.Context) error) error {
				return ex.Do(ctx, resilience.State, resilience.StateScope, fn)
			},
			Recovered: func() { ex.CloseBreaker(resilience.StateScope) },
			Hooks:     RedisHooks{FailedOpen: func(context.Context, string) { f.failedOpen[i].Add(1) }}})
		t.Cleanup(func() { st.Close() })
		f.states = append(f.states, st)
		f.executors = append(f.executors, ex)
	}
	return f
}

// start reserves est on instance i for a job that is about to run.
func (f *fleet) start(i int, est int64) (string, error) {
	return f.states[i].Reserve(context.Background(), "p", est)
}

// finish settles reservation id on instance i: its job ran and billed.
func (f *fleet) finish(i int, id string, billed int64) {
	f.t.Helper()
	f.mu.Lock()
	if _, ok := f.ran[id]; ok {
		f.t.Fatalf("job of %s finished twice", id)
	}
	f.ran[id] = billed
	f.spent += billed
	f.mu.Unlock()
	f.states[i].Settle(context.Background(), id, Usage{Jobs: 1, BytesProcessed: billed, BytesBilled: billed})
}

// query is one execute_sql on instance i whose job bills what it was
// estimated at; its error is the budget's refusal.
func (f *fleet) query(i int, bytes int64) error {
	f.t.Helper()
	id, err := f.start(i, bytes)
	if err != nil {
		return err
	}
	f.finish(i, id, bytes)
	return nil
}

// reports asks every instance for the principal's report and fails the
// test on any negative figure, whether or not the store answered (an
// instance whose breaker is open answers UNAVAILABLE, never a guess).
// It returns the first report the store answered.
func (f *fleet) reports(when string) (Report, bool) {
	f.t.Helper()
	var first Report
	answered := false
	for i, st := range f.states {
		r, err := st.Report(context.Background(), "p")
		noNegative(f.t, fmt.Sprintf("%s, instance %d", when, i), r)
		if err == nil && !answered {
			first, answered = r, true
		}
	}
	return first, answered
}

func noNegative(t *testing.T, when string, r Report) {
	t.Helper()
	for name, v := range map[string]int64{
		"session jobs": r.Session.Jobs, "session processed": r.Session.BytesProcessed, "session billed": r.Session.BytesBilled,
		"today jobs": r.Today.Jobs, "today processed": r.Today.BytesProcessed, "today billed": r.Today.BytesBilled,
		"reserved": r.Reserved,
	} {
		if v < 0 {
			t.Errorf("%s: report has %s %d < 0: %+v", when, name, v, r)
		}
	}
	if r.Left != nil && *r.Left < 0 {
		t.Errorf("%s: report has %d bytes left: %+v", when, *r.Left, r)
	}
}

// drained waits until every instance wrote what it kept, checking the
// reports (never negative) meanwhile.
func (f *fleet) drained() {
	f.t.Helper()
	waitFor(f.t, func() bool {
		f.reports("while the kept writes drain")
		for _, st := range f.states {
			if st.Pending() > 0 {
				return false
			}
		}
		return true
	})
}

// spendUntilRefused runs 100 B queries round the fleet until the budget
// refuses one, which must be RESOURCE_EXHAUSTED.
func (f *fleet) spendUntilRefused() int {
	f.t.Helper()
	return f.spendFrom(0)
}

// spendFrom is spendUntilRefused starting at instance first.
func (f *fleet) spendFrom(first int) int {
	f.t.Helper()
	for n := 0; n < 50; n++ {
		err := f.query((first+n)%len(f.states), 100)
		if err == nil {
			continue
		}
		if e, ok := bqerr.As(err); !ok || e.Code != bqerr.ResourceExhausted {
			f.t.Fatalf("query after Redis came back = %v, want RESOURCE_EXHAUSTED or success", err)
		}
		return n
	}
	f.t.Fatal("the budget refused nothing after Redis came back")
	return 0
}

// settledOnce checks that the store counted every job that ran exactly
// once, that settling them all again (other tools, on other instances,
// seeing the same jobs end) charges nothing more, and that nothing is
// held.
func (f *fleet) settledOnce(when string) Report {
	f.t.Helper()
	r, ok := f.reports(when)
	if !ok {
		f.t.Fatalf("%s: no instance could read the store", when)
	}
	if r.Today.BytesBilled != f.spent || r.Today.Jobs != int64(len(f.ran)) || r.Reserved != 0 {
		f.t.Fatalf("%s: the store counts %d B in %d jobs (%d held), but the jobs that ran billed %d B in %d",
			when, r.Today.BytesBilled, r.Today.Jobs, r.Reserved, f.spent, len(f.ran))
	}
	i := 0
	for id, billed := range f.ran {
		i++
		if ok, err := f.states[i%len(f.states)].Settle(context.Background(), id, Usage{Jobs: 1, BytesBilled: billed}); ok || err != nil {
			f.t.Errorf("%s: settling %s again = %v, %v; want nothing charged", when, id, ok, err)
		}
	}
	if r2, _ := f.reports(when + ", settled again"); r2.Today.BytesBilled != r.Today.BytesBilled || r2.Today.Jobs != r.Today.Jobs {
		f.t.Errorf("%s: settling every job again changed the day from %+v to %+v", when, r.Today, r2.Today)
	}
	return r
}

// TestRedisFailOpenOutageChargedOnce: three instances with
// --state-fail-open over one Redis and a 1000 B day budget. Before the
// outage 300 B are billed and two jobs hold 100 B each; Redis is paused
// (it answers nothing, its data intact); meanwhile each instance runs a
// query, unchecked and holding nothing, and the two jobs that held finish.
// When Redis answers again, every one of those jobs is charged, once, and
// the budget refuses what would pass it: the fleet bills 1000 B in all,
// not what the outage spent on top. Report is never negative, also on an
// instance whose state breaker is open.
func TestRedisFailOpenOutageChargedOnce(t *testing.T) {
	srv := redistest.Start(t)
	c := &clock{now: redistest.Today(t, 10)}
	f := newFleet(t, srv, "outage:", 3, 1000, c)
	for range 3 {
		if err := f.query(0, 100); err != nil {
			t.Fatal(err)
		}
	}
	heldB, err := f.start(1, 100)
	if err != nil {
		t.Fatal(err)
	}
	heldC, err := f.start(2, 100)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := f.reports("before the outage"); r.Today.BytesBilled != 300 || r.Reserved != 200 || *r.Left != 500 {
		t.Fatalf("before the outage: %+v, want 300 B billed, 200 B held", r)
	}

	srv.Pause()
	resumed := false
	defer func() {
		if !resumed {
			srv.Resume()
		}
	}()
	for i := range f.states {
		id, err := f.start(i, 100)
		if err != nil || !strings.HasPrefix(id, "u.") {
			t.Fatalf("instance %d with Redis paused and fail-open: %q, %v; want an unheld reservation", i, id, err)
		}
		f.finish(i, id, 100)
	}
	f.finish(1, heldB, 100)
	f.finish(2, heldC, 100)
	if _, ok := f.reports("during the outage"); ok {
		t.Error("a report was read from a paused Redis")
	}
	for i, st := range f.states {
		if !st.Down() {
			t.Errorf("instance %d does not know the store is down during the outage", i)
		}
	}
	for i, st := range f.states {
		if st.Pending() == 0 {
			t.Errorf("instance %d kept nothing for when Redis answers", i)
		}
	}

	srv.Resume()
	resumed = true
	f.drained()
	r := f.settledOnce("Redis back")
	t.Logf("Redis back: %d B billed by %d jobs (%d during the outage), %d B left of %d", r.Today.BytesBilled, r.Today.Jobs, 5, *r.Left, f.budget)
	if *r.Left != 200 {
		t.Errorf("left after Redis came back = %d, want 200", *r.Left)
	}
	admitted := f.spendUntilRefused()
	f.settledOnce("budget spent")
	t.Logf("fail-open through a paused Redis: %d queries admitted after it came back; the fleet billed %d B of a %d B budget (%.2fx)",
		admitted, f.spent, f.budget, float64(f.spent)/float64(f.budget))
	if admitted != 2 || f.spent != f.budget {
		t.Errorf("%d queries admitted after Redis came back, %d B billed in all; want 2 and the budget, %d B", admitted, f.spent, f.budget)
	}
}

// TestRedisBackFromOlderSnapshotChargesLostHolds: Redis goes down and
// comes back with its data as of a snapshot taken before two jobs
// reserved (an RDB snapshot, or a replica that lagged): their holds are
// gone, but the jobs ran, and their settlements, kept through the outage,
// charge them; so do the queries that ran during the outage. The budget
// then refuses what would pass it.
func TestRedisBackFromOlderSnapshotChargesLostHolds(t *testing.T) {
	srv := redistest.Start(t)
	c := &clock{now: redistest.Today(t, 10)}
	f := newFleet(t, srv, "snapshot:", 3, 1000, c)
	for range 3 {
		if err := f.query(0, 100); err != nil {
			t.Fatal(err)
		}
	}
	srv.Save()
	heldB, err := f.start(1, 100)
	if err != nil {
		t.Fatal(err)
	}
	heldC, err := f.start(2, 100)
	if err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	for i := range f.states {
		id, err := f.start(i, 100)
		if err != nil || !strings.HasPrefix(id, "u.") {
			t.Fatalf("instance %d with Redis down and fail-open: %q, %v; want an unheld reservation", i, id, err)
		}
		f.finish(i, id, 100)
	}
	f.finish(1, heldB, 100)
	f.reports("during the outage")
	srv.StartAgain()
	// One job that held finishes only now, on an instance that sees the
	// store back.
	waitFor(t, func() bool { _, ok := f.reports("Redis back"); return ok })
	f.finish(2, heldC, 100)
	f.drained()
	r := f.settledOnce("Redis back from the snapshot")
	if *r.Left != 200 {
		t.Errorf("left after Redis came back = %d, want 200", *r.Left)
	}
	admitted := f.spendUntilRefused()
	f.settledOnce("budget spent")
	t.Logf("fail-open through a Redis back from an older snapshot: %d queries admitted after it came back; the fleet billed %d B of a %d B budget (%.2fx)",
		admitted, f.spent, f.budget, float64(f.spent)/float64(f.budget))
	if admitted != 2 || f.spent != f.budget {
		t.Errorf("%d queries admitted after Redis came back, %d B billed in all; want 2 and the budget, %d B", admitted, f.spent, f.budget)
	}
}

// TestRedisCloseWritesPastOpenBreaker: an instance stopped right after
// Redis came back, its state breaker still open, writes what it kept
// (the breaker guards a store that fails, not the last try at shutdown).
func TestRedisCloseWritesPastOpenBreaker(t *testing.T) {
	srv := redistest.Start(t)
	c := &clock{now: redistest.Today(t, 10)}
	cfg := resilience.Defaults()
	cfg.Retry[resilience.State] = resilience.Policy{Attempts: 1, Timeout: 300 * time.Millisecond}
	cfg.Breaker = resilience.Breaker{Failures: 1, Open: time.Hour, Successes: 1}
	ex, err := resilience.NewExecutor(cfg, resilience.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	client, err := NewRedisClient(Config{State: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	st := NewRedis(RedisConfig{Client: client, StatePrefix: "close:", Limits: Limits{MaxBytesPerDay: 1000}, StateFailOpen: true, Now: c.Now,
		Do: func(ctx context.Context, fn func(context.Context) error) error {
			return ex.Do(ctx, resilience.State, resilience.StateScope, fn)
		}})
	ctx := context.Background()
	srv.Stop()
	id, err := st.Reserve(ctx, "p", 100)
	if err != nil {
		t.Fatal(err)
	}
	st.Settle(ctx, id, Usage{Jobs: 1, BytesBilled: 90})
	srv.StartAgain()
	if s := ex.BreakerStates()[resilience.StateScope]; s != resilience.Open {
		t.Fatalf("breaker = %s, want open", s)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	other := newRedisState(t, srv.Addr(), "close:", RedisConfig{Limits: Limits{MaxBytesPerDay: 1000}, Now: c.Now})
	if r, err := other.Report(ctx, "p"); err != nil || r.Today.BytesBilled != 90 || r.Today.Jobs != 1 {
		t.Errorf("report after the instance closed = %+v, %v; want its kept 90 B written", r, err)
	}
}

// TestRedisEndedReservationHoldsNothing: a reserve that reaches Redis
// after its reservation was released (a stalled Redis runs an attempt
// whose answer was lost after the release kept for it) holds nothing.
func TestRedisEndedReservationHoldsNothing(t *testing.T) {
	srv := sharedRedis(t)
	c := &clock{now: redistest.Today(t, 10)}
	st := newRedisState(t, srv.Addr(), fmt.Sprintf("ended%d:", prefixes.Add(1)), RedisConfig{Limits: Limits{MaxBytesPerDay: 1000}, Now: c.Now})
	ctx := context.Background()
	tag := principalTag("p")
	id := reservationID(true, tag)
	if err := st.release(ctx, id, tag); err != nil {
		t.Fatal(err)
	}
	now := c.Now()
	k := st.keys(tag)
	res, err := reserveScript.Run(ctx, st.client, k.list(), k.args(now, id, 100, now.Add(holdTTL).UnixMilli(), 0, 1000, 0, 0)...).Int64Slice()
	if err != nil || res[0] != 0 {
		t.Fatalf("late reserve of a released reservation = %v, %v; want it refused", res, err)
	}
	if r, _ := st.Report(ctx, "p"); r.Reserved != 0 || *r.Left != 1000 {
		t.Errorf("report = %+v, want nothing held", r)
	}
}

// TestRedisNeverReportsNegative: a store that lost a principal's account
// while a hold remained (evicted under a maxmemory policy other than
// noeviction) reports nothing held once the hold ends, never a negative
// figure.
func TestRedisNeverReportsNegative(t *testing.T) {
	srv := sharedRedis(t)
	c := &clock{now: redistest.Today(t, 10)}
	st := newRedisState(t, srv.Addr(), fmt.Sprintf("negative%d:", prefixes.Add(1)), RedisConfig{Limits: Limits{MaxBytesPerDay: 1000}, Now: c.Now})
	ctx := context.Background()
	held, err := st.Reserve(ctx, "p", 400)
	if err != nil {
		t.Fatal(err)
	}
	released, err := st.Reserve(ctx, "p", 300)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.client.Del(ctx, st.keys(principalTag("p")).acct).Err(); err != nil {
		t.Fatal(err)
	}
	if err := st.Release(ctx, released); err != nil {
		t.Fatal(err)
	}
	r, err := st.Report(ctx, "p")
	noNegative(t, "after the release", r)
	if err != nil || r.Reserved != 0 || *r.Left != 1000 {
		t.Errorf("report = %+v, %v; want nothing held (what held it was lost), 1000 B left", r, err)
	}
	st.Settle(ctx, held, Usage{Jobs: 1, BytesBilled: 350})
	r, err = st.Report(ctx, "p")
	noNegative(t, "after the settlement", r)
	if err != nil || r.Reserved != 0 || r.Today.BytesBilled != 350 || *r.Left != 650 {
		t.Errorf("report = %+v, %v; want 350 B billed, nothing held", r, err)
	}
}
