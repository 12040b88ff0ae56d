// Package query runs SQL for agents: dry runs with cost estimates, guarded
// execution with typed parameters, and results shaped to keep BigQuery's
// meaning within a size an agent can read.
//
// One file per tool: execute.go (execute_sql), dryrun.go (dry_run_sql),
// results.go (get_query_results, and the result pages execute_sql shares),
// jobs.go (get_job, cancel_job), usage.go (usage). Around them: owner.go
// (who may read which job) and settle.go (budgets as reservations, and
// following jobs that outlive their call); fast.go (jobs.query, polling a
// long job, progress reports; progress.go carries the reporter), rest.go
// (parameters in REST wire types), guard.go, verdict.go and readonly.go
// (the read-only gate, its verdict cache and its SQL lexer), params.go (typed
// parameters), location.go (where jobs run, and finding
// a job in any region), and this file (configuration, and what
// happens to a job whose caller stopped waiting).
package query

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"cloud.google.com/go/bigquery"
	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// viewTablesTTL is how long the tables under a view are remembered for the
// dataset allowlist.
const viewTablesTTL = 5 * time.Minute

// Service runs queries.
type Service struct {
	client *bigquery.Client
	// rest runs queries (jobs.query with a requestId of ours, which the
	// client's Query.Read cannot keep across attempts), reads their pages
	// and cancels jobs with one plain request (the client's Job.Cancel
	// retries until its context ends).
	rest *bq.Service
	// exec runs every BigQuery call under its operation's policy.
	exec  *resilience.Executor
	hooks Hooks
	// cfg is the Config given to NewService, with its defaults filled in.
	cfg Config
	log *slog.Logger
	// verdicts remembers BigQuery's read-only verdicts.
	verdicts *verdicts
	// views remembers the tables under views for the dataset allowlist
	// (allow.go).
	views *ttlCache[tableRef, []tableRef]
	// follower settles the cost of jobs that outlived their call
	// (settle.go).
	follower *follower
	// newRequestID picks the jobs.query requestId before the first attempt
	// so that a retried request can never start a second job.
	newRequestID func() string
	// loc knows where datasets and this server's jobs are (location.go).
	loc *locator
}

// fail maps err for the agent and, when the query's deadline or the
// client's cancellation ended the call, stops the job too: a query nobody
// waits for must not go on spending.
func (s *Service) fail(ctx context.Context, err error, r *request, jobID, location string) error {
	e := bqerr.From(err)
	if ctx.Err() != nil {
		reason := "timeout"
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			e = bqerr.Newf(bqerr.DeadlineExceeded, "the query did not finish within %s", r.timeout).WithCause(err)
			if jobID != "" {
				e = e.WithHint("The job " + jobID + " was cancelled. Narrow the query (fewer columns, a partition filter, a LIMIT) or raise timeoutSeconds up to the server maximum.")
			} else {
				e = e.WithHint("Narrow the query or raise timeoutSeconds up to the server maximum, then try again.")
			}
		case errors.Is(ctx.Err(), context.Canceled):
			reason = "client_cancel"
			e = bqerr.New(bqerr.DeadlineExceeded, "the request was cancelled before the query finished").WithCause(err).WithRetryable(false)
		}
		if jobID != "" {
			s.cancelJob(ctx, jobID, location, reason)
		}
	}
	if jobID != "" && e.Details.JobID == "" {
		e = e.WithJobID(jobID)
	}
	if e.Details.Query == "" && (e.Code == bqerr.QueryError || e.Code == bqerr.DeadlineExceeded || e.Code == bqerr.ResourceExhausted) {
		e = e.WithQuery(r.sql)
	}
	return e
}

// cancelJob stops a job whose caller stopped waiting. The caller's context
// is already done, so cancellation gets a short context of its own, and one
// request: if it fails, the job's own limits (maximumBytesBilled) still hold.
func (s *Service) cancelJob(ctx context.Context, jobID, location, reason string) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	call := s.rest.Jobs.Cancel(s.cfg.Project, jobID).Context(cctx)
	if location != "" {
		call = call.Location(location)
	}
	if _, err := call.Do(); err != nil {
		s.log.WarnContext(ctx, "job cancel failed", "job_id", jobID, "reason", reason, "error", bqerr.Redact(err.Error()))
		return
	}
	if s.hooks.JobCancelled != nil {
		s.hooks.JobCancelled(ctx, reason)
	}
	s.log.InfoContext(ctx, "job cancelled", "job_id", jobID, "reason", reason)
}
