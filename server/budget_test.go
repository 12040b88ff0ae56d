package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/semantic"
)

// maxToolListBytes is what tools/list may cost an agent, compact JSON.
const maxToolListBytes = 8 << 10

// TestToolListFitsBudget lists the tools as a client does, in both write
// modes, and holds the answer to its byte budget and to the portable schema
// dialect: no type unions, a type on every property.
func TestToolListFitsBudget(t *testing.T) {
	for _, writes := range []bool{false, true} {
		s := New(Services{}, Config{Settings: query.Settings{AllowWrites: writes}})
		ct, st := mcp.NewInMemoryTransports()
		ctx := context.Background()
		ss, err := s.Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("allowWrites=%v: tools/list is %d bytes for %d tools", writes, len(b), len(res.Tools))
		if len(b) > maxToolListBytes {
			t.Errorf("allowWrites=%v: tools/list is %d bytes, budget %d", writes, len(b), maxToolListBytes)
		}
		if want := len(selectTools(Tools(Services{}, writes), withSemantic(nil, false), false, writes)); len(res.Tools) != want {
			t.Errorf("listed %d tools, want the default toolsets' %d", len(res.Tools), want)
		}
		for _, tool := range res.Tools {
			if tool.OutputSchema != nil {
				t.Errorf("%s advertises an outputSchema", tool.Name)
			}
			raw, _ := json.Marshal(tool.InputSchema)
			var sch jsonschema.Schema
			if err := json.Unmarshal(raw, &sch); err != nil {
				t.Fatal(err)
			}
			checkPortable(t, tool.Name, "", &sch)
		}
	}
}

func checkPortable(t *testing.T, tool, path string, s *jsonschema.Schema) {
	t.Helper()
	if len(s.Types) > 0 {
		t.Errorf("%s%s: type union %v", tool, path, s.Types)
	}
	if s.Type == "" && len(s.AnyOf) == 0 {
		t.Errorf("%s%s: untyped schema", tool, path)
	}
	for name, p := range s.Properties {
		checkPortable(t, tool, path+"."+name, p)
	}
	if s.Items != nil {
		checkPortable(t, tool, path+"[]", s.Items)
	}
	for i, b := range s.AnyOf {
		checkPortable(t, tool, path+"|"+string(rune('0'+i)), b)
	}
}

// maxSemanticToolListBytes is tools/list's budget with the semantic
// toolset listed (a manifest configured).
const maxSemanticToolListBytes = 10 << 10

// TestSemanticToolListFitsBudget holds tools/list with the semantic
// toolset to its budget.
func TestSemanticToolListFitsBudget(t *testing.T) {
	m, err := semantic.Load(shopManifest)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Services{Semantic: m}, Config{})
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	t.Logf("tools/list with the semantic toolset: %d bytes for %d tools", len(b), len(res.Tools))
	if len(b) > maxSemanticToolListBytes {
		t.Errorf("tools/list is %d bytes, budget %d", len(b), maxSemanticToolListBytes)
	}
}
