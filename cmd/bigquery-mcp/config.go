package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
	"github.com/bigquery-mcp/bigquery-mcp/server"
)

// settings are the parsed command line: the server config plus what only
// the binary needs.
type settings struct {
	server.Config
	command  string
	addr     string
	logLevel string
}

// envPrefix: every flag --some-name also reads BIGQUERY_SOME_NAME.
const envPrefix = "BIGQUERY_"

func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// flagSet declares every flag with its environment variable. A variable
// sets the default; a flag on the command line wins.
type flagSet struct {
	*flag.FlagSet
	getenv func(string) string
	errs   []error
}

func (f *flagSet) env(name string) (string, bool) {
	v := f.getenv(envName(name))
	return v, v != ""
}

func (f *flagSet) usage(name, text string) string {
	return fmt.Sprintf("%s (env %s)", text, envName(name))
}

func (f *flagSet) stringVar(p *string, name, def, text string) {
	if v, ok := f.env(name); ok {
		def = v
	}
	f.StringVar(p, name, def, f.usage(name, text))
}

func (f *flagSet) boolVar(p *bool, name string, def bool, text string) {
	if v, ok := f.env(name); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s=%q: want true or false", envName(name), v))
		}
		def = b
	}
	f.BoolVar(p, name, def, f.usage(name, text))
}

func (f *flagSet) intVar(p *int, name string, def int, text string) {
	if v, ok := f.env(name); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s=%q: want a whole number", envName(name), v))
		}
		def = n
	}
	f.IntVar(p, name, def, f.usage(name, text))
}

func (f *flagSet) uintVar(p *uint, name string, def uint, text string) {
	if v, ok := f.env(name); ok {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s=%q: want a whole number", envName(name), v))
		}
		def = uint(n)
	}
	f.UintVar(p, name, def, f.usage(name, text))
}

func (f *flagSet) int64Var(p *int64, name string, def int64, text string) {
	if v, ok := f.env(name); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s=%q: want a whole number", envName(name), v))
		}
		def = n
	}
	f.Int64Var(p, name, def, f.usage(name, text))
}

func (f *flagSet) floatVar(p *float64, name string, def float64, text string) {
	if v, ok := f.env(name); ok {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s=%q: want a number", envName(name), v))
		}
		def = n
	}
	f.Float64Var(p, name, def, f.usage(name, text))
}

func (f *flagSet) durationVar(p *time.Duration, name string, def time.Duration, text string) {
	if v, ok := f.env(name); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			f.errs = append(f.errs, fmt.Errorf("%s=%q: want a duration such as 30s or 5m", envName(name), v))
		}
		def = d
	}
	f.DurationVar(p, name, def, f.usage(name, text))
}

const usageHead = `bigquery-mcp: a Model Context Protocol server for Google BigQuery.

Usage:
  bigquery-mcp [stdio] [flags]    serve MCP over stdin/stdout (the default; for Claude Code and IDEs)
  bigquery-mcp http [flags]       serve MCP over streamable HTTP on --addr (for Cloud Run)
  bigquery-mcp version            print the version

Every flag can also be set with the environment variable shown; a flag on
the command line wins. Logs go to stderr as JSON.

Flags:
`

// parseArgs reads the command and flags. The command may come before or
// after the flags.
func parseArgs(args []string, getenv func(string) string, stderr io.Writer) (*settings, error) {
	s := &settings{Config: server.Defaults(), command: "stdio"}
	fs := &flagSet{FlagSet: flag.NewFlagSet("bigquery-mcp", flag.ContinueOnError), getenv: getenv}
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usageHead)
		fs.PrintDefaults()
	}
	d := s.Config
	addr := ":8080"
	if port := getenv("PORT"); port != "" {
		addr = ":" + port
	}
	authMode := string(auth.ADC)
	// The flag package needs stable addresses; policies are copied back
	// after parsing.
	s.Resilience.Policies = map[resilience.Operation]resilience.Policy{}
	policies := map[resilience.Operation]*resilience.Policy{}
	fs.stringVar(&s.Project, "project", "", "Google Cloud project: the default for metadata calls and the project that runs and pays for query jobs (default: detected from credentials)")
	fs.stringVar(&s.Location, "location", "", "BigQuery location for jobs, e.g. US, EU or europe-west1 (default: chosen by BigQuery from the data)")
	fs.stringVar(&s.Endpoint, "endpoint", "", "BigQuery API endpoint URL, e.g. http://localhost:9050 for the local emulator")
	fs.stringVar(&authMode, "auth", authMode, `authentication: "adc" (Application Default Credentials) or "none" (emulator; the default when --endpoint is set)`)
	fs.boolVar(&s.AllowWrites, "allow-writes", false, "allow execute_sql to run statements other than a single SELECT (DML, DDL, scripts)")
	fs.int64Var(&s.MaxBytesBilled, "max-bytes-billed", d.MaxBytesBilled, "maximumBytesBilled set on every query job; agents may ask for less, never more")
	fs.intVar(&s.DefaultMaxRows, "default-max-rows", d.DefaultMaxRows, "rows execute_sql returns when the agent does not say")
	fs.intVar(&s.MaxRows, "max-rows", d.MaxRows, "most rows one call may return")
	fs.intVar(&s.MaxResultBytes, "max-result-bytes", d.MaxResultBytes, "most bytes of encoded rows one call returns; the rest is marked truncated")
	fs.floatVar(&s.PricePerTiB, "price-per-tib", d.PricePerTiB, "on-demand USD price per TiB scanned, for dry-run cost estimates")
	fs.durationVar(&s.QueryTimeout, "query-timeout", d.QueryTimeout, "how long a query may run before its job is cancelled, unless the agent asks for less")
	fs.durationVar(&s.MaxQueryTimeout, "max-query-timeout", d.MaxQueryTimeout, "the longest timeout an agent may ask for")
	// Retry policies, one set of flags per operation class.
	for _, op := range resilience.Operations {
		p := d.Resilience.Policies[op]
		fs.intVar(&p.MaxAttempts, "retry-"+string(op)+"-attempts", p.MaxAttempts, fmt.Sprintf("attempts at BigQuery for one %s call, the first included", op))
		fs.durationVar(&p.BaseDelay, "retry-"+string(op)+"-base-delay", p.BaseDelay, fmt.Sprintf("wait before the first %s retry; doubles each retry, with jitter", op))
		fs.durationVar(&p.MaxDelay, "retry-"+string(op)+"-max-delay", p.MaxDelay, fmt.Sprintf("longest wait between %s retries", op))
		policies[op] = &p
	}
	fs.uintVar(&s.Resilience.Breaker.FailureThreshold, "breaker-failures", d.Resilience.Breaker.FailureThreshold, "consecutive backend failures (5xx, no response, timeouts) that open a project's circuit breaker")
	fs.durationVar(&s.Resilience.Breaker.OpenDuration, "breaker-open", d.Resilience.Breaker.OpenDuration, "how long an open breaker fails calls fast before letting probes through")
	fs.uintVar(&s.Resilience.Breaker.SuccessThreshold, "breaker-successes", d.Resilience.Breaker.SuccessThreshold, "successful probes that close a half-open breaker")
	fs.durationVar(&s.CacheTTL, "cache-ttl", d.CacheTTL, "how long dataset lists, table lists and schemas are served from cache")
	fs.durationVar(&s.CacheMaxStale, "cache-max-stale", d.CacheMaxStale, "how old cached metadata may be when served (marked stale) because BigQuery is unreachable")
	fs.stringVar(&s.addr, "addr", addr, "listen address for http mode (default :$PORT, else :8080)")
	fs.stringVar(&s.logLevel, "log-level", "info", "log level: debug, info, warn or error")

	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		s.command, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if rest := fs.Args(); len(rest) > 0 {
		if len(rest) > 1 || s.command != "stdio" || len(args) == 0 {
			return nil, fmt.Errorf("unexpected arguments: %s", strings.Join(rest, " "))
		}
		s.command = rest[0]
	}
	if len(fs.errs) > 0 {
		return nil, fs.errs[0]
	}
	for op, p := range policies {
		s.Resilience.Policies[op] = *p
	}
	explicitAuth := false
	fs.Visit(func(f *flag.Flag) { explicitAuth = explicitAuth || f.Name == "auth" })
	if _, ok := fs.env("auth"); ok {
		explicitAuth = true
	}
	if s.Endpoint != "" && !explicitAuth {
		authMode = string(auth.None)
	}
	s.Auth = auth.Mode(authMode)
	switch s.command {
	case "stdio", "http", "version", "help":
	default:
		return nil, fmt.Errorf("unknown command %q (want stdio, http or version)", s.command)
	}
	return s, nil
}
