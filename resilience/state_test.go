package resilience

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// TestStateOperation: the shared state store's steps run under their own
// policy (filled in when a config predates it) and breaker scope, and
// every message names the store, not BigQuery.
func TestStateOperation(t *testing.T) {
	cfg := Defaults()
	delete(cfg.Retry, State) // a config written before the state store
	cfg.Breaker = Breaker{Failures: 1, Open: time.Minute, Successes: 1}
	e, err := NewExecutor(cfg, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	down := bqerr.New(bqerr.Unavailable, "the shared state store (Redis) did not answer")
	err = e.Do(context.Background(), State, StateScope, func(context.Context) error { calls++; return down })
	be, ok := bqerr.As(err)
	if calls != Defaults().Retry[State].Attempts || !ok || !be.Retryable || !strings.Contains(be.Hint, "shared state store") || strings.Contains(be.Hint, "BigQuery") {
		t.Fatalf("after %d attempts: %v (hint %q); want the state policy's attempts and a hint naming the store", calls, err, be.Hint)
	}
	if s := e.BreakerStates()[StateScope]; s != Open {
		t.Fatalf("state breaker = %s, want open", s)
	}
	err = e.Do(context.Background(), State, StateScope, func(context.Context) error { t.Error("called through an open breaker"); return nil })
	if be, ok := bqerr.As(err); !ok || be.Code != bqerr.Unavailable || !strings.Contains(be.Message, "shared state store (Redis)") {
		t.Errorf("open breaker = %v, want UNAVAILABLE naming the store", err)
	}
	// BigQuery's breakers are not the store's.
	if err := e.Do(context.Background(), Metadata, "my-project", func(context.Context) error { return nil }); err != nil {
		t.Errorf("a project's call with the store's breaker open = %v", err)
	}
}
