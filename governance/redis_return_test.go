package governance

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance/redistest"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// Issue 36's "budgets after Redis returns": three instances with
// --state-fail-open share one Redis and a day budget of 3.5 queries'
// bytes (350 B, every query billing its 100 B estimate). One query runs
// before an outage (instance 0), one during it (instance 1, whose state
// breaker opens), and Redis is restarted with its data. Before the fix
// the instance whose breaker opened went on without a budget check, and
// answered usage with UNAVAILABLE, for the breaker's open time (a
// minute) after Redis answered again: three more queries ran, five in
// all. Here the breakers stay open for an hour unless the store's probe
// closes them.

// returnBudget is the scenario's day budget: 3.5 queries of 100 B.
const returnBudget = 350

// outageThenRestart runs the scenario up to Redis's restart: one query
// on instance 0, Redis stopped (keeping its data), one query on instance
// 1 that runs unchecked, then Redis started again. It checks what every
// instance knows during the outage, and zeroes the fail-open counts, so
// that the test reads those made after Redis answers.
func outageThenRestart(t *testing.T, budget int64, retryEvery time.Duration) (*fleet, *clock) {
	t.Helper()
	srv := redistest.Start(t)
	c := &clock{now: redistest.Today(t, 10)}
	f := newFleetWith(t, srv, "return:", 3, budget, c, fleetOptions{
		breaker:    resilience.Breaker{Failures: 1, Open: time.Hour, Successes: 2},
		retryEvery: retryEvery,
	})
	if err := f.query(0, 100); err != nil {
		t.Fatal(err)
	}
	srv.StopKeepingData()
	id, err := f.start(1, 100)
	if err != nil || !strings.HasPrefix(id, "u.") {
		t.Fatalf("instance 1 with Redis down and fail-open: %q, %v; want an unheld reservation", id, err)
	}
	f.finish(1, id, 100)
	// Kept: the release of the reserve whose answer was lost, and the
	// settlement.
	if f.opened[1].Load() == 0 || !f.states[1].Down() || f.states[1].Pending() != 2 {
		t.Fatalf("instance 1 during the outage: breaker opened %d times, down %v, %d writes kept; want open, down and its release and settlement kept",
			f.opened[1].Load(), f.states[1].Down(), f.states[1].Pending())
	}
	if f.failedOpen[1].Load() == 0 {
		t.Error("the query during the outage was not counted as run without a budget check")
	}
	if _, err := f.states[1].Report(context.Background(), "p"); bqerr.From(err).Code != bqerr.Unavailable {
		t.Errorf("usage on instance 1 during the outage = %v; want UNAVAILABLE", err)
	}
	srv.StartAgain()
	for i := range f.failedOpen {
		f.failedOpen[i].Store(0)
	}
	return f, c
}

// afterReturn checks the scenario's end: admitted queries ran after
// Redis answered (want of them), none of them without a budget check,
// the store counts every job once, and the fleet billed what BigQuery
// did: at most the budget, with no overspend at all here.
func (f *fleet) afterReturn(admitted, want int) {
	f.t.Helper()
	for i := range f.states {
		if n := f.failedOpen[i].Load(); n != 0 {
			f.t.Errorf("instance %d ran %d steps without the store after it answered again", i, n)
		}
		if s := f.executors[i].BreakerStates()[resilience.StateScope]; s == resilience.Open {
			f.t.Errorf("instance %d's state breaker is still open after the store answered", i)
		}
	}
	r := f.settledOnce("after Redis returned")
	f.t.Logf("Redis stopped and restarted under --state-fail-open: %d queries ran in all (%d after it returned), %d B billed of a %d B budget; the store counts %d B",
		len(f.ran), admitted, f.spent, f.budget, r.Today.BytesBilled)
	if admitted != want || f.spent > f.budget {
		f.t.Errorf("%d queries admitted after Redis returned, %d B billed in all; want %d and at most the budget, %d B", admitted, f.spent, want, f.budget)
	}
}

// TestRedisReturnUsageAnswersAtOnce: the first usage on the instance
// that ran a query during the outage, made as soon as Redis is back,
// answers, with that query already charged; then queries round the
// fleet admit one more (300 B of 350), and refuse the next. No
// background probe runs (it would wait an hour): the usage call's own
// probe settles.
func TestRedisReturnUsageAnswersAtOnce(t *testing.T) {
	f, _ := outageThenRestart(t, returnBudget, time.Hour)
	r, err := f.states[1].Report(context.Background(), "p")
	if err != nil || r.Today.BytesBilled != 200 || r.Today.Jobs != 2 || r.Reserved != 0 {
		t.Fatalf("first usage on instance 1 after Redis returned = %+v, %v; want it to answer with both jobs, 200 B, charged", r, err)
	}
	if f.states[1].Down() || f.states[1].Pending() != 0 {
		t.Errorf("instance 1 after its usage answered: down %v, %d writes kept", f.states[1].Down(), f.states[1].Pending())
	}
	f.afterReturn(f.spendFrom(0), 1)
}

// TestRedisReturnIdleInstanceSettlesWithinSeconds: nobody calls the
// instance that ran a query during the outage; its background probe
// finds Redis back, charges that query and closes its breaker (here
// within a poll, at most a few seconds: the probe runs every 10 ms in
// this test, every second in the server). Queries then admitted on any
// instance count it.
func TestRedisReturnIdleInstanceSettlesWithinSeconds(t *testing.T) {
	f, _ := outageThenRestart(t, returnBudget, testRetryEvery)
	start := time.Now()
	for deadline := start.Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if !f.states[1].Down() && f.states[1].Pending() == 0 &&
			f.executors[1].BreakerStates()[resilience.StateScope] == resilience.Closed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("instance 1 still down (%d writes kept, breaker %s) 10 s after Redis returned",
				f.states[1].Pending(), f.executors[1].BreakerStates()[resilience.StateScope])
		}
	}
	t.Logf("the idle instance settled and closed its breaker %v after Redis returned", time.Since(start).Round(time.Millisecond))
	f.afterReturn(f.spendFrom(0), 1)
}

// TestRedisReturnSettlesBeforeAdmitting: the first step the instance
// that ran a query during the outage makes after Redis returns (a second
// later by its clock, when its next probe is due) is a query: it charges
// the outage's query first, and only then checks the budget. With 2.5
// queries' bytes, the store without that charge would have admitted it
// (150 B left); with it, 50 B are left and the query is refused.
func TestRedisReturnSettlesBeforeAdmitting(t *testing.T) {
	f, c := outageThenRestart(t, 250, time.Hour)
	c.Add(probeEvery)
	err := f.query(1, 100)
	if e, ok := bqerr.As(err); !ok || e.Code != bqerr.ResourceExhausted {
		t.Fatalf("query on instance 1 after Redis returned = %v; want RESOURCE_EXHAUSTED (the outage's query charged first)", err)
	}
	if f.states[1].Down() || f.states[1].Pending() != 0 {
		t.Errorf("instance 1 after its first query: down %v, %d writes kept", f.states[1].Down(), f.states[1].Pending())
	}
	f.afterReturn(f.spendFrom(2), 0)
}

// TestRedisDownProbesOncePerSecond: while the store is down, a query
// asks it at most once a second (by the state's clock): the others go on
// without it at once, without waiting on a store that may hang.
func TestRedisDownProbesOncePerSecond(t *testing.T) {
	srv := redistest.Start(t)
	c := &clock{now: redistest.Today(t, 10)}
	steps := 0
	st := newRedisStateOn(t, "probes:", RedisConfig{Client: testClient(t, srv), Limits: Limits{MaxBytesPerDay: 1000}, StateFailOpen: true, Now: c.Now, RetryEvery: time.Hour,
		Hooks: RedisHooks{Step: func(context.Context, string, time.Duration, error) { steps++ }}})
	ctx := context.Background()
	srv.Stop()
	if _, err := st.Reserve(ctx, "p", 100); err != nil || !st.Down() {
		t.Fatalf("Reserve with Redis stopped = %v, down %v; want fail-open and down", err, st.Down())
	}
	probed := st.probed
	for range 5 {
		if id, err := st.Reserve(ctx, "p", 100); err != nil || !strings.HasPrefix(id, "u.") {
			t.Fatalf("Reserve while down = %q, %v", id, err)
		}
	}
	if steps != 1 {
		t.Errorf("%d store steps for six reserves while down; want only the first", steps)
	}
	if st.probed == probed {
		t.Error("no probe was made by the first reserve after the store went down")
	}
	later := st.probed
	c.Add(probeEvery / 2)
	st.Reserve(ctx, "p", 100)
	if st.probed != later {
		t.Error("a reserve probed again within a second of the last probe")
	}
	c.Add(probeEvery / 2)
	st.Reserve(ctx, "p", 100)
	if st.probed == later {
		t.Error("no reserve probed a second after the last probe")
	}
}
