package server

import (
	"context"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
)

// argumentDescriptions lists, from tools/list of a server built from cfg,
// the description of every input property, by tool and property.
func argumentDescriptions(t *testing.T, cfg Config) map[string]map[string]string {
	t.Helper()
	fake := bqfake.New(t) // no BigQuery call is made
	cfg.Project, cfg.Endpoint, cfg.Auth = "p", fake.URL, auth.None
	b, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	res, err := connect(t, b.MCP, "", nil).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for _, tool := range res.Tools {
		props := map[string]string{}
		in, _ := tool.InputSchema.(map[string]any)
		ps, _ := in["properties"].(map[string]any)
		for name, p := range ps {
			props[name], _ = p.(map[string]any)["description"].(string)
		}
		out[tool.Name] = props
	}
	return out
}

// The defaults the flags set reach the schemas an agent reads: change
// --default-max-rows or --max-wait and maxRows and waitSeconds say so.
func TestToolSchemasStateTheFlagsDefaults(t *testing.T) {
	cfg := Defaults()
	cfg.DefaultMaxRows, cfg.MaxWait = 7, 20*time.Second
	got := argumentDescriptions(t, cfg)
	for _, w := range []struct{ tool, prop, want string }{
		{"execute_sql", "maxRows", "Default 7."},
		{"get_query_results", "maxRows", "Default 7."},
		{"preview_table", "maxRows", "Default 7."},
		{"execute_sql", "waitSeconds", "Seconds to wait (default 20); then jobComplete false if still running."},
		{"get_query_results", "waitSeconds", "Seconds to wait (default 20)."},
	} {
		if d := got[w.tool][w.prop]; d != w.want {
			t.Errorf("%s %s: %q, want %q", w.tool, w.prop, d, w.want)
		}
	}

	// A --max-wait above the services' own default wait leaves it, and
	// one of part of a second rounds up.
	for maxWait, want := range map[time.Duration]string{2 * time.Minute: "(default 45)", 1500 * time.Millisecond: "(default 2)"} {
		cfg.MaxWait = maxWait
		if d := argumentDescriptions(t, cfg)["get_query_results"]["waitSeconds"]; d != "Seconds to wait "+want+"." {
			t.Errorf("--max-wait %s: waitSeconds says %q", maxWait, d)
		}
	}
}

// With the default flags the schemas say what the services' own
// descriptions say, so the snapshots (made from those) are what a server
// with the default configuration lists.
func TestDefaultFlagsKeepTheSnapshots(t *testing.T) {
	got := argumentDescriptions(t, Defaults())
	for _, spec := range Tools(Services{}, false) {
		in := spec.tool.InputSchema.(*jsonschema.Schema)
		for name, p := range in.Properties {
			if d, ok := got[spec.tool.Name][name]; ok && d != p.Description {
				t.Errorf("%s %s: %q with the default flags, %q in the snapshot", spec.tool.Name, name, d, p.Description)
			}
		}
	}
}

// apply only ever touches the number: other descriptions, and tools whose
// schema names neither argument, are left as they are.
func TestArgumentDefaultsTouchOnlyTheirArguments(t *testing.T) {
	tool := &mcp.Tool{InputSchema: &jsonschema.Schema{Properties: map[string]*jsonschema.Schema{
		"maxRows":    {Description: "Default 100."},
		"maxResults": {Description: "Default 100, max 1000."},
	}}}
	argumentDefaults{maxRows: 5, maxWait: time.Second}.apply(tool)
	props := tool.InputSchema.(*jsonschema.Schema).Properties
	if props["maxRows"].Description != "Default 5." || props["maxResults"].Description != "Default 100, max 1000." {
		t.Errorf("after apply: maxRows %q, maxResults %q", props["maxRows"].Description, props["maxResults"].Description)
	}
	argumentDefaults{maxRows: 5}.apply(&mcp.Tool{InputSchema: map[string]any{}}) // not a schema of ours: nothing to do
}
