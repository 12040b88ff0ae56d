package query

// Results read whole, for export_results. A tool that writes a result to a
// file or a table must not run its query around the checks execute_sql's
// jobs pass, so the query is run here, behind the same preflight (read-only
// guard, allowlist, budget reservation, confirmation), with the same labels,
// location, ownership record and settling; what it hands back is only where
// the result lives (the job's destination table), never rows.

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"
	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/googleapi"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/cost"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
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
// changes data has no result to export. A query the dry run estimates to
// read more than in.MaxExportBytes is refused before its job starts
// (guard.go). The call waits for the job up to its timeout and cancels it
// there.
func (s *Service) RunToTable(ctx context.Context, in ExecuteInput) (*ResultTable, error) {
	start := time.Now()
	r, err := s.validate(in)
	if err != nil {
		return nil, err
	}
	if err := r.text.ReadOnly(); err != nil {
		return nil, bqerr.Invalid("only a single SELECT (or WITH … SELECT) can be exported: "+err.Error(),
			"Export the result of a query; run statements that change data with execute_sql.").WithQuery(r.sql)
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	if err := s.admit(ctx, r); err != nil {
		return nil, err
	}
	r.meta = metaOf(ctx, r)
	// The ID is chosen before the first attempt (insertQuery). Without
	// dashes it is also a valid dataset ID, which the emulator names the
	// result's dataset after.
	job := jobHandle{id: "bqmcp_" + strings.ReplaceAll(s.newRequestID(), "-", ""), location: s.jobLocation(ctx, r)}
	if job, err = s.insertQuery(ctx, r, job); err != nil {
		s.release(ctx, r)
		return nil, s.fail(ctx, err, r, "", "")
	}
	s.own(ctx, r, job)
	s.rememberJob(job.id, job.location)
	deadline, _ := ctx.Deadline()
	p, err := s.await(ctx, resilience.Query, &page{job: job}, 0, 1, start, deadline)
	if err == nil && !p.complete {
		<-ctx.Done() // the query's own time is up
		err = ctx.Err()
	}
	if err != nil {
		err = s.fail(ctx, err, r, job.id, job.location)
		s.settleFromJob(ctx, job, r.reservation, r.estimate, r.meta)
		return nil, err
	}
	bj, status, err := s.job(ctx, job.id, job.location)
	if err != nil {
		s.followJob(ctx, job, r.reservation, r.estimate, r.meta)
		return nil, err
	}
	s.settleSeen(ctx, jobAccess{rec: governance.JobRecord{ID: job.id, Location: job.location, Reservation: r.reservation, Tool: r.meta.tool, Statement: r.meta.statement, Started: r.meta.started}, recorded: true}, status)
	if err := status.Err(); err != nil {
		return nil, s.fail(ctx, err, r, job.id, job.location)
	}
	out, err := s.resultTable(bj, status, job.location)
	if err == nil && s.hooks.JobDone != nil {
		s.hooks.JobDone(ctx, "SELECT", out.BytesProcessed, out.BytesBilled, out.CacheHit)
	}
	return out, err
}

// insertQuery starts r's job with jobs.insert under the ID chosen in job,
// so that a retry after a lost answer finds the same job (409 duplicate)
// rather than starting a second one.
func (s *Service) insertQuery(ctx context.Context, r *request, job jobHandle) (jobHandle, error) {
	params, err := restParameters(r.params)
	if err != nil {
		return job, bqerr.New(bqerr.Internal, "the query parameters could not be sent").WithCause(err)
	}
	legacy := false
	q := &bq.JobConfigurationQuery{Query: r.sql, UseLegacySql: &legacy, QueryParameters: params, MaximumBytesBilled: r.maxBytesBilled}
	if len(params) > 0 {
		q.ParameterMode = "NAMED"
	}
	if r.defaultDataset != "" {
		q.DefaultDataset = &bq.DatasetReference{ProjectId: r.defaultProject, DatasetId: r.defaultDataset}
	}
	j := &bq.Job{
		JobReference: &bq.JobReference{ProjectId: s.cfg.Project, JobId: job.id, Location: job.location},
		Configuration: &bq.JobConfiguration{
			Query: q, Labels: governance.JobLabels(ctx),
			// BigQuery's own backstop, as for execute_sql's jobs.
			JobTimeoutMs: r.timeout.Milliseconds(),
		},
	}
	err = s.exec.Do(ctx, resilience.Query, s.cfg.Project, func(ctx context.Context) error {
		got, err := s.rest.Jobs.Insert(s.cfg.Project, j).Context(ctx).Do()
		var ge *googleapi.Error
		if errors.As(err, &ge) && ge.Code == http.StatusConflict {
			return nil // an earlier attempt's insert arrived: the job exists
		}
		if err != nil {
			return err
		}
		if got.JobReference != nil && got.JobReference.Location != "" {
			job.location = got.JobReference.Location
		}
		// BigQuery answers a query that failed at once with the job and
		// its error; so does the emulator, whose jobs.get never shows it.
		if got.Status != nil && got.Status.ErrorResult != nil {
			return bqerr.From(&googleapi.Error{Code: http.StatusBadRequest, Message: got.Status.ErrorResult.Message,
				Errors: []googleapi.ErrorItem{{Reason: got.Status.ErrorResult.Reason, Message: got.Status.ErrorResult.Message}}}).WithJobID(job.id)
		}
		return nil
	})
	return job, err
}

// ResultOf finds the result table of a finished query the caller started
// on this server (owner.go decides, before any request, exactly as for
// get_query_results). A job still running, failed, or without a result
// table (DML, DDL) is refused with a hint.
func (s *Service) ResultOf(ctx context.Context, jobID, location string) (*ResultTable, error) {
	id, loc, err := s.jobRef(jobID, location)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.QueryTimeout)
	defer cancel()
	j, err := s.lookUpOwned(ctx, id, loc)
	if err != nil {
		return nil, err
	}
	acc, job, status, loc := j.acc, j.job, j.status, j.loc
	s.settleSeen(ctx, acc, status)
	if status.State != bigquery.Done {
		return nil, bqerr.Newf(bqerr.InvalidArgument, "job %s is still running", id).WithJobID(id).
			WithHint("Wait for it with get_query_results (waitSeconds), then export again.")
	}
	if err := status.Err(); err != nil {
		return nil, s.withheld(acc, bqerr.From(err)).WithJobID(id)
	}
	return s.resultTable(job, status, loc)
}

// resultTable reads where a finished query job left its result, and what
// the job cost.
func (s *Service) resultTable(job *bigquery.Job, status *bigquery.JobStatus, loc string) (*ResultTable, error) {
	out := &ResultTable{JobID: job.ID(), Location: loc}
	if job.Location() != "" {
		out.Location = job.Location()
	}
	if cfg, err := job.Config(); err == nil {
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
