package query

// The query path: one jobs.query request that starts the job, waits for it
// and returns the schema, the first page of rows and the statistics, so a
// small query costs one round trip. Only a job that outlives that request is
// polled with getQueryResults, and only a result longer than its first page
// is read further. docs/performance.md explains the choices.

import (
	"context"
	"errors"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/governance"
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
	// defaultWait is how long a call waits for a job when the agent does
	// not say: below the minute after which common hosts (Claude Desktop)
	// give up on a tool call.
	defaultWait = 45 * time.Second
	// jobCreationRequired makes jobs.query always create a job; see
	// docs/performance.md for why the optional mode is not used.
	jobCreationRequired = "JOB_CREATION_REQUIRED"
)

// jobHandle names a job BigQuery created.
type jobHandle struct {
	id, location string
}

// page is one answer of jobs.query or getQueryResults.
type page struct {
	complete  bool
	job       jobHandle
	schema    *bq.TableSchema
	rows      []*bq.TableRow
	totalRows uint64
	token     string

	bytesProcessed, bytesBilled int64
	// billed is set when bytesBilled is the job's word: jobs.query's
	// complete answer has it, getQueryResults has none (jobs.get does).
	// slotMs (totalSlotMs) comes with it.
	billed   bool
	slotMs   int64
	cacheHit bool
	// dml is set for DML statements, with the rows they changed.
	dml      bool
	affected int64
}

func pageOfQuery(r *bq.QueryResponse) *page {
	p := &page{
		complete: r.JobComplete, schema: r.Schema, rows: r.Rows, totalRows: r.TotalRows, token: r.PageToken,
		bytesProcessed: r.TotalBytesProcessed, bytesBilled: r.TotalBytesBilled, cacheHit: r.CacheHit,
		dml: r.DmlStats != nil, affected: r.NumDmlAffectedRows, billed: r.JobComplete, slotMs: r.TotalSlotMs,
	}
	if ref := r.JobReference; ref != nil {
		p.job = jobHandle{id: ref.JobId, location: ref.Location}
	}
	if p.job.location == "" {
		p.job.location = r.Location
	}
	return p
}

func pageOfResults(r *bq.GetQueryResultsResponse, job jobHandle) *page {
	p := &page{
		complete: r.JobComplete, job: job, schema: r.Schema, rows: r.Rows, totalRows: r.TotalRows, token: r.PageToken,
		bytesProcessed: r.TotalBytesProcessed, cacheHit: r.CacheHit, affected: r.NumDmlAffectedRows,
	}
	if ref := r.JobReference; ref != nil && ref.Location != "" {
		p.job.location = ref.Location
	}
	return p
}

// queryRequest builds the jobs.query request for r. Its requestId is chosen
// here, once: every attempt of the call sends the same one, so BigQuery
// treats a retry after a lost response as the same query, never a second
// job. The job carries the call's labels and runs where jobLocation says.
func (s *Service) queryRequest(ctx context.Context, r *request) (*bq.QueryRequest, error) {
	params, err := restParameters(r.params)
	if err != nil {
		return nil, err
	}
	useLegacy := false
	req := &bq.QueryRequest{
		Query:              r.sql,
		UseLegacySql:       &useLegacy,
		QueryParameters:    params,
		Location:           s.jobLocation(ctx, r),
		Labels:             governance.JobLabels(ctx),
		MaximumBytesBilled: r.maxBytesBilled,
		MaxResults:         int64(r.maxRows),
		RequestId:          s.newRequestID(),
		JobCreationMode:    jobCreationRequired,
		// BigQuery's own backstop: the job stops at the call's timeout
		// even if this server is gone and cannot cancel it.
		JobTimeoutMs:  r.timeout.Milliseconds(),
		FormatOptions: &bq.DataFormatOptions{UseInt64Timestamp: true},
	}
	if len(params) > 0 {
		req.ParameterMode = "NAMED"
	}
	if r.defaultDataset != "" {
		req.DefaultDataset = &bq.DatasetReference{ProjectId: r.defaultProject, DatasetId: r.defaultDataset}
	}
	return req, nil
}

// pollTimeout is how long one long poll may wait: until the call's limit,
// less pollGrace, and no more than progressEvery when the caller wants
// progress. ok is false when no time is left.
func pollTimeout(ctx context.Context, until time.Time) (ms int64, ok bool) {
	left := time.Until(until) - pollGrace
	if left <= 0 {
		return 0, false
	}
	if progressOf(ctx) != nil {
		left = min(left, progressEvery)
	}
	return max(left.Milliseconds(), 1), true
}

// startQuery sends jobs.query. It waits at most until until (less
// pollGrace), so a job still running comes back with its reference.
func (s *Service) startQuery(ctx context.Context, op resilience.Operation, req *bq.QueryRequest, until time.Time) (*page, error) {
	ms, ok := pollTimeout(ctx, until)
	if !ok {
		ms = 1
	}
	// No longer than BigQuery's default: a call cancelled while this
	// request waits does not know its job yet (see recoverJob).
	req.TimeoutMs = min(ms, firstPoll.Milliseconds())
	var p *page
	err := s.exec.Do(ctx, op, s.cfg.Project, func(ctx context.Context) error {
		resp, err := s.rest.Jobs.Query(s.cfg.Project, req).Context(ctx).Do()
		if err != nil {
			return err
		}
		p = pageOfQuery(resp)
		return nil
	})
	if err == nil {
		// BigQuery names the job's location; where it does not (the
		// emulator), the location asked for is the one used.
		if p.job.location == "" {
			p.job.location = req.Location
		}
		s.rememberJob(p.job.id, p.job.location)
	}
	return p, err
}

// results sends one getQueryResults request: it waits up to timeoutMs for
// the job (0: answer at once) and returns up to maxRows rows from start,
// or the page named by token.
func (s *Service) results(ctx context.Context, op resilience.Operation, job jobHandle, start uint64, token string, maxRows int, timeoutMs int64) (*page, error) {
	var p *page
	err := s.exec.Do(ctx, op, s.cfg.Project, func(ctx context.Context) error {
		call := s.rest.Jobs.GetQueryResults(s.cfg.Project, job.id).Context(ctx).
			MaxResults(int64(maxRows)).FormatOptionsUseInt64Timestamp(true)
		if token != "" {
			call = call.PageToken(token)
		} else if start > 0 {
			call = call.StartIndex(start)
		}
		if job.location != "" {
			call = call.Location(job.location)
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

// await polls a running job until it completes or until passes, telling a
// caller that asked for progress how it goes. It returns the last page:
// complete, or not when the time ran out.
func (s *Service) await(ctx context.Context, op resilience.Operation, p *page, start uint64, maxRows int, since, until time.Time) (*page, error) {
	var reported time.Time
	for !p.complete {
		ms, ok := pollTimeout(ctx, until)
		if !ok {
			return p, nil
		}
		// BigQuery may answer a poll early; reports (each a jobs.get) keep
		// their own pace, one per progressEvery.
		if time.Since(reported) >= progressEvery {
			s.reportProgress(ctx, p.job, since)
			reported = time.Now()
		}
		next, err := s.results(ctx, op, p.job, start, "", maxRows, ms)
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
func (s *Service) reportProgress(ctx context.Context, job jobHandle, since time.Time) {
	report := progressOf(ctx)
	if report == nil {
		return
	}
	pr := Progress{JobID: job.id, State: "RUNNING", Elapsed: time.Since(since)}
	if st, err := s.jobState(ctx, job); err == nil {
		pr.State, pr.BytesProcessed = st.state, st.bytesProcessed
		if !st.created.IsZero() {
			pr.Elapsed = time.Since(st.created)
		}
	}
	report(ctx, pr)
}

// jobStatus is what jobs.get says of a job; bytesBilled and slotMs
// (totalSlotMs) once it is DONE.
type jobStatus struct {
	state                               string
	bytesProcessed, bytesBilled, slotMs int64
	created                             time.Time
	// For the caller's list of last jobs (usage): BigQuery's statement
	// type, whether the cache answered, when the job ran. haveSlotMs is
	// set when slotMs is the job's word.
	statement      string
	cacheHit       bool
	haveSlotMs     bool
	started, ended time.Time
}

// billedBy puts the bytes billed and slot time jobs.get gave for p's
// finished job in p.
func (p *page) billedBy(st *jobStatus) {
	p.bytesBilled, p.slotMs, p.billed = st.bytesBilled, st.slotMs, true
}

// jobState reads a job's state with one plain jobs.get (no retries: it
// decorates a result or a progress report, or settles a job's cost, which
// the follower tries again later).
func (s *Service) jobState(ctx context.Context, job jobHandle) (*jobStatus, error) {
	call := s.rest.Jobs.Get(s.cfg.Project, job.id).Context(ctx)
	if job.location != "" {
		call = call.Location(job.location)
	}
	j, err := call.Do()
	if err != nil {
		return nil, err
	}
	st := &jobStatus{state: "RUNNING"}
	if j.Status != nil && j.Status.State != "" {
		st.state = j.Status.State
	}
	if stats := j.Statistics; stats != nil {
		st.bytesProcessed, st.slotMs, st.haveSlotMs = stats.TotalBytesProcessed, stats.TotalSlotMs, true
		if q := stats.Query; q != nil {
			st.bytesBilled, st.cacheHit, st.statement = q.TotalBytesBilled, q.CacheHit, q.StatementType
			if st.slotMs == 0 {
				st.slotMs = q.TotalSlotMs
			}
		}
		if stats.CreationTime > 0 {
			st.created = time.UnixMilli(stats.CreationTime)
		}
		if stats.StartTime > 0 {
			st.started = time.UnixMilli(stats.StartTime)
		}
		if stats.EndTime > 0 {
			st.ended = time.UnixMilli(stats.EndTime)
		}
	}
	return st, nil
}

// stillRunning fills out for a job that outlived the call's wait: the job
// goes on under its own timeout, and the agent learns how to pick it up.
func (s *Service) stillRunning(ctx context.Context, job jobHandle, since time.Time, out *ExecuteOutput) {
	out.JobID, out.Location = job.id, job.location
	out.JobComplete, out.State = false, "RUNNING"
	out.ElapsedMs = time.Since(since).Milliseconds()
	jctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if st, err := s.jobState(jctx, job); err == nil {
		out.State, out.BytesProcessed = st.state, st.bytesProcessed
		if !st.created.IsZero() {
			out.ElapsedMs = time.Since(st.created).Milliseconds()
		}
	}
	out.Hint = "The query is still running. Call get_query_results with this jobId and location (and waitSeconds) to wait for its rows, get_job to check on it, or cancel_job to stop it."
}

// recoverJob finds the job of a read-only query whose jobs.query was cut off
// by the client's cancel before BigQuery named the job, so that it can be
// cancelled rather than left running until jobTimeoutMs. It repeats the request with the same requestId, which
// BigQuery answers with the same job, and waits for nothing. A query never
// received before is started by this and then cancelled at once: harmless
// for a SELECT, which is why writes are never repeated here (their job runs
// on under jobTimeoutMs and maximumBytesBilled).
func (s *Service) recoverJob(ctx context.Context, op resilience.Operation, req *bq.QueryRequest) jobHandle {
	// Only a client's cancel: a jobs.query cut off by the deadline was
	// asked to answer before it, so BigQuery is not answering at all.
	if op != resilience.Query || !errors.Is(ctx.Err(), context.Canceled) {
		return jobHandle{}
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	again := *req
	again.TimeoutMs, again.MaxResults = 1, 1
	resp, err := s.rest.Jobs.Query(s.cfg.Project, &again).Context(rctx).Do()
	if err != nil || resp.JobReference == nil {
		return jobHandle{}
	}
	return pageOfQuery(resp).job
}
