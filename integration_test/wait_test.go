package integration_test

import (
	"context"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
	"github.com/bigquery-mcp/bigquery-mcp/query"
)

// holdMarked makes the proxy keep jobs of SQL marked /* hold */ running.
func holdMarked(sql string) bool { return strings.Contains(sql, "/* hold */") }

// A query that outlives waitSeconds comes back as jobComplete false with
// what the agent needs to pick it up; the job keeps running (not
// cancelled), get_query_results waits again, cancel_job stops it. A query
// that ends within the wait returns its rows.
func TestExecuteSQLWaitSecondsLeavesJobRunning(t *testing.T) {
	for _, protocol := range protocolVersions {
		t.Run("protocol="+protocol, func(t *testing.T) {
			p := startProxy(t)
			p.HoldQueries(holdMarked)
			cs := connect(t, fastConfig(p), protocol)

			start := time.Now()
			out := ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": "SELECT 1 AS n /* hold */", "waitSeconds": 2, "timeoutSeconds": 30})
			if took := time.Since(start); took < 1500*time.Millisecond || took > 10*time.Second {
				t.Errorf("execute_sql with waitSeconds 2 returned after %s", took)
			}
			held := heldJob(t, p)
			// (elapsedMs is the job's age by its creationTime, which the
			// proxy's held jobs report as now; query/wait_test.go checks it.)
			if out.JobComplete || out.JobID != held || out.Location == "" || out.State != "RUNNING" {
				t.Fatalf("execute_sql = %+v, want jobComplete false, job %s, its location, RUNNING", out, held)
			}
			if !strings.Contains(out.Hint, "get_query_results") || len(out.Rows) != 0 {
				t.Errorf("hint %q, rows %d; want a hint naming get_query_results and no rows", out.Hint, len(out.Rows))
			}
			if p.Cancelled(held) {
				t.Fatal("the wait ending cancelled the job; it must keep running under its own timeout")
			}

			again := ok[query.ExecuteOutput](t, cs, "get_query_results", map[string]any{"jobId": out.JobID, "location": out.Location, "waitSeconds": 1})
			if again.JobComplete || again.JobID != held || again.State != "RUNNING" || again.Hint == "" {
				t.Errorf("get_query_results of the running job = %+v, want jobComplete false, RUNNING, a hint", again)
			}
			if p.Cancelled(held) {
				t.Fatal("get_query_results cancelled the job")
			}

			done := ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": "SELECT 7 AS n", "waitSeconds": 2})
			if !done.JobComplete || done.RowCount != 1 || string(done.Rows[0]) != "[7]" {
				t.Errorf("a quick query within waitSeconds = %+v, want its row", done)
			}

			ok[query.JobOutput](t, cs, "cancel_job", map[string]any{"jobId": out.JobID, "location": out.Location})
			if !p.Cancelled(held) {
				t.Error("cancel_job did not cancel the running job")
			}
		})
	}
}

// A host that sends a progressToken hears notifications/progress from the
// real binary over stdio while execute_sql waits for a running job. The
// first report comes when jobs.query, asked to wait at most 5 s for such a
// client, answers that the job still runs: the wait must be longer, by
// enough for a loaded machine (at load 11 on 2 cores, a 7 s wait ended
// before the 5 s answer came back).
func TestProgressNotificationsOverStdio(t *testing.T) {
	for _, protocol := range protocolVersions {
		t.Run("protocol="+protocol, func(t *testing.T) {
			p := startProxy(t)
			p.HoldQueries(holdMarked)
			var mu sync.Mutex
			var got []*mcp.ProgressNotificationParams
			c := mcp.NewClient(&mcp.Implementation{Name: "integration-test", Version: "1"}, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
					mu.Lock()
					got = append(got, req.Params)
					mu.Unlock()
				},
			})
			cmd := exec.Command(serverBin, "stdio", "--endpoint", p.URL, "--project", emulator.Project)
			cmd.Stderr = &logBuffer{t: t}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			t.Cleanup(func() { cs.Close() })

			params := &mcp.CallToolParams{Name: "execute_sql", Arguments: map[string]any{"sql": "SELECT 1 AS n /* hold */", "waitSeconds": 10, "timeoutSeconds": 30}}
			params.SetProgressToken("long-query")
			res, err := cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				t.Fatalf("execute_sql: %v %s", err, text(res))
			}
			held := heldJob(t, p)
			deadline := time.Now().Add(2 * time.Second)
			for time.Now().Before(deadline) {
				mu.Lock()
				n := len(got)
				mu.Unlock()
				if n > 0 {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			mu.Lock()
			defer mu.Unlock()
			t.Logf("%d progress notifications in one call", len(got))
			if len(got) == 0 {
				t.Fatal("no notifications/progress over stdio for a call with a progressToken")
			}
			for _, n := range got {
				if n.ProgressToken != "long-query" || !strings.Contains(n.Message, held) || !strings.Contains(n.Message, "RUNNING") {
					t.Errorf("progress %+v, want token long-query and job %s RUNNING", n, held)
				}
			}
		})
	}
}
