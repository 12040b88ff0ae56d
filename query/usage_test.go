package query

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/governance/redistest"
)

// usage lists each principal's own last jobs, newest first, priced at
// their location, after a mix of jobs from two principals: in memory, and
// on Redis shared by two instances (each principal served by either).
func TestUsageLastJobsPerPrincipal(t *testing.T) {
	for _, backend := range []string{"memory", "redis"} {
		t.Run(backend, func(t *testing.T) {
			fake := newLedgerBigQuery(t, 3*mib, 2*mib, 0)
			// The two instances' states: one memory, or two on one Redis.
			var states [2]governance.State
			if backend == "redis" {
				rs := redistest.Start(t)
				start := redistest.Today(t, 10)
				for i := range states {
					st := governance.NewRedis(governance.RedisConfig{Client: redis.NewClient(&redis.Options{Addr: rs.Addr()}), StatePrefix: "usage:", Limits: governance.Limits{MaxBytesPerDay: 100 * tib},
						Now: func() time.Time { return start }})
					t.Cleanup(func() { st.Close() })
					states[i] = st
				}
			} else {
				mem := governance.NewMemory(governance.NewBudget(governance.Limits{MaxBytesPerDay: 100 * tib}), nil)
				states = [2]governance.State{mem, mem}
			}
			a := newLedgerService(t, fake, 0, 100*tib, func(c *Config) { c.State = states[0] })
			b := newLedgerService(t, fake, 0, 100*tib, func(c *Config) { c.State = states[1] })
			label := func(p, tool string) context.Context {
				return governance.WithJobLabels(as(p), map[string]string{"mcp_tool": tool})
			}
			alice, bob := label("token:alice", "execute_sql"), label("token:bob", "execute_sql")
			ran := map[string][]string{}
			for i, c := range []struct {
				ctx context.Context
				who string
				s   *Service
			}{{alice, "alice", a}, {bob, "bob", b}, {alice, "alice", b}, {alice, "alice", a}, {bob, "bob", a}} {
				out, err := c.s.Execute(c.ctx, ExecuteInput{SQL: fmt.Sprintf("SELECT %d FROM sales.t", i)})
				if err != nil {
					t.Fatal(err)
				}
				ran[c.who] = append(ran[c.who], out.JobID)
			}
			for who, ctx := range map[string]context.Context{"alice": alice, "bob": bob} {
				for _, s := range []*Service{a, b} {
					u, err := s.Usage(ctx, UsageInput{})
					if err != nil {
						t.Fatal(err)
					}
					want := ran[who]
					if len(u.LastJobs) != len(want) {
						t.Fatalf("%s: lastJobs %+v, want %v", who, u.LastJobs, want)
					}
					for i, j := range u.LastJobs {
						if j.JobID != want[len(want)-1-i] { // newest first
							t.Errorf("%s: lastJobs[%d] = %s, want %s (of %v)", who, i, j.JobID, want[len(want)-1-i], want)
						}
						if j.Tool != "execute_sql" || j.Statement != "SELECT" || j.BytesBilled != 2*mib || j.CostUSD == nil || j.At == "" || j.DurationMs < 0 {
							t.Errorf("%s: job %+v", who, j)
						}
						if usd, _ := a.price("US").FromBytes(2 * mib); j.CostUSD != nil && *j.CostUSD != usd {
							t.Errorf("%s: costUSD %v, want %v at the US price", who, *j.CostUSD, usd)
						}
					}
					if u.Today.Jobs != int64(len(want)) {
						t.Errorf("%s: today %+v, want %d jobs", who, u.Today, len(want))
					}
				}
			}
		})
	}
}

// usage's costs are each job's at its own price, as the dollar budget
// counts them: two jobs of 1 TiB, in europe-west2 ($7.82 by
// --price-per-tib-by-location) and in US ($6.25, the table), on a server
// whose --location is unset ($5, --price-per-tib), cost $14.07 today, which
// is also dayLimitUSD - leftUSD with nothing held; in memory, and on Redis
// shared by the two instances that ran them.
func TestUsageCostsEachJobAtItsOwnPrice(t *testing.T) {
	for _, backend := range []string{"memory", "redis"} {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			limits := governance.Limits{MaxUSDPerDay: 100}
			// Each instance's state, priced as the server prices it: one
			// memory state for both, or one Redis state each on one Redis.
			var rs *redistest.Server
			if backend == "redis" {
				rs = redistest.Start(t)
			}
			var mem governance.State
			priced := func(c *Config) {
				pricing := c.LedgerPricing(c.Location)
				if rs == nil {
					if mem == nil {
						mem = governance.NewMemory(governance.NewBudget(limits).WithUSDPerDay(pricing), nil)
					}
					c.State = mem
					return
				}
				start := redistest.Today(t, 10)
				st := governance.NewRedis(governance.RedisConfig{Client: redis.NewClient(&redis.Options{Addr: rs.Addr()}), StatePrefix: "cost:", Limits: limits,
					USD: pricing, Now: func() time.Time { return start }})
				t.Cleanup(func() { st.Close() })
				c.State = st
			}
			eu := newPricedService(t, &priceBigQuery{location: "europe-west2", bytes: tib}, false, priced)
			us := newPricedService(t, &priceBigQuery{location: "US", bytes: tib}, false, priced)
			var want int64
			for _, s := range []*Service{eu, us} {
				out, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM sales.orders"})
				if err != nil {
					t.Fatal(err)
				}
				micro, _ := s.price(out.Location).MicroUSD(out.BytesBilled, 0, false)
				want += micro
			}
			if want != 14_070_000 {
				t.Fatalf("the two jobs cost %d µ$ at their own prices, want 14,070,000", want)
			}
			for _, s := range []*Service{eu, us} {
				u, err := s.Usage(ctx, UsageInput{})
				if err != nil {
					t.Fatal(err)
				}
				if got := int64(math.Round(u.TodayCostUSD * 1e6)); got != want || u.SessionCostUSD != u.TodayCostUSD {
					t.Errorf("todayCostUSD %v, sessionCostUSD %v; want $%v, each job at its own price", u.TodayCostUSD, u.SessionCostUSD, float64(want)/1e6)
				}
				if u.LeftUSD == nil || u.ReservedUSD == nil || *u.ReservedUSD != 0 {
					t.Fatalf("usage %+v: want leftUSD and nothing held", u)
				}
				if spent := int64(math.Round((u.DayLimitUSD - *u.LeftUSD) * 1e6)); spent != want {
					t.Errorf("dayLimitUSD %v - leftUSD %v = %d µ$, want todayCostUSD's %d", u.DayLimitUSD, *u.LeftUSD, spent, want)
				}
				if u.Note != "" {
					t.Errorf("note %q, want none: every job is priced", u.Note)
				}
			}
		})
	}
}
