package governance

import (
	"context"
	"encoding/json"
	"time"
)

// MaxRecentJobs is how many of a principal's last settled jobs are kept
// for usage: a small list, since the answer counts against an agent's
// context.
const MaxRecentJobs = 10

// FinishedJob is one of a principal's last jobs, as settled: what usage
// lists of it. It is written when the job's cost is settled, in the same
// step (Settle, through Usage.Job), and lives as long as a job record.
type FinishedJob struct {
	ID       string `json:"id"`
	Location string `json:"l,omitempty"`
	// Tool started the job (its mcp_tool label); Statement is its kind
	// (SELECT, INSERT, SCRIPT…) when known.
	Tool        string `json:"tl,omitempty"`
	Statement   string `json:"st,omitempty"`
	BytesBilled int64  `json:"b"`
	// SlotMs is its slot time, when HaveSlotMs says the settlement knew it
	// (editions billing prices it).
	SlotMs     int64     `json:"sm,omitempty"`
	HaveSlotMs bool      `json:"hs,omitempty"`
	CacheHit   bool      `json:"c,omitempty"`
	Started    time.Time `json:"t0"`
	Ended      time.Time `json:"t1"`
	// Settled is when the state settled it, by the state's own clock
	// (BigQuery's Started and Ended are by BigQuery's): how long it stays
	// listed is counted from it.
	Settled time.Time `json:"ts"`
}

// recentJobs is a principal's last settled jobs, oldest first, at most
// MaxRecentJobs: a ring in memory.
type recentJobs []FinishedJob

func (r *recentJobs) add(j FinishedJob) {
	for _, x := range *r {
		if x.ID == j.ID {
			return // settled once per reservation; a job once in the list
		}
	}
	*r = append(*r, j)
	if n := len(*r); n > MaxRecentJobs {
		*r = append((*r)[:0:0], (*r)[n-MaxRecentJobs:]...)
	}
}

// newestFirst returns the jobs settled within ttl of now, newest first.
func newestFirst(jobs []FinishedJob, now time.Time, ttl time.Duration) []FinishedJob {
	out := make([]FinishedJob, 0, len(jobs))
	for i := len(jobs) - 1; i >= 0; i-- {
		if now.Sub(jobs[i].Settled) < ttl {
			out = append(out, jobs[i])
		}
	}
	return out
}

// Recent returns principal's last settled jobs, newest first.
func (b *Budget) Recent(principal string) []FinishedJob {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.accounts[principal]
	if !ok {
		return nil
	}
	return newestFirst(a.recent, b.now(), JobRecordTTL)
}

// RecentJobs implements State.
func (m *Memory) RecentJobs(_ context.Context, principal string) ([]FinishedJob, error) {
	return m.budget.Recent(principal), nil
}

// recentKey is principal tag's list of last jobs, newest first.
func (r *Redis) recentKey(tag string) string { return r.cfg.StatePrefix + "{" + tag + "}:recent" }

// RecentJobs implements State.
func (r *Redis) RecentJobs(ctx context.Context, principal string) ([]FinishedJob, error) {
	var raw []string
	err := r.step(ctx, "recent_jobs", func(ctx context.Context) error {
		var err error
		raw, err = r.client.LRange(ctx, r.recentKey(principalTag(principal)), 0, MaxRecentJobs-1).Result()
		return err
	})
	if err != nil {
		return nil, unavailable(err)
	}
	jobs := make([]FinishedJob, 0, len(raw))
	for i := len(raw) - 1; i >= 0; i-- { // oldest first, as newestFirst wants
		var j FinishedJob
		if json.Unmarshal([]byte(raw[i]), &j) == nil {
			jobs = append(jobs, j)
		}
	}
	return newestFirst(jobs, r.now(), r.cfg.JobTTL), nil
}

// encodeFinished is u's job, settled at now, for the settle script (""
// for none).
func encodeFinished(u Usage, now time.Time) string {
	if u.Job == nil {
		return ""
	}
	j := *u.Job
	j.Settled = now
	b, err := json.Marshal(j)
	if err != nil {
		return ""
	}
	return string(b)
}
