package resilience

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"google.golang.org/api/googleapi"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// ---- helpers ----

// testOpen is the breaker's open duration in tests: short enough that a
// test waits it out in a blink.
const testOpen = 50 * time.Millisecond

// testConfig is a configuration with tiny delays, attempts attempts for
// every operation and a breaker that opens after 3 backend faults.
func testConfig(attempts int) Config {
	p := Policy{Attempts: attempts, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, Multiplier: 2}
	return Config{
		Retry:         map[Operation]Policy{Query: p, Metadata: p, Write: p, Auth: p},
		Breaker:       Breaker{Failures: 3, Open: testOpen, Successes: 2},
		MaxRetryAfter: 5 * time.Second,
	}
}

func newTestExecutor(t testing.TB, cfg Config, hooks Hooks) *Executor {
	t.Helper()
	e, err := NewExecutor(cfg, hooks)
	if err != nil {
		t.Fatalf("NewExecutor: %v", err)
	}
	return e
}

// apiErr is a BigQuery REST failure as the client library returns it.
func apiErr(code int, reason string) *googleapi.Error {
	e := &googleapi.Error{Code: code, Message: fmt.Sprintf("test failure (HTTP %d)", code)}
	if reason != "" {
		e.Errors = []googleapi.ErrorItem{{Reason: reason, Message: "test " + reason}}
	}
	return e
}

func withRetryAfter(e *googleapi.Error, v string) *googleapi.Error {
	e.Header = http.Header{"Retry-After": {v}}
	return e
}

func notRetryable(e *bqerr.Error) *bqerr.Error { e.Retryable = false; return e }

// connReset is what a request that got no response looks like.
func connReset() error {
	return &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
}

// scripted returns a call that fails with errs in turn (nil is a success)
// and then repeats the last one, and the count of its calls.
func scripted(errs ...error) (func(context.Context) error, *atomic.Int32) {
	var n atomic.Int32
	return func(context.Context) error {
		i := int(n.Add(1)) - 1
		return errs[min(i, len(errs)-1)]
	}, &n
}

func mustCode(t *testing.T, err error, want bqerr.Code) *bqerr.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got nil error, want %s", want)
	}
	e := bqerr.From(err)
	if e.Code != want {
		t.Fatalf("code = %s, want %s (err: %v)", e.Code, want, err)
	}
	return e
}

// openBreaker drives scope's breaker open with backend faults.
func openBreaker(t *testing.T, e *Executor, scope string) {
	t.Helper()
	for range e.cfg.Breaker.Failures {
		_ = e.Do(context.Background(), Metadata, scope, func(context.Context) error { return apiErr(503, "") })
	}
	if got := e.BreakerStates()[scope]; got != Open {
		t.Fatalf("breaker for %s is %s after %d backend faults, want open", scope, got, e.cfg.Breaker.Failures)
	}
}

// waitOpenDuration waits until an open breaker lets a probe through. The
// breaker reads failsafe-go's clock, which a caller cannot replace, so
// every test that waits runs in a synctest bubble, where this sleep passes
// on the bubble's fake clock at once: call it only inside one.
func waitOpenDuration() { time.Sleep(testOpen) }

// ---- configuration ----

func TestDefaultsAreValid(t *testing.T) {
	cfg := Defaults()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("Defaults().Validate() = %v", err)
	}
	for _, op := range operations {
		if _, ok := cfg.Retry[op]; !ok {
			t.Errorf("Defaults() has no policy for %s", op)
		}
	}
	if _, err := NewExecutor(cfg, Hooks{}); err != nil {
		t.Fatalf("NewExecutor(Defaults()) = %v", err)
	}
}

// A caller that writes to the list Operations gave it changes neither the
// next caller's list nor which policies Validate asks for.
func TestOperationsHandsOutACopy(t *testing.T) {
	got := Operations()
	got[0] = "changed"
	if next := Operations(); next[0] != Query {
		t.Errorf("Operations()[0] = %q after a caller wrote to its copy, want %q", next[0], Query)
	}
	if err := Defaults().Validate(); err != nil {
		t.Errorf("Defaults().Validate() = %v after a caller wrote to its copy of Operations", err)
	}
}

func TestNewExecutorRejectsInvalidConfig(t *testing.T) {
	for name, mutate := range map[string]func(*Config){
		"missing policy":     func(c *Config) { delete(c.Retry, Write) },
		"zero attempts":      func(c *Config) { p := c.Retry[Query]; p.Attempts = 0; c.Retry[Query] = p },
		"max below base":     func(c *Config) { p := c.Retry[Auth]; p.MaxDelay = p.BaseDelay / 2; c.Retry[Auth] = p },
		"negative base":      func(c *Config) { p := c.Retry[Auth]; p.BaseDelay = -1; c.Retry[Auth] = p },
		"jitter of one":      func(c *Config) { p := c.Retry[Metadata]; p.Jitter = 1; c.Retry[Metadata] = p },
		"negative timeout":   func(c *Config) { p := c.Retry[Metadata]; p.Timeout = -time.Second; c.Retry[Metadata] = p },
		"zero failures":      func(c *Config) { c.Breaker.Failures = 0 },
		"zero successes":     func(c *Config) { c.Breaker.Successes = 0 },
		"zero open duration": func(c *Config) { c.Breaker.Open = 0 },
	} {
		t.Run(name, func(t *testing.T) {
			cfg := Defaults()
			mutate(&cfg)
			if _, err := NewExecutor(cfg, Hooks{}); err == nil {
				t.Fatal("NewExecutor accepted an invalid configuration")
			}
		})
	}
}

func TestUnknownOperationIsRefused(t *testing.T) {
	e := newTestExecutor(t, testConfig(3), Hooks{})
	fn, calls := scripted(nil)
	if err := e.Do(context.Background(), Operation("bogus"), "p", fn); err == nil {
		t.Fatal("Do accepted an unknown operation")
	}
	if calls.Load() != 0 {
		t.Fatalf("fn called %d times for an unknown operation", calls.Load())
	}
}

// ---- retries ----

func TestRetriesRetryableFailuresExactlyMaxAttempts(t *testing.T) {
	const attempts = 4
	for _, tc := range []struct {
		name   string
		err    error
		code   bqerr.Code
		reason string
	}{
		{"503", apiErr(503, ""), bqerr.Unavailable, ""},
		{"502", apiErr(502, ""), bqerr.Unavailable, ""},
		{"504", apiErr(504, ""), bqerr.Unavailable, ""},
		{"500 backendError", apiErr(500, "backendError"), bqerr.Unavailable, "backendError"},
		{"500 internalError", apiErr(500, "internalError"), bqerr.Internal, "internalError"},
		{"500 no reason", apiErr(500, ""), bqerr.Internal, ""},
		{"429", apiErr(429, ""), bqerr.ResourceExhausted, ""},
		{"403 rateLimitExceeded", apiErr(403, "rateLimitExceeded"), bqerr.ResourceExhausted, "rateLimitExceeded"},
		{"400 jobRateLimitExceeded", apiErr(400, "jobRateLimitExceeded"), bqerr.ResourceExhausted, "jobRateLimitExceeded"},
		{"408", apiErr(408, ""), bqerr.DeadlineExceeded, ""},
		{"connection reset", connReset(), bqerr.Unavailable, ""},
		{"no response (AttemptError)", &AttemptError{Err: connReset()}, bqerr.Unavailable, ""},
		{"503 through Transport", &AttemptError{Err: apiErr(503, ""), Status: 503}, bqerr.Unavailable, ""},
		{"retryable bqerr", bqerr.New(bqerr.Unavailable, "down"), bqerr.Unavailable, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var exhausted []int
			e := newTestExecutor(t, testConfig(attempts), Hooks{
				Exhausted: func(_ context.Context, op Operation, n int, err error) {
					if op != Metadata || err == nil {
						t.Errorf("Exhausted(%s, %d, %v)", op, n, err)
					}
					exhausted = append(exhausted, n)
				},
			})
			fn, calls := scripted(tc.err)
			err := e.Do(context.Background(), Metadata, "p", fn)
			if got := calls.Load(); got != attempts {
				t.Fatalf("fn called %d times, want exactly %d", got, attempts)
			}
			be := mustCode(t, err, tc.code)
			if be.Details.Attempts != attempts {
				t.Errorf("Details.Attempts = %d, want %d", be.Details.Attempts, attempts)
			}
			if !be.Retryable {
				t.Error("an exhausted transient failure must stay retryable for the agent")
			}
			if be.Details.Reason != tc.reason {
				t.Errorf("Details.Reason = %q, want %q", be.Details.Reason, tc.reason)
			}
			if be.Hint == "" {
				t.Error("no hint on an exhausted retry")
			}
			if !errors.Is(err, tc.err) {
				t.Error("the last cause is not reachable from the returned error")
			}
			if !slices.Equal(exhausted, []int{attempts}) {
				t.Errorf("Exhausted calls = %v, want [%d]", exhausted, attempts)
			}
		})
	}
}

func TestNeverRetriesNonRetryableFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		code bqerr.Code
	}{
		{"400 invalidQuery", apiErr(400, "invalidQuery"), bqerr.QueryError},
		{"400 invalid", apiErr(400, "invalid"), bqerr.InvalidArgument},
		{"404 notFound", apiErr(404, "notFound"), bqerr.NotFound},
		{"403 accessDenied", apiErr(403, "accessDenied"), bqerr.PermissionDenied},
		{"403 quotaExceeded", apiErr(403, "quotaExceeded"), bqerr.ResourceExhausted},
		{"401", apiErr(401, ""), bqerr.Unauthenticated},
		{"409 duplicate", apiErr(409, "duplicate"), bqerr.InvalidArgument},
		{"500 bytesBilledLimitExceeded", apiErr(500, "bytesBilledLimitExceeded"), bqerr.ResourceExhausted},
		{"bqerr.Invalid", bqerr.Invalid("bad table name", "fix it"), bqerr.InvalidArgument},
		{"unknown local error", errors.New("boom"), bqerr.Internal},
		{"caller cancelled", context.Canceled, bqerr.DeadlineExceeded},
		{"breaker open below", breakerOpenError("other", time.Second), bqerr.Unavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exhausted := 0
			e := newTestExecutor(t, testConfig(5), Hooks{
				Exhausted: func(context.Context, Operation, int, error) { exhausted++ },
			})
			fn, calls := scripted(tc.err)
			err := e.Do(context.Background(), Query, "p", fn)
			if got := calls.Load(); got != 1 {
				t.Fatalf("fn called %d times, want exactly 1", got)
			}
			if err != tc.err { //nolint:errorlint // the very error must come back
				t.Errorf("Do returned %v, want the failure unchanged", err)
			}
			be := mustCode(t, err, tc.code)
			if be.Details.Attempts != 0 {
				t.Errorf("Details.Attempts = %d for a single attempt", be.Details.Attempts)
			}
			if exhausted != 0 {
				t.Error("Exhausted called for a failure that is not retried")
			}
		})
	}
}

func TestSucceedsOnThirdAttempt(t *testing.T) {
	type call struct {
		attempt int
		failed  bool
	}
	var seen []call
	e := newTestExecutor(t, testConfig(5), Hooks{
		Attempt: func(_ context.Context, _ Operation, n int, err error) { seen = append(seen, call{n, err != nil}) },
	})
	fn, calls := scripted(apiErr(503, ""), apiErr(500, "backendError"), nil)
	if err := e.Do(context.Background(), Query, "p", fn); err != nil {
		t.Fatalf("Do = %v, want success on the third attempt", err)
	}
	if calls.Load() != 3 {
		t.Fatalf("fn called %d times, want 3", calls.Load())
	}
	if want := []call{{1, true}, {2, true}, {3, false}}; !reflect.DeepEqual(seen, want) {
		t.Errorf("Attempt hook saw %v, want %v", seen, want)
	}
}

func TestRetryStopsAtPermanentFailure(t *testing.T) {
	exhausted := false
	e := newTestExecutor(t, testConfig(5), Hooks{Exhausted: func(context.Context, Operation, int, error) { exhausted = true }})
	fn, calls := scripted(apiErr(503, ""), apiErr(404, "notFound"))
	err := e.Do(context.Background(), Metadata, "p", fn)
	if calls.Load() != 2 {
		t.Fatalf("fn called %d times, want 2 (stop at the 404)", calls.Load())
	}
	be := mustCode(t, err, bqerr.NotFound)
	if be.Retryable {
		t.Error("a not-found after a retry was marked retryable")
	}
	if be.Details.Attempts != 2 {
		t.Errorf("Details.Attempts = %d, want 2", be.Details.Attempts)
	}
	if exhausted {
		t.Error("Exhausted called although the attempts were not used up")
	}
}

func TestExhaustedErrorDoesNotMutateCallersError(t *testing.T) {
	shared := bqerr.New(bqerr.Unavailable, "down")
	e := newTestExecutor(t, testConfig(2), Hooks{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := e.Do(context.Background(), Query, "p", func(context.Context) error { return shared })
			if be := bqerr.From(err); be.Details.Attempts != 2 {
				t.Errorf("Details.Attempts = %d, want 2", be.Details.Attempts)
			}
		}()
	}
	wg.Wait()
	if shared.Details.Attempts != 0 || shared.Hint != "" {
		t.Errorf("Do changed the error fn returned: attempts %d, hint %q", shared.Details.Attempts, shared.Hint)
	}
}

func TestStopsWhenContextCancelledDuringAttempt(t *testing.T) {
	e := newTestExecutor(t, testConfig(5), Hooks{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int32
	err := e.Do(ctx, Query, "p", func(context.Context) error {
		calls.Add(1)
		cancel()
		return apiErr(503, "")
	})
	if calls.Load() != 1 {
		t.Fatalf("fn called %d times after the caller cancelled, want 1", calls.Load())
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Do = %v, want context.Canceled", err)
	}
	if bqerr.From(err).Retryable {
		t.Error("a cancelled call was marked retryable")
	}
}

func TestStopsWhenContextCancelledDuringBackoff(t *testing.T) {
	cfg := testConfig(5)
	// A backoff far longer than the test: only the cancellation can end it.
	cfg.Retry[Query] = Policy{Attempts: 5, BaseDelay: time.Minute, MaxDelay: time.Minute, Multiplier: 2}
	e := newTestExecutor(t, cfg, Hooks{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int32
	err := e.Do(ctx, Query, "p", func(context.Context) error {
		if calls.Add(1) == 1 {
			time.AfterFunc(10*time.Millisecond, cancel)
		}
		return apiErr(503, "")
	})
	if calls.Load() != 1 {
		t.Fatalf("fn called %d times, want 1: the cancel came during the backoff", calls.Load())
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Do = %v, want context.Canceled", err)
	}
}

func TestCancelledContextBeforeDo(t *testing.T) {
	e := newTestExecutor(t, testConfig(5), Hooks{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var calls atomic.Int32
	err := e.Do(ctx, Metadata, "p", func(ctx context.Context) error {
		calls.Add(1)
		return ctx.Err()
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Do = %v, want context.Canceled", err)
	}
	if calls.Load() != 0 {
		t.Fatalf("fn called %d times with a dead context", calls.Load())
	}
}

func TestCancelledCallerIsNotAHalfOpenProbe(t *testing.T) {
	synctest.Test(t, testCancelledCallerIsNotAHalfOpenProbe)
}

func testCancelledCallerIsNotAHalfOpenProbe(t *testing.T) {
	e := newTestExecutor(t, testConfig(1), Hooks{})
	openBreaker(t, e, "p")
	waitOpenDuration()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 3 {
		_ = e.Do(ctx, Metadata, "p", func(ctx context.Context) error { return ctx.Err() })
	}
	if got := e.BreakerStates()["p"]; got != Open {
		t.Fatalf("breaker %s after calls whose callers had gone, want still open", got)
	}
	// The first real call is the probe.
	fn, calls := scripted(nil)
	if err := e.Do(context.Background(), Metadata, "p", fn); err != nil || calls.Load() != 1 {
		t.Fatalf("probe: %v, %d calls", err, calls.Load())
	}
}

// Each case runs in a synctest bubble: the timeout and the backoff between
// attempts pass on the bubble's clock, so a loaded machine cannot starve
// the retries of the time the test gives them.
func TestPolicyTimeoutBoundsWholeOperation(t *testing.T) {
	const timeout = 40 * time.Millisecond
	t.Run("one slow attempt", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			cfg := testConfig(5)
			p := cfg.Retry[Metadata]
			p.Timeout = timeout
			cfg.Retry[Metadata] = p
			e := newTestExecutor(t, cfg, Hooks{})
			start := time.Now()
			var calls atomic.Int32
			err := e.Do(context.Background(), Metadata, "p", func(ctx context.Context) error {
				calls.Add(1)
				dl, ok := ctx.Deadline()
				if !ok {
					t.Error("the attempt's context has no deadline")
				} else if dl.After(time.Now().Add(timeout)) {
					t.Errorf("the attempt's deadline is %v after the start, want at most %v", dl.Sub(start), timeout)
				}
				<-ctx.Done()
				return ctx.Err()
			})
			if calls.Load() != 1 {
				t.Errorf("fn called %d times after the operation timed out, want 1", calls.Load())
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Do = %v, want context.DeadlineExceeded", err)
			}
			mustCode(t, err, bqerr.DeadlineExceeded)
		})
	})
	t.Run("retries share the timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			cfg := testConfig(1_000_000)
			p := cfg.Retry[Metadata]
			p.Timeout = timeout
			cfg.Retry[Metadata] = p
			e := newTestExecutor(t, cfg, Hooks{})
			var calls atomic.Int32
			err := e.Do(context.Background(), Metadata, "p", func(context.Context) error {
				calls.Add(1)
				return apiErr(503, "")
			})
			be := mustCode(t, err, bqerr.DeadlineExceeded)
			if n := int(calls.Load()); n < 2 || n >= 1_000_000 {
				t.Fatalf("fn called %d times: the timeout should end the retries, not the attempt cap", n)
			}
			if be.Details.Attempts != int(calls.Load()) {
				t.Errorf("Details.Attempts = %d, want %d", be.Details.Attempts, calls.Load())
			}
		})
	})
	t.Run("caller's shorter deadline wins", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			cfg := testConfig(5)
			p := cfg.Retry[Metadata]
			p.Timeout = time.Hour
			cfg.Retry[Metadata] = p
			e := newTestExecutor(t, cfg, Hooks{})
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			want, _ := ctx.Deadline()
			err := e.Do(ctx, Metadata, "p", func(ctx context.Context) error {
				if dl, _ := ctx.Deadline(); !dl.Equal(want) {
					t.Errorf("attempt deadline %v, want the caller's %v", dl, want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	})
}

// It runs in a synctest bubble: the second the wait takes passes on the
// bubble's clock, which time.Now reads too.
func TestRetryAfterIsWaited(t *testing.T) { synctest.Test(t, testRetryAfterIsWaited) }

func testRetryAfterIsWaited(t *testing.T) {
	cfg := testConfig(3)
	// MaxDelay is 2ms: only Retry-After can make the wait a second long. The
	// jitter must not take the wait below what BigQuery asked for.
	p := cfg.Retry[Query]
	p.Jitter = 0.2
	cfg.Retry[Query] = p
	e := newTestExecutor(t, cfg, Hooks{})
	var starts []time.Time
	err := e.Do(context.Background(), Query, "p", func(context.Context) error {
		starts = append(starts, time.Now())
		if len(starts) == 1 {
			return withRetryAfter(apiErr(503, ""), "1")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Do = %v", err)
	}
	if len(starts) != 2 {
		t.Fatalf("fn called %d times, want 2", len(starts))
	}
	if gap := starts[1].Sub(starts[0]); gap < time.Second {
		t.Fatalf("second attempt came %v after the first, want at least the 1s BigQuery asked for", gap)
	}
}

func TestRetryAfterBeyondMaxIsHandedToAgent(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  *googleapi.Error
		code bqerr.Code
	}{
		{"429", apiErr(429, ""), bqerr.ResourceExhausted},
		{"403 rateLimitExceeded", apiErr(403, "rateLimitExceeded"), bqerr.ResourceExhausted},
		{"503", apiErr(503, ""), bqerr.Unavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestExecutor(t, testConfig(3), Hooks{}) // MaxRetryAfter 5s
			fn, calls := scripted(withRetryAfter(tc.err, "120"))
			err := e.Do(context.Background(), Query, "p", fn)
			if calls.Load() != 1 {
				t.Fatalf("fn called %d times, want 1: a 120s Retry-After is beyond MaxRetryAfter", calls.Load())
			}
			be := mustCode(t, err, tc.code)
			if be.RetryAfterSeconds == nil || *be.RetryAfterSeconds != 120 {
				t.Fatalf("RetryAfterSeconds = %v, want 120", be.RetryAfterSeconds)
			}
			if !be.Retryable {
				t.Error("the agent must be told it may retry after the wait")
			}
		})
	}
}

func TestRetryAfterPreservedOnExhaustion(t *testing.T) {
	e := newTestExecutor(t, testConfig(2), Hooks{})
	fn, calls := scripted(apiErr(503, ""), withRetryAfter(apiErr(429, ""), "60"))
	err := e.Do(context.Background(), Query, "p", fn)
	if calls.Load() != 2 {
		t.Fatalf("fn called %d times, want 2", calls.Load())
	}
	be := mustCode(t, err, bqerr.ResourceExhausted)
	if be.RetryAfterSeconds == nil || *be.RetryAfterSeconds != 60 {
		t.Errorf("RetryAfterSeconds = %v, want 60", be.RetryAfterSeconds)
	}
	if be.Details.Attempts != 2 || !be.Retryable {
		t.Errorf("attempts %d retryable %v, want 2 and true", be.Details.Attempts, be.Retryable)
	}
}

// ---- hooks ----

type ctxKey struct{}

func TestHooksGetTheirArguments(t *testing.T) { synctest.Test(t, testHooksGetTheirArguments) }

func testHooksGetTheirArguments(t *testing.T) {
	type attempt struct {
		op  Operation
		n   int
		err bool
	}
	type change struct {
		scope    string
		from, to BreakerState
	}
	var (
		mu        sync.Mutex
		attempts  []attempt
		exhausted []string
		changes   []change
		rejected  []string
	)
	ctx := context.WithValue(context.Background(), ctxKey{}, "caller")
	checkCtx := func(c context.Context) {
		if c.Value(ctxKey{}) != "caller" {
			t.Error("a hook did not get the caller's context")
		}
	}
	cfg := testConfig(2)
	e := newTestExecutor(t, cfg, Hooks{
		Attempt: func(c context.Context, op Operation, n int, err error) {
			checkCtx(c)
			mu.Lock()
			defer mu.Unlock()
			attempts = append(attempts, attempt{op, n, err != nil})
		},
		Exhausted: func(c context.Context, op Operation, n int, err error) {
			checkCtx(c)
			mu.Lock()
			defer mu.Unlock()
			exhausted = append(exhausted, fmt.Sprintf("%s/%d/%s", op, n, bqerr.From(err).Code))
		},
		BreakerChanged: func(scope string, from, to BreakerState) {
			mu.Lock()
			defer mu.Unlock()
			changes = append(changes, change{scope, from, to})
		},
		Rejected: func(c context.Context, op Operation, scope string) {
			checkCtx(c)
			mu.Lock()
			defer mu.Unlock()
			rejected = append(rejected, string(op)+"/"+scope)
		},
	})
	fail := func(context.Context) error { return apiErr(503, "") }
	ok := func(context.Context) error { return nil }

	// Three exhausted operations open the breaker.
	for range 3 {
		_ = e.Do(ctx, Write, "proj", fail)
	}
	// A rejected call.
	if err := e.Do(ctx, Auth, "proj", ok); !IsBreakerOpen(err) {
		t.Fatalf("Do on an open breaker = %v", err)
	}
	// Probe twice after the open duration: half-open, then closed.
	waitOpenDuration()
	for range 2 {
		if err := e.Do(ctx, Metadata, "proj", ok); err != nil {
			t.Fatalf("probe: %v", err)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	wantAttempts := []attempt{
		{Write, 1, true}, {Write, 2, true},
		{Write, 1, true}, {Write, 2, true},
		{Write, 1, true}, {Write, 2, true},
		{Metadata, 1, false}, {Metadata, 1, false},
	}
	if !reflect.DeepEqual(attempts, wantAttempts) {
		t.Errorf("Attempt calls = %v\nwant %v", attempts, wantAttempts)
	}
	if want := []string{"write/2/UNAVAILABLE", "write/2/UNAVAILABLE", "write/2/UNAVAILABLE"}; !slices.Equal(exhausted, want) {
		t.Errorf("Exhausted calls = %v, want %v", exhausted, want)
	}
	if want := []string{"auth/proj"}; !slices.Equal(rejected, want) {
		t.Errorf("Rejected calls = %v, want %v", rejected, want)
	}
	wantChanges := []change{{"proj", Closed, Open}, {"proj", Open, HalfOpen}, {"proj", HalfOpen, Closed}}
	if !reflect.DeepEqual(changes, wantChanges) {
		t.Errorf("BreakerChanged calls = %v\nwant %v", changes, wantChanges)
	}
}

// A hook may read the breaker states (a health gauge does exactly that)
// without deadlocking the executor. The calls run in a synctest bubble,
// so the open duration passes at once; the watchdog runs outside it, on
// the real clock, because a goroutine blocked on a mutex does not count as
// durably blocked and would stop the bubble's clock.
func TestBreakerChangedHookMayReadStates(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		synctest.Test(t, testBreakerChangedHookMayReadStates)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Do deadlocked when a BreakerChanged hook called BreakerStates")
	}
}

func testBreakerChangedHookMayReadStates(t *testing.T) {
	var e *Executor
	var seen []map[string]BreakerState
	e = newTestExecutor(t, testConfig(1), Hooks{
		BreakerChanged: func(string, BreakerState, BreakerState) { seen = append(seen, e.BreakerStates()) },
	})
	for range 3 {
		_ = e.Do(context.Background(), Query, "p", func(context.Context) error { return apiErr(503, "") })
	}
	waitOpenDuration()
	_ = e.Do(context.Background(), Query, "p", func(context.Context) error { return nil })
	want := []map[string]BreakerState{{"p": Open}, {"p": HalfOpen}}
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("states seen from the hook = %v, want %v", seen, want)
	}
}

// ---- circuit breaker ----

func TestBreakerOpensAfterConsecutiveBackendFaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"503", apiErr(503, "")},
		{"500 backendError", apiErr(500, "backendError")},
		{"500 internalError", apiErr(500, "internalError")},
		{"no response", &AttemptError{Err: connReset()}},
		{"408", apiErr(408, "")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestExecutor(t, testConfig(1), Hooks{})
			for i := range 3 {
				if got := e.BreakerStates()["p"]; i > 0 && got != Closed {
					t.Fatalf("breaker %s after %d faults, want closed", got, i)
				}
				_ = e.Do(context.Background(), Metadata, "p", func(context.Context) error { return tc.err })
			}
			if got := e.BreakerStates()["p"]; got != Open {
				t.Fatalf("breaker %s after 3 backend faults, want open", got)
			}
		})
	}
}

func TestBreakerCountsOperationsNotAttempts(t *testing.T) {
	// Five attempts of one operation are one failed operation.
	e := newTestExecutor(t, testConfig(5), Hooks{})
	fn, calls := scripted(apiErr(503, ""))
	_ = e.Do(context.Background(), Query, "p", fn)
	if calls.Load() != 5 {
		t.Fatalf("fn called %d times, want 5", calls.Load())
	}
	if got := e.BreakerStates()["p"]; got != Closed {
		t.Fatalf("breaker %s after one failed operation, want closed", got)
	}
}

func TestBreakerIgnoresUserErrorsAndRateLimits(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"404 notFound", apiErr(404, "notFound")},
		{"400 invalidQuery", apiErr(400, "invalidQuery")},
		{"403 accessDenied", apiErr(403, "accessDenied")},
		{"401", apiErr(401, "")},
		{"409 duplicate", apiErr(409, "duplicate")},
		{"429", apiErr(429, "")},
		{"403 rateLimitExceeded", apiErr(403, "rateLimitExceeded")},
		{"500 bytesBilledLimitExceeded", apiErr(500, "bytesBilledLimitExceeded")},
		{"bqerr.Invalid", bqerr.Invalid("bad", "fix")},
		{"cancelled", context.Canceled},
		{"endpoint misconfiguration", notRetryable(bqerr.New(bqerr.Unavailable, "the endpoint does not speak TLS"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestExecutor(t, testConfig(2), Hooks{})
			fn, calls := scripted(tc.err)
			for range 10 {
				_ = e.Do(context.Background(), Metadata, "p", fn)
			}
			if got := e.BreakerStates()["p"]; got != Closed {
				t.Fatalf("breaker %s after 10 %s failures, want closed", got, tc.name)
			}
			if calls.Load() < 10 {
				t.Fatalf("fn called %d times, want every call to reach it", calls.Load())
			}
		})
	}
}

func TestBreakerNeedsConsecutiveFaults(t *testing.T) {
	e := newTestExecutor(t, testConfig(1), Hooks{})
	do := func(err error) {
		_ = e.Do(context.Background(), Metadata, "p", func(context.Context) error { return err })
	}
	do(apiErr(503, ""))
	do(apiErr(503, ""))
	do(apiErr(404, "notFound")) // BigQuery answered: it is up
	do(apiErr(503, ""))
	do(apiErr(503, ""))
	if got := e.BreakerStates()["p"]; got != Closed {
		t.Fatalf("breaker %s: the faults were not consecutive", got)
	}
	do(apiErr(503, ""))
	if got := e.BreakerStates()["p"]; got != Open {
		t.Fatalf("breaker %s after 3 consecutive faults, want open", got)
	}
}

func TestOpenBreakerFailsFast(t *testing.T) {
	for _, open := range []time.Duration{testOpen, 1500 * time.Millisecond, 90 * time.Second} {
		t.Run(open.String(), func(t *testing.T) {
			cfg := testConfig(3)
			cfg.Breaker.Open = open
			var rejected int
			e := newTestExecutor(t, cfg, Hooks{Rejected: func(context.Context, Operation, string) { rejected++ }})
			openBreaker(t, e, "proj-a")
			fn, calls := scripted(nil)
			err := e.Do(context.Background(), Query, "proj-a", fn)
			if calls.Load() != 0 {
				t.Fatal("fn was called through an open breaker")
			}
			be := mustCode(t, err, bqerr.Unavailable)
			if !be.Retryable {
				t.Error("an open breaker's error must be retryable")
			}
			if !IsBreakerOpen(err) || !errors.Is(err, circuitbreaker.ErrOpen) {
				t.Error("IsBreakerOpen does not recognise the error")
			}
			ceil := int(math.Ceil(open.Seconds()))
			if be.RetryAfterSeconds == nil || *be.RetryAfterSeconds < 1 || *be.RetryAfterSeconds > ceil {
				t.Fatalf("RetryAfterSeconds = %v, want 1..%d", be.RetryAfterSeconds, ceil)
			}
			if open > time.Minute && *be.RetryAfterSeconds < ceil-2 {
				t.Errorf("RetryAfterSeconds = %d, want the real remaining time (about %d)", *be.RetryAfterSeconds, ceil)
			}
			if be.Hint == "" {
				t.Error("no hint on an open breaker")
			}
			if Retryable(err) || BackendFault(err) {
				t.Error("an open breaker's refusal must be neither retried nor counted")
			}
			if rejected != 1 {
				t.Errorf("Rejected called %d times, want 1", rejected)
			}
		})
	}
}

func TestBreakerHalfOpenProbeClosesAfterSuccesses(t *testing.T) {
	synctest.Test(t, testBreakerHalfOpenProbeClosesAfterSuccesses)
}

func testBreakerHalfOpenProbeClosesAfterSuccesses(t *testing.T) {
	e := newTestExecutor(t, testConfig(3), Hooks{})
	openBreaker(t, e, "p")
	waitOpenDuration()
	fn, calls := scripted(nil)
	if err := e.Do(context.Background(), Query, "p", fn); err != nil {
		t.Fatalf("probe after the open duration: %v", err)
	}
	if calls.Load() != 1 {
		t.Fatal("the probe did not reach fn")
	}
	if got := e.BreakerStates()["p"]; got != HalfOpen {
		t.Fatalf("breaker %s after one successful probe (threshold 2), want half-open", got)
	}
	if err := e.Do(context.Background(), Query, "p", fn); err != nil {
		t.Fatalf("second probe: %v", err)
	}
	if got := e.BreakerStates()["p"]; got != Closed {
		t.Fatalf("breaker %s after 2 successful probes, want closed", got)
	}
}

func TestBreakerReopensOnHalfOpenFailure(t *testing.T) {
	synctest.Test(t, testBreakerReopensOnHalfOpenFailure)
}

func testBreakerReopensOnHalfOpenFailure(t *testing.T) {
	e := newTestExecutor(t, testConfig(1), Hooks{})
	openBreaker(t, e, "p")
	waitOpenDuration()
	fn, calls := scripted(apiErr(503, ""))
	_ = e.Do(context.Background(), Query, "p", fn)
	if calls.Load() != 1 {
		t.Fatal("the probe did not reach fn")
	}
	if got := e.BreakerStates()["p"]; got != Open {
		t.Fatalf("breaker %s after a failed probe, want open", got)
	}
	err := e.Do(context.Background(), Query, "p", fn)
	if calls.Load() != 1 || !IsBreakerOpen(err) {
		t.Fatalf("after a failed probe Do = %v with %d calls, want a fast refusal", err, calls.Load())
	}
}

func TestBreakerScopesAreIsolated(t *testing.T) {
	e := newTestExecutor(t, testConfig(1), Hooks{})
	openBreaker(t, e, "project-a")
	fn, calls := scripted(nil)
	if err := e.Do(context.Background(), Metadata, "project-b", fn); err != nil {
		t.Fatalf("project-b: %v", err)
	}
	if calls.Load() != 1 {
		t.Fatal("project-b's call did not reach fn")
	}
	if err := e.Do(context.Background(), Metadata, "project-a", fn); !IsBreakerOpen(err) {
		t.Fatalf("project-a: %v, want an open breaker", err)
	}
	want := map[string]BreakerState{"project-a": Open, "project-b": Closed}
	if got := e.BreakerStates(); !reflect.DeepEqual(got, want) {
		t.Fatalf("BreakerStates() = %v, want %v", got, want)
	}
}

func TestQueryTimeoutDoesNotOpenBreaker(t *testing.T) {
	// A query that outlives the time its caller gave it says nothing about
	// BigQuery's health; a metadata call that times out does.
	for _, tc := range []struct {
		op   Operation
		want BreakerState
	}{{Query, Closed}, {Metadata, Open}} {
		t.Run(string(tc.op), func(t *testing.T) {
			e := newTestExecutor(t, testConfig(1), Hooks{})
			for range 3 {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
				err := e.Do(ctx, tc.op, "p", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
				cancel()
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("Do = %v, want context.DeadlineExceeded", err)
				}
			}
			if got := e.BreakerStates()["p"]; got != tc.want {
				t.Fatalf("breaker %s after 3 timeouts, want %s", got, tc.want)
			}
		})
	}
}

func TestBreakerStatesEmptyAtStart(t *testing.T) {
	e := newTestExecutor(t, testConfig(1), Hooks{})
	if got := e.BreakerStates(); len(got) != 0 {
		t.Fatalf("BreakerStates() = %v before any call", got)
	}
}

func TestConcurrentDo(t *testing.T) {
	e := newTestExecutor(t, testConfig(2), Hooks{Attempt: func(context.Context, Operation, int, error) {}})
	var wg sync.WaitGroup
	var calls atomic.Int32
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			scope := fmt.Sprintf("p%d", i%4)
			_ = e.Do(context.Background(), Metadata, scope, func(context.Context) error {
				calls.Add(1)
				if i%2 == 0 {
					return apiErr(404, "notFound")
				}
				return nil
			})
			_ = e.BreakerStates()
		}()
	}
	wg.Wait()
	if calls.Load() != 32 {
		t.Fatalf("fn called %d times, want 32", calls.Load())
	}
	if n := len(e.BreakerStates()); n != 4 {
		t.Fatalf("%d scopes, want 4", n)
	}
}

// ---- classification ----

func TestClassifiers(t *testing.T) {
	for _, tc := range []struct {
		name                          string
		err                           error
		retryable, backend, staleable bool
	}{
		{"nil", nil, false, false, false},
		{"503", apiErr(503, ""), true, true, true},
		{"500 internalError", apiErr(500, "internalError"), true, true, true},
		{"no response", &AttemptError{Err: connReset()}, true, true, true},
		{"429", apiErr(429, ""), true, false, true},
		{"403 rateLimitExceeded", apiErr(403, "rateLimitExceeded"), true, false, true},
		{"408", apiErr(408, ""), true, true, true},
		{"context deadline", context.DeadlineExceeded, true, true, true},
		{"context cancelled", context.Canceled, false, false, false},
		{"breaker open", breakerOpenError("p", time.Second), false, false, true},
		{"404", apiErr(404, "notFound"), false, false, false},
		{"400 invalidQuery", apiErr(400, "invalidQuery"), false, false, false},
		{"403 accessDenied", apiErr(403, "accessDenied"), false, false, false},
		{"401", apiErr(401, ""), false, false, false},
		{"409 duplicate", apiErr(409, "duplicate"), false, false, false},
		{"500 bytesBilledLimitExceeded", apiErr(500, "bytesBilledLimitExceeded"), false, false, false},
		{"quotaExceeded", apiErr(403, "quotaExceeded"), false, false, false},
		{"retried below", &retriedError{apiErr(503, "")}, false, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Retryable(tc.err); got != tc.retryable {
				t.Errorf("Retryable = %v, want %v", got, tc.retryable)
			}
			if got := BackendFault(tc.err); got != tc.backend {
				t.Errorf("BackendFault = %v, want %v", got, tc.backend)
			}
			if tc.err != nil {
				if got := StaleAllowed(tc.err); got != tc.staleable {
					t.Errorf("StaleAllowed = %v, want %v", got, tc.staleable)
				}
			}
		})
	}
}

// ---- benchmarks ----

// BenchmarkOpenBreakerFailFast measures what a call costs while its
// project's breaker is open: no BigQuery request, just the refusal.
func BenchmarkOpenBreakerFailFast(b *testing.B) {
	cfg := testConfig(3)
	cfg.Breaker.Open = time.Hour
	e, err := NewExecutor(cfg, Hooks{})
	if err != nil {
		b.Fatal(err)
	}
	for range cfg.Breaker.Failures {
		_ = e.Do(context.Background(), Query, "p", func(context.Context) error { return apiErr(503, "") })
	}
	if e.BreakerStates()["p"] != Open {
		b.Fatal("breaker did not open")
	}
	fn := func(context.Context) error { b.Fatal("fn called through an open breaker"); return nil }
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := e.Do(ctx, Query, "p", fn); err == nil {
			b.Fatal("Do succeeded through an open breaker")
		}
	}
}

// BenchmarkDoSuccess measures the layer's overhead on a call that succeeds
// at once.
func BenchmarkDoSuccess(b *testing.B) {
	e, err := NewExecutor(testConfig(3), Hooks{})
	if err != nil {
		b.Fatal(err)
	}
	fn := func(context.Context) error { return nil }
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := e.Do(ctx, Metadata, "p", fn); err != nil {
			b.Fatal(err)
		}
	}
}

// A panicking fn (recovered by the server's middleware) must give its
// breaker permit back, or a half-open breaker would refuse every later call.
func TestPanickingProbeDoesNotWedgeBreaker(t *testing.T) {
	synctest.Test(t, testPanickingProbeDoesNotWedgeBreaker)
}

func testPanickingProbeDoesNotWedgeBreaker(t *testing.T) {
	e := newTestExecutor(t, testConfig(1), Hooks{})
	openBreaker(t, e, "p")
	waitOpenDuration()
	for range e.cfg.Breaker.Successes + 1 {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("the panic did not reach the caller")
				}
			}()
			_ = e.Do(context.Background(), Metadata, "p", func(context.Context) error { panic("bug") })
		}()
	}
	// The panics were no verdict on BigQuery; whatever state they left, the
	// next real call is let through.
	e2 := e.BreakerStates()["p"]
	fn, calls := scripted(nil)
	if err := e.Do(context.Background(), Metadata, "p", fn); err != nil || calls.Load() != 1 {
		t.Fatalf("after panicking probes (state %s) Do = %v with %d calls; want the call let through", e2, err, calls.Load())
	}
}

func TestStartAttemptHookWrapsEachAttempt(t *testing.T) {
	type attemptKey struct{}
	var started []int
	var finished []bool
	e := newTestExecutor(t, testConfig(3), Hooks{
		StartAttempt: func(ctx context.Context, op Operation, n int) (context.Context, func(error)) {
			if op != Write {
				t.Errorf("StartAttempt op = %s", op)
			}
			started = append(started, n)
			return context.WithValue(ctx, attemptKey{}, n), func(err error) { finished = append(finished, err == nil) }
		},
	})
	var seen []any
	fn, _ := scripted(apiErr(503, ""), nil)
	err := e.Do(context.Background(), Write, "p", func(ctx context.Context) error {
		seen = append(seen, ctx.Value(attemptKey{}))
		return fn(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(started, []int{1, 2}) || !slices.Equal(finished, []bool{false, true}) {
		t.Errorf("started %v finished %v, want [1 2] [false true]", started, finished)
	}
	if !reflect.DeepEqual(seen, []any{1, 2}) {
		t.Errorf("fn saw attempt contexts %v, want [1 2]", seen)
	}
}

// TestExhaustedHintSaysWhy: an operation that ran out of its own time is
// not told to wait for BigQuery, and one BigQuery kept failing is.
func TestExhaustedHintSaysWhy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig(1)
		p := cfg.Retry[Metadata]
		p.Timeout = 40 * time.Millisecond
		cfg.Retry[Metadata] = p
		e := newTestExecutor(t, cfg, Hooks{})
		err := e.Do(context.Background(), Metadata, "p", func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		})
		be := mustCode(t, err, bqerr.DeadlineExceeded)
		if !strings.Contains(be.Hint, "ran out of its time") || strings.Contains(be.Hint, "times in a row") {
			t.Errorf("timed-out hint = %q, want it to say the call's time ran out", be.Hint)
		}
	})
	e := newTestExecutor(t, testConfig(3), Hooks{})
	err := e.Do(context.Background(), Metadata, "p", func(context.Context) error { return apiErr(503, "") })
	be := mustCode(t, err, bqerr.Unavailable)
	if !strings.Contains(be.Hint, "BigQuery failed 3 times in a row (UNAVAILABLE)") {
		t.Errorf("exhausted hint = %q, want BigQuery failed 3 times in a row", be.Hint)
	}
}
