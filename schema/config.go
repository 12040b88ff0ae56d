package schema

import (
	"cloud.google.com/go/bigquery"
	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
	"github.com/bigquery-mcp/bigquery-mcp/rows"
)

// Config is everything a Service needs, given once to NewService, the way
// gobreaker.Settings configures a breaker: nothing is set after
// construction, and every field says what its zero value means.
type Config struct {
	// Client reads table metadata (for its typed schema) and table rows;
	// REST lists datasets and tables, because the client's iterators drop
	// the table type and dataset location the list calls return for free.
	// Both are required.
	Client *bigquery.Client
	REST   *bq.Service
	// Executor runs every BigQuery call under its operation's policy.
	// Required.
	Executor *resilience.Executor
	// Cache keeps metadata answers fresh or, when BigQuery is unreachable,
	// stale. Required.
	Cache *resilience.Cache
	// Identity names the server's credential in cache keys, so one
	// caller's cached answers never reach another whose access may differ.
	// Empty: one shared identity.
	Identity string
	// Project (--project) is the project calls use when they name none.
	// Empty: calls must name one.
	Project string
	// Datasets (--datasets) is the dataset allowlist every metadata tool
	// checks. Nil: every dataset.
	Datasets *governance.Allowlist
	// Budget is the governance state that keeps the callers' bytes
	// budgets (--max-bytes-per-*, shared by the fleet with --state redis),
	// which search_columns' INFORMATION_SCHEMA queries spend from like the
	// queries agents write. Nil: they count against nothing.
	Budget governance.State
	// Caps (--default-max-rows, --max-rows, --max-result-bytes) bound
	// preview_table as they bound execute_sql. Zero fields: rows.Caps'
	// defaults.
	rows.Caps
}

// NewService returns a metadata service configured once by cfg. Its
// INFORMATION_SCHEMA searches are jobs, started, settled in cfg.Budget and
// followed by a job.Runner of its own; Close stops that runner's follower.
func NewService(cfg Config) *Service {
	cfg.Caps = cfg.Caps.WithDefaults()
	jobs := job.New(job.Config{Client: cfg.Client, REST: cfg.REST, Executor: cfg.Executor, Project: cfg.Project, State: cfg.Budget})
	return &Service{client: cfg.Client, rest: cfg.REST, exec: cfg.Executor, cache: cfg.Cache, jobs: jobs, cfg: cfg}
}

// Close stops following the searches' unfinished jobs. Call it when the
// server stops, before closing the BigQuery client.
func (s *Service) Close() { s.jobs.Close() }

// Datasets is the dataset allowlist in force (nil: none), for the other
// ways of reaching metadata (resource completion, health).
func (s *Service) Datasets() *governance.Allowlist { return s.cfg.Datasets }

// DefaultProject is the project calls use when they name none.
func (s *Service) DefaultProject() string { return s.cfg.Project }
