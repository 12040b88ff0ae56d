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

// TestHungBigQueryOpensBreakerThroughEveryTool: not only execute_sql's
// calls count. Against a BigQuery that stops answering, execute_sql with a
// short timeoutSeconds (with and without a default dataset, whose location
// is looked up first), dry_run_sql and the metadata tools each open the
// project's breaker after --breaker-failures calls at most, each ending at
// its own bound, and the next call fails at once without a request (issue 36: a
// table lookup before the dry run spent execute_sql's time where the
// breaker did not count it).
func TestHungBigQueryOpensBreakerThroughEveryTool(t *testing.T) {
	const failures = 3
	for _, c := range []struct {
		name, tool string
		args       map[string]any
	}{
		{"execute_sql", "execute_sql", map[string]any{"sql": "SELECT order_id FROM shop.orders", "timeoutSeconds": 1}},
		{"execute_sql_default_dataset", "execute_sql", map[string]any{"sql": "SELECT order_id FROM orders", "defaultDataset": "shop", "timeoutSeconds": 1}},
		{"dry_run_sql", "dry_run_sql", map[string]any{"sql": "SELECT order_id FROM shop.orders"}},
		{"list_tables", "list_tables", map[string]any{"dataset": "shop"}},
		{"get_table_schema", "get_table_schema", map[string]any{"table": "shop.orders"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := startProxy(t)
			cfg := fastConfig(p)
			cfg.Resilience.Breaker = resilience.Breaker{Failures: failures, Open: time.Minute, Successes: 1}
			// dry_run_sql's bound is --query-timeout; the metadata
			// tools' their policy's timeout.
			cfg.QueryTimeout = 2 * time.Second
			meta := cfg.Resilience.Retry[resilience.Metadata]
			meta.Timeout = 2 * time.Second
			cfg.Resilience.Retry[resilience.Metadata] = meta
			cs := connect(t, cfg, "")
			p.AddRule(faults.Rule{Match: func(r *faults.Request) bool { return r.Op != "jobs.cancel" }, Fault: faults.Fault{Hang: true}})
			// Each hung request counts, a default dataset's location
			// lookup too (it goes on, detached, to its own bound): the
			// breaker may open before the last of these calls, never
			// after.
			hung := 0
			for ; hung < failures; hung++ {
				start := time.Now()
				e := fails(t, cs, c.tool, c.args)
				took := time.Since(start)
				if strings.Contains(e.Message, "circuit breaker") {
					break
				}
				if took > 10*time.Second {
					t.Errorf("hung call %d took %s", hung+1, took)
				}
				t.Logf("hung %s %d: %s after %s", c.tool, hung+1, e.Code, took.Round(time.Millisecond))
			}
			if hung == 0 {
				t.Fatal("the breaker was open before any call")
			}
			p.Reset()
			start := time.Now()
			e := fails(t, cs, c.tool, c.args)
			elapsed := time.Since(start)
			if e.Code != bqerr.Unavailable || !strings.Contains(e.Message, "circuit breaker") {
				t.Fatalf("after %d hung calls: %+v, want the open breaker", hung, e)
			}
			if n := len(p.Requests()); n != 0 || elapsed > 500*time.Millisecond {
				t.Fatalf("the open breaker took %s and let %d requests through", elapsed, n)
			}
		})
	}
}
