package server

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// Each call's context carries mcp_server, mcp_tool, the sanitised client
// name when the client gave one, and the configured labels; a call never
// sees another's client, and the configured map is left alone.
func TestLabelJobs(t *testing.T) {
	configured := map[string]string{"team": "data"}
	var got map[string]string
	h := LabelJobs(configured)("execute_sql", func(ctx context.Context, _ *mcp.CallToolRequest) (any, error) {
		got = governance.JobLabels(ctx)
		return nil, nil
	})
	named := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: mcp.Meta{mcp.MetaKeyClientInfo: &mcp.Implementation{Name: "Claude Code", Version: "2.1"}}}}
	for _, c := range []struct {
		name string
		req  *mcp.CallToolRequest
		want map[string]string
	}{
		{"named client", named, map[string]string{"mcp_server": "bigquery-mcp", "mcp_tool": "execute_sql", "mcp_client": "claude_code", "team": "data"}},
		{"client info as JSON", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: mcp.Meta{mcp.MetaKeyClientInfo: map[string]any{"name": "VS Code / Copilot", "version": "1"}}}},
			map[string]string{"mcp_server": "bigquery-mcp", "mcp_tool": "execute_sql", "mcp_client": "vs_code___copilot", "team": "data"}},
		{"unnamed client", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{}}, map[string]string{"mcp_server": "bigquery-mcp", "mcp_tool": "execute_sql", "team": "data"}},
		{"no request", nil, map[string]string{"mcp_server": "bigquery-mcp", "mcp_tool": "execute_sql", "team": "data"}},
	} {
		if _, err := h(context.Background(), c.req); err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, c.want) {
			t.Errorf("%s: labels = %v, want %v", c.name, got, c.want)
		}
	}
	if !maps.Equal(configured, map[string]string{"team": "data"}) {
		t.Errorf("the configured labels were changed: %v", configured)
	}
}

// selectOne answers every query and dry run as BigQuery does for SELECT 1
// AS n.
func selectOne(t *testing.T) *bqfake.Fake {
	t.Helper()
	fake := bqfake.New(t)
	schema := bqfake.Columns("n INTEGER")
	fake.QueryResult(schema, bqfake.Row("1"))
	fake.OnJob(func(j *bq.Job) { j.Statistics.Query.Schema = schema })
	return fake
}

// jobLabels lists the labels of every jobs.query and jobs.insert (dry run
// included) among requests.
func jobLabels(requests []*bqfake.Request) []map[string]string {
	var out []map[string]string
	for _, r := range requests {
		switch r.Route {
		case bqfake.JobsQuery:
			out = append(out, r.QueryRequest.Labels)
		case bqfake.JobsInsert:
			out = append(out, r.Job.Configuration.Labels)
		}
	}
	return out
}

// The labels reach the wire on every job request of a built server, under
// both protocol eras: the client's name comes from its initialize
// (2025-06-18) or from each request (2026-07-28).
func TestJobLabelsOnTheWire(t *testing.T) {
	fake := selectOne(t)
	cfg := Defaults()
	cfg.Project, cfg.Endpoint, cfg.Auth = "p", fake.URL, auth.None
	cfg.Governance.JobLabels = map[string]string{"team": "data", "env": "test"}
	b, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })

	for i, version := range []string{"2025-06-18", ""} {
		// SQL new to the server, so execute_sql dry-runs it first.
		sql := fmt.Sprintf("SELECT %d AS n", i)
		t.Run("protocol "+version, func(t *testing.T) {
			ct, st := mcp.NewInMemoryTransports()
			ctx := context.Background()
			ss, err := b.MCP.Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ss.Close() })
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "Claude Code", Version: "2.1"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			before := fake.Count(bqfake.Any)

			for _, tool := range []string{"execute_sql", "dry_run_sql"} {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"sql": sql}})
				if err != nil || res.IsError {
					t.Fatalf("%s: %v %+v", tool, err, res)
				}
			}
			labels := jobLabels(fake.Requests(bqfake.Any)[before:])
			// execute_sql: its read-only dry run, then jobs.query;
			// dry_run_sql: its dry run.
			wantTools := []string{"execute_sql", "execute_sql", "dry_run_sql"}
			if len(labels) != len(wantTools) {
				t.Fatalf("%d job requests, want %d", len(labels), len(wantTools))
			}
			for i, tool := range wantTools {
				want := map[string]string{"mcp_server": "bigquery-mcp", "mcp_tool": tool, "mcp_client": "claude_code", "team": "data", "env": "test"}
				if !maps.Equal(labels[i], want) {
					t.Errorf("job request %d labels = %v, want %v", i, labels[i], want)
				}
			}
		})
	}
}
