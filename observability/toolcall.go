package observability

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// StartToolCall starts recording one MCP tool call. The call runs with the
// returned context; finish is called with its failure (nil on success). It
//   - starts a span "tools/call <tool>" (kind server) with mcp.method.name,
//     gen_ai.tool.name, gen_ai.operation.name=execute_tool and, when
//     sessionID is not empty, mcp.session.id; a failed call sets the span's
//     status to error with error.type (the failure's code),
//     bigquery.error.reason and bigquery.job_id when the error names a job;
//   - records mcp.server.operation.duration and bigquery_mcp.tool.calls,
//     and for a failure bigquery_mcp.errors;
//   - logs a failed call with [LogToolError] (and a successful one at debug
//     level), so no separate logging middleware is needed.
func (t *Telemetry) StartToolCall(ctx context.Context, tool, sessionID string) (context.Context, func(fail *ErrorInfo)) {
	method, name := AttrMCPMethodName.String("tools/call"), AttrGenAIToolName.String(tool)
	ctx, span := t.tracer.Start(ctx, "tools/call "+tool, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(method, name, AttrGenAIOperation.String("execute_tool")))
	if sessionID != "" {
		span.SetAttributes(AttrMCPSessionID.String(sessionID))
	}
	start := time.Now()
	return ctx, func(fail *ErrorInfo) {
		defer span.End()
		elapsed := time.Since(start)
		duration := slog.Int64("duration_ms", elapsed.Milliseconds())
		if fail == nil {
			ok := metric.WithAttributes(method, name, AttrOutcome.String("ok"))
			t.inst.opDuration.Record(ctx, elapsed.Seconds(), ok)
			t.inst.toolCalls.Add(ctx, 1, ok)
			t.log.LogAttrs(ctx, slog.LevelDebug, "tool call", slog.String("tool", tool), duration)
			return
		}
		code := AttrErrorType.String(fail.Code)
		failed := metric.WithAttributeSet(attribute.NewSet(method, name, AttrOutcome.String("error"), code))
		t.inst.opDuration.Record(ctx, elapsed.Seconds(), failed)
		t.inst.toolCalls.Add(ctx, 1, failed)
		t.inst.errors.Add(ctx, 1, metric.WithAttributes(code, AttrRetryable.Bool(fail.Retryable), name))
		span.SetStatus(codes.Error, t.redact(fail.Error()))
		span.SetAttributes(code)
		setErrorDetails(span, fail)
		LogToolError(ctx, t.log, tool, fail, duration)
	}
}
