package job

// Starting a job. Every job gets its identity before the first attempt:
// jobs.query a requestId, jobs.insert and the client's copy and extract
// jobs a job ID. A retry after a lost answer then meets the same job
// (BigQuery answers a repeated jobs.insert 409 duplicate, naming it),
// never a second one, and a caller that goes away can always cancel it.

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
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// QuerySpec is a query as the tool's checks admitted it.
type QuerySpec struct {
	SQL    string
	Params []*bq.QueryParameter
	// DefaultDataset is for unqualified table names; nil: none.
	DefaultDataset *bq.DatasetReference
	MaxBytesBilled int64
}

// QueryConfig is the one JobConfigurationQuery of q, for dry runs, query
// jobs and jobs.query alike: GoogleSQL, named parameters, the bytes cap.
func QueryConfig(q QuerySpec) *bq.JobConfigurationQuery {
	legacy := false
	c := &bq.JobConfigurationQuery{
		Query: q.SQL, UseLegacySql: &legacy, QueryParameters: q.Params,
		MaximumBytesBilled: q.MaxBytesBilled, DefaultDataset: q.DefaultDataset,
	}
	if len(q.Params) > 0 {
		c.ParameterMode = "NAMED"
	}
	return c
}

// JobCreationRequired makes jobs.query always create a job (cost advice
// sends its own lookups with it too); see
// docs/performance.md for why the optional mode is not used.
const JobCreationRequired = "JOB_CREATION_REQUIRED"

// QueryRequest is the jobs.query request for q, run in location, that
// answers with up to maxRows rows. Its requestId is chosen here, once:
// every attempt of the call sends the same one, so BigQuery treats a retry
// after a lost response as the same query, never a second job. The job
// carries the call's labels (governance.JobLabels) and stops at timeout
// even if this server is gone and cannot cancel it.
func (r *Runner) QueryRequest(ctx context.Context, q *bq.JobConfigurationQuery, location string, maxRows int, timeout time.Duration) *bq.QueryRequest {
	return &bq.QueryRequest{
		Query:              q.Query,
		UseLegacySql:       q.UseLegacySql,
		QueryParameters:    q.QueryParameters,
		ParameterMode:      q.ParameterMode,
		DefaultDataset:     q.DefaultDataset,
		MaximumBytesBilled: q.MaximumBytesBilled,
		Location:           location,
		Labels:             governance.JobLabels(ctx),
		MaxResults:         int64(maxRows),
		RequestId:          r.newID(),
		JobCreationMode:    JobCreationRequired,
		JobTimeoutMs:       timeout.Milliseconds(),
		FormatOptions:      &bq.DataFormatOptions{UseInt64Timestamp: true},
	}
}

// DryRun asks BigQuery to validate and plan q without running it, in
// location. A dry run creates no job, but it carries the call's labels
// like every job request, and runs where the job would.
func (r *Runner) DryRun(ctx context.Context, q *bq.JobConfigurationQuery, location string) (*bq.Job, error) {
	j := &bq.Job{
		JobReference:  &bq.JobReference{ProjectId: r.cfg.Project, JobId: r.newID(), Location: location},
		Configuration: &bq.JobConfiguration{DryRun: true, Query: q, Labels: governance.JobLabels(ctx)},
	}
	got, err := r.insert(ctx, resilience.Query, j)
	if err == nil && got == nil {
		err = errors.New("the dry run's job ID was taken") // a fresh UUID: never expected
	}
	return got, err
}

// insertQuery starts q as a jobs.insert under ref's ID, chosen before the
// first attempt, with the call's labels and BigQuery's own backstop at
// timeout. It returns ref with the location BigQuery names. A query that
// BigQuery fails at once comes back as its error.
func (r *Runner) insertQuery(ctx context.Context, ref Ref, q *bq.JobConfigurationQuery, timeout time.Duration) (Ref, error) {
	j := &bq.Job{
		JobReference: &bq.JobReference{ProjectId: r.cfg.Project, JobId: ref.ID, Location: ref.Location},
		Configuration: &bq.JobConfiguration{
			Query: q, Labels: governance.JobLabels(ctx),
			JobTimeoutMs: timeout.Milliseconds(),
		},
	}
	got, err := r.insert(ctx, resilience.Query, j)
	if err != nil || got == nil {
		return ref, err
	}
	if got.JobReference != nil && got.JobReference.Location != "" {
		ref.Location = got.JobReference.Location
	}
	// BigQuery answers a query that failed at once with the job and its
	// error; so does the emulator, whose jobs.get never shows it.
	if got.Status != nil && got.Status.ErrorResult != nil {
		e := got.Status.ErrorResult
		return ref, bqerr.From(&googleapi.Error{Code: http.StatusBadRequest, Message: e.Message,
			Errors: []googleapi.ErrorItem{{Reason: e.Reason, Message: e.Message}}}).WithJobID(ref.ID)
	}
	return ref, nil
}

// insert sends jobs.insert under op's policy. A 409 naming j's ID means an
// earlier attempt's insert arrived: the job exists, and insert returns no
// job and no error.
func (r *Runner) insert(ctx context.Context, op resilience.Operation, j *bq.Job) (*bq.Job, error) {
	var got *bq.Job
	err := r.exec.Do(ctx, op, r.cfg.Project, func(ctx context.Context) error {
		var err error
		got, err = r.rest.Jobs.Insert(r.cfg.Project, j).Context(ctx).Do()
		if sameJob(err, j.JobReference.JobId) {
			got, err = nil, nil
		}
		return err
	})
	return got, err
}

// sameJob reports whether err is BigQuery's 409 for job id: it exists
// already, started by an earlier attempt of the same call.
func sameJob(err error, id string) bool {
	var ge *googleapi.Error
	return errors.As(err, &ge) && ge.Code == http.StatusConflict && strings.Contains(ge.Message, id)
}

// Run starts a client job (copy, extract) under ref's ID with start, on
// client, and waits for it to end. A 409 naming the ID means an earlier attempt's
// insert arrived: that job is the one waited for, never a second. A caller
// that goes away while the job runs gets it cancelled (best effort), so
// nothing keeps writing that nobody will see.
func Run(ctx context.Context, client *bigquery.Client, ref Ref, start func(context.Context) (*bigquery.Job, error)) (*bigquery.JobStatus, error) {
	j, err := start(ctx)
	if sameJob(err, ref.ID) {
		j, err = client.JobFromIDLocation(ctx, ref.ID, ref.Location)
	}
	if err != nil {
		return nil, err
	}
	status, err := j.Wait(ctx)
	if err != nil {
		if ctx.Err() != nil {
			stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			_ = j.Cancel(stop)
		}
		return nil, err
	}
	return status, status.Err()
}

// Stop cancels a job whose caller stopped waiting (reason "timeout" or
// "client_cancel"). The caller's context is already done, so cancellation
// gets a short context of its own, and one request: if it fails, the job's
// own limits (maximumBytesBilled, jobTimeoutMs) still hold.
func (r *Runner) Stop(ctx context.Context, ref Ref, reason string) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := r.cancel(cctx, ref); err != nil {
		r.log.WarnContext(ctx, "job cancel failed", "job_id", ref.ID, "reason", reason, "error", bqerr.Redact(err.Error()))
		return
	}
	if r.cfg.Hooks.Cancelled != nil {
		r.cfg.Hooks.Cancelled(ctx, reason)
	}
	r.log.InfoContext(ctx, "job cancelled", "job_id", ref.ID, "reason", reason)
}

// cancel sends one jobs.cancel.
func (r *Runner) cancel(ctx context.Context, ref Ref) (*bq.JobCancelResponse, error) {
	call := r.rest.Jobs.Cancel(r.cfg.Project, ref.ID).Context(ctx)
	if ref.Location != "" {
		call = call.Location(ref.Location)
	}
	return call.Do()
}
