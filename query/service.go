// Package query runs SQL for agents: dry runs with cost estimates, guarded
// execution with typed parameters, result pages, and the job tools (get,
// cancel, usage).
//
// It owns what must hold for every statement an agent sends, so that no
// tool can skip it: the checks before a job exists (preflight: the
// read-only guard and the dataset allowlist from sqltext's reading of the
// text, then every table the dry run names, the bytes budget's reservation,
// the user's confirmation above a size). What happens to a job once it
// starts (who started it, so only they read it; its bytes settled against
// the budget, by a follower when it outlives its call; cancelling it when
// the caller goes away; finding it in any region) is package job's, which
// every job here goes through. Jobs run where their data lives.
// Result rows are encoded and cut by package rows; metadata it needs (views,
// dataset IDs and locations) it asks of a Catalog, which the wiring fills
// from schema's cache.
package query

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"cloud.google.com/go/bigquery"
	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// viewTablesTTL is how long the tables under a view are remembered for the
// dataset allowlist.
const viewTablesTTL = 5 * time.Minute

// Service runs queries.
type Service struct {
	client *bigquery.Client
	// rest runs the jobs.query of cost advice; every other request goes
	// through the runner.
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
	// graphs remembers the tables property graphs are built on for the
	// dataset allowlist (graph.go).
	graphs *ttlCache[tableRef, []tableRef]
	// partitions remembers tables' partition sizes for cost advice
	// (advice.go), made on first use.
	partitions     *ttlCache[tableRef, *partitionSizes]
	partitionsOnce sync.Once
	// rules are the checks before a job (checks.go), built once.
	rules []check
	// jobs starts, waits for, settles, follows, finds and cancels every
	// job (package job); NewService builds it from the finished config.
	jobs *job.Runner
}

// fail maps err for the agent and, when the query's deadline or the
// client's cancellation ended the call, stops the job too: a query nobody
// waits for must not go on spending. BigQuery's refusal of a query without
// a required partition filter gets a hint with one (filterhint.go).
func (s *Service) fail(ctx context.Context, err error, r *request, ref job.Ref) error {
	e := bqerr.From(err)
	if ctx.Err() != nil {
		reason := "timeout"
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			e = bqerr.Newf(bqerr.DeadlineExceeded, "the query did not finish within %s", r.timeout).WithCause(err)
			if ref.ID != "" {
				e = e.WithHint("The job " + ref.ID + " was cancelled. Narrow the query (fewer columns, a partition filter, a LIMIT) or raise timeoutSeconds up to the server maximum.")
			} else {
				e = e.WithHint("Narrow the query or raise timeoutSeconds up to the server maximum, then try again.")
			}
		case errors.Is(ctx.Err(), context.Canceled):
			reason = "client_cancel"
			e = bqerr.New(bqerr.DeadlineExceeded, "the request was cancelled before the query finished").WithCause(err).WithRetryable(false)
		}
		if ref.ID != "" {
			s.jobs.Stop(ctx, ref, reason)
		}
	}
	if ref.ID != "" && e.Details.JobID == "" {
		e = e.WithJobID(ref.ID)
	}
	e = s.explainPartitionFilter(ctx, r, e)
	if e.Details.Query == "" && (e.Code == bqerr.QueryError || e.Code == bqerr.DeadlineExceeded || e.Code == bqerr.ResourceExhausted) {
		e = e.WithQuery(r.sql)
	}
	return e
}
