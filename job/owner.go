package job

// Job ownership. Every job this server starts is recorded with the
// principal who started it (auth.CallerFrom; "" is stdio's one local
// user), where it runs and what the dataset allowlist decided. The job
// tools (get_job, get_query_results, cancel_job, export_results of a jobId)
// look the record up before any BigQuery request: a job another principal
// started is answered exactly like a job ID that does not exist, because in
// token and google client-auth modes every caller runs as the server's own
// credential and BigQuery's IAM cannot tell them apart. Job IDs are no
// secret (they are in logs, errors and the agent's context), so the record
// is the check.
//
// Jobs this server did not start (from the console, another tool, another
// instance) are answered as not found too whenever Config.RefuseForeign
// says so (more than one principal, or a dataset allowlist): nothing says
// who started them or what they read. Over stdio without an allowlist they
// are read as before.

import (
	"cmp"
	"context"
	"errors"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// own records job as the caller's, with what its call charges it to and
// whether the allowlist let it through only by an authorized view. A job
// not recorded can be read only by its own call.
func (r *Runner) own(ctx context.Context, job Ref, c Charge, throughView bool) {
	if job.ID == "" {
		return
	}
	rec := governance.JobRecord{
		ID: job.ID, Principal: auth.CallerFrom(ctx).Principal, Location: job.Location,
		ThroughView: throughView, Reservation: c.Reservation,
		Tool: c.Meta.Tool, Statement: c.Meta.Statement, Started: c.Meta.Started,
	}
	if err := r.cfg.State.RecordJob(context.WithoutCancel(ctx), rec); err != nil {
		r.log.WarnContext(ctx, "job not recorded: only its own call can read it", "job_id", job.ID, "error", bqerr.Redact(err.Error()))
	}
}

// Access is what the record says of a job the caller may ask about.
type Access struct {
	rec governance.JobRecord
	// recorded is set for a job this server started for the caller;
	// unset for a job it did not start, which only a server with one
	// principal and no allowlist lets through.
	recorded bool
	// withhold is Config.Withhold.
	withhold bool
}

// Charge is what the record says the job is charged to: its hold in the
// caller's budget, nothing for a job this server did not start.
func (a Access) Charge() Charge {
	if !a.recorded {
		return Charge{}
	}
	return Charge{Reservation: a.rec.Reservation, Meta: Meta{Tool: a.rec.Tool, Statement: a.rec.Statement, Started: a.rec.Started}}
}

// Withheld replaces the error text of a job that read outside the dataset
// allowlist through an authorized view: BigQuery's message may quote what
// the view hides. The agent keeps the job's state and IDs.
func (a Access) Withheld(e *bqerr.Error) *bqerr.Error {
	if e == nil || !a.rec.ThroughView || !a.withhold {
		return e
	}
	return bqerr.New(bqerr.QueryError, "the job failed; its error text is withheld because the query read tables outside this server's dataset allowlist through an authorized view").
		WithJobID(a.rec.ID).WithRetryable(false)
}

// Check decides, before any BigQuery request, whether the caller may ask
// about job, and where to ask for it: the agent's location, else the
// record's, else what the runner knows.
func (r *Runner) Check(ctx context.Context, job Ref) (Access, Ref, error) {
	acc, err := r.checkOwner(ctx, job.ID)
	if err != nil {
		return Access{}, job, err
	}
	if job.Location == "" {
		job.Location = cmp.Or(acc.rec.Location, r.known(job.ID, ""))
	}
	return acc, job, nil
}

func (r *Runner) checkOwner(ctx context.Context, id string) (Access, error) {
	caller := auth.CallerFrom(ctx).Principal
	rec, err := r.cfg.State.LookupJob(ctx, id)
	var forgotten *governance.ForgottenJobError
	switch {
	case err == nil:
		if rec.Principal != caller {
			return Access{}, noSuchJob(id)
		}
		return Access{rec: rec, recorded: true, withhold: r.cfg.Withhold}, nil
	case errors.As(err, &forgotten):
		if forgotten.Principal != caller {
			return Access{}, noSuchJob(id)
		}
		if r.cfg.RefuseForeign {
			return Access{}, bqerr.New(bqerr.NotFound, forgotten.Error()).WithJobID(id).
				WithHint("This server can no longer tell whose job it is, so it does not read it. Run the query again with execute_sql.")
		}
		return Access{}, nil
	case errors.Is(err, governance.ErrJobNotRecorded):
		if r.cfg.RefuseForeign {
			return Access{}, noSuchJob(id)
		}
		return Access{}, nil
	}
	return Access{}, bqerr.New(bqerr.Unavailable, "the server's job records could not be read").WithCause(err).WithJobID(id)
}

// noSuchJob is the one answer for a job ID the caller may not ask about:
// another principal's job, a job this server did not start, and an ID that
// names no job at all get the same code and text, so the answer tells
// nothing about whose a job is or whether it exists.
func noSuchJob(id string) *bqerr.Error {
	return bqerr.Newf(bqerr.NotFound, "no job %s started by you on this server", id).WithJobID(id).
		WithHint("The job tools read only jobs this server started for the caller in the last 24 hours. Check the jobId that execute_sql returned.")
}

// Job is an existing job of the caller's, as jobs.get found it.
type Job struct {
	Access
	// Ref is the job, in the location it was found in (BigQuery's own
	// word on the location wins when it gives one).
	Ref    Ref
	BQ     *bigquery.Job
	Status *bigquery.JobStatus
}

// Open finds an existing job for a job tool: the job ID and location are
// validated, the ownership check comes before any request, and the job is
// looked for in any region. A job seen finished is settled in the budget.
func (r *Runner) Open(ctx context.Context, jobID, location string) (*Job, error) {
	return r.opened(ctx, jobID, location, func(context.Context, *Job) error { return nil })
}

// Cancel asks BigQuery to stop an existing job of the caller's, opened as
// Open does. Cancellation is best effort: the job may finish first.
func (r *Runner) Cancel(ctx context.Context, jobID, location string) (*Job, error) {
	return r.opened(ctx, jobID, location, func(ctx context.Context, j *Job) error {
		err := r.exec.Do(ctx, resilience.Query, r.cfg.Project, func(ctx context.Context) error {
			_, err := r.cancel(ctx, j.Ref)
			return err
		})
		if err != nil {
			return bqerr.From(err).WithJobID(j.Ref.ID)
		}
		if j.Status, err = j.BQ.Status(ctx); err != nil {
			j.Status = j.BQ.LastStatus()
		}
		return nil
	})
}

// opened opens a job within the job tools' timeout, does then with it,
// and settles it when it is seen finished.
func (r *Runner) opened(ctx context.Context, jobID, location string, then func(context.Context, *Job) error) (*Job, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	j, err := r.open(ctx, jobID, location)
	if err != nil {
		return nil, err
	}
	if err := then(ctx, j); err != nil {
		return nil, err
	}
	r.settleSeen(ctx, j)
	return j, nil
}

// open validates the job's ID and location, checks the caller may ask
// about it, and finds it.
func (r *Runner) open(ctx context.Context, jobID, location string) (*Job, error) {
	ref, err := ParseRef(jobID, location)
	if err != nil {
		return nil, err
	}
	acc, ref, err := r.Check(ctx, ref)
	if err != nil {
		return nil, err
	}
	f, err := r.find(ctx, ref.ID, ref.Location)
	if err != nil {
		return nil, err
	}
	return &Job{Access: acc, Ref: Ref{ID: ref.ID, Location: f.loc}, BQ: f.job, Status: f.status}, nil
}

// finished reads a job the caller's call started and saw finish, and
// settles its cost with c; a job that cannot be read is left to the
// follower.
func (r *Runner) finished(ctx context.Context, job Ref, c Charge) (*Job, error) {
	f, err := r.get(ctx, job.ID, job.Location)
	if err != nil {
		r.follow(ctx, job, c)
		return nil, err
	}
	j := &Job{Access: Access{rec: governance.JobRecord{ID: job.ID, Location: job.Location, Reservation: c.Reservation,
		Tool: c.Meta.Tool, Statement: c.Meta.Statement, Started: c.Meta.Started}, recorded: true, withhold: r.cfg.Withhold},
		Ref: Ref{ID: job.ID, Location: f.loc}, BQ: f.job, Status: f.status}
	r.settleSeen(ctx, j)
	return j, nil
}
