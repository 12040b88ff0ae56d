package resilience

import (
	"fmt"
	"slices"
	"time"
)

// Policy is one operation class's retry and timeout settings.
type Policy struct {
	// Attempts counts every attempt at BigQuery, the first included. The
	// client library's own retries are switched off by [Transport], so this
	// is the number of requests that reach the wire for one logical call.
	Attempts int
	// BaseDelay is the wait before the first retry; each later wait doubles
	// (Multiplier), up to MaxDelay, with ±Jitter (a fraction) around it.
	BaseDelay  time.Duration
	MaxDelay   time.Duration
	Multiplier float64
	Jitter     float64
	// Timeout bounds the whole operation, retries included, unless the
	// caller's context ends sooner. Zero leaves it to the caller (queries set
	// their own, so they can cancel the job when it fires).
	Timeout time.Duration
}

// Breaker configures the circuit breaker kept per scope (project). Its
// fields are named after their flags (--breaker-failures, --breaker-open,
// --breaker-successes), which cmd/bigquery-mcp fills directly.
type Breaker struct {
	// Failures (--breaker-failures): consecutive operations that failed
	// for backend reasons (5xx, no response, timeouts — never bad SQL or
	// not found) open it.
	Failures uint
	// Open (--breaker-open) is how long it stays open before letting
	// probes through.
	Open time.Duration
	// Successes (--breaker-successes): successful probes close it again; a
	// failed probe re-opens it.
	Successes uint
}

// Config is the whole resilience configuration, filled from the flags.
type Config struct {
	// Retry holds each operation class's policy: Retry[op].Attempts,
	// BaseDelay and MaxDelay are --retry-<op>-attempts, -base-delay and
	// -max-delay.
	Retry   map[Operation]Policy
	Breaker Breaker
	// MaxRetryAfter is the longest Retry-After the layer waits out itself;
	// a longer one is handed to the agent instead.
	MaxRetryAfter time.Duration
}

// Defaults returns the documented defaults (docs/resilience.md).
func Defaults() Config {
	return Config{
		Retry: map[Operation]Policy{
			Query:    {Attempts: 5, BaseDelay: time.Second, MaxDelay: 32 * time.Second, Multiplier: 2, Jitter: 0.2},
			Metadata: {Attempts: 3, BaseDelay: 500 * time.Millisecond, MaxDelay: 8 * time.Second, Multiplier: 2, Jitter: 0.2, Timeout: 30 * time.Second},
			Auth:     {Attempts: 3, BaseDelay: 200 * time.Millisecond, MaxDelay: 2 * time.Second, Multiplier: 2, Jitter: 0.2, Timeout: 10 * time.Second},
			Write:    {Attempts: 2, BaseDelay: time.Second, MaxDelay: 5 * time.Second, Multiplier: 2, Jitter: 0.2},
			State:    {Attempts: 2, BaseDelay: 50 * time.Millisecond, MaxDelay: 200 * time.Millisecond, Multiplier: 2, Jitter: 0.2, Timeout: 3 * time.Second},
			Export:   {Attempts: 3, BaseDelay: time.Second, MaxDelay: 8 * time.Second, Multiplier: 2, Jitter: 0.2},
		},
		Breaker:       Breaker{Failures: 5, Open: 60 * time.Second, Successes: 2},
		MaxRetryAfter: 32 * time.Second,
	}
}

// operations are the operation classes in documentation order.
var operations = []Operation{Query, Metadata, Write, Auth, State, Export}

// Operations lists the operation classes in documentation order (the
// order of the --retry-* flags in --help). It returns a copy: Validate
// ranges over the same list, so a caller that reordered or shortened it
// would change which policies every Config must have.
func Operations() []Operation { return slices.Clone(operations) }

// Validate reports settings that cannot work.
func (c Config) Validate() error {
	for _, op := range operations {
		p, ok := c.Retry[op]
		if !ok && (op == State || op == Export) {
			continue // optional: NewExecutor fills in the default
		}
		if !ok {
			return fmt.Errorf("resilience: no policy for %s", op)
		}
		if p.Attempts < 1 || p.BaseDelay < 0 || p.MaxDelay < p.BaseDelay || p.Jitter < 0 || p.Jitter >= 1 || p.Timeout < 0 {
			return fmt.Errorf("resilience: %s policy is invalid: attempts must be >= 1, delays non-negative with max >= base, jitter in [0,1)", op)
		}
	}
	b := c.Breaker
	if b.Failures < 1 || b.Successes < 1 || b.Open <= 0 {
		return fmt.Errorf("resilience: breaker thresholds must be >= 1 and the open duration positive")
	}
	return nil
}
