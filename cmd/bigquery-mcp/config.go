package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/auth/clientauth"
	"github.com/bigquery-mcp/bigquery-mcp/cost"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
	"github.com/bigquery-mcp/bigquery-mcp/server"
)

// settings are the parsed command line: the server config plus what only
// the binary needs.
type settings struct {
	server.Config
	command        string
	addr           string
	logLevel       string
	allowedOrigins []string
	// client says who may call the http server (--client-auth and the
	// flags of its modes).
	client               clientauth.Config
	allowUnauthenticated bool
	// help and version are --help and --version: the commands they name.
	help, version bool
	// usage prints the help text with the effective defaults.
	usage func(io.Writer)
}

const usageHead = `bigquery-mcp: a Model Context Protocol server for Google BigQuery.

Usage:
  bigquery-mcp [stdio] [flags]    serve MCP over stdin/stdout (the default; for Claude Code and IDEs)
  bigquery-mcp http [flags]       serve MCP over streamable HTTP on --addr (for Cloud Run)
  bigquery-mcp version            print the version (also --version)
  bigquery-mcp help               print this help (also --help)

Every flag can also be set with the environment variable shown; a flag on
the command line wins. Defaults shown are the effective ones: after the
environment. Logs go to stderr as JSON. The flags follow, grouped by
concern, each group with a line on when to touch it; the HTTP serving
group matters only to the http command.
`

// The groups of --help, in the order it prints them. Every flag is
// declared in one (envVar takes its group), and TestHelpGroupsEveryFlag
// fails when a flag is in none or shows up twice.
var (
	connectionFlags = &flagGroup{"Connection and auth", "Which project and credentials call BigQuery: set when the detected ones are not the right ones, or to use the emulator."}
	agentFlags      = &flagGroup{"What agents may do", "Which tools agents see and what their SQL may read or change: set before an agent meets data it should not all see, or to let it write."}
	limitFlags      = &flagGroup{"Limits and budgets", "How much one call may scan, cost, return or wait, and one caller spend: set when cost or the size of results matters."}
	exportFlags     = &flagGroup{"Exports", "Where and how much export_results may write: set when --toolsets lists export (or all)."}
	stateFlags      = &flagGroup{"Shared state", "Only for several instances (e.g. on Cloud Run): a Redis they share, so budgets and job records hold across them."}
	httpFlags       = &flagGroup{"HTTP serving", "Only for bigquery-mcp http: where it listens and who may call it (beyond loopback: --client-auth or --allow-unauthenticated)."}
	resilienceFlags = &flagGroup{"Resilience", "Retries, circuit breakers and the metadata cache: the defaults suit most servers; set to ride out longer outages or to fail faster."}
	logFlags        = &flagGroup{"Logs, help and version", "Set --log-level debug when something misbehaves; traces and metrics take the standard OTEL_* variables."}

	flagGroups = []*flagGroup{connectionFlags, agentFlags, limitFlags, exportFlags, stateFlags, httpFlags, resilienceFlags, logFlags}
)

// parseArgs reads the command and flags. The command may come before or
// after the flags. --help and --version are commands too.
func parseArgs(args []string, getenv func(string) string) (*settings, error) {
	s := &settings{Config: server.Defaults(), command: "stdio"}
	fs := newFlagSet(getenv)
	t := s.defineFlags(fs)
	s.usage = func(w io.Writer) { fs.printUsage(w, usageHead, flagGroups) }

	explicit := false
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		s.command, args, explicit = args[0], args[1:], true
	}
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) { // -h
		s.help, err = true, nil
	}
	if err != nil {
		return nil, err
	}
	if rest := fs.Args(); len(rest) > 0 {
		if len(rest) > 1 || s.command != "stdio" || len(args) == 0 {
			return nil, fmt.Errorf("unexpected arguments: %s", strings.Join(rest, " "))
		}
		s.command, explicit = rest[0], true
	}
	if !explicit {
		s.command = defaultCommand(getenv)
	}
	if len(fs.errs) > 0 {
		return nil, fs.errs[0]
	}
	switch {
	case s.help:
		s.command = "help"
	case s.version:
		s.command = "version"
	}
	if err := s.apply(fs, t); err != nil {
		return nil, err
	}
	switch s.command {
	case "stdio", "http", "version", "help":
	default:
		return nil, fmt.Errorf("unknown command %q (want stdio, http, version or help)", s.command)
	}
	return s, nil
}

// flagText holds what flags give as text (or per operation) until parsing
// is over and apply parses it into the settings' fields named after them.
type flagText struct {
	authMode, toolsets, jobLabels, apps string
	origins, clientTokens               string
	audiences, principals               string
	billing, pricePerTiBByLocation      string
	// retry has stable addresses for the flag package; apply copies them
	// into Resilience.Retry.
	retry map[resilience.Operation]*resilience.Policy
}

// defineFlags declares every flag under its --help group (in the order
// --help lists each group's flags), with its environment variable, and its
// default: server.Defaults() (s.Config before parsing), as the environment
// leaves it. Each flag fills the field named after it.
func (s *settings) defineFlags(fs *flagSet) *flagText {
	d := s.Config
	toolsets := make([]string, len(d.Toolsets))
	for i, ts := range d.Toolsets {
		toolsets[i] = string(ts)
	}
	t := &flagText{authMode: string(d.Auth), toolsets: strings.Join(toolsets, ","), apps: string(d.Apps), billing: string(d.Billing), retry: map[resilience.Operation]*resilience.Policy{}}
	addr := ":8080"
	if port := fs.getenv("PORT"); port != "" {
		addr = ":" + port
		fs.from["addr"] = "$PORT"
	}
	if _, ok := fs.env("endpoint"); ok {
		t.authMode = string(auth.None) // shown as the default in --help
	}
	envVar(fs, connectionFlags, stringKind, &s.Project, "project", d.Project, "Google Cloud project: the default for metadata calls and the project that runs and pays for query jobs (default: detected from credentials)")
	envVar(fs, connectionFlags, stringKind, &s.Location, "location", d.Location, "BigQuery location for jobs, e.g. US, EU or europe-west1 (default: chosen by BigQuery from the data)")
	envVar(fs, connectionFlags, stringKind, &s.CredentialsFile, "credentials-file", d.CredentialsFile, "Google credentials file (service account key, user or external account) used instead of Application Default Credentials")
	envVar(fs, connectionFlags, stringKind, &s.ImpersonateServiceAccount, "impersonate-service-account", d.ImpersonateServiceAccount, "service account e-mail to act as, with tokens minted from the base credentials (which need roles/iam.serviceAccountTokenCreator on it)")
	envVar(fs, connectionFlags, stringKind, &t.authMode, "auth", t.authMode, `authentication: "adc" (Application Default Credentials) or "none" (emulator; the default when --endpoint is set); --client-auth oauth uses each user's own token instead`)
	envVar(fs, connectionFlags, stringKind, &s.Endpoint, "endpoint", d.Endpoint, "BigQuery API endpoint URL, e.g. http://localhost:9050 for the local emulator")
	envVar(fs, connectionFlags, stringKind, &s.StorageEndpoint, "storage-endpoint", d.StorageEndpoint, "BigQuery Storage Read API endpoint host:port, plaintext and without credentials (an emulator's gRPC port)")
	envVar(fs, agentFlags, stringKind, &t.toolsets, "toolsets", t.toolsets, "comma-separated toolsets to list: schema, query, jobs, write (insert_rows; needs --allow-writes), export (export_results), semantic (the metric tools; needs --semantic-manifest, listed by default with one), or all (write only with --allow-writes); health and usage are always listed")
	envVar(fs, agentFlags, boolKind, &s.ReadOnly, "read-only", d.ReadOnly, "list no tool whose annotations say it writes (cancel_job, insert_rows), whatever --toolsets says; export_results stays (only SELECTs, written only to the --export-* places); refused together with --allow-writes")
	envVar(fs, agentFlags, boolKind, &s.AllowWrites, "allow-writes", d.AllowWrites, "allow execute_sql to run statements other than a single SELECT (DML, DDL, scripts)")
	envVar(fs, agentFlags, stringKind, &s.Governance.Datasets, "datasets", d.Governance.Datasets, "dataset allowlist: comma-separated project.dataset or dataset patterns (* wildcards) that every tool and query may read; others are refused before any job runs (default: all)")
	envVar(fs, agentFlags, stringKind, &s.Governance.Connections, "connections", d.Governance.Connections, "connections that statements may use under --datasets (WITH CONNECTION, EXTERNAL_QUERY, connection_id, OBJ.MAKE_REF, remote models): comma-separated project.location.connection, location.connection or DEFAULT patterns (* wildcards); they reach outside BigQuery's datasets (default: none)")
	envVar(fs, agentFlags, stringKind, &s.Governance.KMSKeys, "kms-keys", d.Governance.KMSKeys, "Cloud KMS keys that statements may name under --datasets (KEYS.KEYSET_CHAIN, KEYS.NEW_WRAPPED_KEYSET, KEYS.ROTATE_WRAPPED_KEYSET, KEYS.REWRAP_KEYSET, DLP_KEY_CHAIN, kms_key_name options): comma-separated projects/P/locations/L/keyRings/R/cryptoKeys/K patterns (* wildcards); BigQuery calls Cloud KMS with the job's credentials, outside BigQuery's datasets (default: none)")
	envVar(fs, agentFlags, stringKind, &t.apps, "apps", t.apps, `which clients see the MCP App (results as a table, chart, schema tree or cost card): "auto" (those that declare the io.modelcontextprotocol/ui extension), "always" (every client; for stateless http, where clients of 2025 protocols cannot be told apart) or "off"`)
	envVar(fs, agentFlags, stringKind, &s.SemanticManifest, "semantic-manifest", d.SemanticManifest, "dbt semantic manifest (target/semantic_manifest.json) whose metrics list_metrics, describe_metrics, query_metrics and get_dimension_values serve, compiled to SQL that runs as execute_sql's; read once at start, and a file that does not load stops the server (default: no semantic toolset)")
	envVar(fs, agentFlags, stringKind, &t.jobLabels, "job-labels", "", "labels put on every job, comma-separated key=value under BigQuery's label rules, beside the server's own mcp_server, mcp_tool and mcp_client (keys starting mcp_ are refused)")
	envVar(fs, limitFlags, int64Kind, &s.MaxBytesBilled, "max-bytes-billed", d.MaxBytesBilled, "maximumBytesBilled set on every query job; agents may ask for less, never more")
	envVar(fs, limitFlags, int64Kind, &s.Governance.MaxBytesPerSession, "max-bytes-per-session", d.Governance.MaxBytesPerSession, "bytes billed one caller may spend on this instance, or on the fleet with --state redis (the process on stdio, each principal on http); a query whose estimate passes what is left is refused (0: no limit)")
	envVar(fs, limitFlags, int64Kind, &s.Governance.MaxBytesPerDay, "max-bytes-per-day", d.Governance.MaxBytesPerDay, "bytes billed one caller may spend per UTC day on this instance, or on the fleet with --state redis (0: no limit)")
	envVar(fs, limitFlags, floatKind, &s.Governance.MaxUSDPerDay, "max-usd-per-day", d.Governance.MaxUSDPerDay, "USD one caller may spend per UTC day, next to the bytes budgets and like them on the fleet with --state redis: each job at its own location's price (slot time under --billing editions), a running query's estimate held at --location's (0: no limit)")
	envVar(fs, limitFlags, int64Kind, &s.ConfirmAboveBytes, "confirm-above-bytes", d.ConfirmAboveBytes, "ask the user (MCP elicitation) before running a query estimated to process more bytes; clients that cannot ask get RESOURCE_EXHAUSTED (0: never ask)")
	envVar(fs, limitFlags, floatKind, &s.PricePerTiB, "price-per-tib", d.PricePerTiB, "on-demand USD price per TiB billed in a location that neither --price-per-tib-by-location nor the built-in price table (docs/governance.md) prices, or of unknown location")
	envVar(fs, limitFlags, stringKind, &t.pricePerTiBByLocation, "price-per-tib-by-location", "", `on-demand USD prices per TiB by location, over the built-in table: comma-separated location=price, e.g. "europe-west2=7.82,asia-northeast1=7.5" (locations in any case)`)
	envVar(fs, limitFlags, stringKind, &t.billing, "billing", t.billing, `how the project's queries are billed: "on-demand" (bytes, priced per TiB) or "editions" (slot time at --slot-hour-price; a query's cost is known only after it ran)`)
	envVar(fs, limitFlags, floatKind, &s.SlotHourPrice, "slot-hour-price", d.SlotHourPrice, "USD per slot-hour under --billing editions; the default is the Enterprise edition's US pay-as-you-go price: set your edition's, region's and commitment's")
	envVar(fs, limitFlags, intKind, &s.DefaultMaxRows, "default-max-rows", d.DefaultMaxRows, "rows execute_sql, get_query_results and preview_table return when the agent does not say; their maxRows schemas state it")
	envVar(fs, limitFlags, intKind, &s.MaxRows, "max-rows", d.MaxRows, "most rows one call may return")
	envVar(fs, limitFlags, intKind, &s.MaxResultBytes, "max-result-bytes", d.MaxResultBytes, "most bytes of encoded rows one call returns; the rest is marked truncated")
	envVar(fs, limitFlags, durationKind, &s.QueryTimeout, "query-timeout", d.QueryTimeout, "how long a query may run before its job is cancelled, unless the agent asks for less")
	envVar(fs, limitFlags, durationKind, &s.MaxQueryTimeout, "max-query-timeout", d.MaxQueryTimeout, "the longest timeout an agent may ask for")
	envVar(fs, limitFlags, durationKind, &s.MaxWait, "max-wait", d.MaxWait, "the longest one call waits for a running query (waitSeconds, 45s unless this is shorter; the schemas state it) before it answers jobComplete:false; the job runs on until its timeout")
	envVar(fs, limitFlags, intKind, &s.MaxConcurrentCalls, "max-concurrent-calls", d.MaxConcurrentCalls, "tool calls one instance runs at once; beyond it calls fail at once with a retryable UNAVAILABLE \"server busy\" (0: no limit)")
	envVar(fs, exportFlags, stringKind, &s.Export.Dir, "export-dir", d.Export.Dir, "the only folder export_results writes files in (relative to the working directory)")
	envVar(fs, exportFlags, stringKind, &s.Export.Dataset, "export-dataset", d.Export.Dataset, "dataset (project.dataset or dataset) export_results may write tables in; --datasets need not name it, and does not let queries read it unless it does (default: no table exports)")
	envVar(fs, exportFlags, stringKind, &s.Export.GCS, "export-gcs", d.Export.GCS, "gs://bucket/prefix under which export_results has BigQuery write Cloud Storage objects (an extract job); the agent names only a folder below it. Over http it is the default destination (default: no Cloud Storage exports)")
	envVar(fs, exportFlags, durationKind, &s.Export.TableTTL, "export-table-ttl", d.Export.TableTTL, "expiration of each table export_results writes")
	envVar(fs, exportFlags, int64Kind, &s.Export.MaxExportBytes, "max-export-bytes", d.Export.MaxExportBytes, "most bytes one export_results may take: a query the dry run estimates to read more is refused before it runs, and a file that would pass it fails and leaves nothing")
	envVar(fs, stateFlags, stringKind, &s.Governance.State, "state", d.Governance.State, `where budgets and job records live: "memory" (this instance only) or a redis:// or rediss:// (TLS) URL of a Redis, Memorystore or Valkey that every instance shares (password in the URL or --state-password-file)`)
	fs.secret["state"] = true // the URL may hold a password
	envVar(fs, stateFlags, stringKind, &s.Governance.StatePasswordFile, "state-password-file", d.Governance.StatePasswordFile, "file holding the Redis password (e.g. Memorystore's AUTH string mounted from Secret Manager); replaces one in the --state URL")
	envVar(fs, stateFlags, stringKind, &s.Governance.StateCAFile, "state-ca-file", d.Governance.StateCAFile, "PEM file of the CA that signed Redis's TLS certificate (Memorystore's server CA), for a rediss:// --state")
	envVar(fs, stateFlags, stringKind, &s.Governance.StatePrefix, "state-prefix", d.Governance.StatePrefix, "prefix of every Redis key the server writes, so deployments can share one Redis")
	envVar(fs, stateFlags, boolKind, &s.Governance.StateFailOpen, "state-fail-open", d.Governance.StateFailOpen, "while Redis cannot be reached, run queries without a budget check; their cost is charged when Redis answers again (default: refuse them with a retryable UNAVAILABLE)")
	envVar(fs, httpFlags, stringKind, &s.addr, "addr", addr, "listen address for http mode (default :$PORT, else :8080)")
	envVar(fs, httpFlags, stringKind, (*string)(&s.client.Auth), "client-auth", string(clientauth.None), `how http clients authenticate: "none" (loopback only, or with --allow-unauthenticated), "token" (--client-tokens), "google" (Google ID tokens of --allowed-principals) or "oauth" (each user's Google access token, used as their BigQuery credential)`)
	envVar(fs, httpFlags, boolKind, &s.allowUnauthenticated, "allow-unauthenticated", false, "serve http without client authentication on a non-loopback address: only behind Cloud Run's IAM invoker check")
	envVar(fs, httpFlags, stringKind, &t.clientTokens, "client-tokens", "", "comma-separated bearer tokens accepted by --client-auth token (at least 16 characters each)")
	fs.secret["client-tokens"] = true
	envVar(fs, httpFlags, stringKind, &s.client.TokensFile, "client-tokens-file", "", "file with one accepted bearer token per line, for --client-auth token")
	envVar(fs, httpFlags, stringKind, &t.audiences, "client-audience", "", "comma-separated audiences: for --client-auth google the ID tokens' audience (the Cloud Run service URL, required); for oauth, the OAuth client IDs whose tokens are accepted (optional)")
	envVar(fs, httpFlags, stringKind, &t.principals, "allowed-principals", "", "comma-separated e-mails or domain:example.com allowed in by --client-auth google (required) or oauth (optional)")
	envVar(fs, httpFlags, stringKind, &s.client.ResourceURL, "resource-url", "", "public URL of the MCP endpoint (e.g. https://bigquery-mcp-xyz.a.run.app/mcp) named in oauth mode's protected resource metadata (default: from each request's Host)")
	envVar(fs, httpFlags, stringKind, &s.client.OAuthTokenInfoURL, "oauth-tokeninfo-url", clientauth.DefaultTokenInfoURL, "Google endpoint that verifies access tokens in --client-auth oauth")
	envVar(fs, httpFlags, stringKind, &t.origins, "allowed-origins", "", "comma-separated browser origins (e.g. https://app.example.com) allowed to POST to the http server from another origin; cross-origin browser requests are refused otherwise")
	// Retry policies, one set of flags per operation class.
	for _, op := range resilience.Operations() {
		p := d.Resilience.Retry[op]
		envVar(fs, resilienceFlags, intKind, &p.Attempts, "retry-"+string(op)+"-attempts", p.Attempts, fmt.Sprintf("attempts at %s for one %s call, the first included", resilience.OperationTarget(op), op))
		envVar(fs, resilienceFlags, durationKind, &p.BaseDelay, "retry-"+string(op)+"-base-delay", p.BaseDelay, fmt.Sprintf("wait before the first %s retry; doubles each retry, with jitter", op))
		envVar(fs, resilienceFlags, durationKind, &p.MaxDelay, "retry-"+string(op)+"-max-delay", p.MaxDelay, fmt.Sprintf("longest wait between %s retries", op))
		t.retry[op] = &p
	}
	envVar(fs, resilienceFlags, uintKind, &s.Resilience.Breaker.Failures, "breaker-failures", d.Resilience.Breaker.Failures, "consecutive backend failures (5xx, no response, timeouts) that open a project's (or the state store's) circuit breaker")
	envVar(fs, resilienceFlags, durationKind, &s.Resilience.Breaker.Open, "breaker-open", d.Resilience.Breaker.Open, "how long an open breaker fails calls fast before letting probes through")
	envVar(fs, resilienceFlags, uintKind, &s.Resilience.Breaker.Successes, "breaker-successes", d.Resilience.Breaker.Successes, "successful probes that close a half-open breaker")
	envVar(fs, resilienceFlags, durationKind, &s.Cache.TTL, "cache-ttl", d.Cache.TTL, "how long dataset lists, table lists and schemas are served from cache")
	envVar(fs, resilienceFlags, durationKind, &s.Cache.MaxStale, "cache-max-stale", d.Cache.MaxStale, "how old cached metadata may be when served (marked stale) because BigQuery is unreachable")
	envVar(fs, logFlags, stringKind, &s.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.BoolVar(&s.help, "help", false, "print this help")
	fs.place(logFlags, "help")
	fs.BoolVar(&s.version, "version", false, "print the version")
	fs.place(logFlags, "version")
	return t
}

// apply turns the flags read as text into settings, and checks the ones
// that depend on each other.
func (s *settings) apply(fs *flagSet, t *flagText) error {
	var err error
	if s.Toolsets, err = server.ParseToolsets(t.toolsets, s.AllowWrites); err != nil {
		return err
	}
	if s.SemanticManifest == "" && t.toolsets != fs.Lookup("toolsets").DefValue && namesToolset(t.toolsets, server.ToolsetSemantic) {
		return errors.New("toolsets: semantic needs a semantic manifest: set --semantic-manifest (BIGQUERY_SEMANTIC_MANIFEST), or drop semantic from --toolsets")
	}
	if s.Apps, err = server.ParseApps(t.apps); err != nil {
		return err
	}
	if s.Governance.JobLabels, err = governance.ParseLabels(t.jobLabels); err != nil {
		return err
	}
	if s.Billing, err = cost.ParseBilling(t.billing); err != nil {
		return err
	}
	if s.PricePerTiBByLocation, err = cost.ParseByLocation(t.pricePerTiBByLocation); err != nil {
		return err
	}
	s.allowedOrigins = splitList(t.origins)
	s.client.Tokens = splitList(t.clientTokens)
	s.client.Audience = splitList(t.audiences)
	s.client.AllowedPrincipals = splitList(t.principals)
	s.Resilience.Retry = map[resilience.Operation]resilience.Policy{}
	for op, p := range t.retry {
		s.Resilience.Retry[op] = *p
	}
	explicitAuth := false
	fs.Visit(func(f *flag.Flag) { explicitAuth = explicitAuth || f.Name == "auth" })
	if _, ok := fs.env("auth"); ok {
		explicitAuth = true
	}
	if s.Endpoint != "" && !explicitAuth {
		t.authMode = string(auth.None)
	}
	s.Auth = auth.Mode(t.authMode)
	if s.command == "http" && s.Export.GCS != "" {
		// An http server's disk is its own (on Cloud Run, ephemeral).
		s.Export.Destination = "gcs"
	}
	if s.client.Auth == clientauth.OAuth {
		// Each user's own token goes to BigQuery; the server has none.
		if explicitAuth {
			return errors.New("--client-auth oauth calls BigQuery with each user's own token: leave --auth unset")
		}
		s.Auth = auth.User
	} else if s.Auth == auth.User {
		return errors.New(`--auth user takes each user's token from --client-auth oauth: use "adc" or "none"`)
	}
	return nil
}

// defaultCommand is the command run when the command line names none:
// stdio, except in the container image built by ko (.ko.yaml). ko can give
// an image no arguments, so the image carries its command ("http") as
// kodata/default-command beside this package, which ko puts in the
// directory it names in $KO_DATA_PATH.
func defaultCommand(getenv func(string) string) string {
	if dir := getenv("KO_DATA_PATH"); dir != "" {
		if b, err := os.ReadFile(filepath.Join(dir, "default-command")); err == nil {
			if c := strings.TrimSpace(string(b)); c != "" {
				return c
			}
		}
	}
	return "stdio"
}

// splitList splits a comma-separated list, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// checkHTTPAuth refuses to serve an unauthenticated http server where
// anyone could reach it: the default must not run queries for strangers.
func (s *settings) checkHTTPAuth() error {
	if s.command != "http" || (s.client.Auth != clientauth.None && s.client.Auth != "") {
		return nil
	}
	if s.allowUnauthenticated || isLoopback(s.addr) {
		return nil
	}
	return fmt.Errorf("refusing to serve %s without client authentication: set --client-auth (token, google or oauth; BIGQUERY_CLIENT_AUTH), "+
		"or --allow-unauthenticated (BIGQUERY_ALLOW_UNAUTHENTICATED=true) when Cloud Run's IAM invoker check guards the service, "+
		"or listen on a loopback address such as --addr 127.0.0.1:8080", s.addr)
}

// isLoopback reports whether addr (host:port) only listens on loopback.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// namesToolset reports whether a --toolsets list names t itself (not
// through "all").
func namesToolset(spec string, t server.Toolset) bool {
	for _, name := range strings.Split(spec, ",") {
		if server.Toolset(strings.ToLower(strings.TrimSpace(name))) == t {
			return true
		}
	}
	return false
}
