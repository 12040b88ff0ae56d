package job

// Waiting for a query job. One jobs.query request starts the job, waits
// for it and returns the schema, the first page of rows and the
// statistics, so a small query costs one round trip. Only a job that
// outlives that request is polled with getQueryResults, telling a caller
// that asked for progress how it goes. docs/performance.md explains the
// choices.

import (
	"context"
	"errors"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

const (
	// pollGrace is how long before the caller's limit a long poll must
	// end, so that BigQuery's answer (with the job's reference) arrives
	// before the limit does.
	pollGrace = 500 * time.Millisecond
	// progressEvery is how often a caller that asked for progress hears
	// of a running job.
	progressEvery = 5 * time.Second
	// firstPoll is the longest jobs.query waits (BigQuery's default).
	firstPoll = 10 * time.Second
)

// Page is one answer of jobs.query or getQueryResults.
type Page struct {
	Complete  bool
	Job       Ref
	Schema    *bq.TableSchema
	Rows      []*bq.TableRow
	TotalRows uint64
	Token     string

	BytesProcessed, BytesBilled int64
	// Billed is set when BytesBilled is the job's word: jobs.query's
	// complete answer has it, getQueryResults has none (jobs.get does).
	// SlotMs (totalSlotMs) comes with it.
	Billed   bool
	SlotMs   int64
	CacheHit bool
	// DML is set for DML statements, with the rows they changed.
	DML      bool
	Affected int64
}

func pageOfQuery(r *bq.QueryResponse) *Page {
	p := &Page{
		Complete: r.JobComplete, Schema: r.Schema, Rows: r.Rows, TotalRows: r.TotalRows, Token: r.PageToken,
		BytesProcessed: r.TotalBytesProcessed, BytesBilled: r.TotalBytesBilled, CacheHit: r.CacheHit,
		DML: r.DmlStats != nil, Affected: r.NumDmlAffectedRows, Billed: r.JobComplete, SlotMs: r.TotalSlotMs,
	}
	if ref := r.JobReference; ref != nil {
		p.Job = Ref{ID: ref.JobId, Location: ref.Location}
	}
	if p.Job.Location == "" {
		p.Job.Location = r.Location
	}
	return p
}

func pageOfResults(r *bq.GetQueryResultsResponse, job Ref) *Page {
	p := &Page{
		Complete: r.JobComplete, Job: job, Schema: r.Schema, Rows: r.Rows, TotalRows: r.TotalRows, Token: r.PageToken,
		BytesProcessed: r.TotalBytesProcessed, CacheHit: r.CacheHit, Affected: r.NumDmlAffectedRows,
	}
	if ref := r.JobReference; ref != nil && ref.Location != "" {
		p.Job.Location = ref.Location
	}
	return p
}

// BilledBy puts the bytes billed and slot time jobs.get gave for p's
// finished job in p.
func (p *Page) BilledBy(st *Status) {
	p.BytesBilled, p.SlotMs, p.Billed = st.BytesBilled, st.SlotMs, true
}

// pollTimeout is how long one long poll may wait: until the call's limit,
// less pollGrace, and no more than progressEvery when the caller wants
// progress. ok is false when no time is left.
func pollTimeout(ctx context.Context, until time.Time) (ms int64, ok bool) {
	left := time.Until(until) - pollGrace
	if left <= 0 {
		return 0, false
	}
	if ProgressOf(ctx) != nil {
		left = min(left, progressEvery)
	}
	return max(left.Milliseconds(), 1), true
}

// query sends jobs.query. It waits at most until until (less pollGrace),
// so a job still running comes back with its reference, which the runner
// remembers with its location.
func (r *Runner) query(ctx context.Context, op resilience.Operation, req *bq.QueryRequest, until time.Time) (*Page, error) {
	ms, ok := pollTimeout(ctx, until)
	if !ok {
		ms = 1
	}
	// No longer than BigQuery's default: a call cancelled while this
	// request waits does not know its job yet (see recoverJob).
	req.TimeoutMs = min(ms, firstPoll.Milliseconds())
	var p *Page
	err := r.exec.Do(ctx, op, r.cfg.Project, func(ctx context.Context) error {
		resp, err := r.rest.Jobs.Query(r.cfg.Project, req).Context(ctx).Do()
		if err != nil {
			return err
		}
		p = pageOfQuery(resp)
		return nil
	})
	if err == nil {
		// BigQuery names the job's location; where it does not (the
		// emulator), the location asked for is the one used.
		if p.Job.Location == "" {
			p.Job.Location = req.Location
		}
		r.remember(p.Job)
	}
	return p, err
}

// Results sends one getQueryResults request: it waits up to timeoutMs for
// the job (0: answer at once) and returns up to maxRows rows from start,
// or the page named by token.
func (r *Runner) Results(ctx context.Context, op resilience.Operation, job Ref, start uint64, token string, maxRows int, timeoutMs int64) (*Page, error) {
	var p *Page
	err := r.exec.Do(ctx, op, r.cfg.Project, func(ctx context.Context) error {
		call := r.rest.Jobs.GetQueryResults(r.cfg.Project, job.ID).Context(ctx).
			MaxResults(int64(maxRows)).FormatOptionsUseInt64Timestamp(true)
		if token != "" {
			call = call.PageToken(token)
		} else if start > 0 {
			call = call.StartIndex(start)
		}
		if job.Location != "" {
			call = call.Location(job.Location)
		}
		if timeoutMs > 0 {
			call = call.TimeoutMs(timeoutMs)
		}
		resp, err := call.Do()
		if err != nil {
			return err
		}
		p = pageOfResults(resp, job)
		return nil
	})
	return p, err
}

// FirstResults sends a job tool's first getQueryResults, waiting until
// until at most. A job of unknown location that it does not find is looked
// for in the project's other locations (probe), then read where it was
// found.
func (r *Runner) FirstResults(ctx context.Context, job Ref, start uint64, maxRows int, until time.Time) (*Page, error) {
	ms, _ := pollTimeout(ctx, until)
	p, err := r.Results(ctx, resilience.Query, job, start, "", maxRows, ms)
	if err == nil || job.Location != "" || !isNotFound(err) {
		return p, err
	}
	found, err := r.probe(ctx, job.ID, err)
	if err != nil {
		return nil, err
	}
	job.Location = found.loc
	ms, _ = pollTimeout(ctx, until)
	return r.Results(ctx, resilience.Query, job, start, "", maxRows, ms)
}

// Await polls a running job until it completes or until passes, telling a
// caller that asked for progress how it goes. It returns the last page:
// complete, or not when the time ran out.
func (r *Runner) Await(ctx context.Context, op resilience.Operation, p *Page, start uint64, maxRows int, since, until time.Time) (*Page, error) {
	var reported time.Time
	for !p.Complete {
		ms, ok := pollTimeout(ctx, until)
		if !ok {
			return p, nil
		}
		// BigQuery may answer a poll early; reports (each a jobs.get) keep
		// their own pace, one per progressEvery.
		if time.Since(reported) >= progressEvery {
			r.reportProgress(ctx, p.Job, since)
			reported = time.Now()
		}
		next, err := r.Results(ctx, op, p.Job, start, "", maxRows, ms)
		if err != nil {
			return p, err
		}
		p = next
	}
	return p, nil
}

// reportProgress tells a caller that asked for progress what the job is
// doing. It costs a jobs.get, so it runs only for such callers, and a
// failure only skips one report.
func (r *Runner) reportProgress(ctx context.Context, job Ref, since time.Time) {
	report := ProgressOf(ctx)
	if report == nil {
		return
	}
	pr := Progress{JobID: job.ID, State: "RUNNING", Elapsed: time.Since(since)}
	if st, err := r.jobStatus(ctx, job); err == nil {
		pr.State, pr.BytesProcessed = st.State, st.BytesProcessed
		if !st.Created.IsZero() {
			pr.Elapsed = time.Since(st.Created)
		}
	}
	report(ctx, pr)
}

// Status is what jobs.get says of a job; BytesBilled and SlotMs
// (totalSlotMs) once it is DONE.
type Status struct {
	State                               string
	BytesProcessed, BytesBilled, SlotMs int64
	Created                             time.Time
	// For the caller's list of last jobs (usage): BigQuery's statement
	// type, whether the cache answered, when the job ran. HaveSlotMs is
	// set when SlotMs is the job's word.
	Statement      string
	CacheHit       bool
	HaveSlotMs     bool
	Started, Ended time.Time
}

// jobStatus reads a job's state with one plain jobs.get (no retries: it
// decorates a result or a progress report, or settles a job's cost, which
// the follower tries again later).
func (r *Runner) jobStatus(ctx context.Context, job Ref) (*Status, error) {
	call := r.rest.Jobs.Get(r.cfg.Project, job.ID).Context(ctx)
	if job.Location != "" {
		call = call.Location(job.Location)
	}
	j, err := call.Do()
	if err != nil {
		return nil, err
	}
	st := &Status{State: "RUNNING"}
	if j.Status != nil && j.Status.State != "" {
		st.State = j.Status.State
	}
	if stats := j.Statistics; stats != nil {
		st.BytesProcessed, st.SlotMs, st.HaveSlotMs = stats.TotalBytesProcessed, stats.TotalSlotMs, true
		if q := stats.Query; q != nil {
			st.BytesBilled, st.CacheHit, st.Statement = q.TotalBytesBilled, q.CacheHit, q.StatementType
			if st.SlotMs == 0 {
				st.SlotMs = q.TotalSlotMs
			}
		}
		if stats.CreationTime > 0 {
			st.Created = time.UnixMilli(stats.CreationTime)
		}
		if stats.StartTime > 0 {
			st.Started = time.UnixMilli(stats.StartTime)
		}
		if stats.EndTime > 0 {
			st.Ended = time.UnixMilli(stats.EndTime)
		}
	}
	return st, nil
}

// Running is where a job that outlived the call's wait stands: its state,
// bytes read so far and age (since since when BigQuery does not say). One
// jobs.get under a short context of its own, since the call's may be
// spent; RUNNING when it fails.
func (r *Runner) Running(ctx context.Context, job Ref, since time.Time) (state string, bytesProcessed int64, elapsed time.Duration) {
	state, elapsed = "RUNNING", time.Since(since)
	jctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if st, err := r.jobStatus(jctx, job); err == nil {
		state, bytesProcessed = st.State, st.BytesProcessed
		if !st.Created.IsZero() {
			elapsed = time.Since(st.Created)
		}
	}
	return state, bytesProcessed, elapsed
}

// recoverJob finds the job of a read-only query whose jobs.query was cut off
// by the client's cancel before BigQuery named the job, so that it can be
// cancelled rather than left running until jobTimeoutMs. It repeats the
// request with the same requestId, which BigQuery answers with the same
// job, and waits for nothing. A query never received before is started by
// this and then cancelled at once: harmless for a SELECT, which is why
// writes are never repeated here (their job runs on under jobTimeoutMs and
// maximumBytesBilled).
func (r *Runner) recoverJob(ctx context.Context, op resilience.Operation, req *bq.QueryRequest) Ref {
	// Only a client's cancel: a jobs.query cut off by the deadline was
	// asked to answer before it, so BigQuery is not answering at all.
	if op != resilience.Query || !errors.Is(ctx.Err(), context.Canceled) {
		return Ref{}
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	again := *req
	again.TimeoutMs, again.MaxResults = 1, 1
	resp, err := r.rest.Jobs.Query(r.cfg.Project, &again).Context(rctx).Do()
	if err != nil || resp.JobReference == nil {
		return Ref{}
	}
	return pageOfQuery(resp).Job
}
