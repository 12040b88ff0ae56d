package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// toolError calls tool and returns its structured error; a call that
// succeeds fails the test.
func toolError(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) bqerr.Error {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", tool, err)
	}
	if !res.IsError {
		t.Fatalf("%s succeeded against a BigQuery that never answers", tool)
	}
	var e bqerr.Error
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &e); err != nil {
		t.Fatalf("%s: error result is not structured JSON: %v", tool, err)
	}
	return e
}

// Against a BigQuery that accepts requests and never answers, every tool's
// calls count for the project's breaker: after --breaker-failures of them
// it opens, and the next call fails at once with UNAVAILABLE and sends
// nothing. execute_sql with a short timeoutSeconds (with and without a
// default dataset, whose location is looked up first) ends at its timeout
// each time: nothing before the query's own request may spend that time
// where the breaker does not see it (issue 36: a table lookup before the
// dry run did). The fake is in process and the test in a synctest bubble,
// so the timeouts take no real time.
func TestHungBigQueryOpensTheBreakerThroughEveryTool(t *testing.T) {
	const failures = 3
	for _, c := range []struct {
		name, tool string
		args       map[string]any
		// within is how long each hung call may take.
		within time.Duration
	}{
		{"execute_sql", "execute_sql", map[string]any{"sql": "SELECT n FROM sales.t", "timeoutSeconds": 2}, 2 * time.Second},
		{"execute_sql_default_dataset", "execute_sql", map[string]any{"sql": "SELECT n FROM t", "defaultDataset": "sales", "timeoutSeconds": 2}, 2 * time.Second},
		{"dry_run_sql", "dry_run_sql", map[string]any{"sql": "SELECT n FROM sales.t"}, time.Minute},
		{"list_datasets", "list_datasets", map[string]any{}, time.Minute},
		{"list_tables", "list_tables", map[string]any{"dataset": "sales"}, time.Minute},
		{"get_table_schema", "get_table_schema", map[string]any{"table": "sales.t"}, time.Minute},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake := bqfake.New(t, bqfake.InProcess())
				hung := fake.On(bqfake.Any).When(func(r *bqfake.Request) bool { return r.Route != bqfake.JobsCancel }).Hold()
				cfg := Defaults()
				cfg.Project, cfg.Endpoint, cfg.Auth = "p", fake.URL, auth.None
				cfg.Transport = fake.Transport()
				cfg.Resilience.Breaker = resilience.Breaker{Failures: failures, Open: time.Minute, Successes: 1}
				b, err := Build(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { b.Close() })
				cs := connect(t, b.MCP, "", nil)

				for i := range failures {
					start := time.Now()
					e := toolError(t, cs, c.tool, c.args)
					took := time.Since(start)
					if resilience.IsBreakerOpen(&e) || strings.Contains(e.Message, "circuit breaker") {
						t.Fatalf("call %d met an open breaker after %d hung calls, want %d", i+1, i, failures)
					}
					if e.Code != bqerr.DeadlineExceeded && e.Code != bqerr.Unavailable {
						t.Errorf("hung call %d = %s %q, want DEADLINE_EXCEEDED or UNAVAILABLE", i+1, e.Code, e.Message)
					}
					if took > c.within {
						t.Errorf("hung call %d took %s, want at most %s", i+1, took, c.within)
					}
				}
				if st := b.Executor.BreakerStates()["p"]; st != resilience.Open {
					t.Fatalf("breaker %q after %d hung calls, want open", st, failures)
				}
				sent := hung.Started()
				start := time.Now()
				e := toolError(t, cs, c.tool, c.args)
				if took := time.Since(start); e.Code != bqerr.Unavailable || !strings.Contains(e.Message, "circuit breaker") || took > 100*time.Millisecond {
					t.Errorf("call after the breaker opened = %s %q in %s, want UNAVAILABLE from the open breaker at once", e.Code, e.Message, took)
				}
				if n := hung.Started() - sent; n != 0 {
					t.Errorf("the open breaker let %d requests through", n)
				}
			})
		})
	}
}
