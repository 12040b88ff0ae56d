package query

// Budgets as reservations. A query holds its dry-run estimate in the
// caller's budget before its job starts (reserve, in preflight), so calls
// running at once cannot all pass one check; the hold is settled to the
// job's bytes billed when any tool sees the job finish (settle), or given
// back when no job started (release). Bytes billed come only from the job:
// jobs.query's answer when it is complete, otherwise jobs.get's
// statistics.query.totalBytesBilled (getQueryResults has none). A job
// handed back unfinished stays held until the follower below, or a tool
// that sees it end, settles it. Settling is once per reservation, so two
// tools that see the same end charge it once.

import (
	"cmp"
	"context"
	"sync"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/sqltext"
)

// reserve holds bytes of the caller's budget for r's job, once per
// request: preflight reserves the estimate when a budget needs one, and
// Execute reserves nothing (0 bytes) for a query it did not estimate, so
// that every job is charged through one reservation.
func (s *Service) reserve(ctx context.Context, r *request, bytes int64) error {
	if r.reservation != "" {
		return nil
	}
	id, err := s.cfg.State.Reserve(ctx, auth.CallerFrom(ctx).Principal, bytes)
	if err != nil {
		return bqerr.From(err).WithQuery(r.sql)
	}
	r.reservation, r.estimate = id, bytes
	return nil
}

// release gives back r's hold when its job never started.
func (s *Service) release(ctx context.Context, r *request) {
	if r.reservation == "" {
		return
	}
	if err := s.cfg.State.Release(context.WithoutCancel(ctx), r.reservation); err != nil {
		s.log.WarnContext(ctx, "budget reservation not released", "error", bqerr.Redact(err.Error()))
	}
	r.reservation = ""
}

// jobMeta is what a settlement needs of a job beyond its statistics, for
// the caller's list of last jobs: the tool that started it, its statement
// kind as the server read it, and when it was started.
type jobMeta struct {
	tool, statement string
	started         time.Time
}

// metaOf is the meta of the job r starts now, under ctx's labels.
func metaOf(ctx context.Context, r *request) jobMeta {
	return jobMeta{tool: governance.JobLabels(ctx)["mcp_tool"], statement: statementKind(r.sql), started: time.Now()}
}

// recMeta is the meta a job record kept.
func recMeta(rec governance.JobRecord) jobMeta {
	return jobMeta{tool: rec.Tool, statement: rec.Statement, started: rec.Started}
}

// statementKind names the kind of statement sql is: SELECT for a
// read-only query, else its leading keyword, SCRIPT for several
// statements.
func statementKind(sql string) string {
	if sqltext.CheckReadOnly(sql) == nil {
		return "SELECT"
	}
	toks, _ := sqltext.Lex(sql)
	stmts := sqltext.Split(toks)
	if len(stmts) != 1 {
		return "SCRIPT"
	}
	kw, _ := sqltext.LeadingKeyword(stmts[0])
	return kw
}

// settle is the follower's settlement (NewService): what the follower saw
// of the job comes in ctx (withSeen), for the caller's list of last jobs.
func (s *Service) settle(ctx context.Context, jobID, reservation string, bytesProcessed, bytesBilled int64) {
	seen, ok := ctx.Value(seenKey{}).(seenJob)
	if !ok || seen.job.id != jobID {
		seen = seenJob{job: jobHandle{id: jobID}}
	}
	seen.st.bytesProcessed, seen.st.bytesBilled = bytesProcessed, bytesBilled
	s.settleJob(ctx, seen.job, reservation, seen.meta, seen.st)
}

type seenKey struct{}

// seenJob is what the follower saw of a job it settles.
type seenJob struct {
	job  jobHandle
	meta jobMeta
	st   jobStatus
}

// withSeen returns ctx carrying what the follower saw of f's job.
func withSeen(ctx context.Context, f followed, st jobStatus) context.Context {
	return context.WithValue(ctx, seenKey{}, seenJob{job: f.job, meta: f.meta, st: st})
}

// settleJob charges a finished job's cost in place of its hold, and lists
// it among the caller's last jobs in the same step. It is safe to call for
// a job already settled (nothing happens) and for one this server did not
// start (reservation "").
func (s *Service) settleJob(ctx context.Context, job jobHandle, reservation string, meta jobMeta, st jobStatus) {
	s.follower.drop(job.id)
	if reservation == "" {
		return
	}
	fin := &governance.FinishedJob{
		ID: job.id, Location: job.location, Tool: meta.tool, Statement: cmp.Or(st.statement, meta.statement),
		BytesBilled: st.bytesBilled, SlotMs: st.slotMs, HaveSlotMs: st.haveSlotMs, CacheHit: st.cacheHit,
		Started: cmp.Or(st.started, meta.started), Ended: cmp.Or(st.ended, time.Now()),
	}
	if fin.Started.IsZero() || fin.Started.After(fin.Ended) {
		fin.Started = fin.Ended
	}
	u := governance.Usage{Jobs: 1, BytesProcessed: st.bytesProcessed, BytesBilled: st.bytesBilled, Job: fin}
	if _, err := s.cfg.State.Settle(context.WithoutCancel(ctx), reservation, u); err != nil {
		s.log.WarnContext(ctx, "job cost not settled", "job_id", job.id, "error", bqerr.Redact(err.Error()))
	}
}

// settleFromJob settles a job whose end was seen without its bytes billed
// (getQueryResults, a failed or cancelled call): one jobs.get reads them.
// A job not yet done, or a jobs.get that fails, leaves it to the follower.
// It returns what jobs.get said of the job when it settled.
func (s *Service) settleFromJob(ctx context.Context, job jobHandle, reservation string, estimate int64, meta jobMeta) (*jobStatus, bool) {
	if reservation == "" {
		return nil, false
	}
	jctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	st, err := s.jobState(jctx, job)
	if err != nil || st.state != "DONE" {
		s.followJob(ctx, job, reservation, estimate, meta)
		return nil, false
	}
	s.settleJob(ctx, job, reservation, meta, *st)
	return st, true
}

// followJob hands a job that is still running to the follower. When the
// follower cannot take it (full, or the server is stopping), the job is
// charged its estimate now: its hold must end, and the estimate is the
// best word on its cost there is.
func (s *Service) followJob(ctx context.Context, job jobHandle, reservation string, estimate int64, meta jobMeta) {
	if reservation == "" {
		return
	}
	if s.follower.add(followed{job: job, reservation: reservation, estimate: estimate, meta: meta, caller: auth.CallerFrom(ctx)}) {
		return
	}
	s.log.WarnContext(ctx, "job charged its estimate: it cannot be followed to its end", "job_id", job.id, "estimate", estimate)
	s.settleJob(ctx, job, reservation, meta, jobStatus{bytesProcessed: estimate, bytesBilled: estimate})
}

const (
	// maxFollowed bounds the jobs followed at once. Jobs stop at their
	// jobTimeoutMs (at most --max-query-timeout), so this many would take
	// more than 16 new unfinished jobs a second for ten minutes.
	maxFollowed = 10000
	// followFirst is the follower's first look at a job, followMax the
	// longest it waits between looks.
	followFirst = 2 * time.Second
	followMax   = time.Minute
	// followFor is how long the follower keeps trying to learn a job's
	// cost before charging its estimate (a job stops long before; this
	// covers a BigQuery that cannot be asked).
	followFor = 24 * time.Hour
)

// followed is a job whose cost is still to be settled.
type followed struct {
	job         jobHandle
	reservation string
	estimate    int64
	meta        jobMeta
	// caller is who started the job: in oauth mode their token is the
	// credential jobs.get needs.
	caller auth.Caller
	since  time.Time
	next   time.Time
	wait   time.Duration
}

// follower settles jobs that outlived the call that started them. One
// goroutine polls every job due with jobs.get, sequentially, and exits
// when none is left (the next unfinished job starts it again); Close stops
// it and waits for it.
type follower struct {
	// look reads a job's state; every is how often the goroutine wakes;
	// a job is first looked at after first, then less often each time, up
	// to longest between looks.
	look    func(ctx context.Context, job jobHandle) (*jobStatus, error)
	settle  func(ctx context.Context, f followed, bytesProcessed, bytesBilled int64)
	every   time.Duration
	first   time.Duration
	longest time.Duration
	maxJobs int

	mu      sync.Mutex
	jobs    map[string]followed
	running bool
	closed  bool
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

func newFollower(look func(context.Context, jobHandle) (*jobStatus, error), settle func(context.Context, followed, int64, int64)) *follower {
	ctx, cancel := context.WithCancel(context.Background())
	return &follower{look: look, settle: settle, every: time.Second, first: followFirst, longest: followMax, maxJobs: maxFollowed, jobs: map[string]followed{}, ctx: ctx, cancel: cancel}
}

// add follows f's job; false when the follower is full or closed.
func (w *follower) add(f followed) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || len(w.jobs) >= w.maxJobs {
		return false
	}
	if _, ok := w.jobs[f.job.id]; ok {
		return true // already followed, with its estimate
	}
	now := time.Now()
	f.since, f.next, f.wait = now, now.Add(w.first), w.first
	w.jobs[f.job.id] = f
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
	t := time.NewTicker(w.every)
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
	case err == nil && st.state == "DONE":
		w.drop(f.job.id)
		w.settle(withSeen(ctx, f, *st), f, st.bytesProcessed, st.bytesBilled)
	case err != nil && isNotFound(err), time.Since(f.since) > followFor:
		// A job BigQuery does not know (the emulator keeps no jobs.query
		// jobs) cannot be learned about by asking again.
		w.drop(f.job.id)
		w.settle(withSeen(ctx, f, jobStatus{}), f, f.estimate, f.estimate)
	default:
		w.mu.Lock()
		if g, ok := w.jobs[f.job.id]; ok {
			g.wait = min(2*g.wait, w.longest)
			g.next = time.Now().Add(g.wait)
			w.jobs[f.job.id] = g
		}
		w.mu.Unlock()
	}
}

// Close stops the follower of unfinished jobs. Call it when the server
// stops, before closing the BigQuery client.
func (s *Service) Close() { s.follower.close() }
