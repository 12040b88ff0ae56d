// Package job owns the life of one BigQuery job, whichever tool starts it:
// starting it under an ID (or requestId) chosen before the first attempt,
// so that a retry finds the same job (a 409 is that job, never a second);
// recording who started it, and with which labels, in the governance job
// records; waiting for it with progress reports; settling its cost in the
// caller's budget, or handing it to a follower when it outlives its call;
// cancelling it when its caller goes away; finding it in any region; and
// opening an existing job for the job tools, the ownership check before
// any request.
//
// execute_sql, get_job, get_query_results and cancel_job (package query),
// every job export_results runs (package export: query, copy and
// extract) and the server's own lookups (cost advice's partition sizes,
// search_columns' INFORMATION_SCHEMA search: Lookup) go through a Runner;
// a query job of a call is one value, a Handle, whose Close ends its
// charge in one place (handle.go). The checks before a job (read-only guard,
// allowlist, budget reservation, confirmation) stay with the tools: this
// package starts what they admitted.
package job

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/bigquery"
	"github.com/google/uuid"
	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// Ref names a job BigQuery created: its ID and, once known, its location.
type Ref struct {
	ID, Location string
}

// Config is everything a Runner needs, given once to New.
type Config struct {
	// Client reads jobs' metadata and REST sends every other job request;
	// Executor runs them under their operation's policy. All three are
	// required.
	Client   *bigquery.Client
	REST     *bq.Service
	Executor *resilience.Executor
	// Project runs and pays for the jobs; Location (--location), when set,
	// is where a job of unknown location is asked for first.
	Project, Location string
	// Timeout (--query-timeout) bounds a job tool's call (Open, Cancel).
	// Zero: 60 s.
	Timeout time.Duration
	// State keeps the job records and each caller's budget. Nil: an
	// in-memory state without limits.
	State governance.State
	// RefuseForeign is set when jobs this server did not start must be
	// answered as not found (owner.go): more than one principal, or a
	// dataset allowlist in force.
	RefuseForeign bool
	// Withhold is set under a dataset allowlist: the error text of a job
	// that read through an authorized view is withheld (owner.go).
	Withhold bool
	// Locations lists where the project's datasets live, from cached
	// metadata, for finding a job of unknown location. Nil: only the US
	// and EU multi-regions are asked.
	Locations func(ctx context.Context) ([]string, error)
	// Follow times the follower of unfinished jobs (settle.go). Zero:
	// its defaults.
	Follow FollowTiming
	// Hooks see what jobs did. Zero: nobody is told.
	Hooks Hooks
	// Logger logs what the agent is not told. Nil: nothing is logged.
	Logger *slog.Logger
}

// Hooks let the wiring see what jobs did. Every field is optional.
type Hooks struct {
	// Cancelled is called when the server cancelled a job whose caller
	// went away; reason is "timeout" or "client_cancel".
	Cancelled func(ctx context.Context, reason string)
	// Settled is called after the follower settled a job's cost.
	Settled func(ctx context.Context, jobID string)
}

// Runner runs and follows jobs. It is safe for concurrent use.
type Runner struct {
	cfg      Config
	client   *bigquery.Client
	rest     *bq.Service
	exec     *resilience.Executor
	log      *slog.Logger
	follower *follower
	// newID picks a job ID or requestId before the first attempt, so that
	// a retried request can never start a second job.
	newID func() string
	// jobs remembers where jobs this server started or found run.
	jobs *locations

	closeOnce sync.Once
}

// New returns a Runner configured once by cfg.
func New(cfg Config) *Runner {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.State == nil {
		cfg.State = governance.NewMemory(governance.NewBudget(governance.Limits{}), nil)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	r := &Runner{cfg: cfg, client: cfg.Client, rest: cfg.REST, exec: cfg.Executor, log: cfg.Logger,
		newID: uuid.NewString, jobs: newLocations()}
	r.follower = newFollower(cfg.Follow, r.jobStatus, r.settleFollowed)
	return r
}

// NewJobID is a job ID for jobs.insert, chosen once per call. Without
// dashes it is also a valid dataset ID, which the emulator names a query's
// result dataset after.
func (r *Runner) NewJobID() string { return "bqmcp_" + strings.ReplaceAll(r.newID(), "-", "") }

// ParseRef validates a job ID and the agent's location. Both become parts
// of request URLs, so they are checked against BigQuery's rules before any
// request is built.
func ParseRef(jobID, location string) (Ref, error) {
	id := strings.TrimSpace(jobID)
	if err := bqtype.ValidateJobID(id); err != nil {
		return Ref{}, err
	}
	loc := strings.TrimSpace(location)
	if err := bqtype.ValidateLocation(loc); err != nil {
		return Ref{}, err
	}
	return Ref{ID: id, Location: loc}, nil
}

// Close stops the follower of unfinished jobs. Call it when the server
// stops, before closing the BigQuery client.
func (r *Runner) Close() { r.closeOnce.Do(r.follower.close) }
