package server

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/observability"
)

// Recover turns a panic in a tool into an INTERNAL error, so one bad call
// cannot take the server (and every other session) down. The panic and the
// place it happened go to the log, never to the agent.
func Recover(log *slog.Logger) Middleware {
	return func(tool string, next Handler) Handler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (out any, err error) {
			defer func() {
				if p := recover(); p != nil {
					logPanic(ctx, log, "tool panicked", p, slog.String("tool", tool))
					out, err = nil, bqerr.New(bqerr.Internal, "internal error in "+tool).
						WithHint("This is a bug in the server; retrying will likely fail the same way. Report it with the time of the call.")
				}
			}()
			return next(ctx, req)
		}
	}
}

// RecoverMethods is receiving middleware for every MCP method, not only
// tools/call: initialize, logging/setLevel, tools/list, notifications and
// whatever a client sends. A panic in a method handler, the SDK's own
// included, becomes a JSON-RPC internal error (-32603) for that request and
// a log line with the panic and where it happened; the session and the process
// carry on. (Tool panics are already INTERNAL tool results by Recover; this
// is the net under everything else.)
func RecoverMethods(log *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if p := recover(); p != nil {
					logPanic(ctx, log, "MCP method panicked", p, slog.String("method", method))
					res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error in " + method}
				}
			}()
			return next(ctx, method, req)
		}
	}
}

// logPanic logs a recovered panic at ERROR with the panic value and the
// place it happened ("function (file:line)"): enough to find the bug, and no
// stack trace, which the product keeps out of logs (traces carry argument
// values and make log lines that monitoring cannot group). A logger that
// itself fails cannot turn the recovery into a second panic.
func logPanic(ctx context.Context, log *slog.Logger, msg string, p any, attrs ...slog.Attr) {
	defer func() { _ = recover() }()
	attrs = append(attrs, slog.String("panic", bqerr.Redact(fmt.Sprint(p))), slog.String("at", panicSite()))
	log.LogAttrs(ctx, slog.LevelError, msg, attrs...)
}

// panicSite is the first frame of the panicking goroutine outside the
// runtime: where the panic happened, not how the runtime raised it.
func panicSite() string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(4, pcs) // Callers, panicSite, logPanic, the deferred func
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "runtime.") {
			return fmt.Sprintf("%s (%s:%d)", f.Function, f.File, f.Line)
		}
		if !more {
			return "unknown"
		}
	}
}

// LogCalls logs each call's outcome when telemetry is off. Failures go
// through observability.LogToolError, the same line telemetry writes: the
// raw, redacted cause the agent never sees, severity by error class, and a
// fingerprint.
func LogCalls(log *slog.Logger) Middleware {
	return func(tool string, next Handler) Handler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (any, error) {
			start := time.Now()
			out, err := next(ctx, req)
			elapsed := time.Since(start)
			if err == nil {
				log.DebugContext(ctx, "tool call", "tool", tool, "duration_ms", elapsed.Milliseconds())
				return out, nil
			}
			observability.LogToolError(ctx, log, tool, errorInfo(err), slog.Int64("duration_ms", elapsed.Milliseconds()))
			return nil, bqerr.From(err)
		}
	}
}

// Observe records every tool call in telemetry (a span, duration and call
// metrics, and the log line for a failure; see
// observability.Telemetry.StartToolCall). The call's result and error pass
// through unchanged.
func Observe(tel *observability.Telemetry) Middleware {
	return func(tool string, next Handler) Handler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (any, error) {
			session := ""
			if req != nil && req.Session != nil {
				session = req.Session.ID()
			}
			ctx, finish := tel.StartToolCall(ctx, tool, session)
			out, err := next(ctx, req)
			finish(errorInfo(err))
			return out, err
		}
	}
}
