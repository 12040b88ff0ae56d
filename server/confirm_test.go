package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
)

// costlyBigQuery answers a dry run and jobs.query of a 2 GiB SELECT; the
// test counts the jobs.query requests (the queries that ran).
func costlyServer(t *testing.T) (*Backend, *bqfake.Fake) {
	t.Helper()
	fake := bqfake.New(t)
	const bytes = 2147483648
	fake.OnJob(func(j *bq.Job) {
		j.Statistics = &bq.JobStatistics{TotalBytesProcessed: bytes, Query: &bq.JobStatistics2{StatementType: "SELECT", TotalBytesProcessed: bytes}}
		if !j.Configuration.DryRun {
			j.Statistics.Query.TotalBytesBilled = bytes
		}
	})
	fake.QueryResult(bqfake.Columns("n INTEGER"), bqfake.Row("42"))
	cfg := Defaults()
	cfg.Project, cfg.Endpoint, cfg.Auth = "p", fake.URL, auth.None
	cfg.ConfirmAboveBytes = 1 << 30
	b, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, fake
}

// A query above --confirm-above-bytes runs only when the user accepts,
// asked through elicitation under both protocol eras: an input-required
// result (2026-07-28) or an elicitation/create request (2025-06-18).
func TestConfirmationThroughElicitation(t *testing.T) {
	for _, version := range []string{"2025-06-18", ""} {
		for _, tc := range []struct {
			action  string
			content map[string]any
			runs    bool
		}{
			{"accept", map[string]any{"run": true}, true},
			{"accept", map[string]any{"run": false}, false},
			{"decline", nil, false},
			{"cancel", nil, false},
		} {
			t.Run("protocol="+version+"/"+tc.action, func(t *testing.T) {
				b, fake := costlyServer(t)
				var asked []string
				cs := connect(t, b.MCP, version, &mcp.ClientOptions{
					ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						asked = append(asked, req.Params.Message)
						return &mcp.ElicitResult{Action: tc.action, Content: tc.content}, nil
					},
				})
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute_sql", Arguments: map[string]any{"sql": "SELECT n FROM big"}})
				if err != nil {
					t.Fatalf("execute_sql: %v", err)
				}
				if len(asked) != 1 || !strings.Contains(asked[0], "2.0 GiB") || !strings.Contains(asked[0], "$") {
					t.Fatalf("the user was asked %q, want one question with the bytes and the cost", asked)
				}
				if tc.runs {
					if res.IsError || fake.Count(bqfake.JobsQuery) != 1 {
						t.Fatalf("accepted: isError %v, %d jobs; want the query run once: %+v", res.IsError, fake.Count(bqfake.JobsQuery), res.Content)
					}
					return
				}
				if !res.IsError || fake.Count(bqfake.JobsQuery) != 0 {
					t.Fatalf("not accepted: isError %v, %d jobs; want an error and no job", res.IsError, fake.Count(bqfake.JobsQuery))
				}
				if e := errorOf(t, res); e.Code != bqerr.PermissionDenied {
					t.Errorf("code %s, want PERMISSION_DENIED", e.Code)
				}
			})
		}
	}
}

// A client without elicitation gets RESOURCE_EXHAUSTED with the estimate,
// never a silent run.
func TestConfirmationWithoutElicitation(t *testing.T) {
	for _, version := range []string{"2025-06-18", ""} {
		b, fake := costlyServer(t)
		cs := connect(t, b.MCP, version, nil)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute_sql", Arguments: map[string]any{"sql": "SELECT n FROM big"}})
		if err != nil {
			t.Fatalf("execute_sql: %v", err)
		}
		e := errorOf(t, res)
		if !res.IsError || e.Code != bqerr.ResourceExhausted || !strings.Contains(e.Message, "2.0 GiB") || e.Hint == "" {
			t.Errorf("protocol %q: result %+v, want RESOURCE_EXHAUSTED with the estimate and a hint", version, e)
		}
		if fake.Count(bqfake.JobsQuery) != 0 {
			t.Errorf("protocol %q: %d jobs ran without confirmation", version, fake.Count(bqfake.JobsQuery))
		}
	}
}

func errorOf(t *testing.T, res *mcp.CallToolResult) bqerr.Error {
	t.Helper()
	var e bqerr.Error
	if len(res.Content) == 0 {
		t.Fatalf("result has no content: %+v", res)
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &e); err != nil {
		t.Fatalf("result is not a structured error: %v", err)
	}
	return e
}
