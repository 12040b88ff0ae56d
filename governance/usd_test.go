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
)

// TestUSDBudgetContract holds memory and Redis state to one behaviour of
// --max-usd-per-day: holds priced at the hold price count against it, a
// settlement charges its own cost (or its bytes at the hold price), what
// is left is never negative, a principal's spend is theirs, and a new UTC
// day starts afresh.
func TestUSDBudgetContract(t *testing.T) {
	for name, build := range usdStates() {
		t.Run(name, func(t *testing.T) {
			c := &clock{now: redistest.Today(t, 10)}
			st, other := build(t, c)
			ctx := context.Background()
			if !st.Limited() {
				t.Fatal("Limited = false with a dollar limit")
			}
			r1, err := st.Reserve(ctx, "alice", 600_000)
			if err != nil {
				t.Fatalf("Reserve $0.60 = %v", err)
			}
			_, err = other().Reserve(ctx, "alice", 500_000)
			if e, ok := bqerr.As(err); !ok || e.Code != bqerr.ResourceExhausted || !strings.Contains(e.Message, "dollar budget") || !strings.Contains(e.Message, "$0.6 is held") {
				t.Fatalf("Reserve past what is left = %v, want RESOURCE_EXHAUSTED naming the dollar budget and the hold", err)
			}
			if err := st.Check(ctx, "alice", 500_000); err == nil {
				t.Error("Check past what is left passed")
			}
			if err := st.Check(ctx, "bob", 500_000); err != nil {
				t.Errorf("another principal's Check = %v", err)
			}
			// Billed 300,000 bytes, no cost given: priced at the hold price.
			if _, err := other().Settle(ctx, r1, Usage{Jobs: 1, BytesBilled: 300_000}); err != nil {
				t.Fatal(err)
			}
			if r, _ := st.Report(ctx, "alice"); r.DayLimitUSD != 1 || r.LeftUSD == nil || *r.LeftUSD != 0.7 {
				t.Errorf("report after $0.30 = %+v, want $0.70 left of $1", r)
			}
			r2, err := st.Reserve(ctx, "alice", 700_000)
			if err != nil {
				t.Fatalf("Reserve of all that is left = %v", err)
			}
			// The job ran where it cost more than the hold: $0.80.
			if _, err := st.Settle(ctx, r2, Usage{Jobs: 1, BytesBilled: 700_000, MicroUSD: 800_000}); err != nil {
				t.Fatal(err)
			}
			if r, _ := st.Report(ctx, "alice"); r.LeftUSD == nil || *r.LeftUSD != 0 {
				t.Errorf("report after $1.10 = %+v, want $0 left, never negative", r)
			}
			if _, err := st.Reserve(ctx, "alice", 0); err == nil {
				t.Error("a query with nothing left of the dollar budget was let through")
			}
			if _, err := st.Reserve(ctx, "bob", 900_000); err != nil {
				t.Errorf("bob's Reserve = %v, want his own budget", err)
			}
			// A settled job is priced at its own location.
			r3, err := st.Reserve(ctx, "carol", 100_000)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Settle(ctx, r3, Usage{Jobs: 1, BytesBilled: 100_000, Job: &FinishedJob{ID: "j", Location: "asia-east1", BytesBilled: 100_000}}); err != nil {
				t.Fatal(err)
			}
			if r, _ := st.Report(ctx, "carol"); r.LeftUSD == nil || *r.LeftUSD != 0.6 {
				t.Errorf("carol's report = %+v, want $0.60 left after a job priced at its location", r)
			}
			c.Add(24 * time.Hour)
			if _, err := st.Reserve(ctx, "alice", 900_000); err != nil {
				t.Errorf("Reserve on a new day = %v", err)
			}
		})
	}
}

// usdStates builds memory and Redis states (the second func gives another
// instance on the same state) with a dollar a day per principal, where a
// byte costs a millionth of a dollar at the hold price and a job at its
// own location four times that.
func usdStates() map[string]func(t *testing.T, c *clock) (State, func() State) {
	limit := USDLimit{Price: func(b int64) int64 { return b },
		Job: func(j FinishedJob) (int64, bool) { return 4 * j.BytesBilled, j.Location != "" }}
	return map[string]func(t *testing.T, c *clock) (State, func() State){
		"memory": func(t *testing.T, c *clock) (State, func() State) {
			b := NewBudget(Limits{MaxUSDPerDay: 1}).WithUSDPerDay(limit)
			b.now = c.Now
			m := NewMemory(b, nil)
			return m, func() State { return m }
		},
		"redis": func(t *testing.T, c *clock) (State, func() State) {
			srv := sharedRedis(t)
			prefix := fmt.Sprintf("usd%d:", prefixes.Add(1))
			cfg := RedisConfig{Limits: Limits{MaxUSDPerDay: 1}, USD: limit, Now: c.Now}
			st := newRedisState(t, srv.Addr(), prefix, cfg)
			return st, func() State { return newRedisState(t, srv.Addr(), prefix, cfg) }
		},
	}
}

// TestUSDBudgetHoldsUnderParallelCalls: 40 queries of $0.10 each, sent at
// once by one principal through two instances, get exactly ten holds from
// a dollar a day: a race never lets a caller overspend.
func TestUSDBudgetHoldsUnderParallelCalls(t *testing.T) {
	for name, build := range usdStates() {
		t.Run(name, func(t *testing.T) {
			c := &clock{now: redistest.Today(t, 10)}
			st, other := build(t, c)
			instances := []State{st, other()}
			var admitted atomic.Int32
			var wg sync.WaitGroup
			for i := range 40 {
				wg.Go(func() {
					if _, err := instances[i%2].Reserve(context.Background(), "mallory", 100_000); err == nil {
						admitted.Add(1)
					} else if e, ok := bqerr.As(err); !ok || e.Code != bqerr.ResourceExhausted {
						t.Errorf("Reserve = %v, want RESOURCE_EXHAUSTED", err)
					}
				})
			}
			wg.Wait()
			if got := admitted.Load(); got != 10 {
				t.Errorf("%d holds of $0.10 admitted from $1, want 10", got)
			}
		})
	}
}
