package governance

import (
	"context"
	"fmt"
	"math"
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
// instance on the same state) with a dollar a day per principal, priced
// by testPricing.
func usdStates() map[string]func(t *testing.T, c *clock) (State, func() State) {
	out := map[string]func(t *testing.T, c *clock) (State, func() State){}
	for _, be := range backends {
		out[be.name] = func(t *testing.T, c *clock) (State, func() State) {
			return be.build(t, Limits{MaxUSDPerDay: 1}, testPricing, c)
		}
	}
	return out
}

// testPricing makes a byte cost a millionth of a dollar at the hold price
// and a job with a location four times that.
var testPricing = USDLimit{Price: func(b int64) (int64, bool) { return b, true },
	Job: func(j FinishedJob) (int64, bool) { return 4 * j.BytesBilled, j.Location != "" }}

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

// contractCosts: the ledger keeps what each job cost at its own price, in
// micro-USD, for the session and the day, whether or not a dollar limit is
// set; a job whose cost is unknown (editions without its slot time) is
// counted apart, not as free; another instance reads the same sums; a new
// UTC day starts the day's afresh while the session's go on; and with a
// limit, today's cost, the holds and what is left add up to it.
func contractCosts(t *testing.T, be backend) {
	ctx := context.Background()
	settle := func(t *testing.T, st State, p string, u Usage) {
		t.Helper()
		r, err := st.Reserve(ctx, p, u.BytesBilled)
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := st.Settle(ctx, r, u); !ok || err != nil {
			t.Fatalf("Settle = %v, %v", ok, err)
		}
	}
	t.Run("on-demand", func(t *testing.T) {
		c := &clock{now: redistest.Today(t, 10)}
		st, other := be.build(t, Limits{}, testPricing, c)
		if st.Limited() {
			t.Fatal("Limited = true with prices but no limit")
		}
		// At its own location: 4 µ$ a byte; without a job: the hold
		// price, 1 µ$ a byte; a cost the settlement gives wins.
		settle(t, st, "alice", Usage{Jobs: 1, BytesBilled: 100, Job: &FinishedJob{ID: "eu", Location: "EU", BytesBilled: 100}})
		settle(t, other(), "alice", Usage{Jobs: 1, BytesBilled: 50})
		settle(t, st, "alice", Usage{Jobs: 1, BytesBilled: 10, MicroUSD: 7})
		settle(t, st, "bob", Usage{Jobs: 1, BytesBilled: 1000})
		r, err := other().Report(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		if r.Session.MicroUSD != 457 || r.Today.MicroUSD != 457 || r.Session.Unpriced != 0 || r.Today.Jobs != 3 || r.LeftUSD != nil || r.ReservedUSD != nil {
			t.Errorf("alice's report = %+v, want 457 µ$ this session and today, no dollar limit", r)
		}
		c.Add(24 * time.Hour)
		if r, _ := st.Report(ctx, "alice"); r.Session.MicroUSD != 457 || r.Today.MicroUSD != 0 {
			t.Errorf("report on the next day = %+v, want 457 µ$ this session, 0 today", r)
		}
		if r, _ := st.Report(ctx, "bob"); r.Session.MicroUSD != 1000 {
			t.Errorf("bob's report = %+v, want his own 1000 µ$", r)
		}
	})
	t.Run("editions", func(t *testing.T) {
		c := &clock{now: redistest.Today(t, 10)}
		// Bytes set no price; a job's slot time does, when known.
		editions := USDLimit{Price: func(int64) (int64, bool) { return 0, false },
			Job: func(j FinishedJob) (int64, bool) { return j.SlotMs, j.HaveSlotMs }}
		st, other := be.build(t, Limits{}, editions, c)
		settle(t, st, "alice", Usage{Jobs: 1, BytesBilled: 100, Job: &FinishedJob{ID: "slots", BytesBilled: 100, SlotMs: 30, HaveSlotMs: true}})
		settle(t, other(), "alice", Usage{Jobs: 1, BytesBilled: 100, Job: &FinishedJob{ID: "noslots", BytesBilled: 100}})
		settle(t, st, "alice", Usage{Jobs: 1, BytesBilled: 100})
		r, _ := other().Report(ctx, "alice")
		if r.Today.MicroUSD != 30 || r.Session.MicroUSD != 30 || r.Today.Unpriced != 2 || r.Session.Unpriced != 2 || r.Today.Jobs != 3 {
			t.Errorf("report = %+v, want 30 µ$ from the one job with slot time and 2 jobs unpriced", r)
		}
		c.Add(24 * time.Hour)
		if r, _ := st.Report(ctx, "alice"); r.Today.Unpriced != 0 || r.Session.Unpriced != 2 {
			t.Errorf("report on the next day = %+v, want 2 unpriced this session, none today", r)
		}
	})
	t.Run("limit", func(t *testing.T) {
		c := &clock{now: redistest.Today(t, 10)}
		st, other := be.build(t, Limits{MaxUSDPerDay: 1}, testPricing, c)
		settle(t, st, "alice", Usage{Jobs: 1, BytesBilled: 100_000, Job: &FinishedJob{ID: "eu", Location: "EU", BytesBilled: 100_000}})
		if _, err := other().Reserve(ctx, "alice", 200_000); err != nil {
			t.Fatal(err)
		}
		r, _ := st.Report(ctx, "alice")
		micro := func(usd *float64) int64 {
			if usd == nil {
				return -1
			}
			return int64(math.Round(*usd * 1e6))
		}
		if r.Today.MicroUSD != 400_000 || micro(r.ReservedUSD) != 200_000 || micro(r.LeftUSD) != 400_000 {
			t.Errorf("report = %+v (reserved %d µ$, left %d µ$), want 400,000 µ$ spent, 200,000 held, 400,000 left", r, micro(r.ReservedUSD), micro(r.LeftUSD))
		}
		if sum := r.Today.MicroUSD + micro(r.ReservedUSD) + micro(r.LeftUSD); sum != int64(math.Round(r.DayLimitUSD*1e6)) {
			t.Errorf("today %d + held %d + left %d = %d µ$, want the limit $%v", r.Today.MicroUSD, micro(r.ReservedUSD), micro(r.LeftUSD), sum, r.DayLimitUSD)
		}
	})
}

// TestRedisReadsAccountsWithoutCosts: during a rolling deploy an older
// instance shares the Redis and writes accounts without the cost fields
// (the session's s_usd and s_unpriced, the day's unpriced), and holds
// without their price. They read as 0, never as an error, and a job this
// version settles adds its cost beside them.
func TestRedisReadsAccountsWithoutCosts(t *testing.T) {
	c := &clock{now: redistest.Today(t, 10)}
	srv := sharedRedis(t)
	st := newRedisState(t, srv.Addr(), fmt.Sprintf("old%d:", prefixes.Add(1)), RedisConfig{Limits: Limits{MaxUSDPerDay: 1}, USD: testPricing, Now: c.Now})
	ctx := context.Background()
	k := st.keys(principalTag("alice"))
	// What an older instance left: two jobs settled, one still held.
	if err := st.client.HSet(ctx, k.acct, "s_jobs", 2, "s_proc", 300, "s_billed", 300, "held", 40).Err(); err != nil {
		t.Fatal(err)
	}
	if err := st.client.HSet(ctx, k.day, "jobs", 2, "proc", 300, "billed", 300).Err(); err != nil {
		t.Fatal(err)
	}
	if err := st.client.HSet(ctx, k.holds, "h."+k.tag+".old", "40").Err(); err != nil {
		t.Fatal(err)
	}
	r, err := st.Report(ctx, "alice")
	if err != nil {
		t.Fatalf("Report of an older account = %v", err)
	}
	if r.Session.Jobs != 2 || r.Session.MicroUSD != 0 || r.Session.Unpriced != 0 || r.Today.MicroUSD != 0 || r.Today.Unpriced != 0 || r.Reserved != 40 {
		t.Errorf("report = %+v, want the older jobs with no cost", r)
	}
	if ok, err := st.Settle(ctx, "h."+k.tag+".old", Usage{Jobs: 1, BytesBilled: 40}); !ok || err != nil {
		t.Fatalf("Settle of an older hold = %v, %v", ok, err)
	}
	if r, _ := st.Report(ctx, "alice"); r.Session.Jobs != 3 || r.Session.MicroUSD != 40 || r.Today.MicroUSD != 40 || r.Reserved != 0 {
		t.Errorf("report after settling the older hold = %+v, want 40 µ$ this session and today", r)
	}
}
