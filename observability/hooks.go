package observability

import (
	"context"
	"log/slog"
	"regexp"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// Attempt outcomes (attempt.outcome).
const (
	AttemptOK             = "ok"
	AttemptRetryableError = "retryable_error" // retried if attempts remain
	AttemptError          = "error"           // final: not worth retrying
)

// ResilienceHooks returns the hooks for resilience.NewExecutor:
//   - StartAttempt: a child span "bigquery.attempt <operation>" per attempt
//     (attributes operation, attempt; on failure error status and
//     error.type);
//   - Attempt: bigquery_mcp.retry.attempts, and bigquery_mcp.errors with
//     operation for a failed attempt;
//   - Exhausted: bigquery_mcp.retry.exhausted and a span event;
//   - BreakerChanged: bigquery_mcp.breaker.state,
//     bigquery_mcp.breaker.transitions and a log line (WARNING when a
//     breaker opens or half-opens, INFO when it closes again);
//   - Rejected: bigquery_mcp.breaker.rejected.
func (t *Telemetry) ResilienceHooks() resilience.Hooks {
	return resilience.Hooks{
		Attempt:        t.attempt,
		StartAttempt:   t.startAttempt,
		Exhausted:      t.exhausted,
		BreakerChanged: t.breakerChanged,
		Rejected:       t.rejected,
	}
}

func (t *Telemetry) startAttempt(ctx context.Context, op resilience.Operation, attempt int) (context.Context, func(error)) {
	ctx, span := t.tracer.Start(ctx, "bigquery.attempt "+string(op),
		trace.WithAttributes(AttrOperation.String(string(op)), AttrAttempt.Int(attempt)))
	return ctx, func(err error) {
		if err != nil {
			e := bqerr.From(err)
			span.SetStatus(codes.Error, e.Error())
			span.SetAttributes(AttrErrorType.String(string(e.Code)), AttrRetryable.Bool(resilience.Retryable(err)))
			if e.Details.Reason != "" {
				span.SetAttributes(AttrErrorReason.String(e.Details.Reason))
			}
			if e.Details.JobID != "" {
				span.SetAttributes(AttrJobID.String(e.Details.JobID))
			}
		}
		span.End()
	}
}

func (t *Telemetry) attempt(ctx context.Context, op resilience.Operation, attempt int, err error) {
	t.stats.attempts.Add(1)
	outcome := AttemptOK
	if err != nil {
		outcome = AttemptError
		if resilience.Retryable(err) {
			outcome = AttemptRetryableError
		}
	}
	t.inst.attempts.Add(ctx, 1, metric.WithAttributes(
		AttrOperation.String(string(op)), AttrAttemptOutcome.String(outcome), AttrRetry.Bool(attempt > 1)))
	if err != nil {
		e := bqerr.From(err)
		t.inst.errors.Add(ctx, 1, metric.WithAttributes(
			AttrErrorType.String(string(e.Code)), AttrRetryable.Bool(e.Retryable), AttrOperation.String(string(op))))
	}
}

func (t *Telemetry) exhausted(ctx context.Context, op resilience.Operation, attempts int, err error) {
	t.stats.retriesExhausted.Add(1)
	code := string(bqerr.From(err).Code)
	t.inst.exhausted.Add(ctx, 1, metric.WithAttributes(AttrOperation.String(string(op)), AttrErrorType.String(code)))
	trace.SpanFromContext(ctx).AddEvent("retry.exhausted", trace.WithAttributes(
		AttrOperation.String(string(op)), attribute.Int("attempts", attempts), AttrErrorType.String(code)))
}

func (t *Telemetry) breakerChanged(scope string, from, to resilience.BreakerState) {
	t.stats.breakerTransitions.Add(1)
	t.mu.Lock()
	t.breakers[scope] = to
	t.mu.Unlock()
	ctx := context.Background()
	t.inst.transitions.Add(ctx, 1, metric.WithAttributes(AttrFrom.String(string(from)), AttrTo.String(string(to))))
	level := slog.LevelWarn
	if to == resilience.Closed {
		level = slog.LevelInfo
	}
	t.log.LogAttrs(ctx, level, "circuit breaker "+string(to)+" for BigQuery project "+scope,
		slog.String("scope", scope), slog.String("from", string(from)), slog.String("to", string(to)))
}

func (t *Telemetry) rejected(ctx context.Context, op resilience.Operation, scope string) {
	t.stats.rejected.Add(1)
	t.inst.rejected.Add(ctx, 1, metric.WithAttributes(AttrOperation.String(string(op))))
	trace.SpanFromContext(ctx).AddEvent("breaker.rejected", trace.WithAttributes(AttrOperation.String(string(op)), AttrScope.String(scope)))
}

// observeBreakers reports every breaker that has changed state at least
// once (a scope never seen is closed).
func (t *Telemetry) observeBreakers(_ context.Context, o metric.Observer) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for scope, st := range t.breakers {
		o.ObserveInt64(t.inst.breakerState, BreakerStateValue(st), metric.WithAttributes(AttrScope.String(scope)))
	}
	return nil
}

// BreakerStateValue is the gauge value of a breaker state: 0 closed,
// 1 half-open, 2 open.
func BreakerStateValue(s resilience.BreakerState) int64 {
	switch s {
	case resilience.HalfOpen:
		return 1
	case resilience.Open:
		return 2
	}
	return 0
}

// QueryHooks returns the hooks for query.NewService: JobDone records
// bigquery_mcp.jobs.completed and the bytes counters and annotates the
// current span; JobCancelled records bigquery_mcp.jobs.cancelled.
func (t *Telemetry) QueryHooks() query.Hooks {
	return query.Hooks{JobDone: t.jobDone, JobCancelled: t.jobCancelled}
}

// statementTypeRE is what a BigQuery statement type looks like (SELECT,
// CREATE_TABLE_AS_SELECT, …); anything else is reported as OTHER, so the
// attribute stays bounded whatever the backend (or a fake) sends.
var statementTypeRE = regexp.MustCompile(`^[A-Z_]{1,40}$`)

func statementType(s string) string {
	switch {
	case s == "":
		return "UNKNOWN"
	case statementTypeRE.MatchString(s):
		return s
	}
	return "OTHER"
}

func (t *Telemetry) jobDone(ctx context.Context, stmt string, bytesProcessed, bytesBilled int64, cacheHit bool) {
	t.stats.jobsCompleted.Add(1)
	st := AttrStatementType.String(statementType(stmt))
	t.inst.jobsCompleted.Add(ctx, 1, metric.WithAttributes(st, AttrCacheHit.Bool(cacheHit)))
	if bytesProcessed > 0 {
		t.stats.bytesProcessed.Add(bytesProcessed)
		t.inst.bytesProcessed.Add(ctx, bytesProcessed, metric.WithAttributes(st))
	}
	if bytesBilled > 0 {
		t.stats.bytesBilled.Add(bytesBilled)
		t.inst.bytesBilled.Add(ctx, bytesBilled, metric.WithAttributes(st))
	}
	trace.SpanFromContext(ctx).SetAttributes(
		AttrJobStatementType.String(stmt), AttrBytesProcessed.Int64(bytesProcessed),
		AttrBytesBilled.Int64(bytesBilled), AttrJobCacheHit.Bool(cacheHit))
}

func (t *Telemetry) jobCancelled(ctx context.Context, reason string) {
	t.stats.jobsCancelled.Add(1)
	switch reason {
	case "timeout", "client_cancel":
	default:
		reason = "other"
	}
	t.inst.jobsCancelled.Add(ctx, 1, metric.WithAttributes(AttrReason.String(reason)))
	trace.SpanFromContext(ctx).AddEvent("job.cancelled", trace.WithAttributes(AttrReason.String(reason)))
}

// CacheLookup matches resilience.CacheConfig.Lookup: it records
// bigquery_mcp.cache.lookups and, for a stale serve,
// bigquery_mcp.cache.stale_age.
func (t *Telemetry) CacheLookup(ctx context.Context, result resilience.CacheResult, age time.Duration) {
	r := string(result)
	switch result {
	case resilience.CacheHit:
		t.stats.cacheHits.Add(1)
	case resilience.CacheMiss:
		t.stats.cacheMisses.Add(1)
	case resilience.CacheStale:
		t.stats.cacheStale.Add(1)
		t.inst.staleAge.Record(ctx, age.Seconds())
		trace.SpanFromContext(ctx).AddEvent("cache.stale", trace.WithAttributes(attribute.Float64("age_seconds", age.Seconds())))
	default:
		r = "other"
	}
	t.inst.cacheLookups.Add(ctx, 1, metric.WithAttributes(AttrCacheResult.String(r)))
}
