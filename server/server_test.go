package server

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

var update = flag.Bool("update", false, "rewrite tool snapshots and docs/tools.md")

// TestToolSnapshots keeps each tool's contract (description, annotations,
// schemas) in __toolsnaps__, so any change to what agents see shows up in
// review. Run `go test ./server -update` to accept a change.
// Tools returns every tool definition with its toolset and input schema,
// for the tests of the definitions, the snapshots and docs/tools.md.
func Tools(svc Services, allowWrites bool) []listedTool {
	tools := catalog(svc, allowWrites, true)
	for _, t := range tools {
		t.describe()
	}
	return tools
}

func TestToolSnapshots(t *testing.T) {
	for _, writes := range []bool{false, true} {
		for _, spec := range Tools(Services{}, writes) {
			if writes && spec.tool.Name != "execute_sql" {
				continue
			}
			name := spec.tool.Name
			if writes {
				name += ".allow_writes"
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(spec.tool); err != nil {
				t.Fatal(err)
			}
			got := buf.Bytes()
			path := filepath.Join("__toolsnaps__", name+".snap")
			if *update {
				if err := os.MkdirAll("__toolsnaps__", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%s: no snapshot (run go test ./server -update): %v", name, err)
			}
			if string(got) != string(want) {
				t.Errorf("%s: tool definition changed; review and run go test ./server -update\n--- got\n%s", name, got)
			}
		}
	}
}

func TestToolReferenceIsCurrent(t *testing.T) {
	path := filepath.Join("..", "docs", "tools.md")
	got := toolReference()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil || string(want) != got {
		t.Errorf("docs/tools.md is out of date: run make docs")
	}
}

func TestEveryToolHasAllAnnotations(t *testing.T) {
	for _, spec := range Tools(Services{}, false) {
		a := spec.tool.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil || a.Title == "" {
			t.Errorf("%s: annotations incomplete: %+v", spec.tool.Name, a)
		}
		if a != nil && a.ReadOnlyHint && *a.DestructiveHint {
			t.Errorf("%s: read-only and destructive", spec.tool.Name)
		}
	}
}

type probeIn struct {
	N    int    `json:"n" jsonschema:"a number"`
	Mode string `json:"mode,omitempty"`
}

// connectProbe serves one tool backed by fn through the production
// middleware and result conversion.
func connectProbe(t *testing.T, fn func(context.Context, probeIn) (map[string]any, error)) *mcp.ClientSession {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "probe"}, nil)
	spec := newTool(&mcp.Tool{Name: "probe", Description: "probe"}, fn)
	spec.describe()
	log := discardLogger()
	s.AddTool(spec.tool, mcpHandler(chain("probe", spec.handler, []Middleware{Recover(log), LogCalls(log)})))
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callProbe(t *testing.T, cs *mcp.ClientSession, args any) (*mcp.CallToolResult, bqerr.Error) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "probe", Arguments: args})
	if err != nil {
		t.Fatalf("protocol error: %v", err)
	}
	var e bqerr.Error
	if res.IsError {
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &e); err != nil {
			t.Fatalf("error result is not structured JSON: %v", err)
		}
	}
	return res, e
}

func TestPanicBecomesInternalError(t *testing.T) {
	cs := connectProbe(t, func(context.Context, probeIn) (map[string]any, error) {
		var m map[string]int
		m["boom"]++ // nil map write: a real runtime panic
		return nil, nil
	})
	res, e := callProbe(t, cs, map[string]any{"n": 1})
	if !res.IsError || e.Code != bqerr.Internal {
		t.Fatalf("panic: isError=%v code=%s", res.IsError, e.Code)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if strings.Contains(text, "goroutine") || strings.Contains(text, ".go:") || strings.Contains(text, "nil map") {
		t.Errorf("panic detail leaked to the agent: %s", text)
	}
	// The server survives and keeps serving.
	if res, _ := callProbe(t, cs, map[string]any{"n": 1}); !res.IsError {
		t.Error("second call should panic again, not succeed")
	}
}

func TestBadArgumentsAreStructuredInvalidArgument(t *testing.T) {
	cs := connectProbe(t, func(_ context.Context, in probeIn) (map[string]any, error) {
		return map[string]any{"n": in.N}, nil
	})
	for _, args := range []any{
		map[string]any{"n": "seven"},
		map[string]any{"mode": "x"},             // n is required
		map[string]any{"n": 1, "unknown": true}, // no additional properties
	} {
		res, e := callProbe(t, cs, args)
		if !res.IsError || e.Code != bqerr.InvalidArgument || e.Hint == "" {
			t.Errorf("args %v: isError=%v error=%+v", args, res.IsError, e)
		}
	}
	res, _ := callProbe(t, cs, map[string]any{"n": 7})
	if res.IsError {
		t.Fatalf("valid call failed: %v", res.Content)
	}
	got, _ := json.Marshal(res.StructuredContent)
	if string(got) != `{"n":7}` {
		t.Errorf("structured content = %s", got)
	}
}

func TestErrorsKeepTheirCodeAndDetails(t *testing.T) {
	cs := connectProbe(t, func(context.Context, probeIn) (map[string]any, error) {
		return nil, bqerr.New(bqerr.NotFound, "table x not found").WithHint("use list_tables").WithJobID("job_1")
	})
	res, e := callProbe(t, cs, map[string]any{"n": 1})
	if !res.IsError || e.Code != bqerr.NotFound || e.Hint != "use list_tables" || e.Details.JobID != "job_1" || e.Retryable {
		t.Errorf("error = %+v", e)
	}
}
