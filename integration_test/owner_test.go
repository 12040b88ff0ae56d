package integration_test

import (
	"strings"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/query"
)

// TestJobsBelongToTheirCaller runs the binary over HTTP with two bearer
// tokens on one instance, against the emulator: B's get_job,
// get_query_results and cancel_job on A's job answer exactly as for a job
// ID that names no job; A's own calls read it.
func TestJobsBelongToTheirCaller(t *testing.T) {
	const tokenB = "integration-second-token-0123456789"
	in := startInstance(t, emu.URL, "--client-auth", "token", "--client-tokens", clientToken+","+tokenB)
	alice := httpSession(t, "http://"+in.addr+"/mcp", clientToken, "2025-06-18")
	bob := httpSession(t, "http://"+in.addr+"/mcp", tokenB, "2025-06-18")
	out := ok[query.ExecuteOutput](t, alice, "execute_sql", map[string]any{
		"sql": "SELECT order_id FROM shop.orders ORDER BY order_id", "maxRows": 2,
	})
	if out.JobID == "" || !out.Truncated {
		t.Fatalf("alice's query = %+v", out)
	}
	const missing = "bqmcp_no_such_job_0"
	for _, tool := range []string{"get_job", "get_query_results", "cancel_job"} {
		want := text(call(t, bob, tool, map[string]any{"jobId": missing}))
		got := text(call(t, bob, tool, map[string]any{"jobId": out.JobID, "location": out.Location}))
		if !strings.Contains(want, "NOT_FOUND") || strings.ReplaceAll(got, out.JobID, "ID") != strings.ReplaceAll(want, missing, "ID") {
			t.Errorf("bob's %s of alice's job answers\n%s\nnot as for a missing job:\n%s", tool, got, want)
		}
	}
	next := ok[query.ExecuteOutput](t, alice, "get_query_results", map[string]any{"jobId": out.JobID, "location": out.Location, "startIndex": 2})
	if next.RowCount == 0 || next.TotalRows != 5 {
		t.Errorf("alice's next page = %+v", next)
	}
	if strings.Contains(in.log.String(), tokenB) {
		t.Error("a client token reached the log")
	}
}
