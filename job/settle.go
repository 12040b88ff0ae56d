package job

// Settling a job's cost. A query holds its estimate in the caller's budget
// before its job starts (a reservation the tool's checks made); the hold
// is settled to the job's bytes billed when any tool sees the job finish,
// or given back by the tool when no job started. Bytes billed come only
// from the job: jobs.query's answer when it is complete, otherwise
// jobs.get's statistics.query.totalBytesBilled (getQueryResults has none).
// A job handed back unfinished stays held until the follower below, or a
// tool that sees it end, settles it. Settling is once per reservation, so
// two tools that see the same end charge it once.

import (
	"cmp"
	"context"
	"sync"
	"time"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// Meta is what a settlement needs of a job beyond its statistics, for the
// caller's list of last jobs: the tool that started it, its statement kind
// as the server read it, and when it was started.
type Meta struct {
	Tool, Statement string
	Started         time.Time
}

// Charge is what a job is charged to: the hold of Estimate bytes in the
// caller's budget (Reservation; "" for a job this server did not start,
// which is never charged) and what the list of last jobs says of it.
type Charge struct {
	Reservation string
	Estimate    int64
	Meta        Meta
}

// settle charges a finished job's cost in place of its hold, and lists it
// among the caller's last jobs in the same step. It is safe to call for a
// job already settled (nothing happens) and for one this server did not
// start (no reservation).
func (r *Runner) settle(ctx context.Context, job Ref, c Charge, st Status) {
	r.follower.drop(job.ID)
	if c.Reservation == "" {
		return
	}
	fin := &governance.FinishedJob{
		ID: job.ID, Location: job.Location, Tool: c.Meta.Tool, Statement: cmp.Or(st.Statement, c.Meta.Statement),
		BytesBilled: st.BytesBilled, SlotMs: st.SlotMs, HaveSlotMs: st.HaveSlotMs, CacheHit: st.CacheHit,
		Started: cmp.Or(st.Started, c.Meta.Started), Ended: cmp.Or(st.Ended, time.Now()),
	}
	if fin.Started.IsZero() || fin.Started.After(fin.Ended) {
		fin.Started = fin.Ended
	}
	u := governance.Usage{Jobs: 1, BytesProcessed: st.BytesProcessed, BytesBilled: st.BytesBilled, Job: fin}
	if _, err := r.cfg.State.Settle(context.WithoutCancel(ctx), c.Reservation, u); err != nil {
		r.log.WarnContext(ctx, "job cost not settled", "job_id", job.ID, "error", bqerr.Redact(err.Error()))
	}
}

// settleSeen settles the cost of a job of the caller's that jobs.get shows
// finished. Settling is once per job, so a job already settled costs
// nothing more.
func (r *Runner) settleSeen(ctx context.Context, j *Job) {
	st := j.Status
	if !j.recorded || st == nil || st.State != bigquery.Done || st.Statistics == nil {
		return
	}
	s := Status{State: "DONE", BytesProcessed: st.Statistics.TotalBytesProcessed, Started: st.Statistics.StartTime, Ended: st.Statistics.EndTime}
	if qs, ok := st.Statistics.Details.(*bigquery.QueryStatistics); ok {
		s.BytesBilled, s.CacheHit, s.Statement = qs.TotalBytesBilled, qs.CacheHit, qs.StatementType
		s.SlotMs, s.HaveSlotMs = qs.SlotMillis, true
	}
	r.settle(ctx, Ref{ID: j.rec.ID, Location: j.rec.Location}, j.Charge(), s)
}

// SettleFromJob settles a job whose end was seen without its bytes billed
// (getQueryResults, a failed or cancelled call): one jobs.get reads them.
// A job not yet done, or a jobs.get that fails, is left to the follower.
// It returns what jobs.get said of the job when it settled.
func (r *Runner) SettleFromJob(ctx context.Context, job Ref, c Charge) (*Status, bool) {
	if c.Reservation == "" {
		return nil, false
	}
	jctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	st, err := r.jobStatus(jctx, job)
	if err != nil || st.State != "DONE" {
		r.follow(ctx, job, c)
		return nil, false
	}
	r.settle(ctx, job, c, *st)
	return st, true
}

// follow hands a job that is still running to the follower. When the
// follower cannot take it (full, or the server is stopping), the job is
// charged its estimate now: its hold must end, and the estimate is the
// best word on its cost there is.
func (r *Runner) follow(ctx context.Context, job Ref, c Charge) {
	if c.Reservation == "" {
		return
	}
	if r.follower.add(followed{job: job, charge: c, caller: auth.CallerFrom(ctx)}) {
		return
	}
	r.log.WarnContext(ctx, "job charged its estimate: it cannot be followed to its end", "job_id", job.ID, "estimate", c.Estimate)
	r.settle(ctx, job, c, Status{BytesProcessed: c.Estimate, BytesBilled: c.Estimate})
}

// Unsettled reports whether the job a caller may read (a) outlived the
// call that started it and still waits for the follower.
func (r *Runner) Unsettled(a Access) bool { return a.recorded && r.follower.has(a.rec.ID) }

// settleFollowed is the follower's settlement, with what it saw of the
// job.
func (r *Runner) settleFollowed(ctx context.Context, f followed, st Status) {
	r.settle(ctx, f.job, f.charge, st)
}

const (
	// maxFollowed bounds the jobs followed at once. Jobs stop at their
	// jobTimeoutMs (at most --max-query-timeout), so this many would take
	// more than 16 new unfinished jobs a second for ten minutes.
	maxFollowed = 10000
	// followFor is how long the follower keeps trying to learn a job's
	// cost before charging its estimate (a job stops long before; this
	// covers a BigQuery that cannot be asked).
	followFor = 24 * time.Hour
)

// FollowTiming is how often the follower looks at unfinished jobs. Every
// field's zero value is its default.
type FollowTiming struct {
	// Every is how often the follower wakes. Zero: 1 s.
	Every time.Duration
	// First is when a job is first looked at, and Longest the longest
	// between looks (each wait doubles up to it). Zero: 2 s and 1 min.
	First, Longest time.Duration
}

// followed is a job whose cost is still to be settled.
type followed struct {
	job    Ref
	charge Charge
	// caller is who started the job: in oauth mode their token is the
	// credential jobs.get needs.
	caller auth.Caller
	since  time.Time
	next   time.Time
	wait   time.Duration
}

// follower settles jobs that outlived the call that started them. One
// goroutine polls every job due with jobs.get, sequentially, and exits
// when none is left (the next unfinished job starts it again); close stops
// it and waits for it.
type follower struct {
	// look reads a job's state; settle charges what it saw.
	look    func(ctx context.Context, job Ref) (*Status, error)
	settle  func(ctx context.Context, f followed, st Status)
	timing  FollowTiming
	maxJobs int

	mu      sync.Mutex
	jobs    map[string]followed
	running bool
	closed  bool
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

func newFollower(t FollowTiming, look func(context.Context, Ref) (*Status, error), settle func(context.Context, followed, Status)) *follower {
	t.Every = cmp.Or(t.Every, time.Second)
	t.First = cmp.Or(t.First, 2*time.Second)
	t.Longest = cmp.Or(t.Longest, time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	return &follower{look: look, settle: settle, timing: t, maxJobs: maxFollowed, jobs: map[string]followed{}, ctx: ctx, cancel: cancel}
}

// add follows f's job; false when the follower is full or closed.
func (w *follower) add(f followed) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || len(w.jobs) >= w.maxJobs {
		return false
	}
	if _, ok := w.jobs[f.job.ID]; ok {
		return true // already followed, with its estimate
	}
	now := time.Now()
	f.since, f.next, f.wait = now, now.Add(w.timing.First), w.timing.First
	w.jobs[f.job.ID] = f
	if !w.running {
		w.running = true
		w.wg.Add(1)
		go w.run()
	}
	return true
}

// drop stops following a job a tool saw finish.
func (w *follower) drop(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.jobs, id)
}

// has reports whether job id's cost is still to be settled here.
func (w *follower) has(id string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.jobs[id]
	return ok
}

// close stops the goroutine and waits for it. Jobs still followed keep
// their holds: in memory they end with the process.
func (w *follower) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.cancel()
	w.wg.Wait()
}

func (w *follower) run() {
	defer w.wg.Done()
	t := time.NewTicker(w.timing.Every)
	defer t.Stop()
	for {
		select {
		case <-w.ctx.Done():
			w.mu.Lock()
			w.running = false
			w.mu.Unlock()
			return
		case <-t.C:
		}
		for _, f := range w.due() {
			w.check(f)
		}
		// Deciding to stop under the lock that add takes means a job
		// added meanwhile either is seen here or starts a new goroutine.
		w.mu.Lock()
		if len(w.jobs) == 0 || w.closed {
			w.running = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
	}
}

// due lists the jobs whose next look has come.
func (w *follower) due() []followed {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	var out []followed
	for _, f := range w.jobs {
		if !now.Before(f.next) {
			out = append(out, f)
		}
	}
	return out
}

// check looks at one job: a finished one is settled, one that BigQuery
// does not know or that cannot be learned about for followFor is charged
// its estimate, any other is looked at again later, less often each time.
func (w *follower) check(f followed) {
	ctx, cancel := context.WithTimeout(auth.WithCaller(w.ctx, f.caller), 10*time.Second)
	defer cancel()
	st, err := w.look(ctx, f.job)
	switch {
	case w.ctx.Err() != nil:
		return
	case err == nil && st.State == "DONE":
		w.drop(f.job.ID)
		w.settle(ctx, f, *st)
	case err != nil && isNotFound(err), time.Since(f.since) > followFor:
		// A job BigQuery does not know (the emulator keeps no jobs.query
		// jobs) cannot be learned about by asking again.
		w.drop(f.job.ID)
		w.settle(ctx, f, Status{BytesProcessed: f.charge.Estimate, BytesBilled: f.charge.Estimate})
	default:
		w.mu.Lock()
		if g, ok := w.jobs[f.job.ID]; ok {
			g.wait = min(2*g.wait, w.timing.Longest)
			g.next = time.Now().Add(g.wait)
			w.jobs[f.job.ID] = g
		}
		w.mu.Unlock()
	}
}
