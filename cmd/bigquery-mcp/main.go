// Command bigquery-mcp serves BigQuery tools over the Model Context
// Protocol: on stdio for local agents, or streamable HTTP for Cloud Run.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/auth/clientauth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/observability"
	"github.com/bigquery-mcp/bigquery-mcp/server"
	"github.com/bigquery-mcp/bigquery-mcp/stdio"
)

// shutdownFlush bounds the telemetry flush on exit; see httpLimits for the
// rest of the shutdown budget.
const shutdownFlush = 3 * time.Second

// version and commit are set at build time with
// -ldflags "-X main.version=… -X main.commit=…" (Makefile, .goreleaser.yaml,
// .ko.yaml and the Dockerfile all pass the same flags). A plain
// `go install …@vX.Y.Z` sets neither: versionString falls back to what the
// Go toolchain recorded in the binary.
var (
	version = "dev"
	commit  = ""
)

// versionString is what --version prints: the release version and the
// commit it was built from.
func versionString() string {
	v, c := version, commit
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		for _, kv := range info.Settings {
			if kv.Key == "vcs.revision" && c == "" {
				c = kv.Value
			}
		}
	}
	if c == "" {
		return "bigquery-mcp " + v
	}
	return "bigquery-mcp " + v + " (commit " + c + ")"
}

func main() {
	// SIGTERM (Cloud Run, process managers) and SIGINT (Ctrl-C) cancel
	// running tool calls and stop the server; after the first, signals get
	// their default behaviour back, so a second Ctrl-C kills at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	stdin, restore := pollableStdin()
	err := run(ctx, os.Args[1:], os.Getenv, stdin, os.Stdout, os.Stderr)
	stop()
	restore()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bigquery-mcp:", err)
		var usage usageError
		if errors.As(err, &usage) {
			fmt.Fprintln(os.Stderr, "Run 'bigquery-mcp help' for usage.")
		}
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	s, err := parseArgs(args, getenv)
	if err != nil {
		return usageError{err}
	}
	switch s.command {
	case "version":
		fmt.Fprintln(stdout, versionString())
		return nil
	case "help":
		// Asked for, so it goes to stdout: `bigquery-mcp help | less`.
		s.usage(stdout)
		return nil
	}
	level, ok := observability.ParseLevel(s.logLevel)
	if !ok {
		return fmt.Errorf("unknown log level %q", s.logLevel)
	}
	log := observability.NewLogger(stderr, observability.LogOptions{Level: level, ProjectID: s.Project, Redact: bqerr.Redact})
	s.Version, s.Logger = version, log

	// Metrics and traces export as OTEL_METRICS_EXPORTER /
	// OTEL_TRACES_EXPORTER say (none by default); in stdio mode a console
	// exporter writes to stderr, never into the protocol stream.
	tel, err := observability.Setup(ctx, observability.Options{Version: version, Stdio: s.command == "stdio", Stderr: stderr, Logger: log, Redact: bqerr.Redact})
	if err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	defer func() {
		// Flush on the way out: SIGTERM on Cloud Run, stdin closing in stdio.
		flush, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownFlush)
		defer cancel()
		if err := tel.Shutdown(flush); err != nil {
			log.Warn("telemetry flush failed", "error", err.Error())
		}
	}()
	s.Telemetry = tel

	var guard *clientauth.Guard
	if s.command == "http" {
		if err := s.checkHTTPAuth(); err != nil {
			return err
		}
		s.client.Log = log
		if guard, err = clientauth.New(ctx, s.client); err != nil {
			return err
		}
	}
	// MCP over HTTP is served stateless (http.go).
	s.Stateless = s.command == "http"
	// With client authentication, callers are told apart by the server
	// alone: each reads only the jobs it started (docs/governance.md).
	s.MultiPrincipal = s.multiPrincipal()
	backend, err := server.Build(ctx, s.Config)
	if err != nil {
		return err
	}
	defer backend.Close()
	principal := backend.Identity.Principal
	if backend.Identity.Mode == auth.User {
		principal = "each calling user"
	}
	log.Info("starting", "transport", s.command, "project", s.Project, "location", s.Location,
		"allow_writes", s.AllowWrites, "toolsets", s.Toolsets, "read_only", s.ReadOnly, "auth", string(backend.Identity.Mode), "principal", principal,
		"via", backend.Identity.Via, "client_auth", string(s.client.Auth), "max_concurrent_calls", s.MaxConcurrentCalls,
		"version", version, "commit", commit)
	if backend.Identity.Error != "" {
		log.Log(ctx, observability.LevelCritical, "credentials unusable: tools will return AUTH_ERROR", "error", backend.Identity.Error)
	}

	if s.command == "http" {
		h := &httpServer{addr: s.addr, limits: defaultHTTPLimits(), allowedOrigins: s.allowedOrigins, guard: guard, log: log, readiness: backend.Readiness}
		return h.serve(ctx, backend.MCP, backend.Ready)
	}
	return serveStdio(ctx, backend.MCP, stdin, stdout, log)
}

// serveStdio serves one session on stdin/stdout until the host closes
// stdin or a signal ends ctx. A signal cancels the running tool calls
// (their jobs get cancelled) and the session closes once they return.
// (mcp.Server.Run would do the same but log a normal shutdown as an error.)
func serveStdio(ctx context.Context, m *mcp.Server, stdin io.Reader, stdout io.Writer, log *slog.Logger) error {
	m.AddReceivingMiddleware(newCalls(ctx).middleware)
	// The stdio transport answers malformed lines itself, so no input line
	// can end the session.
	ss, err := m.Connect(ctx, server.SuppressCancelled(&stdio.Transport{Reader: stdin, Writer: stdout, Logger: log}), nil)
	if err != nil {
		return fmt.Errorf("starting the stdio session: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { ss.Close() })
	defer stop()
	err = ss.Wait()
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("stdio session: %w", err)
	}
	log.Info("stopped", "reason", stopReason(ctx))
	return nil
}

func stopReason(ctx context.Context) string {
	if ctx.Err() != nil {
		return "signal"
	}
	return "stdin closed"
}

// usageError is a command line that could not be parsed.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// multiPrincipal reports whether the server may serve more than one
// principal: HTTP with client authentication. Over stdio, or on HTTP
// without it, every caller is the one unnamed principal.
func (s *settings) multiPrincipal() bool {
	return s.command == "http" && s.client.Auth != clientauth.None && s.client.Auth != ""
}
