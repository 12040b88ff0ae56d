package integration_test

import (
	"strings"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/integration_test/faults"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// TestHungBigQueryOpensBreakerForQueries: execute_sql calls that time out
// because BigQuery stopped answering open the project's breaker, and the
// next call fails fast; queries that time out while BigQuery reports their
// job as still running do not.
func TestHungBigQueryOpensBreakerForQueries(t *testing.T) {
	p := startProxy(t)
	cfg := fastConfig(p)
	cfg.Resilience.Breaker = resilience.Breaker{Failures: 3, Open: time.Minute, Successes: 1}
	cs := connect(t, cfg, "")

	// Long jobs, BigQuery answering all along: the timeout is the caller's.
	p.HoldQueries(func(sql string) bool { return strings.Contains(sql, "/* hold */") })
	for i := range 4 {
		e := fails(t, cs, "execute_sql", map[string]any{"sql": "SELECT 1 AS n /* hold */", "timeoutSeconds": 1})
		if e.Code != bqerr.DeadlineExceeded {
			t.Fatalf("held query %d: %+v", i+1, e)
		}
	}
	if h := health(t, cs); h.Breakers["demo-project"] != resilience.Closed {
		t.Fatalf("breaker %s after queries that outlived their timeout, want closed", h.Breakers["demo-project"])
	}

	// BigQuery stops answering (job cancellation aside, so each call ends
	// at its own timeout).
	p.AddRule(faults.Rule{Match: func(r *faults.Request) bool { return r.Op != "jobs.cancel" }, Fault: faults.Fault{Hang: true}})
	for i := range 3 {
		start := time.Now()
		e := fails(t, cs, "execute_sql", map[string]any{"sql": "SELECT 1 AS n", "timeoutSeconds": 1})
		if e.Code != bqerr.DeadlineExceeded {
			t.Fatalf("hung query %d: %+v", i+1, e)
		}
		t.Logf("hung call %d ended after %s", i+1, time.Since(start).Round(time.Millisecond))
	}
	p.Reset()
	start := time.Now()
	e := fails(t, cs, "execute_sql", map[string]any{"sql": "SELECT 1 AS n", "timeoutSeconds": 1})
	elapsed := time.Since(start)
	if e.Code != bqerr.Unavailable || !e.Retryable || e.RetryAfterSeconds == nil || !strings.Contains(e.Message, "circuit breaker") {
		t.Fatalf("after 3 hung calls: %+v, want the open breaker", e)
	}
	if n := len(p.Requests()); n != 0 || elapsed > 500*time.Millisecond {
		t.Fatalf("the open breaker took %s and let %d requests through", elapsed, n)
	}
	t.Logf("the call after the breaker opened failed in %s", elapsed.Round(time.Millisecond))
}
