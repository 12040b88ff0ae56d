package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// Input schemas are resolved at a tool's first call, not at start-up. Every
// tool must still validate: an argument no tool declares is refused as
// INVALID_ARGUMENT by the resolved schema (so it resolved) before the tool
// runs (the services here are nil, so running it would panic).
func TestEveryToolValidatesItsArguments(t *testing.T) {
	for _, allowWrites := range []bool{false, true} {
		for _, spec := range Tools(Services{}, allowWrites) {
			req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: spec.tool.Name, Arguments: json.RawMessage(`{"notAnArgument":1}`)}}
			_, err := spec.handler(context.Background(), req)
			if e, ok := bqerr.As(err); !ok || e.Code != bqerr.InvalidArgument {
				t.Errorf("%s (allowWrites %v): err = %v, want INVALID_ARGUMENT", spec.tool.Name, allowWrites, err)
			}
		}
	}
}
