package query

import (
	"context"
	"log/slog"
	"time"

	"cloud.google.com/go/bigquery"
	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/cost"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
	"github.com/bigquery-mcp/bigquery-mcp/rows"
)

// Config is everything a Service needs, given once to NewService, the way
// gobreaker.Settings configures a breaker: nothing is set after
// construction, and every field says what its zero value means.
type Config struct {
	// Client reads job metadata; REST runs queries (jobs.query with a
	// requestId of ours, which the client's Query.Read cannot keep across
	// attempts), reads result pages and cancels jobs with one plain
	// request. Both are required.
	Client *bigquery.Client
	REST   *bq.Service
	// Executor runs every BigQuery call under its operation's policy.
	// Required.
	Executor *resilience.Executor
	// Project (--project) runs and pays for the jobs. Empty: execute_sql
	// and dry_run_sql refuse, saying the server needs one.
	Project string
	// Location (--location) is where jobs run. Empty: a query's default
	// dataset's location, else BigQuery's choice from the data.
	Location string
	// Settings are the flags' settings of queries and their results.
	Settings
	// Datasets (--datasets) is the dataset allowlist. Nil: every dataset.
	Datasets *governance.Allowlist
	// Connections (--connections) are the connections a statement may
	// use under the dataset allowlist. Nil: none.
	Connections *governance.Connections
	// KMSKeys (--kms-keys) are the Cloud KMS keys a statement may name
	// under the dataset allowlist. Nil: none.
	KMSKeys *governance.KMSKeys
	// ExportGCS (--export-gcs, gs://bucket/prefix) is where EXPORT DATA
	// and EXPORT MODEL may write under the dataset allowlist. Empty:
	// nowhere.
	ExportGCS string
	// State keeps each caller's spending, limits (--max-bytes-per-*) and
	// reservations, and the records of who started which job. Nil: an
	// in-memory state without limits that prices jobs by LedgerPricing.
	State governance.State
	// MultiPrincipal is set when the server may serve more than one
	// principal (HTTP with client authentication): the job tools then
	// refuse jobs this server did not start (package job). False: one
	// principal.
	MultiPrincipal bool
	// Catalog answers from cached metadata what the allowlist must know of
	// views and datasets, and where datasets live. Nil: a query that reads
	// tables outside the allowlist is refused even through a view, jobs run
	// where BigQuery routes them, and a job of unknown location is looked
	// for only in the US and EU multi-regions.
	Catalog Catalog
	// WholeResult, when set, is the hint that leads from a cut result to
	// all of its rows by the result's job (the wiring sets export's when
	// export_results is listed). Nil: a cut result's hint names no way.
	WholeResult func(jobID, location string) string
	// Hooks see what jobs did. Zero: nobody is told.
	Hooks Hooks
	// Logger logs what the agent is not told. Nil: nothing is logged.
	Logger *slog.Logger

	// No flag sets the fields below; they are unexported so that only
	// this package's tests set them, before NewService.

	// follow times the follower that settles jobs outliving their call
	// (job.Config.Follow). Zero: package job's defaults; tests shorten it
	// to see the follower settle, or delay it to see a tool settle first.
	follow job.FollowTiming
	// now is the clock cost advice counts recent partitions by. Nil:
	// time.Now; tests fix it so that a day's figures do not change at
	// midnight.
	now func() time.Time
}

// Settings are what the flags set for queries and their results: writes,
// prices, and the limits agents may tighten per call but never loosen.
// Each field has its flag's name. server.Config embeds the same struct, so
// a setting is declared once from flag to service.
type Settings struct {
	// AllowWrites (--allow-writes) permits statements other than a single
	// SELECT. False: read-only.
	AllowWrites bool
	// MaxBytesBilled (--max-bytes-billed) is set on every job; an agent may
	// ask for less. Zero: 10 GiB.
	MaxBytesBilled int64
	// Prices (--billing, --price-per-tib, --price-per-tib-by-location,
	// --slot-hour-price) price every job and estimate (pricing.go).
	cost.Prices
	// QueryTimeout (--query-timeout) bounds a call that names no
	// timeoutSeconds, and the job tools' calls. Zero: 60 s.
	QueryTimeout time.Duration
	// MaxQueryTimeout (--max-query-timeout) is the most a call may ask for.
	// Zero: 10 min.
	MaxQueryTimeout time.Duration
	// MaxWait (--max-wait) is the longest a call may wait for a running job
	// (waitSeconds); the job itself may run on until its timeout. The
	// default wait is the smaller of this and 45 s. Zero: 45 s.
	MaxWait time.Duration
	// ConfirmAboveBytes (--confirm-above-bytes): a query estimated to
	// process more waits for the user's approval. Zero: never ask.
	ConfirmAboveBytes int64
	// Caps (--default-max-rows, --max-rows, --max-result-bytes) bound the
	// rows of execute_sql and get_query_results.
	rows.Caps
}

// WithDefaults returns l with its zero fields set to the defaults they
// document.
func (l Settings) WithDefaults() Settings {
	if l.MaxBytesBilled == 0 {
		l.MaxBytesBilled = 10 << 30
	}
	if l.QueryTimeout == 0 {
		l.QueryTimeout = 60 * time.Second
	}
	if l.MaxQueryTimeout == 0 {
		l.MaxQueryTimeout = 10 * time.Minute
	}
	if l.MaxWait <= 0 {
		l.MaxWait = defaultWait
	}
	l.Caps = l.Caps.WithDefaults()
	return l
}

// Hooks let the server wiring see what jobs did (for telemetry and the
// client's log notifications). Every field is optional.
type Hooks struct {
	// JobDone is called when a query job finished, with its statistics.
	JobDone func(ctx context.Context, statementType string, bytesProcessed, bytesBilled int64, cacheHit bool)
	// JobCancelled is called when the server cancelled a job; reason is
	// "timeout" or "client_cancel".
	JobCancelled func(ctx context.Context, reason string)
}

// NewService returns a query service configured once by cfg.
func NewService(cfg Config) *Service {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.Settings = cfg.Settings.WithDefaults()
	if cfg.State == nil {
		cfg.State = governance.NewMemory(governance.NewBudget(governance.Limits{}).WithUSDPerDay(cfg.LedgerPricing(cfg.Location)), nil)
	}
	s := &Service{client: cfg.Client, rest: cfg.REST, exec: cfg.Executor, hooks: cfg.Hooks, cfg: cfg, log: cfg.Logger,
		verdicts: newVerdicts(), views: newViewCache(), graphs: newGraphCache()}
	s.jobs = s.newRunner(cfg)
	s.rules = s.checks()
	return s
}
