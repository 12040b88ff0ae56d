package resilience

import (
	"context"
	"errors"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// Retryable reports whether a failed attempt may succeed if made again:
// no response, HTTP 408/429/5xx, and BigQuery's transient reasons
// (rateLimitExceeded, backendError, internalError, jobRateLimitExceeded).
// Never bad SQL, not found, access denied, duplicate, bytesBilledLimitExceeded
// (even as a 500), bad arguments or local misconfiguration; bqerr's mapping
// encodes exactly that.
func Retryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || IsBreakerOpen(err) {
		return false
	}
	var done *retriedError
	if errors.As(err, &done) {
		return false // a lower layer already spent its own retries
	}
	return bqerr.From(err).Retryable
}

// BackendFault reports whether err says BigQuery (or the way to it) is
// unhealthy, which is what the circuit breaker counts: 5xx, no response,
// timeouts. Rate limits, bad SQL, missing tables and denied access are
// answers from a healthy service and never open the breaker.
func BackendFault(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || IsBreakerOpen(err) {
		return false
	}
	e := bqerr.From(err)
	switch e.Code {
	case bqerr.Unavailable, bqerr.Internal, bqerr.DeadlineExceeded:
		return e.Retryable
	}
	return false
}

// requestedDelay returns the wait BigQuery asked for (its Retry-After, as
// bqerr read it), if it did.
func requestedDelay(err error) (time.Duration, bool) {
	if err == nil {
		return 0, false
	}
	if e := bqerr.From(err); e.RetryAfterSeconds != nil {
		return time.Duration(*e.RetryAfterSeconds) * time.Second, true
	}
	return 0, false
}

// retriedError marks a failure whose retries were already spent by a lower
// layer (the token source), so outer layers do not multiply them.
type retriedError struct{ err error }

func (r *retriedError) Error() string { return r.err.Error() }
func (r *retriedError) Unwrap() error { return r.err }
