package job

import (
	"context"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// Lookup runs q, a small query the server makes for itself on a caller's
// behalf (cost advice's INFORMATION_SCHEMA.PARTITIONS sizes,
// search_columns' COLUMN_FIELD_PATHS search, the dataset allowlist's
// INFORMATION_SCHEMA.PROPERTY_GRAPHS definitions), to its end, as one job like
// any other: one jobs.query whose requestId is chosen before the first
// attempt, so that a retry after a lost answer meets the same job, never a
// second; the call's labels; the caller's record of it. c is the hold the
// caller's checks made for it (BigQuery's minimum bill); the job's own
// bytes billed settle it when the job ends, it is given back when no job
// started, and a job that outlives the lookup is followed (handle.go).
// The lookup waits until ctx's deadline, or the runner's Timeout without
// one, and returns the job's first page, up to maxRows rows, in location
// ("" lets BigQuery choose). The caller's list of last jobs names it a
// SELECT of the tool that asked.
func (r *Runner) Lookup(ctx context.Context, q *bq.JobConfigurationQuery, location string, maxRows int, c Charge) (*Page, error) {
	start := time.Now()
	until, ok := ctx.Deadline()
	if !ok {
		until = start.Add(r.cfg.Timeout)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, until)
		defer cancel()
	}
	c.Meta = Meta{Tool: governance.JobLabels(ctx)["mcp_tool"], Statement: "SELECT", Started: start}
	h := r.Begin(resilience.Query, c, false)
	defer h.Close(ctx)
	// BigQuery's backstop: the job stops when the lookup would (at least
	// a second from now, for a lookup started at its deadline).
	req := r.QueryRequest(ctx, q, location, maxRows, max(until.Sub(start), time.Second))
	if _, err := h.Query(ctx, req, until); err != nil {
		return nil, err
	}
	p, err := h.Await(ctx, maxRows, start, until)
	if err != nil {
		return nil, err
	}
	if !p.Complete {
		return nil, bqerr.Newf(bqerr.DeadlineExceeded, "the lookup job %s did not finish in time", p.Job.ID).WithJobID(p.Job.ID)
	}
	h.Close(ctx)
	return p, nil
}
