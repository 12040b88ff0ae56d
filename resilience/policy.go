package resilience

import (
	"fmt"
	"time"
)

// Policy is one operation class's retry and timeout settings.
type Policy struct {
	// MaxAttempts counts every attempt at BigQuery, the first included. The
	// client library's own retries are switched off by [Transport], so this
	// is the number of requests that reach the wire for one logical call.
	MaxAttempts int
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

// BreakerSettings configures the circuit breaker kept per scope (project).
type BreakerSettings struct {
	// FailureThreshold consecutive operations that failed for backend reasons
	// (5xx, no response, timeouts — never bad SQL or not found) open it.
	FailureThreshold uint
	// OpenDuration is how long it stays open before letting probes through.
	OpenDuration time.Duration
	// SuccessThreshold successful probes close it again; a failed probe
	// re-opens it.
	SuccessThreshold uint
}

// Config is the whole resilience configuration.
type Config struct {
	Policies map[Operation]Policy
	Breaker  BreakerSettings
	// MaxRetryAfter is the longest Retry-After the layer waits out itself;
	// a longer one is handed to the agent instead.
	MaxRetryAfter time.Duration
}

// Defaults returns the documented defaults (docs/resilience.md).
func Defaults() Config {
	return Config{
		Policies: map[Operation]Policy{
			Query:    {MaxAttempts: 5, BaseDelay: time.Second, MaxDelay: 32 * time.Second, Multiplier: 2, Jitter: 0.2},
			Metadata: {MaxAttempts: 3, BaseDelay: 500 * time.Millisecond, MaxDelay: 8 * time.Second, Multiplier: 2, Jitter: 0.2, Timeout: 30 * time.Second},
			Auth:     {MaxAttempts: 3, BaseDelay: 200 * time.Millisecond, MaxDelay: 2 * time.Second, Multiplier: 2, Jitter: 0.2, Timeout: 10 * time.Second},
			Write:    {MaxAttempts: 2, BaseDelay: time.Second, MaxDelay: 5 * time.Second, Multiplier: 2, Jitter: 0.2},
			State:    {MaxAttempts: 2, BaseDelay: 50 * time.Millisecond, MaxDelay: 200 * time.Millisecond, Multiplier: 2, Jitter: 0.2, Timeout: 3 * time.Second},
			Export:   {MaxAttempts: 3, BaseDelay: time.Second, MaxDelay: 8 * time.Second, Multiplier: 2, Jitter: 0.2},
		},
		Breaker:       BreakerSettings{FailureThreshold: 5, OpenDuration: 60 * time.Second, SuccessThreshold: 2},
		MaxRetryAfter: 32 * time.Second,
	}
}

// Operations lists the operation classes in documentation order.
var Operations = []Operation{Query, Metadata, Write, Auth, State, Export}

// Validate reports settings that cannot work.
func (c Config) Validate() error {
	for _, op := range Operations {
		p, ok := c.Policies[op]
		if !ok && (op == State || op == Export) {
			continue // optional: NewExecutor fills in the default
		}
		if !ok {
			return fmt.Errorf("resilience: no policy for %s", op)
		}
		if p.MaxAttempts < 1 || p.BaseDelay < 0 || p.MaxDelay < p.BaseDelay || p.Jitter < 0 || p.Jitter >= 1 || p.Timeout < 0 {
			return fmt.Errorf("resilience: %s policy is invalid: attempts must be >= 1, delays non-negative with max >= base, jitter in [0,1)", op)
		}
	}
	b := c.Breaker
	if b.FailureThreshold < 1 || b.SuccessThreshold < 1 || b.OpenDuration <= 0 {
		return fmt.Errorf("resilience: breaker thresholds must be >= 1 and the open duration positive")
	}
	return nil
}
