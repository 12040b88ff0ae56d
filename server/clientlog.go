package server

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/observability"
)

// This file makes the logging capability real: the client gets
// notifications/message for what is worth seeing at the level it asked
// for. A client asks with logging/setLevel (protocol 2025-06-18 and
// 2025-11-25: for the whole session) or with
// _meta["io.modelcontextprotocol/logLevel"] on a request (2026-07-28: for
// that request). With no level set nothing is sent.
//
// What is sent, and at which level:
//   - a tool call failed: WARNING, ERROR or CRITICAL by its error code
//     (observability.LevelFor), with the code and the agent-visible message;
//   - BigQuery failed on every allowed attempt: WARNING;
//   - a circuit breaker (a project's, or the credentials') opened (WARNING)
//     or closed again (INFO), to every session that set a level; a call an
//     open breaker refused: WARNING;
//   - metadata served stale because BigQuery could not be asked: WARNING;
//   - a job the server cancelled: INFO.
//
// Notifications pass through the same redaction as the stderr log and
// never carry SQL text, tokens or stack traces.

// clientLoggerName is the "logger" field of every notification.
const clientLoggerName = "bigquery-mcp"

type sessionKey struct{}

// withSession remembers the session of the call in ctx, so that hooks deep
// inside the call can tell its client.
func withSession(ctx context.Context, ss *mcp.ServerSession) context.Context {
	if ss == nil {
		return ctx
	}
	return context.WithValue(ctx, sessionKey{}, ss)
}

// clientLogger returns a logger that sends notifications/message to ss,
// redacted like the stderr log. Enabled reports the level the client asked
// for, so nothing is built for a client that does not listen.
func clientLogger(ss *mcp.ServerSession) *slog.Logger {
	h := mcp.NewLoggingHandler(ss, &mcp.LoggingHandlerOptions{LoggerName: clientLoggerName})
	return slog.New(observability.SafeHandler(observability.RedactHandler(h, bqerr.Redact), nil, bqerr.Redact))
}

// tellClient sends one notification to the client of the call in ctx, if
// there is one and it listens at level.
func tellClient(ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	ss, _ := ctx.Value(sessionKey{}).(*mcp.ServerSession)
	if ss == nil {
		return
	}
	clientLogger(ss).LogAttrs(ctx, level, msg, attrs...)
}

// clientLog sends the notifications that concern every session: those
// that happen outside any one call (a breaker changing state).
type clientLog struct {
	server atomic.Pointer[mcp.Server] // set once New has built it
}

// broadcast sends msg to every connected session that set a level (with
// logging/setLevel: there is no request to read a _meta level from). It
// does not wait: the caller may hold the breaker's lock.
func (c *clientLog) broadcast(level slog.Level, msg string, attrs ...slog.Attr) {
	s := c.server.Load()
	if s == nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for ss := range s.Sessions() {
			clientLogger(ss).LogAttrs(ctx, level, msg, attrs...)
		}
	}()
}

// NotifyClient is tool middleware that tells the client when a call
// failed, at the level its error code deserves, and puts the call's session
// in the context for the hooks that tell it more (see this file's
// comment).
func NotifyClient() Middleware {
	return func(tool string, next Handler) Handler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (any, error) {
			if req != nil {
				ctx = withSession(ctx, req.Session)
			}
			out, err := next(ctx, req)
			if err != nil {
				e := bqerr.From(err)
				attrs := []slog.Attr{slog.String("tool", tool), slog.String("code", string(e.Code)), slog.Bool("retryable", e.Retryable)}
				if e.Details.JobID != "" {
					attrs = append(attrs, slog.String("jobId", e.Details.JobID))
				}
				tellClient(ctx, observability.LevelFor(string(e.Code)), tool+" failed with "+string(e.Code)+": "+e.Message, attrs...)
			}
			return out, err
		}
	}
}
