package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/insert"
	"github.com/bigquery-mcp/bigquery-mcp/query"
)

// TestInsertRowsRefusesBadRowsBeforeAnyRequest calls insert_rows through
// the MCP path with rows that are not objects, or none: each is an
// INVALID_ARGUMENT result. The service has no BigQuery client at all, so
// any attempt at a request would fail differently (or panic).
func TestInsertRowsRefusesBadRowsBeforeAnyRequest(t *testing.T) {
	ctx := context.Background()
	svc := Services{Insert: insert.NewService(insert.Config{Project: "p"})}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := New(svc, Config{Settings: query.Settings{AllowWrites: true}, Toolsets: []Toolset{ToolsetWrite}}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, c := range []struct {
		rows any
		want string
	}{
		{[]any{map[string]any{"a": 1}, 5}, `want "object"`},
		{[]any{nil}, `want "object"`},
		{[]any{"x"}, `want "object"`},
		{[]any{}, "rows is empty"},
		{map[string]any{"a": 1}, "/properties/rows"},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "insert_rows", Arguments: map[string]any{"table": "d.t", "rows": c.rows}})
		if err != nil {
			t.Fatal(err)
		}
		var e bqerr.Error
		text := res.Content[0].(*mcp.TextContent).Text
		if err := json.Unmarshal([]byte(text), &e); err != nil || !res.IsError || e.Code != bqerr.InvalidArgument || !strings.Contains(e.Message, c.want) || e.Hint == "" {
			t.Errorf("rows %v: %s, want INVALID_ARGUMENT containing %q", c.rows, text, c.want)
		}
	}
}
