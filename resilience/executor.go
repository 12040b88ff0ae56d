package resilience

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/retrypolicy"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// BreakerState is a circuit breaker's state.
type BreakerState string

// The breaker states.
const (
	Closed   BreakerState = "closed"
	Open     BreakerState = "open"
	HalfOpen BreakerState = "half-open"
)

// Hooks let the server wiring watch the layer (it feeds telemetry and the
// client's log notifications) without the layer knowing about either.
// Every field is optional.
type Hooks struct {
	// Attempt is called after each attempt with its outcome (nil on success).
	Attempt func(ctx context.Context, op Operation, attempt int, err error)
	// StartAttempt, when set, is called before each attempt; the attempt
	// runs with the context it returns (a trace span per attempt), and
	// finish is called with the attempt's outcome.
	StartAttempt func(ctx context.Context, op Operation, attempt int) (attemptCtx context.Context, finish func(error))
	// Exhausted is called when an operation gave up after its last attempt.
	Exhausted func(ctx context.Context, op Operation, attempts int, err error)
	// BreakerChanged is called when a scope's breaker changes state.
	BreakerChanged func(scope string, from, to BreakerState)
	// Rejected is called when an open breaker refused a call.
	Rejected func(ctx context.Context, op Operation, scope string)
}

// Executor runs calls under their operation's policy. It is safe for
// concurrent use.
type Executor struct {
	cfg      Config
	hooks    Hooks
	retries  map[Operation]retrypolicy.RetryPolicy[any]
	mu       sync.Mutex
	breakers map[string]circuitbreaker.CircuitBreaker[any]
}

// NewExecutor returns an executor for cfg.
func NewExecutor(cfg Config, hooks Hooks) (*Executor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// Policies added after a config was first written (the shared state
	// store's, export's) get their defaults, so such a config still works.
	for _, op := range []Operation{State, Export} {
		if _, ok := cfg.Retry[op]; ok {
			continue
		}
		policies := make(map[Operation]Policy, len(cfg.Retry)+1)
		for o, p := range cfg.Retry {
			policies[o] = p
		}
		policies[op] = Defaults().Retry[op]
		cfg.Retry = policies
	}
	e := &Executor{cfg: cfg, hooks: hooks, retries: map[Operation]retrypolicy.RetryPolicy[any]{}, breakers: map[string]circuitbreaker.CircuitBreaker[any]{}}
	for op, p := range cfg.Retry {
		e.retries[op] = e.retryPolicy(p)
	}
	return e, nil
}

func (e *Executor) retryPolicy(p Policy) retrypolicy.RetryPolicy[any] {
	b := retrypolicy.NewBuilder[any]().
		HandleIf(func(_ any, err error) bool { return Retryable(err) }).
		AbortIf(func(_ any, err error) bool {
			ra, ok := requestedDelay(err)
			return ok && ra > e.cfg.MaxRetryAfter
		}).
		WithMaxAttempts(p.Attempts).
		ReturnLastFailure()
	if p.BaseDelay > 0 {
		b = b.WithBackoffFactor(p.BaseDelay, p.MaxDelay, p.Multiplier)
	}
	if p.Jitter > 0 {
		b = b.WithJitterFactor(p.Jitter)
	}
	jitter := p.Jitter
	b = b.WithDelayFunc(func(exec failsafe.ExecutionAttempt[any]) time.Duration {
		// BigQuery said when to come back: wait at least that long, even
		// after jitter takes its share off.
		if ra, ok := requestedDelay(exec.LastError()); ok {
			return time.Duration(float64(ra) / (1 - jitter))
		}
		return -1 // the exponential backoff
	})
	return b.Build()
}

// Do runs fn under op's policy. scope isolates failure accounting, so one
// project's outage does not stop calls to another.
//
// fn must be safe to call again: for job inserts that means a job ID chosen
// before the first attempt.
func (e *Executor) Do(ctx context.Context, op Operation, scope string, fn func(context.Context) error) error {
	p, ok := e.cfg.Retry[op]
	if !ok {
		return fmt.Errorf("resilience: unknown operation %q", op)
	}
	if err := ctx.Err(); err != nil {
		// The caller already gave up: no request, and nothing for the
		// breaker to count (a half-open probe must be a real answer).
		return err
	}
	if p.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.Timeout)
		defer cancel()
	}
	cb := e.breaker(scope)
	if !cb.TryAcquirePermit() {
		if e.hooks.Rejected != nil {
			e.hooks.Rejected(ctx, op, scope)
		}
		return breakerOpenError(scope, cb.RemainingDelay())
	}
	recorded := false
	defer func() {
		if !recorded {
			// fn panicked (the server's Recover middleware turns that into
			// an error). A panic is a bug here, not BigQuery's fault, but
			// the permit must be given back: a half-open breaker whose
			// probes never report would refuse every call for ever.
			cb.RecordSuccess()
		}
	}()
	attempts := 0
	var (
		last    *attemptWatch // what the transport saw during the last attempt
		lastErr error         // the last attempt's outcome, when it ended by itself
	)
	err := failsafe.With[any](e.retries[op]).WithContext(ctx).RunWithExecution(func(exec failsafe.Execution[any]) error {
		attempts++
		actx, w := watchAttempt(exec.Context())
		last = w
		var finish func(error)
		if e.hooks.StartAttempt != nil {
			actx, finish = e.hooks.StartAttempt(actx, op, attempts)
		}
		err := fn(actx)
		lastErr = err
		if actx.Err() != nil {
			lastErr = nil // cut off by its context: no answer of BigQuery's
		}
		if finish != nil {
			finish(err)
		}
		if e.hooks.Attempt != nil {
			e.hooks.Attempt(ctx, op, attempts, err)
		}
		return err
	})
	recorded = true
	if backendFailed(ctx, op, err, lastErr, last) {
		cb.RecordFailure()
	} else {
		cb.RecordSuccess()
	}
	if err == nil {
		return nil
	}
	if attempts > 1 || (attempts == p.Attempts && Retryable(err)) {
		// The cause is the whole chain fn returned, so markers in it (a
		// lower layer's spent retries) stay visible to outer layers.
		be := bqerr.From(err).WithCause(err).WithAttempts(attempts)
		if attempts >= p.Attempts && Retryable(err) {
			be = be.WithRetryable(true).WithHint(exhaustedHint(ctx, op, attempts, be.Code))
			if e.hooks.Exhausted != nil {
				e.hooks.Exhausted(ctx, op, attempts, err)
			}
		}
		return be
	}
	return err
}

// exhaustedHint tells the agent why an operation gave up after its
// attempts: its own time ran out (the policy's Timeout or the caller's
// deadline), which waiting will not mend by itself, or BigQuery kept
// failing, which waiting may.
func exhaustedHint(ctx context.Context, op Operation, attempts int, code bqerr.Code) string {
	tries := "once"
	if attempts > 1 {
		tries = fmt.Sprintf("%d times in a row", attempts)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("The %s call ran out of its time after trying %s (%s). Try again; if it keeps happening, ask for less at once (a narrower query, fewer rows) or ask the operator to raise the time limit.", op, tries, code)
	}
	return fmt.Sprintf("%s failed %s (%s). Wait a little and try again; if it persists, %s or the network may be having trouble.", OperationTarget(op), tries, code, OperationTarget(op))
}

// backendFailed says whether a finished operation counts against the
// breaker: BigQuery, or the way to it, failed to answer or answered with a
// fault. ctx is the operation's context, err what it returned, lastErr the
// last attempt's outcome (nil when its context cut it off) and last what the
// transport saw during it.
func backendFailed(ctx context.Context, op Operation, err, lastErr error, last *attemptWatch) bool {
	switch {
	case err == nil, errors.Is(ctx.Err(), context.Canceled):
		// Success, or the caller gave up: nothing is known of BigQuery.
		return false
	case last.Hung():
		// A request was still unanswered when the attempt ended (its own
		// deadline, the operation's, or the caller's): a hung BigQuery.
		return true
	case ctx.Err() != nil && op == Query:
		// The caller's time ran out while BigQuery was answering: the job
		// is still running, which says nothing about BigQuery's health,
		// unless BigQuery's last answer was itself a fault (a 503 and
		// the deadline came during the wait before the next attempt).
		return BackendFault(lastErr)
	}
	return BackendFault(err)
}

// breaker returns scope's breaker, creating it on first use.
func (e *Executor) breaker(scope string) circuitbreaker.CircuitBreaker[any] {
	e.mu.Lock()
	defer e.mu.Unlock()
	if cb, ok := e.breakers[scope]; ok {
		return cb
	}
	s := e.cfg.Breaker
	cb := circuitbreaker.NewBuilder[any]().
		WithFailureThreshold(s.Failures).
		WithDelay(s.Open).
		WithSuccessThreshold(s.Successes).
		OnStateChanged(func(ev circuitbreaker.StateChangedEvent) {
			if e.hooks.BreakerChanged != nil {
				e.hooks.BreakerChanged(scope, state(ev.OldState), state(ev.NewState))
			}
		}).
		Build()
	e.breakers[scope] = cb
	return cb
}

// BreakerStates reports every scope's breaker state, for health checks.
func (e *Executor) BreakerStates() map[string]BreakerState {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]BreakerState, len(e.breakers))
	for scope, cb := range e.breakers {
		out[scope] = state(cb.State())
	}
	return out
}

// CloseBreaker closes scope's breaker at once, for a caller that saw the
// backend answer past it (the shared state store's probe, which has
// written what the instance kept through the outage): calls go through
// again now, not after the rest of the open time. A scope without a
// breaker is left alone.
func (e *Executor) CloseBreaker(scope string) {
	e.mu.Lock()
	cb, ok := e.breakers[scope]
	e.mu.Unlock()
	if ok {
		cb.Close()
	}
}

func state(s circuitbreaker.State) BreakerState {
	switch s {
	case circuitbreaker.OpenState:
		return Open
	case circuitbreaker.HalfOpenState:
		return HalfOpen
	}
	return Closed
}

// CredentialsScope is the breaker scope of token fetches
// ([Executor.TokenSource]). Every other scope is a BigQuery project ID;
// "auth" is too short to be one (they have 6 to 30 characters), so the
// credentials never share a breaker with a project.
const CredentialsScope = "auth"

// StateScope is the breaker scope of the shared state store's steps
// ([State]); like CredentialsScope, too short to be a project ID.
const StateScope = "state"

// ScopeCalls names the calls a breaker scope guards, in words for the people
// who read about the breaker (agents, client logs, the server's log):
// "fetching BigQuery credentials", "the shared state store (Redis)" or
// "BigQuery project my-project".
func ScopeCalls(scope string) string {
	switch scope {
	case CredentialsScope:
		return "fetching BigQuery credentials"
	case StateScope:
		return "the shared state store (Redis)"
	}
	return "BigQuery project " + scope
}

// OperationTarget names what op's calls go to, for messages: "BigQuery",
// or "the shared state store (Redis)".
func OperationTarget(op Operation) string {
	if op == State {
		return ScopeCalls(StateScope)
	}
	return "BigQuery"
}

// breakerOpenError is what an agent gets while the breaker is open: fast,
// retryable, and with the real time until the next probe.
func breakerOpenError(scope string, remaining time.Duration) error {
	secs := int(math.Ceil(remaining.Seconds()))
	return bqerr.Newf(bqerr.Unavailable, "circuit breaker open for %s: calls are paused after repeated failures", bqerr.Truncate(ScopeCalls(scope), 130)).
		WithRetryAfter(secs).
		WithHint(fmt.Sprintf("These calls have been failing; the server will try again in about %d s. Wait at least that long before retrying.", max(secs, 1))).
		WithCause(circuitbreaker.ErrOpen)
}

// IsBreakerOpen reports whether err is an open breaker's refusal.
func IsBreakerOpen(err error) bool { return errors.Is(err, circuitbreaker.ErrOpen) }
