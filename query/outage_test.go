package query

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/governance/redistest"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// TestFailOpenOutageChargedThroughExecute is issue 29's trial through
// execute_sql: three instances with --state-fail-open share one Redis and
// a 1000 MiB day budget, every query billing its 100 MiB estimate. Three
// queries run before Redis stops answering (it is paused: its data
// stays), one on each instance while it does (run unchecked), and when it
// answers again the store counts every job BigQuery billed, and the budget
// admits only what is left of it: the fleet bills the budget, not the
// budget plus what ran during the outage. usage is never negative.
func TestFailOpenOutageChargedThroughExecute(t *testing.T) {
	const budget = 1000 * mib
	fake := newLedgerBigQuery(t, 100*mib, 100*mib, 10*time.Millisecond)
	rs := redistest.Start(t)
	start, t0 := redistest.Today(t, 10), time.Now()
	now := func() time.Time { return start.Add(time.Since(t0)) }
	var fleet []*Service
	var states []*governance.Redis
	// recovered hears which instance found the store answering again with
	// everything it kept through the outage written (RedisConfig.Recovered).
	recovered := make(chan int, 64)
	for i := range 3 {
		cfg := resilience.Defaults()
		cfg.Retry[resilience.State] = resilience.Policy{Attempts: 1, Timeout: 300 * time.Millisecond}
		cfg.Breaker = resilience.Breaker{Failures: 2, Open: 50 * time.Millisecond, Successes: 1}
		ex, err := resilience.NewExecutor(cfg, resilience.Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		// The server's client settings (governance.NewRedisClient), on
		// connections that time out after redistest.PausedWait while
		// Redis is paused, not after a second; kept writes tried again
		// every 10 ms.
		client, err := governance.NewRedisClient(governance.Config{State: rs.URL()})
		if err != nil {
			t.Fatal(err)
		}
		opts := client.Options()
		client.Close()
		opts.Dialer = rs.Dialer()
		st := governance.NewRedis(governance.RedisConfig{Client: redis.NewClient(opts), StatePrefix: "outage:", Limits: governance.Limits{MaxBytesPerDay: budget}, StateFailOpen: true, Now: now,
			RetryEvery: 10 * time.Millisecond,
			Recovered:  func() { recovered <- i },
			Do: func(ctx context.Context, fn func(context.Context) error) error {
				return ex.Do(ctx, resilience.State, resilience.StateScope, fn)
			}})
		t.Cleanup(func() { st.Close() })
		s := newLedgerService(t, fake, 0, budget, func(c *Config) { c.State = st })
		fleet = append(fleet, s)
		states = append(states, st)
	}
	ctx := context.Background()
	usage := func(when string) (*UsageOutput, bool) {
		t.Helper()
		var first *UsageOutput
		for i, s := range fleet {
			u, err := s.Usage(ctx, UsageInput{})
			if err != nil {
				continue // UNAVAILABLE while the store cannot be read
			}
			if u.Today.BytesBilled < 0 || u.Session.BytesBilled < 0 || u.Reserved < 0 || (u.Left != nil && *u.Left < 0) || u.TodayCostUSD < 0 || u.SessionCostUSD < 0 {
				t.Errorf("%s: usage on instance %d is negative: %+v", when, i, u)
			}
			if first == nil {
				first = u
			}
		}
		return first, first != nil
	}
	run := func(i int) error {
		_, err := fleet[i].Execute(ctx, ExecuteInput{SQL: "SELECT n FROM sales.t"})
		return err
	}

	for range 3 {
		if err := run(0); err != nil {
			t.Fatal(err)
		}
	}
	rs.Pause()
	resumed := false
	defer func() {
		if !resumed {
			rs.Resume()
		}
	}()
	for i := range fleet {
		if err := run(i); err != nil {
			t.Fatalf("query on instance %d with Redis paused and fail-open = %v", i, err)
		}
	}
	usage("during the outage")
	rs.Resume()
	resumed = true
	usage("while the kept writes drain")
	// Every instance ran a query during the outage, so each kept writes
	// and tells when it has written them.
	for back := map[int]bool{}; len(back) < len(fleet); {
		select {
		case i := <-recovered:
			back[i] = true
		case <-time.After(15 * time.Second):
			t.Fatalf("instances %v recovered 15 s after Redis came back, want all %d", back, len(fleet))
		}
	}
	for i, st := range states {
		if n := st.Pending(); n != 0 {
			t.Fatalf("instance %d recovered with %d writes still kept", i, n)
		}
	}
	billed, jobs := fake.invoice()
	u, ok := usage("Redis back")
	if !ok || u.Today.BytesBilled != billed || u.Today.Jobs != int64(jobs) || u.Reserved != 0 {
		t.Fatalf("usage after Redis came back = %+v; want the %d MiB of the %d jobs BigQuery billed", u, billed/mib, jobs)
	}
	admitted := 0
	for i := 0; i < 20; i++ {
		err := run(i % len(fleet))
		if err != nil {
			if !isExhausted(err) {
				t.Fatalf("query after Redis came back = %v", err)
			}
			break
		}
		admitted++
	}
	billed, jobs = fake.invoice()
	u, _ = usage("budget spent")
	t.Logf("fail-open through a paused Redis, over execute_sql: %d queries after it came back; BigQuery billed %d MiB in %d jobs of a %d MiB budget (%.2fx); the store counts %d MiB",
		admitted, billed/mib, jobs, budget/mib, float64(billed)/budget, u.Today.BytesBilled/mib)
	if billed != budget || u.Today.BytesBilled != billed {
		t.Errorf("BigQuery billed %d MiB, the store counts %d MiB; want both the budget, %d MiB", billed/mib, u.Today.BytesBilled/mib, budget/mib)
	}
}
