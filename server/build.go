package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/option"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/cost"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/insert"
	"github.com/bigquery-mcp/bigquery-mcp/observability"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
	"github.com/bigquery-mcp/bigquery-mcp/schema"
)

// Config is everything needed to build a running server. cmd/bigquery-mcp
// fills it from flags and BIGQUERY_* variables; tests fill it directly.
type Config struct {
	// Project is the default project for metadata and the project that runs
	// and pays for query jobs.
	Project string
	// Location is where jobs run (US, EU, a region); empty lets BigQuery decide.
	Location string
	// Endpoint overrides the BigQuery API endpoint (the local emulator).
	Endpoint string
	// Auth selects how requests are authenticated.
	Auth auth.Mode
	// CredentialsFile replaces Application Default Credentials;
	// ImpersonateServiceAccount, when set, is the account every call acts as.
	CredentialsFile           string
	ImpersonateServiceAccount string
	// MaxConcurrentCalls bounds the tool calls running at once; beyond it a
	// call fails at once with a retryable UNAVAILABLE. Zero: no bound.
	MaxConcurrentCalls int
	// JobLabels (--job-labels) go on every job, beside the server's own
	// mcp_server, mcp_tool and mcp_client (LabelJobs).
	JobLabels map[string]string
	// Toolsets (--toolsets) are the toolsets listed; nil: DefaultToolsets.
	// ReadOnly (--read-only) hides every tool annotated as writing.
	Toolsets []Toolset
	ReadOnly bool

	// Limits are the flags' limits on queries and results (--allow-writes,
	// --max-bytes-billed, --default-max-rows, --max-rows,
	// --max-result-bytes, --query-timeout, --max-query-timeout,
	// --max-wait, --confirm-above-bytes) and prices (--price-per-tib,
	// --price-per-tib-by-location, --billing, --slot-hour-price), declared
	// once in query and handed to the services whole.
	query.Limits

	// Datasets (--datasets) is the dataset allowlist: comma-separated
	// project.dataset or dataset patterns; empty allows every dataset.
	Datasets string
	// Connections (--connections) are the connections statements may use
	// under the dataset allowlist: comma-separated
	// project.location.connection, location.connection or DEFAULT
	// patterns; empty: none.
	Connections string
	// MaxBytesPerSession and MaxBytesPerDay (--max-bytes-per-session,
	// --max-bytes-per-day) bound the bytes billed per caller on this
	// instance; zero: no bound.
	MaxBytesPerSession int64
	MaxBytesPerDay     int64
	// State (--state) is where budgets and job records live: "memory"
	// (or empty), this process only; or a redis:// or rediss:// URL, shared
	// by every instance that names it. StatePasswordFile and StateCAFile
	// hold the password and the server's CA; StatePrefix namespaces the
	// keys (default governance.DefaultRedisPrefix); StateFailOpen lets
	// queries run without a budget check while Redis is down instead of
	// failing them (their jobs are charged when it answers).
	State             string
	StatePasswordFile string
	StateCAFile       string
	StatePrefix       string
	StateFailOpen     bool
	// Apps (--apps) says which clients see tools linked to the MCP App.
	Apps Apps
	// Export configures export_results (toolset export): ExportDir
	// (--export-dir) is the only folder it writes files in, ExportDataset
	// (--export-dataset) the only dataset it writes tables in, each
	// expiring after ExportTableTTL (--export-table-ttl), ExportGCS
	// (--export-gcs, gs://bucket/prefix) the only place it has BigQuery
	// write Cloud Storage objects. ExportDestination is the destination
	// when the agent names none (empty: file). StorageEndpoint
	// (--storage-endpoint, host:port, plaintext, no credentials) points the
	// Storage Read API at an emulator.
	ExportDir         string
	ExportDataset     string
	ExportTableTTL    time.Duration
	ExportGCS         string
	ExportDestination string
	StorageEndpoint   string
	// MaxExportBytes (--max-export-bytes) bounds one exported file.
	MaxExportBytes int64
	// Stateless is set for stateless HTTP, where the server cannot send
	// requests to clients.
	Stateless bool
	// MultiPrincipal is set when the server may serve more than one
	// principal: HTTP with client authentication (token, google, oauth).
	// The job tools then answer each caller only for the jobs it started,
	// and refuse jobs the server did not start (docs/governance.md).
	MultiPrincipal bool

	// Resilience holds the retry, breaker and Retry-After settings.
	Resilience resilience.Config
	// CacheTTL is how long metadata answers are served without asking
	// BigQuery; CacheMaxStale how old they may be when served stale.
	CacheTTL      time.Duration
	CacheMaxStale time.Duration
	// Telemetry, when set, records metrics and traces of every layer and
	// logs failed calls; nil keeps plain logging (tests).
	Telemetry *observability.Telemetry

	Version string
	Logger  *slog.Logger
	// Transport is the HTTP transport under authentication; nil means
	// http.DefaultTransport. Tests put fault injection here.
	Transport http.RoundTripper
	// Middleware runs around every tool call (observability).
	Middleware []Middleware
}

// Defaults returns the documented default limits.
func Defaults() Config {
	return Config{
		Auth:          auth.ADC,
		Limits:        query.Limits{PricePerTiB: cost.DefaultPerTiBUSD, Billing: cost.OnDemand, SlotHourPrice: cost.DefaultSlotHourUSD}.WithDefaults(),
		Resilience:    resilience.Defaults(),
		CacheTTL:      5 * time.Minute,
		CacheMaxStale: 24 * time.Hour,
		// A few dozen queries stream their results at once on one
		// 1-CPU Cloud Run instance; more would only queue behind them.
		MaxConcurrentCalls: 64,
	}
}

// Validate reports configuration mistakes at startup, where a person reads
// them, rather than on the agent's first call.
func (c Config) Validate() error {
	var problems []string
	if c.MaxBytesBilled <= 0 {
		problems = append(problems, "max-bytes-billed must be positive")
	}
	if c.DefaultMaxRows <= 0 || c.MaxRows <= 0 || c.DefaultMaxRows > c.MaxRows {
		problems = append(problems, "default-max-rows and max-rows must be positive, with default-max-rows <= max-rows")
	}
	if c.MaxResultBytes < 1024 {
		problems = append(problems, "max-result-bytes must be at least 1024")
	}
	if err := c.Prices().Validate(); err != nil {
		problems = append(problems, err.Error())
	}
	if c.QueryTimeout <= 0 || c.MaxQueryTimeout < c.QueryTimeout {
		problems = append(problems, "query-timeout must be positive and at most max-query-timeout")
	}
	if c.MaxWait < time.Second {
		problems = append(problems, "max-wait must be at least 1s")
	}
	if c.Endpoint != "" && !strings.HasPrefix(c.Endpoint, "http://") && !strings.HasPrefix(c.Endpoint, "https://") {
		problems = append(problems, "endpoint must be an http:// or https:// URL")
	}
	if c.CacheTTL < 0 || c.CacheMaxStale < c.CacheTTL {
		problems = append(problems, "cache-ttl must not be negative and cache-max-stale must be at least cache-ttl")
	}
	if c.MaxBytesPerSession < 0 || c.MaxBytesPerDay < 0 || c.ConfirmAboveBytes < 0 {
		problems = append(problems, "max-bytes-per-session, max-bytes-per-day and confirm-above-bytes must not be negative")
	}
	problems = append(problems, checkToolsets(c.Toolsets, c.ReadOnly, c.AllowWrites)...)
	problems = append(problems, checkExport(c)...)
	if c.State != "" && c.State != "memory" && !governance.IsRedisURL(c.State) {
		problems = append(problems, "state must be memory or a redis:// or rediss:// URL")
	}
	if c.MaxConcurrentCalls < 0 {
		problems = append(problems, "max-concurrent-calls must not be negative")
	}
	if c.Auth == auth.User && c.Project == "" {
		problems = append(problems, "project must be set when each user's own token calls BigQuery (client-auth oauth): there are no server credentials to detect it from")
	}
	if err := c.Resilience.Validate(); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return fmt.Errorf("invalid configuration: %s", strings.Join(problems, "; "))
	}
	return nil
}

// Backend is a connected server: the MCP server and what it needs to shut
// down cleanly.
type Backend struct {
	MCP      *mcp.Server
	Identity auth.Identity
	Executor *resilience.Executor
	Cache    *resilience.Cache
	query    *query.Service
	schema   *schema.Service
	client   *bigquery.Client
	// exportClient reads and copies for export_results (the Storage Read
	// API on, which the shared client must not have: it turns paging
	// off); nil unless the export toolset is listed.
	exportClient *bigquery.Client
	rest         *bq.Service
	httpClient   *http.Client
	telemetry    *observability.Telemetry
	// shared is the Redis state, nil for memory; stateURL its URL without
	// the password, for health.
	shared        *governance.Redis
	stateURL      string
	stateFailOpen bool
	project       string
	version       string
	started       time.Time
}

// Close stops following unfinished jobs, then releases the BigQuery
// client and its connections.
func (b *Backend) Close() error {
	b.query.Close()
	if b.shared != nil {
		// After the follower stopped: its last settlements get their
		// chance, and what the store never took is logged.
		b.shared.Close()
	}
	err := b.client.Close()
	if b.exportClient != nil {
		b.exportClient.Close()
	}
	b.httpClient.CloseIdleConnections()
	return err
}

// Build connects to BigQuery and returns the MCP server.
func Build(ctx context.Context, cfg Config) (*Backend, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	tel := cfg.Telemetry
	// What the layers report goes to telemetry (when on) and to the client.
	cl := &clientLog{}
	resHooks, qHooks, lookup := resilienceHooks(tel, cl), queryHooks(tel), cacheLookup(tel)
	runner, err := resilience.NewExecutor(cfg.Resilience, resHooks)
	if err != nil {
		return nil, err
	}
	if tel != nil {
		tel.ObserveBreakers(breakerStates(runner))
	}
	conn, err := connectBigQuery(ctx, &cfg, runner, tel)
	if err != nil {
		return nil, err
	}
	hc, id, client, rest := conn.http, conn.identity, conn.client, conn.rest
	datasets, err := governance.ParseAllowlist(cfg.Datasets, cfg.Project)
	if err != nil {
		client.Close()
		return nil, err
	}
	connections, err := governance.ParseConnections(cfg.Connections, cfg.Project)
	if err != nil {
		client.Close()
		return nil, err
	}
	// One ledger: queries agents write and search_columns' own queries
	// spend from the same budgets. The budgets and the job records are
	// the governance state: in memory, or in Redis (state.go).
	state, shared, err := buildState(ctx, cfg, runner, tel, log)
	if err != nil {
		client.Close()
		return nil, err
	}
	cache := resilience.NewCache(resilience.CacheConfig{TTL: cfg.CacheTTL, MaxStale: cfg.CacheMaxStale, Lookup: lookup})
	sch := schema.NewService(schema.Config{
		Client: client, REST: rest, Executor: runner, Cache: cache,
		Identity: string(id.Mode) + ":" + id.Principal, Project: cfg.Project,
		Datasets: datasets, Budget: state, Limits: cfg.Limits.Limits,
	})
	svc := Services{
		Schema: sch,
		Query: query.NewService(query.Config{
			Client: client, REST: rest, Executor: runner,
			Project: cfg.Project, Location: cfg.Location, Limits: cfg.Limits,
			Datasets: datasets, Connections: connections, ExportGCS: cfg.ExportGCS,
			State: state, WholeResult: wholeResult(cfg),
			// In oauth mode IAM already tells users apart; the records
			// still apply (defence in depth).
			MultiPrincipal: cfg.MultiPrincipal || cfg.Auth == auth.User,
			// The schema service's cached metadata answers the allowlist's
			// questions about views, and where datasets live.
			Catalog: sch,
			Hooks:   qHooks, Logger: log,
		}),
	}
	svc.Insert = insert.NewService(rest, runner, insert.Config{Project: cfg.Project, Datasets: datasets})
	var exportClient *bigquery.Client
	if svc.Export, exportClient, err = buildExport(ctx, cfg, conn, runner, svc.Query, log); err != nil {
		client.Close()
		return nil, err
	}
	b := &Backend{exportClient: exportClient, shared: shared, stateFailOpen: cfg.StateFailOpen, stateURL: governance.RedactURL(cfg.State), Identity: id, query: svc.Query, schema: svc.Schema, client: client, rest: rest, httpClient: hc, Executor: runner, Cache: cache, telemetry: tel, project: cfg.Project, version: cfg.Version, started: time.Now()}
	svc.Health = b
	b.MCP = New(svc, Options{Version: cfg.Version, AllowWrites: cfg.AllowWrites, Toolsets: cfg.Toolsets, ReadOnly: cfg.ReadOnly, Logger: log, Middleware: append(middleware(cfg, log, tel), cfg.Middleware...), Stateless: cfg.Stateless, Apps: cfg.Apps,
		Defaults: ArgumentDefaults{MaxRows: cfg.DefaultMaxRows, MaxWait: cfg.MaxWait}})
	cl.server.Store(b.MCP)
	return b, nil
}

// middleware is the tool middleware chain, outermost first.
func middleware(cfg Config, log *slog.Logger, tel *observability.Telemetry) []Middleware {
	mw := []Middleware{Recover(log), LogCalls(log)}
	if tel != nil {
		// Telemetry logs failures itself; Recover stays inside it so a
		// recovered panic is counted as INTERNAL.
		mw = []Middleware{Observe(tel), Recover(log)}
	}
	// Shed inside the observers, so busy answers are logged and counted.
	return append(mw, Shed(cfg.MaxConcurrentCalls), Identify(), LabelJobs(cfg.JobLabels))
}

// connection is what every service shares to reach BigQuery: one HTTP
// client under authentication, telemetry and the resilience guard, and the
// client library and the REST service on it.
type connection struct {
	http     *http.Client
	identity auth.Identity
	client   *bigquery.Client
	rest     *bq.Service
	// opts made client and rest, for the clients of other services.
	opts    []option.ClientOption
	project string
}

// connectBigQuery builds the connection, and fills in cfg.Project from the
// credentials when it is unset and they name one.
func connectBigQuery(ctx context.Context, cfg *Config, runner *resilience.Executor, tel *observability.Telemetry) (*connection, error) {
	hc, id, err := auth.HTTPClient(ctx, auth.Options{
		Mode: cfg.Auth, Base: cfg.Transport, WrapTokenSource: runner.TokenSource,
		CredentialsFile: cfg.CredentialsFile, ImpersonateServiceAccount: cfg.ImpersonateServiceAccount,
	})
	if err != nil {
		return nil, err
	}
	if tel != nil {
		// Under the guard, so failed requests are measured as responses.
		hc.Transport = tel.Transport(hc.Transport)
	}
	// The guard goes on top, so every failure, token failures included,
	// is final for the client library and retried only by resilience.
	hc.Transport = &resilience.Transport{Base: hc.Transport}
	opts := []option.ClientOption{option.WithHTTPClient(hc)}
	if cfg.Endpoint != "" {
		opts = append(opts, option.WithEndpoint(cfg.Endpoint))
	}
	project := cfg.Project
	if project == "" {
		// Without a project the client still serves explicit-project calls;
		// the tools say clearly when a default is needed.
		project = bigquery.DetectProjectID
		if cfg.Auth == auth.None || cfg.Auth == auth.User {
			project = "unset"
		}
	}
	client, err := bigquery.NewClient(ctx, project, opts...)
	if err != nil {
		// DetectProjectID fails without credentials: fall back to no default.
		client, err = bigquery.NewClient(ctx, "unset", opts...)
		if err != nil {
			return nil, fmt.Errorf("creating BigQuery client: %w", err)
		}
	} else if cfg.Project == "" && project == bigquery.DetectProjectID {
		cfg.Project = client.Project()
	}
	client.Location = cfg.Location
	rest, err := bq.NewService(ctx, opts...)
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("creating BigQuery REST service: %w", err)
	}
	return &connection{http: hc, identity: id, client: client, rest: rest, opts: opts, project: client.Project()}, nil
}
