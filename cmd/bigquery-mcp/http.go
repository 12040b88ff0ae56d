package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/auth/clientauth"
	"github.com/bigquery-mcp/bigquery-mcp/server"
)

// httpLimits bound what one client connection can hold, and how shutdown
// spends Cloud Run's 10 s grace period.
type httpLimits struct {
	// readHeader and read bound receiving a request, headers and body, so
	// a client trickling bytes cannot hold a connection. net/http lifts the
	// read deadline once the body has been read (go-sdk reads it whole
	// before handling), so it never cuts a response. There is no
	// WriteTimeout: a query's SSE response may stream for as long as the
	// query runs (up to --max-query-timeout).
	readHeader, read time.Duration
	// idle closes keep-alive connections that carry no request.
	idle           time.Duration
	maxHeaderBytes int
	// drain is how long cancelled tool calls get to return (their jobs are
	// cancelled on the way out); deliver is how long their results get to
	// reach clients before open streams are closed; closeAll is the last
	// wait before connections are dropped. With the telemetry flush after
	// them (shutdownFlush) the worst case stays under Cloud Run's 10 s.
	drain, deliver, closeAll time.Duration
}

func defaultHTTPLimits() httpLimits {
	return httpLimits{
		readHeader:     10 * time.Second,
		read:           30 * time.Second,
		idle:           90 * time.Second,
		maxHeaderBytes: 64 << 10, // bearer tokens are a few KiB
		drain:          3 * time.Second,
		deliver:        500 * time.Millisecond,
		closeAll:       1500 * time.Millisecond,
	}
}

// httpServer holds what serveHTTP needs beyond the MCP backend.
type httpServer struct {
	addr           string
	limits         httpLimits
	allowedOrigins []string
	// guard authenticates clients; nil serves everyone (tests).
	guard *clientauth.Guard
	log   *slog.Logger
	// listening, if set, receives the bound address (for tests using :0).
	listening func(net.Addr)
	// requests cancels a call whose HTTP request ended.
	requests httpRequests
	// readiness, if set, says why the instance is not ready and where its
	// governance state lives, for /readyz's body.
	readiness func() (notReady, state string)
}

// handler is the whole HTTP surface: MCP at /mcp (and /) behind client
// authentication, oauth mode's protected resource metadata, Cloud Run
// probes, and a cross-origin check. ready reports whether the instance
// should get traffic.
//
// MCP is served stateless: no session lives in memory, so any instance
// answers any request (job state lives in BigQuery) and nothing is left
// behind by clients that go away. Responses stream as SSE, which keeps
// progress notifications flowing to the client during a long query.
func (h *httpServer) handler(m *mcp.Server, ready func() bool) (http.Handler, error) {
	mux := http.NewServeMux()
	// go-sdk's own DNS-rebinding protection stays on: on a loopback
	// listener it refuses any Host that is not loopback.
	var mcpHandler http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return m },
		&mcp.StreamableHTTPOptions{Logger: h.log, Stateless: true})
	mcpHandler = server.JSONRPCErrors(h.requests.wrap(mcpHandler))
	if h.guard != nil {
		mcpHandler = h.guard.Wrap(mcpHandler)
		h.guard.Register(mux)
	}
	mux.Handle("/mcp", mcpHandler)
	mux.Handle("/", mcpHandler)
	// Liveness: the process is up.
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	// Readiness: credentials usable and no circuit breaker open (the
	// state store's only when budgets fail closed). The body says why not,
	// and where budgets and job records live.
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		var why, state string
		if h.readiness != nil {
			why, state = h.readiness()
		}
		if !ready() {
			msg := "not ready"
			if why != "" {
				msg += ": " + why
			}
			if state != "" {
				msg += "\nstate: " + state
			}
			http.Error(w, msg, http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
		if state != "" {
			fmt.Fprintln(w, "state: "+state)
		}
	})
	// A browser page from another origin must not be able to drive the
	// server with the user's network position: cross-origin POSTs and
	// DELETEs are refused (403) unless the origin is trusted.
	cop := http.NewCrossOriginProtection()
	for _, o := range h.allowedOrigins {
		if err := cop.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("--allowed-origins: %w", err)
		}
	}
	return cop.Handler(mux), nil
}

// serve serves HTTP until ctx ends, then shuts down within the limits:
// tool calls are cancelled (the middleware in calls sees ctx end) and get
// drain to return, results get deliver to reach clients, then every request
// context is cancelled, which closes open SSE streams.
func (h *httpServer) serve(ctx context.Context, m *mcp.Server, ready func() bool) error {
	handler, err := h.handler(m, ready)
	if err != nil {
		return err
	}
	calls := newCalls(ctx)
	m.AddReceivingMiddleware(h.requests.middleware, calls.middleware)
	base, closeStreams := context.WithCancel(context.WithoutCancel(ctx))
	defer closeStreams()
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: h.limits.readHeader,
		ReadTimeout:       h.limits.read,
		IdleTimeout:       h.limits.idle,
		MaxHeaderBytes:    h.limits.maxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(h.log.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", h.addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", h.addr, err)
	}
	h.log.Info("listening", "addr", ln.Addr().String())
	if h.listening != nil {
		h.listening(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	h.log.Info("shutting down: cancelling tool calls")
	if !calls.drain(h.limits.drain) {
		h.log.Warn("tool calls still running after shutdown drain", "drain", h.limits.drain.String())
	}
	stopped, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.limits.deliver+h.limits.closeAll)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(stopped) }()
	select {
	case err = <-done:
	case <-time.After(h.limits.deliver):
		closeStreams()
		err = <-done
	}
	if errors.Is(err, context.DeadlineExceeded) {
		h.log.Warn("connections still open at the end of shutdown: closing them")
		err = srv.Close()
	}
	if err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	h.log.Info("stopped")
	return nil
}
