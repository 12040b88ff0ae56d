package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/observability"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// This file is where the packages' hooks are filled: observability knows
// none of the packages it watches, so the wiring assigns its methods to
// each package's hooks and translates the packages' own types into plain
// values on the way. The same hooks tell the client what is worth seeing
// (clientlog.go). tel may be nil (telemetry off); the client is told all
// the same.

// resilienceHooks reports the executor's attempts, exhausted retries,
// breaker transitions and rejections. Whether a failed attempt was
// retryable is the executor's verdict (resilience.Retryable), which knows
// more than the error's code: a cancelled call or an open breaker is not.
func resilienceHooks(tel *observability.Telemetry, cl *clientLog) resilience.Hooks {
	h := resilience.Hooks{
		Exhausted: func(ctx context.Context, op resilience.Operation, attempts int, err error) {
			if tel != nil {
				tel.Exhausted(ctx, string(op), attempts, errorInfo(err))
			}
			code := string(bqerr.From(err).Code)
			tellClient(ctx, slog.LevelWarn, fmt.Sprintf("%s failed %d times in a row (%s); the %s call gave up", resilience.OperationTarget(op), attempts, code, op),
				slog.String("operation", string(op)), slog.Int("attempts", attempts), slog.String("code", code))
		},
		BreakerChanged: func(scope string, from, to resilience.BreakerState) {
			calls := resilience.ScopeCalls(scope)
			if tel != nil {
				tel.BreakerChanged(observability.BreakerChange{Scope: scope, Calls: calls, From: string(from), To: string(to)})
			}
			attrs := []slog.Attr{slog.String("scope", scope), slog.String("from", string(from)), slog.String("to", string(to))}
			switch to {
			case resilience.Open:
				cl.broadcast(slog.LevelWarn, "circuit breaker opened for "+calls+": calls fail at once until a trial call succeeds", attrs...)
			case resilience.Closed:
				cl.broadcast(slog.LevelInfo, "circuit breaker closed for "+calls+": calls go through again", attrs...)
			}
		},
		Rejected: func(ctx context.Context, op resilience.Operation, scope string) {
			if tel != nil {
				tel.Rejected(ctx, string(op), scope)
			}
			tellClient(ctx, slog.LevelWarn, "circuit breaker open for "+resilience.ScopeCalls(scope)+": the call was refused without being sent",
				slog.String("operation", string(op)), slog.String("scope", scope))
		},
	}
	if tel != nil {
		h.Attempt = func(ctx context.Context, op resilience.Operation, attempt int, err error) {
			tel.Attempt(ctx, string(op), attempt, errorInfo(err), resilience.Retryable(err))
		}
		h.StartAttempt = func(ctx context.Context, op resilience.Operation, attempt int) (context.Context, func(error)) {
			ctx, finish := tel.StartAttempt(ctx, string(op), attempt)
			return ctx, func(err error) { finish(errorInfo(err), resilience.Retryable(err)) }
		}
	}
	return h
}

// queryHooks reports finished and cancelled jobs.
func queryHooks(tel *observability.Telemetry) query.Hooks {
	h := query.Hooks{
		JobCancelled: func(ctx context.Context, reason string) {
			if tel != nil {
				tel.JobCancelled(ctx, reason)
			}
			if reason == "timeout" { // a client that cancelled knows
				tellClient(ctx, slog.LevelInfo, "BigQuery job cancelled: the query ran past its timeout", slog.String("reason", reason))
			}
		},
	}
	if tel != nil {
		h.JobDone = tel.JobDone
	}
	return h
}

// cacheLookup reports metadata cache lookups, and tells the client when it
// gets stale metadata.
func cacheLookup(tel *observability.Telemetry) func(context.Context, resilience.CacheResult, time.Duration) {
	return func(ctx context.Context, r resilience.CacheResult, age time.Duration) {
		if tel != nil {
			tel.CacheLookup(ctx, string(r), age)
		}
		if r == resilience.CacheStale {
			tellClient(ctx, slog.LevelWarn, fmt.Sprintf("BigQuery could not be asked: serving metadata cached %s ago", age.Round(time.Second)),
				slog.Int64("ageSeconds", int64(age.Seconds())))
		}
	}
}

// breakerStates is the executor's view of its breakers, for the
// bigquery_mcp.breaker.state gauge.
func breakerStates(e *resilience.Executor) func() map[string]string {
	return func() map[string]string {
		states := e.BreakerStates()
		out := make(map[string]string, len(states))
		for scope, s := range states {
			out[scope] = string(s)
		}
		return out
	}
}

// errorInfo is err as observability records it: bqerr's classification as
// plain values, and the raw cause (for the log only) redacted. nil for a
// nil err (success).
func errorInfo(err error) *observability.ErrorInfo {
	if err == nil {
		return nil
	}
	e := bqerr.From(err)
	info := &observability.ErrorInfo{
		Code:       string(e.Code),
		Retryable:  e.Retryable,
		Message:    e.Message,
		Type:       errorType(e),
		Reason:     e.Details.Reason,
		JobID:      e.Details.JobID,
		Attempts:   e.Details.Attempts,
		HTTPStatus: e.HTTPStatus,
	}
	if c := e.Cause(); c != nil {
		info.Cause = bqerr.Redact(c.Error())
	}
	return info
}

// errorType names the kind of failure behind err for grouping (the first
// part of a log line's fingerprint): the Go type of the root cause
// (following Unwrap, the first branch of a joined error) such as
// "*googleapi.Error", "context.Canceled" or "context.DeadlineExceeded" for
// the context errors, and "validation" for a *bqerr.Error with no cause
// (the server refused the call itself).
func errorType(err error) string {
	if err == nil {
		return ""
	}
	switch {
	case errors.Is(err, context.Canceled):
		return "context.Canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "context.DeadlineExceeded"
	}
	root := err
	for range 100 { // bounded: a cyclic Unwrap cannot hang the logger
		var next error
		switch u := root.(type) {
		case interface{ Unwrap() error }:
			next = u.Unwrap()
		case interface{ Unwrap() []error }:
			if es := u.Unwrap(); len(es) > 0 {
				next = es[0]
			}
		}
		if next == nil {
			break
		}
		root = next
	}
	if _, ok := root.(*bqerr.Error); ok {
		return "validation"
	}
	return fmt.Sprintf("%T", root)
}
