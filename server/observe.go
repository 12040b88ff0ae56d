package server

import (
	"context"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/observability"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// This file feeds telemetry: observability knows none of the packages it
// watches, so the wiring assigns its methods to each package's hooks and
// translates the packages' own types into plain values on the way.

// resilienceHooks reports the executor's attempts, exhausted retries,
// breaker transitions and rejections to tel. Whether a failed attempt was
// retryable is the executor's verdict (resilience.Retryable), which knows
// more than the error's code: a cancelled call or an open breaker is not.
func resilienceHooks(tel *observability.Telemetry) resilience.Hooks {
	return resilience.Hooks{
		Attempt: func(ctx context.Context, op resilience.Operation, attempt int, err error) {
			tel.Attempt(ctx, string(op), attempt, err, resilience.Retryable(err))
		},
		StartAttempt: func(ctx context.Context, op resilience.Operation, attempt int) (context.Context, func(error)) {
			ctx, finish := tel.StartAttempt(ctx, string(op), attempt)
			return ctx, func(err error) { finish(err, resilience.Retryable(err)) }
		},
		Exhausted: func(ctx context.Context, op resilience.Operation, attempts int, err error) {
			tel.Exhausted(ctx, string(op), attempts, err)
		},
		BreakerChanged: func(scope string, from, to resilience.BreakerState) {
			tel.BreakerChanged(scope, string(from), string(to))
		},
		Rejected: func(ctx context.Context, op resilience.Operation, scope string) {
			tel.Rejected(ctx, string(op), scope)
		},
	}
}

// queryHooks reports finished and cancelled jobs to tel.
func queryHooks(tel *observability.Telemetry) query.Hooks {
	return query.Hooks{JobDone: tel.JobDone, JobCancelled: tel.JobCancelled}
}

// cacheLookup reports metadata cache lookups to tel.
func cacheLookup(tel *observability.Telemetry) func(context.Context, resilience.CacheResult, time.Duration) {
	return func(ctx context.Context, r resilience.CacheResult, age time.Duration) {
		tel.CacheLookup(ctx, string(r), age)
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
