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
	"github.com/bigquery-mcp/bigquery-mcp/export"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/insert"
	"github.com/bigquery-mcp/bigquery-mcp/observability"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
	"github.com/bigquery-mcp/bigquery-mcp/schema"
	"github.com/bigquery-mcp/bigquery-mcp/semantic"
)

// Config is everything needed to build a running server. cmd/bigquery-mcp
// fills it once from flags and BIGQUERY_* variables; tests fill it
// directly. Each service's settings are one struct of that service's,
// grouped here rather than repeated, and every field a flag fills is named
// after it: --export-dir fills Export.Dir, --state Governance.State,
// --breaker-open Resilience.Breaker.Open (cmd/bigquery-mcp's
// TestFlagFillsFieldNamedAfterIt holds them to it).
type Config struct {
	// Project (--project) is the default project for metadata and the
	// project that runs and pays for query jobs; empty: detected from the
	// credentials.
	Project string
	// Location (--location) is where jobs run (US, EU, a region); empty
	// lets BigQuery decide.
	Location string
	// Endpoint (--endpoint) overrides the BigQuery API endpoint (the local
	// emulator); StorageEndpoint (--storage-endpoint, host:port,
	// plaintext, no credentials) points the Storage Read API at one.
	Endpoint        string
	StorageEndpoint string
	// Auth (--auth) selects how requests are authenticated.
	Auth auth.Mode
	// CredentialsFile (--credentials-file) replaces Application Default
	// Credentials; ImpersonateServiceAccount
	// (--impersonate-service-account), when set, is the account every call
	// acts as.
	CredentialsFile           string
	ImpersonateServiceAccount string

	// SemanticManifest (--semantic-manifest) is the dbt semantic manifest
	// the semantic toolset serves; empty: none, and no semantic toolset.
	SemanticManifest string

	// Toolsets (--toolsets) are the toolsets listed; nil: DefaultToolsets.
	// ReadOnly (--read-only) hides every tool annotated as writing.
	Toolsets []Toolset
	ReadOnly bool
	// Apps (--apps) says which clients see tools linked to the MCP App.
	Apps Apps
	// Settings are query's: --allow-writes, its limits on queries
	// and results (--max-bytes-billed, --default-max-rows, --max-rows,
	// --max-result-bytes, --query-timeout, --max-query-timeout,
	// --max-wait, --confirm-above-bytes) and prices (--price-per-tib,
	// --price-per-tib-by-location, --billing, --slot-hour-price).
	query.Settings
	// MaxConcurrentCalls (--max-concurrent-calls) bounds the tool calls
	// running at once; beyond it a call fails at once with a retryable
	// UNAVAILABLE. Zero: no bound.
	MaxConcurrentCalls int
	// Governance is what agents may read and spend, and where budgets and
	// job records live (--datasets, --connections, --job-labels,
	// --max-bytes-per-*, --state*).
	Governance governance.Config
	// Export configures export_results, toolset export (--export-*,
	// --max-export-bytes).
	Export export.Settings
	// Resilience holds the retry, breaker and Retry-After settings
	// (--retry-*, --breaker-*).
	Resilience resilience.Config
	// Cache is the metadata cache (--cache-ttl, --cache-max-stale); Build
	// gives it its telemetry hook.
	Cache resilience.CacheConfig

	// Stateless is set for stateless HTTP, where the server cannot send
	// requests to clients.
	Stateless bool
	// MultiPrincipal is set when the server may serve more than one
	// principal: HTTP with client authentication (token, google, oauth).
	// The job tools then answer each caller only for the jobs it started,
	// and refuse jobs the server did not start (docs/governance.md).
	MultiPrincipal bool
	// Telemetry, when set, records metrics and traces of every layer and
	// logs failed calls; nil keeps plain logging (tests).
	Telemetry *observability.Telemetry

	// Version is reported to clients in the initialize handshake.
	Version string
	// Logger receives server logs (stderr, JSON); nil discards them.
	Logger *slog.Logger
	// Transport is the HTTP transport under authentication; nil means
	// http.DefaultTransport. Tests put fault injection here.
	Transport http.RoundTripper
	// Middleware runs around every tool call: in New, first listed
	// outermost, nil meaning Recover and LogCalls; in Build, inside the
	// server's own chain (observability, shedding, labels).
	Middleware []Middleware
}

// Defaults returns the documented defaults: the flags' defaults, which
// cmd/bigquery-mcp declares from it.
func Defaults() Config {
	return Config{
		Auth:     auth.ADC,
		Toolsets: DefaultToolsets(),
		Apps:     AppsAuto,
		Settings: query.Settings{Prices: cost.Prices{Billing: cost.OnDemand, PricePerTiB: cost.DefaultPerTiBUSD, SlotHourPrice: cost.DefaultSlotHourUSD}}.WithDefaults(),
		// A few dozen queries stream their results at once on one
		// 1-CPU Cloud Run instance; more would only queue behind them.
		MaxConcurrentCalls: 64,
		Governance:         governance.Config{State: "memory", StatePrefix: governance.DefaultRedisPrefix},
		Export:             export.Settings{Dir: export.DefaultDir, TableTTL: export.DefaultTableTTL, MaxExportBytes: export.DefaultMaxBytes},
		Resilience:         resilience.Defaults(),
		Cache:              resilience.CacheConfig{TTL: 5 * time.Minute, MaxStale: 24 * time.Hour},
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
	if err := c.Prices.Validate(); err != nil {
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
	if c.Cache.TTL < 0 || c.Cache.MaxStale < c.Cache.TTL {
		problems = append(problems, "cache-ttl must not be negative and cache-max-stale must be at least cache-ttl")
	}
	if c.Governance.MaxBytesPerSession < 0 || c.Governance.MaxBytesPerDay < 0 || c.Governance.MaxUSDPerDay < 0 || c.ConfirmAboveBytes < 0 {
		problems = append(problems, "max-bytes-per-session, max-bytes-per-day, max-usd-per-day and confirm-above-bytes must not be negative")
	}
	problems = append(problems, checkToolsets(c.Toolsets, c.ReadOnly, c.AllowWrites)...)
	problems = append(problems, checkExport(c.Export)...)
	if st := c.Governance.State; st != "" && st != "memory" && !governance.IsRedisURL(st) {
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
	// exposureTimeout bounds health's allowlist check (health.go).
	exposureTimeout time.Duration
}

// Close stops following unfinished jobs (the queries' and the searches'),
// then releases the BigQuery client and its connections.
func (b *Backend) Close() error {
	b.query.Close()
	b.schema.Close()
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
	// Before any connection: a manifest that does not load stops the
	// server at once, naming the file and the place.
	var manifest *semantic.Manifest
	if cfg.SemanticManifest != "" {
		var err error
		if manifest, err = semantic.Load(cfg.SemanticManifest); err != nil {
			return nil, err
		}
		log.Info("semantic manifest loaded", "path", cfg.SemanticManifest, "sha256", manifest.Hash)
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
	datasets, err := governance.ParseAllowlist(cfg.Governance.Datasets, cfg.Project)
	if err != nil {
		client.Close()
		return nil, err
	}
	connections, err := governance.ParseConnections(cfg.Governance.Connections, cfg.Project)
	if err != nil {
		client.Close()
		return nil, err
	}
	kmsKeys, err := governance.ParseKMSKeys(cfg.Governance.KMSKeys)
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
	cacheCfg := cfg.Cache
	cacheCfg.Lookup = lookup
	cache := resilience.NewCache(cacheCfg)
	sch := schema.NewService(schema.Config{
		Client: client, REST: rest, Executor: runner, Cache: cache,
		Identity: string(id.Mode) + ":" + id.Principal, Project: cfg.Project,
		Datasets: datasets, Budget: state, Caps: cfg.Caps,
	})
	svc := Services{
		Schema: sch,
		Query: query.NewService(query.Config{
			Client: client, REST: rest, Executor: runner,
			Project: cfg.Project, Location: cfg.Location, Settings: cfg.Settings,
			Datasets: datasets, Connections: connections, KMSKeys: kmsKeys, ExportGCS: cfg.Export.GCS,
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
	svc.Semantic = manifest
	svc.Insert = insert.NewService(insert.Config{REST: rest, Executor: runner, Project: cfg.Project, Datasets: datasets})
	var exportClient *bigquery.Client
	if svc.Export, exportClient, err = buildExport(ctx, cfg, conn, runner, svc.Query, log); err != nil {
		client.Close()
		return nil, err
	}
	b := &Backend{exportClient: exportClient, shared: shared, stateFailOpen: cfg.Governance.StateFailOpen, stateURL: governance.RedactURL(cfg.Governance.State), Identity: id, query: svc.Query, schema: svc.Schema, client: client, rest: rest, httpClient: hc, Executor: runner, Cache: cache, telemetry: tel, project: cfg.Project, version: cfg.Version, started: time.Now(), exposureTimeout: exposureTimeout}
	svc.Health = b
	// New's chain: the server's own middleware, then the caller's.
	mcpCfg := cfg
	mcpCfg.Logger, mcpCfg.Middleware = log, append(middleware(cfg, log, tel), cfg.Middleware...)
	b.MCP = New(svc, mcpCfg)
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
	return append(mw, Shed(cfg.MaxConcurrentCalls), Identify(), LabelJobs(cfg.Governance.JobLabels))
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
		Auth: cfg.Auth, Base: cfg.Transport, WrapTokenSource: runner.TokenSource,
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
