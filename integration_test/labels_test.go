package integration_test

import (
	"context"
	"fmt"
	"maps"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
	"github.com/bigquery-mcp/bigquery-mcp/query"
)

// The built binary labels every job on the wire: an execute_sql over stdio
// sends mcp_server, mcp_tool, the client's name from its initialize (or,
// under the SDK's default protocol, from the request), sanitised, and
// --job-labels, on the read-only dry run and on jobs.query alike.
func TestBinaryLabelsJobsOnTheWire(t *testing.T) {
	p := startProxy(t)
	want := map[string]string{"mcp_server": "bigquery-mcp", "mcp_tool": "execute_sql", "mcp_client": "claude_code", "team": "data", "env": "ci"}
	for i, protocol := range []string{"2025-06-18", ""} {
		t.Run("protocol "+protocol, func(t *testing.T) {
			cmd := exec.Command(serverBin, "stdio", "--endpoint", p.URL, "--project", emulator.Project, "--job-labels", "team=data,env=ci")
			cmd.Stderr = &logBuffer{t: t}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c := mcp.NewClient(&mcp.Implementation{Name: "Claude Code", Version: "2.1"}, nil)
			cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
			if err != nil {
				t.Fatalf("client connect: %v", err)
			}
			t.Cleanup(func() { cs.Close() })

			p.Reset()
			// A query new to the server, so its read-only check dry-runs it.
			ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": fmt.Sprintf("SELECT %d AS n FROM shop.orders LIMIT 1", i)})
			var jobs int
			for _, r := range p.Requests() {
				if r.Op != "jobs.insert" && r.Op != "jobs.query" {
					continue
				}
				jobs++
				if !maps.Equal(r.Labels, want) {
					t.Errorf("%s (dry run %v) labels = %v, want %v", r.Op, r.DryRun, r.Labels, want)
				}
			}
			if jobs != 2 {
				t.Errorf("%d job requests at the wire, want the dry run and jobs.query: %+v", jobs, p.Requests())
			}
		})
	}
}
