package query

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/governance/redistest"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// TestFailOpenRedisReturnThroughExecute is issue 36's "budgets after
// Redis returns" through execute_sql and usage: three instances with
// --state-fail-open and the server's default retry policy and breaker
// (open for a minute) share one Redis and a day budget of 3.5 queries'
// bytes. One query runs before Redis stops, one during the outage, and
// Redis starts again with its data. Before the fix, three more queries
// ran before the budget refused (five billed, against three that fit and
// the one of the outage), and usage answered UNAVAILABLE on the instance
// of the outage for a minute. Now its first usage answers with the
// outage's query charged, one more query runs, and no step goes on
// without the store after it answered; so too when the first call after
// Redis returns is a query on that instance, a second later by its
// clock (when its next probe is due). The state's clock is fake, and no
// background probe runs within the test (it would wait an hour).
func TestFailOpenRedisReturnThroughExecute(t *testing.T) {
	for _, tc := range []struct {
		name       string
		usageFirst bool
	}{{"usage first", true}, {"query first", false}} {
		t.Run(tc.name, func(t *testing.T) { redisReturnThroughExecute(t, tc.usageFirst) })
	}
}

func redisReturnThroughExecute(t *testing.T, usageFirst bool) {
	const budget = 350 * mib
	fake := newLedgerBigQuery(t, 100*mib, 100*mib, time.Millisecond)
	rs := redistest.Start(t)
	var now atomic.Pointer[time.Time]
	start := redistest.Today(t, 10)
	now.Store(&start)
	var fleet []*Service
	var states []*governance.Redis
	var failedOpen atomic.Int64
	for range 3 {
		ex, err := resilience.NewExecutor(resilience.Defaults(), resilience.Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		client, err := governance.NewRedisClient(governance.Config{State: rs.URL()})
		if err != nil {
			t.Fatal(err)
		}
		st := governance.NewRedis(governance.RedisConfig{Client: client, StatePrefix: "return:", Limits: governance.Limits{MaxBytesPerDay: budget}, StateFailOpen: true,
			Now: func() time.Time { return *now.Load() }, RetryEvery: time.Hour,
			Do: func(ctx context.Context, fn func(context.Context) error) error {
				return ex.Do(ctx, resilience.State, resilience.StateScope, fn)
			},
			Recovered: func() { ex.CloseBreaker(resilience.StateScope) },
			Hooks:     governance.RedisHooks{FailedOpen: func(context.Context, string) { failedOpen.Add(1) }}})
		t.Cleanup(func() { st.Close() })
		fleet = append(fleet, newLedgerService(t, fake, 0, budget, func(c *Config) { c.State = st }))
		states = append(states, st)
	}
	ctx := context.Background()
	run := func(i int) error {
		_, err := fleet[i].Execute(ctx, ExecuteInput{SQL: "SELECT n FROM sales.t"})
		return err
	}

	if err := run(0); err != nil {
		t.Fatal(err)
	}
	rs.StopKeepingData()
	if err := run(1); err != nil {
		t.Fatalf("query on instance 1 with Redis stopped and fail-open = %v", err)
	}
	if failedOpen.Load() == 0 || !states[1].Down() {
		t.Fatalf("the query during the outage: %d steps without the store, down %v; want it run unchecked", failedOpen.Load(), states[1].Down())
	}
	if _, err := fleet[1].Usage(ctx, UsageInput{}); err == nil {
		t.Fatal("usage answered during the outage")
	}
	rs.StartAgain()
	failedOpen.Store(0)

	if usageFirst {
		u, err := fleet[1].Usage(ctx, UsageInput{})
		if err != nil || u.Today.BytesBilled != 200*mib || u.Today.Jobs != 2 {
			t.Fatalf("first usage on instance 1 after Redis returned = %+v, %v; want both jobs, 200 MiB", u, err)
		}
	} else {
		later := start.Add(time.Second)
		now.Store(&later)
	}
	admitted := 0
	for i := 1; i < 10; i++ {
		err := run(i % len(fleet))
		if err != nil {
			if !isExhausted(err) {
				t.Fatalf("query after Redis returned = %v", err)
			}
			break
		}
		admitted++
	}
	billed, jobs := fake.invoice()
	u, err := fleet[0].Usage(ctx, UsageInput{})
	t.Logf("Redis stopped and restarted under --state-fail-open, over execute_sql: %d jobs ran (%d after it returned), BigQuery billed %d MiB of a %d MiB budget; the store counts %d MiB",
		jobs, admitted, billed/mib, budget/mib, u.Today.BytesBilled/mib)
	if admitted != 1 || jobs != 3 || billed > budget {
		t.Errorf("%d queries after Redis returned, %d jobs, %d MiB billed; want 1, 3 and at most the budget", admitted, jobs, billed/mib)
	}
	if err != nil || u.Today.BytesBilled != billed || u.Today.Jobs != int64(jobs) || u.Reserved != 0 {
		t.Errorf("usage after the budget was spent = %+v, %v; want the %d MiB BigQuery billed", u, err, billed/mib)
	}
	if n := failedOpen.Load(); n != 0 {
		t.Errorf("%d steps went on without the store after it answered again", n)
	}
}
