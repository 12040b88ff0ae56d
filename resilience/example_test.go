package resilience_test

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/api/googleapi"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// quick is Defaults with millisecond delays, so the example runs in a blink.
func quick() resilience.Config {
	cfg := resilience.Defaults()
	for op, p := range cfg.Retry {
		p.BaseDelay, p.MaxDelay = time.Millisecond, 2*time.Millisecond
		cfg.Retry[op] = p
	}
	return cfg
}

// A call runs under its operation's policy: transient faults are retried
// (Metadata: up to 3 attempts), and a call that kept failing comes back as
// one bqerr.Error that says how many attempts were made.
func ExampleExecutor_Do() {
	exec, err := resilience.NewExecutor(quick(), resilience.Hooks{
		Attempt: func(_ context.Context, op resilience.Operation, n int, err error) {
			outcome := "ok"
			if err != nil {
				outcome = string(bqerr.From(err).Code)
			}
			fmt.Printf("%s attempt %d: %s\n", op, n, outcome)
		},
	})
	if err != nil {
		panic(err)
	}
	unavailable := &googleapi.Error{Code: 503, Message: "backend error", Errors: []googleapi.ErrorItem{{Reason: "backendError"}}}

	calls := 0
	err = exec.Do(context.Background(), resilience.Metadata, "my-project", func(ctx context.Context) error {
		calls++
		if calls == 1 {
			return unavailable // BigQuery had a hiccup
		}
		return nil
	})
	fmt.Println("flaky call:", err)

	err = exec.Do(context.Background(), resilience.Metadata, "my-project", func(ctx context.Context) error {
		return unavailable
	})
	e := bqerr.From(err)
	fmt.Println("failing call:", e.Code, "after", e.Details.Attempts, "attempts, retryable:", e.Retryable)
	// Output:
	// metadata attempt 1: UNAVAILABLE
	// metadata attempt 2: ok
	// flaky call: <nil>
	// metadata attempt 1: UNAVAILABLE
	// metadata attempt 2: UNAVAILABLE
	// metadata attempt 3: UNAVAILABLE
	// failing call: UNAVAILABLE after 3 attempts, retryable: true
}

// After enough failed operations in a row (Defaults: 5) a scope's breaker
// opens, and its calls fail at once without reaching BigQuery. Other scopes
// are not affected.
func ExampleExecutor_Do_breaker() {
	cfg := quick()
	exec, err := resilience.NewExecutor(cfg, resilience.Hooks{
		BreakerChanged: func(scope string, from, to resilience.BreakerState) {
			fmt.Printf("breaker %s: %s -> %s\n", scope, from, to)
		},
	})
	if err != nil {
		panic(err)
	}
	down := func(context.Context) error { return &googleapi.Error{Code: 503, Message: "backend error"} }
	for range cfg.Breaker.Failures {
		_ = exec.Do(context.Background(), resilience.Metadata, "my-project", down)
	}
	err = exec.Do(context.Background(), resilience.Metadata, "my-project", func(context.Context) error {
		panic("not called while the breaker is open")
	})
	fmt.Println(resilience.IsBreakerOpen(err), bqerr.From(err).Message)

	err = exec.Do(context.Background(), resilience.Metadata, "other-project", func(context.Context) error { return nil })
	fmt.Println("other-project:", err)
	// Output:
	// breaker my-project: closed -> open
	// true circuit breaker open for BigQuery project my-project: calls are paused after repeated failures
	// other-project: <nil>
}
