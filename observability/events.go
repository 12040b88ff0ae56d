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

// Attempt outcomes (attempt.outcome).
const (
	AttemptOK             = "ok"
	AttemptRetryableError = "retryable_error" // retried if attempts remain
	AttemptError          = "error"           // final: not worth retrying
)

// Breaker states as the resilience layer names them; [BreakerChange] and
// [Telemetry.ObserveBreakers] take these strings. This package imports none
// of ours, so it cannot use resilience's typed states: the server's tests
// check that the two spellings agree.
const (
	BreakerClosed   = "closed"
	BreakerHalfOpen = "half-open"
	BreakerOpen     = "open"
)

// Cache lookup results as the metadata cache names them, for
// [Telemetry.CacheLookup]; the server's tests check that the two agree.
const (
	CacheHit   = "hit"
	CacheMiss  = "miss"
	CacheStale = "stale"
)

// StartAttempt starts a child span "bigquery.attempt <operation>" for one
// attempt at a BigQuery operation (attributes operation and attempt). The
// attempt runs with the returned context; finish ends the span, with error
// status, error.type, retryable, bigquery.error.reason and bigquery.job_id
// when fail is not nil (nil: the attempt succeeded). retryable is the
// caller's verdict (the resilience layer's), not fail.Retryable.
func (t *Telemetry) StartAttempt(ctx context.Context, op string, attempt int) (context.Context, func(fail *ErrorInfo, retryable bool)) {
	ctx, span := t.tracer.Start(ctx, "bigquery.attempt "+op,
		trace.WithAttributes(AttrOperation.String(op), AttrAttempt.Int(attempt)))
	return ctx, func(fail *ErrorInfo, retryable bool) {
		if fail != nil {
			span.SetStatus(codes.Error, t.redact(fail.Error()))
			span.SetAttributes(AttrErrorType.String(fail.Code), AttrRetryable.Bool(retryable))
			setErrorDetails(span, fail)
		}
		span.End()
	}
}

// Attempt records one finished attempt: bigquery_mcp.retry.attempts with
// its outcome (ok, retryable_error or error, by retryable), and for a
// failure (fail not nil) bigquery_mcp.errors with the operation.
func (t *Telemetry) Attempt(ctx context.Context, op string, attempt int, fail *ErrorInfo, retryable bool) {
	outcome := AttemptOK
	if fail != nil {
		outcome = AttemptError
		if retryable {
			outcome = AttemptRetryableError
		}
	}
	t.inst.attempts.Add(ctx, 1, metric.WithAttributes(
		AttrOperation.String(op), AttrAttemptOutcome.String(outcome), AttrRetry.Bool(attempt > 1)))
	if fail != nil {
		t.inst.errors.Add(ctx, 1, metric.WithAttributes(
			AttrErrorType.String(fail.Code), AttrRetryable.Bool(fail.Retryable), AttrOperation.String(op)))
	}
}

// Exhausted records an operation that failed on its last allowed attempt:
// bigquery_mcp.retry.exhausted and a span event, with fail's code.
func (t *Telemetry) Exhausted(ctx context.Context, op string, attempts int, fail *ErrorInfo) {
	code := ""
	if fail != nil {
		code = fail.Code
	}
	t.inst.exhausted.Add(ctx, 1, metric.WithAttributes(AttrOperation.String(op), AttrErrorType.String(code)))
	trace.SpanFromContext(ctx).AddEvent("retry.exhausted", trace.WithAttributes(
		AttrOperation.String(op), attribute.Int("attempts", attempts), AttrErrorType.String(code)))
}

// BreakerChange is a circuit breaker's change of state, as plain values.
type BreakerChange struct {
	// Scope is the breaker's key: what its failures are counted for (a
	// BigQuery project ID, or the credentials' own scope). It is the scope
	// attribute of the breaker metrics.
	Scope string
	// Calls names the calls the breaker guards, for a reader of the log:
	// "BigQuery project my-project", "fetching BigQuery credentials".
	Calls string
	// From and To are breaker states: BreakerClosed, BreakerHalfOpen or
	// BreakerOpen.
	From, To string
}

// BreakerChanged records a circuit breaker's change of state:
// bigquery_mcp.breaker.transitions and a log line (WARNING when a breaker
// opens or half-opens, INFO when it closes again).
func (t *Telemetry) BreakerChanged(c BreakerChange) {
	ctx := context.Background()
	t.inst.transitions.Add(ctx, 1, metric.WithAttributes(AttrFrom.String(c.From), AttrTo.String(c.To)))
	level := slog.LevelWarn
	if c.To == BreakerClosed {
		level = slog.LevelInfo
	}
	t.log.LogAttrs(ctx, level, "circuit breaker "+c.To+" for "+c.Calls,
		slog.String("scope", c.Scope), slog.String("from", c.From), slog.String("to", c.To))
}

// Rejected records a call an open breaker refused at once:
// bigquery_mcp.breaker.rejected and a span event.
func (t *Telemetry) Rejected(ctx context.Context, op, scope string) {
	t.inst.rejected.Add(ctx, 1, metric.WithAttributes(AttrOperation.String(op)))
	trace.SpanFromContext(ctx).AddEvent("breaker.rejected", trace.WithAttributes(AttrOperation.String(op), AttrScope.String(scope)))
}

// ObserveBreakers makes the gauge bigquery_mcp.breaker.state read the
// breakers' states, by scope, from states: the executor is the authority on
// them, and the gauge reports what it says at each collection. Until it is
// called, the gauge reports nothing.
func (t *Telemetry) ObserveBreakers(states func() map[string]string) {
	t.mu.Lock()
	t.breakerStates = states
	t.mu.Unlock()
}

func (t *Telemetry) observeBreakers(_ context.Context, o metric.Observer) error {
	t.mu.Lock()
	states := t.breakerStates
	t.mu.Unlock()
	if states == nil {
		return nil
	}
	for scope, st := range states() {
		o.ObserveInt64(t.inst.breakerState, BreakerStateValue(st), metric.WithAttributes(AttrScope.String(scope)))
	}
	return nil
}

// BreakerStateValue is the gauge value of a breaker state: 0 closed,
// 1 half-open, 2 open.
func BreakerStateValue(s string) int64 {
	switch s {
	case BreakerHalfOpen:
		return 1
	case BreakerOpen:
		return 2
	}
	return 0
}

// statementType bounds the attribute: what looks like a BigQuery statement
// type (SELECT, CREATE_TABLE_AS_SELECT, …) is kept, anything else is OTHER,
// whatever the backend (or a fake) sends.
func statementType(s string) string {
	switch {
	case s == "":
		return "UNKNOWN"
	case shortName(s, upperOrUnderscore):
		return s
	}
	return "OTHER"
}

// shortName reports whether s has 1 to 40 bytes, each accepted by ok. (A
// loop rather than a regexp: regexps compiled at package init cost every
// start of the server.)
func shortName(s string, ok func(byte) bool) bool {
	if len(s) == 0 || len(s) > 40 {
		return false
	}
	for i := range len(s) {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

func upperOrUnderscore(c byte) bool { return 'A' <= c && c <= 'Z' || c == '_' }

func asciiLetter(c byte) bool { return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' }

// JobDone records a finished query job: bigquery_mcp.jobs.completed and
// the bytes counters, and annotates the current span.
func (t *Telemetry) JobDone(ctx context.Context, stmt string, bytesProcessed, bytesBilled int64, cacheHit bool) {
	st := AttrStatementType.String(statementType(stmt))
	t.inst.jobsCompleted.Add(ctx, 1, metric.WithAttributes(st, AttrCacheHit.Bool(cacheHit)))
	if bytesProcessed > 0 {
		t.inst.bytesProcessed.Add(ctx, bytesProcessed, metric.WithAttributes(st))
	}
	if bytesBilled > 0 {
		t.inst.bytesBilled.Add(ctx, bytesBilled, metric.WithAttributes(st))
	}
	trace.SpanFromContext(ctx).SetAttributes(
		AttrJobStatementType.String(stmt), AttrBytesProcessed.Int64(bytesProcessed),
		AttrBytesBilled.Int64(bytesBilled), AttrJobCacheHit.Bool(cacheHit))
}

// JobCancelled records a job the server cancelled:
// bigquery_mcp.jobs.cancelled by reason ("timeout", "client_cancel", and
// "other" for anything else) and a span event.
func (t *Telemetry) JobCancelled(ctx context.Context, reason string) {
	switch reason {
	case "timeout", "client_cancel":
	default:
		reason = "other"
	}
	t.inst.jobsCancelled.Add(ctx, 1, metric.WithAttributes(AttrReason.String(reason)))
	trace.SpanFromContext(ctx).AddEvent("job.cancelled", trace.WithAttributes(AttrReason.String(reason)))
}

// JobRecordEvicted counts a job record the store evicted for room
// (bigquery_mcp.jobs.records_evicted): a steady rate means the store is too
// small for the jobs a day brings.
func (t *Telemetry) JobRecordEvicted(ctx context.Context) {
	t.inst.recordsEvicted.Add(ctx, 1)
}

// CacheLookup records a metadata cache lookup (result hit, miss or stale;
// anything else counts as "other"): bigquery_mcp.cache.lookups and, for a
// stale serve, bigquery_mcp.cache.stale_age and a span event.
func (t *Telemetry) CacheLookup(ctx context.Context, result string, age time.Duration) {
	switch result {
	case CacheHit:
		t.cache.hits.Add(1)
	case CacheMiss:
		t.cache.misses.Add(1)
	case CacheStale:
		t.cache.stale.Add(1)
		t.inst.staleAge.Record(ctx, age.Seconds())
		trace.SpanFromContext(ctx).AddEvent("cache.stale", trace.WithAttributes(attribute.Float64("age_seconds", age.Seconds())))
	default:
		result = "other"
	}
	t.inst.cacheLookups.Add(ctx, 1, metric.WithAttributes(AttrCacheResult.String(result)))
}

// CacheStats returns what the health report says about the metadata cache
// since the process started, whatever exporter is configured (or none):
// the hit rate, hits / (hits + misses + stale) or 0 before any lookup, and
// how many stale answers were served.
func (t *Telemetry) CacheStats() (hitRate float64, staleServed int64) {
	hits, misses, stale := t.cache.hits.Load(), t.cache.misses.Load(), t.cache.stale.Load()
	if total := hits + misses + stale; total > 0 {
		hitRate = float64(hits) / float64(total)
	}
	return hitRate, stale
}

// setErrorDetails puts the failure's BigQuery reason and job ID on span.
func setErrorDetails(span trace.Span, fail *ErrorInfo) {
	if fail.Reason != "" {
		span.SetAttributes(AttrErrorReason.String(fail.Reason))
	}
	if fail.JobID != "" {
		span.SetAttributes(AttrJobID.String(fail.JobID))
	}
}
