package query

// Results read whole, for export_results. A tool that writes a result to a
// file or a table must not run its query around the checks execute_sql's
// jobs pass, so the query is run here, behind the same preflight (read-only
// guard, allowlist, budget reservation, confirmation), with the same labels,
// location, ownership record and settling; what it hands back is only where
// the result lives (the job's destination table), never rows.

import (
	"context"
	"time"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/cost"
	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// ResultTable is a finished query's result, where BigQuery keeps it: the
// job's destination table (an anonymous table, kept about 24 hours, for a
// query that named none).
type ResultTable struct {
	JobID    string
	Location string
	// Table is the destination table.
	Table *bigquery.Table
	// BytesProcessed and BytesBilled are the job's statistics; CostUSD
	// what the job cost at Price (both nil while unknown: under editions
	// without the job's slot time).
	BytesProcessed int64
	BytesBilled    int64
	CacheHit       bool
	CostUSD        *float64
	Price          *cost.Price
}

// RunToTable runs in.SQL as execute_sql would, under every check before
// the job and the accounting after it, but as a jobs.insert that returns
// no rows: the caller reads the result table itself. Only a single
// SELECT is accepted, whatever --allow-writes says: a statement that
// changes data has no result to export. checkEstimate, when not nil, is
// the caller's own check of the dry run's estimate, made before the job
// starts and before any budget is held (guard.go). The call waits for the
// job up to its timeout and cancels it there.
func (s *Service) RunToTable(ctx context.Context, in ExecuteInput, checkEstimate func(bytes int64) error) (*ResultTable, error) {
	start := time.Now()
	r, err := s.validate(in)
	if err != nil {
		return nil, err
	}
	r.checkEstimate = checkEstimate
	if err := r.text.ReadOnly(); err != nil {
		return nil, bqerr.Invalid("only a single SELECT (or WITH … SELECT) can be exported: "+err.Error(),
			"Export the result of a query; run statements that change data with execute_sql.").WithQuery(r.sql)
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	if err := s.admit(ctx, r); err != nil {
		return nil, err
	}
	chargeFor(ctx, r)
	spec, err := r.querySpec()
	if err != nil {
		s.release(ctx, r)
		return nil, bqerr.New(bqerr.Internal, "the query parameters could not be sent").WithCause(err)
	}
	// The handle owns the hold from here (package job, handle.go).
	h := s.jobs.Begin(resilience.Query, r.charge, r.throughView)
	defer h.Close(ctx)
	if err := h.Insert(ctx, job.Ref{ID: s.jobs.NewJobID(), Location: s.jobLocation(ctx, r)}, job.QueryConfig(spec), r.timeout); err != nil {
		return nil, s.fail(ctx, err, r, job.Ref{})
	}
	ref := h.Job()
	deadline, _ := ctx.Deadline()
	p, err := h.Await(ctx, 1, start, deadline)
	if err == nil && !p.Complete {
		<-ctx.Done() // the query's own time is up
		err = ctx.Err()
	}
	if err != nil {
		return nil, s.fail(ctx, err, r, ref)
	}
	j, err := h.Finished(ctx)
	if err != nil {
		return nil, err
	}
	if err := j.Status.Err(); err != nil {
		return nil, s.fail(ctx, err, r, ref)
	}
	out, err := s.resultTable(j)
	if err == nil && s.hooks.JobDone != nil {
		s.hooks.JobDone(ctx, "SELECT", out.BytesProcessed, out.BytesBilled, out.CacheHit)
	}
	return out, err
}

// ResultOf finds the result table of a finished query the caller started
// on this server (package job decides, before any request, exactly as for
// get_query_results). A job still running, failed, or without a result
// table (DML, DDL) is refused with a hint.
func (s *Service) ResultOf(ctx context.Context, jobID, location string) (*ResultTable, error) {
	j, err := s.jobs.Open(ctx, jobID, location)
	if err != nil {
		return nil, err
	}
	if j.Status.State != bigquery.Done {
		return nil, bqerr.Newf(bqerr.InvalidArgument, "job %s is still running", j.Ref.ID).WithJobID(j.Ref.ID).
			WithHint("Wait for it with get_query_results (waitSeconds), then export again.")
	}
	if err := j.Status.Err(); err != nil {
		return nil, j.Withheld(bqerr.From(err)).WithJobID(j.Ref.ID)
	}
	return s.resultTable(j)
}

// resultTable reads where a finished query job left its result, and what
// the job cost.
func (s *Service) resultTable(j *job.Job) (*ResultTable, error) {
	out := &ResultTable{JobID: j.BQ.ID(), Location: j.Ref.Location}
	status := j.Status
	if cfg, err := j.BQ.Config(); err == nil {
		if qc, ok := cfg.(*bigquery.QueryConfig); ok {
			out.Table = qc.Dst
		}
	}
	if out.Table == nil {
		return nil, bqerr.Newf(bqerr.InvalidArgument, "job %s has no result table to export", out.JobID).WithJobID(out.JobID).
			WithHint("Only the result of a query (a SELECT) can be exported; a statement that changed data or a script has none.")
	}
	if st := status.Statistics; st != nil {
		out.BytesProcessed = st.TotalBytesProcessed
		if qs, ok := st.Details.(*bigquery.QueryStatistics); ok {
			out.BytesBilled, out.CacheHit = qs.TotalBytesBilled, qs.CacheHit
			slotMs := max(st.TotalSlotDuration.Milliseconds(), qs.SlotMillis)
			out.CostUSD, out.Price = s.jobCost(out.Location, out.BytesBilled, slotMs, slotMs > 0 || out.CacheHit)
		}
	}
	return out, nil
}
