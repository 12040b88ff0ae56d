package observability

import (
	"context"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// ToolHandler is the shape of a tool call after argument decoding; it is
// identical to server.Handler's underlying type.
type ToolHandler = func(ctx context.Context, req *mcp.CallToolRequest) (any, error)

// ToolMiddleware returns middleware for every tool call. For each call it
//   - starts a span "tools/call <tool>" (kind server) with mcp.method.name,
//     gen_ai.tool.name, gen_ai.operation.name=execute_tool and
//     mcp.session.id; a failed call sets the span's status to error with
//     error.type (the bqerr code), bigquery.error.reason and
//     bigquery.job_id when the error names a job;
//   - records mcp.server.operation.duration and bigquery_mcp.tool.calls, and
//     for a failure bigquery_mcp.errors;
//   - logs a failed call with [LogToolError] (and a successful one at debug
//     level), so it replaces a separate logging middleware.
//
// The handler's result and error are returned unchanged. The middleware's
// type is server.Middleware's underlying shape written with unnamed
// function types; because server.Handler is a defined type, Go needs a
// one-line adapter to use it as a server.Middleware:
//
//	mw := tel.ToolMiddleware()
//	server.Middleware(func(tool string, next server.Handler) server.Handler { return mw(tool, next) })
func (t *Telemetry) ToolMiddleware() func(tool string, next func(context.Context, *mcp.CallToolRequest) (any, error)) func(context.Context, *mcp.CallToolRequest) (any, error) {
	return func(tool string, next ToolHandler) ToolHandler {
		base := []attribute.KeyValue{AttrMCPMethodName.String("tools/call"), AttrGenAIToolName.String(tool)}
		ok := metric.WithAttributeSet(attribute.NewSet(append(base, AttrOutcome.String("ok"))...))
		spanName := "tools/call " + tool
		spanAttrs := append(base[:len(base):len(base)], AttrGenAIOperation.String("execute_tool"))
		return func(ctx context.Context, req *mcp.CallToolRequest) (any, error) {
			ctx, span := t.tracer.Start(ctx, spanName, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(spanAttrs...))
			defer span.End()
			if span.IsRecording() && req != nil && req.Session != nil {
				if id := req.Session.ID(); id != "" {
					span.SetAttributes(AttrMCPSessionID.String(id))
				}
			}
			start := time.Now()
			out, err := next(ctx, req)
			elapsed := time.Since(start)
			t.stats.toolCalls.Add(1)
			if err == nil {
				t.inst.opDuration.Record(ctx, elapsed.Seconds(), ok)
				t.inst.toolCalls.Add(ctx, 1, ok)
				t.log.LogAttrs(ctx, slog.LevelDebug, "tool call", slog.String("tool", tool), slog.Int64("duration_ms", elapsed.Milliseconds()))
				return out, nil
			}
			t.stats.toolErrors.Add(1)
			e := bqerr.From(err)
			code := AttrErrorType.String(string(e.Code))
			failed := metric.WithAttributes(base[0], base[1], AttrOutcome.String("error"), code)
			t.inst.opDuration.Record(ctx, elapsed.Seconds(), failed)
			t.inst.toolCalls.Add(ctx, 1, failed)
			t.inst.errors.Add(ctx, 1, metric.WithAttributes(code, AttrRetryable.Bool(e.Retryable), base[1]))
			span.SetStatus(codes.Error, e.Error())
			span.SetAttributes(code)
			if e.Details.Reason != "" {
				span.SetAttributes(AttrErrorReason.String(e.Details.Reason))
			}
			if e.Details.JobID != "" {
				span.SetAttributes(AttrJobID.String(e.Details.JobID))
			}
			LogToolError(ctx, t.log, tool, e, slog.Int64("duration_ms", elapsed.Milliseconds()))
			return out, err
		}
	}
}
