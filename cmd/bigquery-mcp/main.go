// Command bigquery-mcp serves BigQuery tools over the Model Context
// Protocol: on stdio for local agents, or streamable HTTP for Cloud Run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/observability"
	"github.com/bigquery-mcp/bigquery-mcp/server"
	"github.com/bigquery-mcp/bigquery-mcp/stdio"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	default:
		fmt.Fprintln(os.Stderr, "bigquery-mcp:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	s, err := parseArgs(args, getenv, stderr)
	if err != nil {
		return err
	}
	switch s.command {
	case "version":
		fmt.Fprintln(stdout, "bigquery-mcp", version)
		return nil
	case "help":
		return flag.ErrHelp
	}
	level, ok := observability.ParseLevel(s.logLevel)
	if !ok {
		return fmt.Errorf("unknown log level %q", s.logLevel)
	}
	log := observability.NewLogger(stderr, observability.LogOptions{Level: level, ProjectID: s.Project})
	s.Version, s.Logger = version, log

	// Metrics and traces export as OTEL_METRICS_EXPORTER /
	// OTEL_TRACES_EXPORTER say (none by default); in stdio mode a console
	// exporter writes to stderr, never into the protocol stream.
	tel, err := observability.Setup(ctx, observability.Options{Version: version, Stdio: s.command == "stdio", Stderr: stderr, Logger: log})
	if err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	defer func() {
		// Flush on the way out: SIGTERM on Cloud Run, stdin closing in stdio.
		flush, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := tel.Shutdown(flush); err != nil {
			log.Warn("telemetry flush failed", "error", err.Error())
		}
	}()
	s.Telemetry = tel

	backend, err := server.Build(ctx, s.Config)
	if err != nil {
		return err
	}
	defer backend.Close()
	log.Info("starting", "transport", s.command, "project", s.Project, "location", s.Location,
		"allow_writes", s.AllowWrites, "auth", string(backend.Identity.Mode), "principal", backend.Identity.Principal,
		"version", version)
	if backend.Identity.Error != "" {
		log.Log(ctx, observability.LevelCritical, "credentials unusable: tools will return AUTH_ERROR", "error", backend.Identity.Error)
	}

	if s.command == "http" {
		return serveHTTP(ctx, s.addr, backend, log)
	}
	// The stdio transport answers malformed lines itself, so no input line
	// can end the session.
	err = backend.MCP.Run(ctx, server.SuppressCancelled(&stdio.Transport{Reader: stdin, Writer: stdout, Logger: log}))
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return err
	}
	log.Info("stopped")
	return nil
}

// serveHTTP serves streamable HTTP at /mcp (and /), with Cloud Run probes,
// until ctx ends; then it drains in-flight requests.
func serveHTTP(ctx context.Context, addr string, b *server.Backend, log *slog.Logger) error {
	mux := http.NewServeMux()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return b.MCP }, &mcp.StreamableHTTPOptions{Logger: log})
	mux.Handle("/mcp", h)
	mux.Handle("/", h)
	// Liveness: the process is up.
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	// Readiness: credentials usable and no circuit breaker open.
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !b.Ready() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	log.Info("listening", "addr", ln.Addr().String())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	log.Info("shutting down")
	return srv.Shutdown(shutdown)
}
