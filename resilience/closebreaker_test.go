package resilience

import (
	"context"
	"testing"
	"time"
)

// TestCloseBreaker: a caller that saw the backend answer past an open
// breaker closes it, and the next call goes through at once instead of
// after the open time; the change is reported like any other. Other
// scopes, and one that has no breaker yet, are left alone.
func TestCloseBreaker(t *testing.T) {
	cfg := testConfig(1)
	cfg.Breaker.Open = time.Hour
	var changes []BreakerState
	e := newTestExecutor(t, cfg, Hooks{BreakerChanged: func(scope string, _, to BreakerState) {
		if scope == StateScope {
			changes = append(changes, to)
		}
	}})
	openBreaker(t, e, StateScope)
	openBreaker(t, e, "other-project")
	e.CloseBreaker("never-used")
	e.CloseBreaker(StateScope)
	if got := e.BreakerStates(); got[StateScope] != Closed || got["other-project"] != Open {
		t.Fatalf("breakers after CloseBreaker(%s) = %v; want it closed and the other open", StateScope, got)
	}
	if _, ok := e.BreakerStates()["never-used"]; ok {
		t.Error("CloseBreaker made a breaker for a scope that had none")
	}
	calls := 0
	if err := e.Do(context.Background(), Metadata, StateScope, func(context.Context) error { calls++; return nil }); err != nil || calls != 1 {
		t.Errorf("call after CloseBreaker = %v after %d calls; want it through", err, calls)
	}
	if len(changes) != 2 || changes[0] != Open || changes[1] != Closed {
		t.Errorf("reported changes = %v; want open, then closed", changes)
	}
}
