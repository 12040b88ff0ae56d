package query

// Job ownership. Every job this server starts is recorded with the
// principal who started it (auth.CallerFrom; "" is stdio's one local
// user), where it runs and what the dataset allowlist decided. The job
// tools (get_job, get_query_results, cancel_job) look the record up before
// any BigQuery request: a job another principal started is answered exactly
// like a job ID that does not exist, because in token and google
// client-auth modes every caller runs as the server's own credential and
// BigQuery's IAM cannot tell them apart. Job IDs are no secret (they are
// in logs, errors and the agent's context), so the record is the check.
//
// Jobs this server did not start (from the console, another tool, another
// instance) are answered as not found too whenever the server may serve
// more than one principal (Config.MultiPrincipal) or a dataset allowlist is
// in force: nothing says who started them or what they read. Over stdio
// without an allowlist they are read as before.

import (
	"cmp"
	"context"
	"errors"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// own records the job r started, for the caller.
func (s *Service) own(ctx context.Context, r *request, job jobHandle) {
	if job.id == "" {
		return
	}
	rec := governance.JobRecord{
		ID: job.id, Principal: auth.CallerFrom(ctx).Principal, Location: job.location,
		ThroughView: r.throughView, Reservation: r.reservation,
		Tool: r.meta.tool, Statement: r.meta.statement, Started: r.meta.started,
	}
	if err := s.cfg.State.RecordJob(context.WithoutCancel(ctx), rec); err != nil {
		s.log.WarnContext(ctx, "job not recorded: only its own call can read it", "job_id", job.id, "error", bqerr.Redact(err.Error()))
	}
}

// jobAccess is what the record says of a job the caller may ask about.
type jobAccess struct {
	rec governance.JobRecord
	// recorded is set for a job this server started for the caller;
	// unset for a job it did not start, which only a server with one
	// principal and no allowlist lets through.
	recorded bool
}

// location is where to ask for the job: the agent's word, else the
// record's, else what the server knows (knownLocation).
func (a jobAccess) location(s *Service, id, loc string) string {
	if loc != "" {
		return loc
	}
	return cmp.Or(a.rec.Location, s.knownLocation(id, ""))
}

// foreignJobsRefused reports whether jobs this server did not start are
// refused: when callers must be kept apart, or an allowlist must hold.
func (s *Service) foreignJobsRefused() bool {
	return s.cfg.MultiPrincipal || s.cfg.Datasets.Enabled()
}

// checkOwner decides, before any BigQuery request, whether the caller may
// ask about job id.
func (s *Service) checkOwner(ctx context.Context, id string) (jobAccess, error) {
	caller := auth.CallerFrom(ctx).Principal
	rec, err := s.cfg.State.LookupJob(ctx, id)
	var forgotten *governance.ForgottenJobError
	switch {
	case err == nil:
		if rec.Principal != caller {
			return jobAccess{}, noSuchJob(id)
		}
		return jobAccess{rec: rec, recorded: true}, nil
	case errors.As(err, &forgotten):
		if forgotten.Principal != caller {
			return jobAccess{}, noSuchJob(id)
		}
		if s.foreignJobsRefused() {
			return jobAccess{}, bqerr.New(bqerr.NotFound, forgotten.Error()).WithJobID(id).
				WithHint("This server can no longer tell whose job it is, so it does not read it. Run the query again with execute_sql.")
		}
		return jobAccess{}, nil
	case errors.Is(err, governance.ErrJobNotRecorded):
		if s.foreignJobsRefused() {
			return jobAccess{}, noSuchJob(id)
		}
		return jobAccess{}, nil
	}
	return jobAccess{}, bqerr.New(bqerr.Unavailable, "the server's job records could not be read").WithCause(err).WithJobID(id)
}

// noSuchJob is the one answer for a job ID the caller may not ask about:
// another principal's job, a job this server did not start, and an ID that
// names no job at all get the same code and text, so the answer tells
// nothing about whose a job is or whether it exists.
func noSuchJob(id string) *bqerr.Error {
	return bqerr.Newf(bqerr.NotFound, "no job %s started by you on this server", id).WithJobID(id).
		WithHint("The job tools read only jobs this server started for the caller in the last 24 hours. Check the jobId that execute_sql returned.")
}

// withheld replaces the error text of a job that read outside the dataset
// allowlist through an authorized view: BigQuery's message may quote what
// the view hides. The agent keeps the job's state and IDs.
func (s *Service) withheld(a jobAccess, e *bqerr.Error) *bqerr.Error {
	if e == nil || !a.rec.ThroughView || !s.cfg.Datasets.Enabled() {
		return e
	}
	return bqerr.New(bqerr.QueryError, "the job failed; its error text is withheld because the query read tables outside this server's dataset allowlist through an authorized view").
		WithJobID(a.rec.ID).WithRetryable(false)
}
