package governance

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/governance/redistest"
)

// Each principal's last settled jobs: newest first, at most MaxRecentJobs,
// a job settled twice listed once, a released reservation not listed,
// another instance sees them (Redis), and they go with the records' TTL.
func TestRecentJobsContract(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			c := &clock{now: redistest.Today(t, 10)}
			st, other := be.build(t, bytesLimits(0, 1<<40), USDLimit{}, c)
			ctx := context.Background()
			settle := func(p, id string) {
				t.Helper()
				r, err := st.Reserve(ctx, p, 10)
				if err != nil {
					t.Fatal(err)
				}
				j := &FinishedJob{ID: id, Location: "EU", Tool: "execute_sql", Statement: "SELECT", BytesBilled: 7, CacheHit: true, Started: c.Now().Add(-time.Second), Ended: c.Now()}
				for range 2 {
					if _, err := st.Settle(ctx, r, Usage{Jobs: 1, BytesBilled: 7, Job: j}); err != nil {
						t.Fatal(err)
					}
				}
				c.Add(time.Second)
			}
			for i := range MaxRecentJobs + 2 {
				settle("alice", fmt.Sprintf("a%d", i))
			}
			settle("bob", "b0")
			if r, err := st.Reserve(ctx, "bob", 10); err != nil || st.Release(ctx, r) != nil {
				t.Fatal(err)
			}
			jobs, err := other().RecentJobs(ctx, "alice")
			if err != nil || len(jobs) != MaxRecentJobs {
				t.Fatalf("alice: %d jobs, %v; want %d", len(jobs), err, MaxRecentJobs)
			}
			for i, j := range jobs {
				if want := fmt.Sprintf("a%d", MaxRecentJobs+1-i); j.ID != want || j.Tool != "execute_sql" || !j.CacheHit || j.BytesBilled != 7 || j.Ended.Sub(j.Started) != time.Second {
					t.Errorf("alice[%d] = %+v, want %s", i, j, want)
				}
			}
			bob, err := st.RecentJobs(ctx, "bob")
			if err != nil || len(bob) != 1 || bob[0].ID != "b0" || bob[0].Location != "EU" {
				t.Errorf("bob: %+v, %v", bob, err)
			}
			if none, err := st.RecentJobs(ctx, "carol"); err != nil || len(none) != 0 {
				t.Errorf("carol: %+v, %v", none, err)
			}
			c.Add(JobRecordTTL)
			if old, err := st.RecentJobs(ctx, "bob"); err != nil || len(old) != 0 {
				t.Errorf("bob a day later: %+v, %v", old, err)
			}
		})
	}
}
