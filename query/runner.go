package query

// What query asks of package job: every job execute_sql, get_job,
// get_query_results and cancel_job touch, and the query job of
// export_results (RunToTable, ResultOf), goes through one job.Runner.

import (
	"context"
	"strings"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/sqltext"
)

// defaultWait is how long a call waits for a job when the agent does not
// say: below the minute after which common hosts (Claude Desktop) give up
// on a tool call.
const defaultWait = 45 * time.Second

// newRunner is the job runner of a Service configured by cfg, built once
// by NewService: every job the service touches goes through it.
func (s *Service) newRunner(cfg Config) *job.Runner {
	return job.New(job.Config{
		Client: cfg.Client, REST: cfg.REST, Executor: cfg.Executor,
		Project: cfg.Project, Location: cfg.Location, Timeout: cfg.QueryTimeout,
		State: cfg.State, RefuseForeign: cfg.MultiPrincipal || cfg.Datasets.Enabled(),
		Withhold:  cfg.Datasets.Enabled(),
		Locations: s.datasetLocations,
		Follow:    cfg.follow,
		Hooks:     job.Hooks{Cancelled: cfg.Hooks.JobCancelled},
		Logger:    cfg.Logger,
	})
}

// datasetLocations lists where the project's datasets live, from the
// Catalog's cached metadata; none without a Catalog.
func (s *Service) datasetLocations(ctx context.Context) ([]string, error) {
	if s.cfg.Catalog == nil {
		return nil, nil
	}
	return s.cfg.Catalog.DatasetLocations(ctx, s.cfg.Project)
}

// Close stops the follower of unfinished jobs. Call it when the server
// stops, before closing the BigQuery client.
func (s *Service) Close() { s.jobs.Close() }

// querySpec is r's query as job.QueryConfig takes it.
func (r *request) querySpec() (job.QuerySpec, error) {
	params, err := restParameters(r.params)
	if err != nil {
		return job.QuerySpec{}, err
	}
	q := job.QuerySpec{SQL: r.sql, Params: params, MaxBytesBilled: r.maxBytesBilled}
	if r.defaultDataset != "" {
		q.DefaultDataset = &bq.DatasetReference{ProjectId: r.defaultProject, DatasetId: r.defaultDataset}
	}
	return q, nil
}

// chargeFor notes, as r's job starts now under ctx's labels, what its
// record and the caller's list of last jobs will say of it.
func chargeFor(ctx context.Context, r *request) {
	r.charge.Meta = job.Meta{Tool: governance.JobLabels(ctx)["mcp_tool"], Statement: statementKind(r.text), Started: time.Now()}
}

// statementKind names the kind of statement a text is, from the reading
// sqltext made of it once (request.text): SELECT for what the read-only
// guard accepts, SCRIPT for several statements, else the statement's
// leading keyword (INSERT, CREATE, …).
func statementKind(t *sqltext.Text) string {
	switch {
	case t.ReadOnly() == nil:
		return "SELECT"
	case len(t.Statements) != 1:
		return "SCRIPT"
	}
	kw, _, _ := strings.Cut(t.Statements[0].Kind, " ")
	return kw
}

// stillRunning fills out for a job that outlived the call's wait: the job
// goes on under its own timeout, and the agent learns how to pick it up.
func (s *Service) stillRunning(ctx context.Context, ref job.Ref, since time.Time, out *ExecuteOutput) {
	out.JobID, out.Location = ref.ID, ref.Location
	out.JobComplete = false
	var elapsed time.Duration
	out.State, out.BytesProcessed, elapsed = s.jobs.Running(ctx, ref, since)
	out.ElapsedMs = elapsed.Milliseconds()
	out.Hint = "The query is still running. Call get_query_results with this jobId and location (and waitSeconds) to wait for its rows, get_job to check on it, or cancel_job to stop it."
}
