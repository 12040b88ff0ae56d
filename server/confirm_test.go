package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// costlyBigQuery's dry run estimates 2 GiB for every query; jobs.query
// runs it and is counted.
type costlyBigQuery struct {
	mu      sync.Mutex
	queries int
}

func (f *costlyBigQuery) ran() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queries
}

func (f *costlyBigQuery) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	const bytes = "2147483648"
	var out any
	switch p := r.URL.Path; {
	case r.Method == http.MethodPost && p == "/projects/p/jobs": // the dry run
		out = map[string]any{"jobReference": map[string]any{"projectId": "p"}, "status": map[string]any{"state": "DONE"},
			"configuration": map[string]any{"dryRun": true},
			"statistics":    map[string]any{"totalBytesProcessed": bytes, "query": map[string]any{"statementType": "SELECT", "totalBytesProcessed": bytes}}}
	case r.Method == http.MethodPost && p == "/projects/p/queries":
		f.mu.Lock()
		f.queries++
		f.mu.Unlock()
		out = map[string]any{"jobReference": map[string]any{"projectId": "p", "jobId": "j1", "location": "US"}, "jobComplete": true, "totalRows": "1",
			"totalBytesProcessed": bytes, "totalBytesBilled": bytes,
			"schema": map[string]any{"fields": []any{map[string]any{"name": "n", "type": "INTEGER"}}},
			"rows":   []any{map[string]any{"f": []any{map[string]any{"v": "42"}}}}}
	default:
		w.WriteHeader(http.StatusNotFound)
		out = map[string]any{"error": map[string]any{"code": 404, "message": "no fake for " + r.Method + " " + p, "errors": []any{map[string]any{"reason": "notFound"}}}}
	}
	json.NewEncoder(w).Encode(out)
}

func costlyServer(t *testing.T) (*Backend, *costlyBigQuery) {
	t.Helper()
	fake := &costlyBigQuery{}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	cfg := Defaults()
	cfg.Project, cfg.Endpoint, cfg.Auth = "p", srv.URL, auth.None
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
					if res.IsError || fake.ran() != 1 {
						t.Fatalf("accepted: isError %v, %d jobs; want the query run once: %+v", res.IsError, fake.ran(), res.Content)
					}
					return
				}
				if !res.IsError || fake.ran() != 0 {
					t.Fatalf("not accepted: isError %v, %d jobs; want an error and no job", res.IsError, fake.ran())
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
		if fake.ran() != 0 {
			t.Errorf("protocol %q: %d jobs ran without confirmation", version, fake.ran())
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
