package server

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/query"
)

// listTools serves New(opts) in memory and returns what tools/list and the
// instructions say, as a client sees them.
func listTools(t *testing.T, opts Config) (names []string, instructions string) {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := New(Services{}, opts).Connect(ctx, st, nil)
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
	t.Logf("tools/list: %d tools, %d bytes", len(res.Tools), len(b))
	// A tool that is not listed cannot be called either.
	if !slices.ContainsFunc(res.Tools, func(tool *mcp.Tool) bool { return tool.Name == "insert_rows" }) {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "insert_rows", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
			t.Errorf("calling the unlisted insert_rows: %v, want an unknown tool error", err)
		}
	}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names, cs.InitializeResult().Instructions
}

var (
	schemaTools = []string{"get_table_schema", "list_datasets", "list_tables", "preview_table", "search_columns"}
	queryTools  = []string{"dry_run_sql", "execute_sql", "get_query_results"}
	jobTools    = []string{"cancel_job", "get_job"}
	always      = []string{"health", "usage"}
)

func sorted(groups ...[]string) []string {
	out := slices.Concat(groups...)
	slices.Sort(out)
	return out
}

func TestToolsetsChooseTheListedTools(t *testing.T) {
	all := []Toolset{ToolsetSchema, ToolsetQuery, ToolsetJobs, ToolsetWrite, ToolsetExport}
	for _, c := range []struct {
		name string
		opts Config
		want []string
	}{
		{"default", Config{}, sorted(schemaTools, queryTools, jobTools, always)},
		{"default with writes", Config{Settings: query.Settings{AllowWrites: true}}, sorted(schemaTools, queryTools, jobTools, always)},
		{"query only", Config{Toolsets: []Toolset{ToolsetQuery}}, sorted(queryTools, always)},
		{"schema and write", Config{Toolsets: []Toolset{ToolsetSchema, ToolsetWrite}, Settings: query.Settings{AllowWrites: true}}, sorted(schemaTools, []string{"insert_rows"}, always)},
		{"all with writes", Config{Toolsets: all, Settings: query.Settings{AllowWrites: true}}, sorted(schemaTools, queryTools, jobTools, []string{"insert_rows", "export_results"}, always)},
		// Config.Validate refuses this; New still never lists insert_rows
		// on a server that would refuse it. export_results needs no
		// --allow-writes: it runs only SELECTs.
		{"write without allow-writes", Config{Toolsets: all}, sorted(schemaTools, queryTools, jobTools, []string{"export_results"}, always)},
		{"export", Config{Toolsets: []Toolset{ToolsetExport}}, sorted([]string{"export_results"}, always)},
		{"read-only", Config{ReadOnly: true}, sorted(schemaTools, queryTools, []string{"get_job"}, always)},
		// export_results stays under --read-only: it runs only SELECTs and
		// writes only to the operator's export places.
		{"read-only, all", Config{ReadOnly: true, Toolsets: all}, sorted(schemaTools, queryTools, []string{"get_job", "export_results"}, always)},
		{"read-only, export", Config{ReadOnly: true, Toolsets: []Toolset{ToolsetQuery, ToolsetExport}}, sorted(queryTools, []string{"export_results"}, always)},
		// Also refused by Config.Validate. Were it allowed, execute_sql
		// would be annotated as writing, and read-only would hide it.
		{"read-only with writes", Config{ReadOnly: true, Settings: query.Settings{AllowWrites: true}, Toolsets: all}, sorted(schemaTools, []string{"dry_run_sql", "get_query_results", "get_job", "export_results"}, always)},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, instr := listTools(t, c.opts)
			if !slices.Equal(got, c.want) {
				t.Errorf("listed %v\nwant   %v", got, c.want)
			}
			// The instructions never point at a tool the agent cannot see.
			for _, name := range toolNamePattern.FindAllString(instr, -1) {
				if !slices.Contains(got, name) {
					t.Errorf("instructions name %s, which is not listed: %q", name, instr)
				}
			}
			if !strings.HasPrefix(instr, "BigQuery tools.") || !strings.Contains(instr, "hint") {
				t.Errorf("instructions = %q", instr)
			}
		})
	}
}

// toolNamePattern finds tool names (every one has an underscore) in text.
var toolNamePattern = regexp.MustCompile(`\b[a-z]+_[a-z_]+\b`)

func TestInstructionsGuideEveryListedToolset(t *testing.T) {
	_, instr := listTools(t, Config{})
	for _, name := range sorted(schemaTools, []string{"dry_run_sql", "execute_sql"}) {
		if !strings.Contains(instr, name) {
			t.Errorf("default instructions do not mention %s: %q", name, instr)
		}
	}
	_, instr = listTools(t, Config{Toolsets: []Toolset{ToolsetQuery}})
	if !strings.Contains(instr, "dry_run_sql") || strings.Contains(instr, "list_datasets") {
		t.Errorf("query-only instructions = %q", instr)
	}
}

// TestReadOnlyDecidesFromAnnotations hides tools by what their annotations
// say, not by name: a tool nobody listed anywhere is hidden when it writes.
func TestReadOnlyDecidesFromAnnotations(t *testing.T) {
	tool := func(name string, a *mcp.ToolAnnotations) listedTool {
		return listedTool{set: ToolsetSchema, toolSpec: toolSpec{tool: &mcp.Tool{Name: name, Annotations: a}}}
	}
	all := []listedTool{
		tool("reads", readOnly("Reads")),
		tool("appends", &mcp.ToolAnnotations{Title: "Appends", DestructiveHint: ptr(false)}),
		tool("deletes", &mcp.ToolAnnotations{Title: "Deletes", DestructiveHint: ptr(true)}),
		tool("unannotated", nil),
	}
	var got []string
	for _, t := range selectTools(all, nil, true, false) {
		got = append(got, t.tool.Name)
	}
	if !slices.Equal(got, []string{"reads"}) {
		t.Errorf("read-only kept %v, want only reads", got)
	}
	if n := len(selectTools(all, nil, false, false)); n != len(all) {
		t.Errorf("without read-only %d of %d kept", n, len(all))
	}
}

// TestToolAnnotationsAreExact pins every tool's toolset and annotations in
// both write modes, so a new tool must decide them, and a change shows up.
func TestToolAnnotationsAreExact(t *testing.T) {
	type hints struct {
		set                                     Toolset
		readOnly, destructive, idempotent, open bool
	}
	read := func(set Toolset) hints { return hints{set, true, false, true, false} }
	want := map[string]hints{
		"list_datasets": read(ToolsetSchema), "list_tables": read(ToolsetSchema), "get_table_schema": read(ToolsetSchema),
		"search_columns": read(ToolsetSchema), "preview_table": read(ToolsetSchema),
		"execute_sql": read(ToolsetQuery), "dry_run_sql": read(ToolsetQuery), "get_query_results": read(ToolsetQuery),
		"get_job": read(ToolsetJobs),
		// Cancelling changes a job's state: not read-only, but it destroys
		// no data, and cancelling twice is cancelling once.
		"cancel_job": {ToolsetJobs, false, false, true, false},
		// Appends only (destroys nothing); a second call appends again.
		"insert_rows": {ToolsetWrite, false, false, false, false},
		// Writes files and tables (hidden by --read-only); overwrite
		// replaces one; each call writes again.
		"export_results": {ToolsetExport, false, true, false, false},
		"health":         read(alwaysOn), "usage": read(alwaysOn),
		// Listed only with a manifest; query_metrics and
		// get_dimension_values run only the SELECTs they compile.
		"list_metrics": read(ToolsetSemantic), "describe_metrics": read(ToolsetSemantic),
		"query_metrics": read(ToolsetSemantic), "get_dimension_values": read(ToolsetSemantic),
	}
	for _, writes := range []bool{false, true} {
		tools := Tools(Services{}, writes)
		if len(tools) != len(want) {
			t.Errorf("allowWrites=%v: %d tools, want %d", writes, len(tools), len(want))
		}
		for _, tl := range tools {
			w, ok := want[tl.tool.Name]
			if !ok {
				t.Errorf("%s: no expected annotations; add it here", tl.tool.Name)
				continue
			}
			if writes && tl.tool.Name == "execute_sql" {
				w = hints{ToolsetQuery, false, true, false, false}
			}
			a := tl.tool.Annotations
			got := hints{tl.set, a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint}
			if got != w {
				t.Errorf("allowWrites=%v %s: %+v, want %+v", writes, tl.tool.Name, got, w)
			}
		}
	}
}

func TestParseToolsets(t *testing.T) {
	for _, c := range []struct {
		spec   string
		writes bool
		want   []Toolset
	}{
		{"schema,query,jobs", false, []Toolset{ToolsetSchema, ToolsetQuery, ToolsetJobs}},
		{" Jobs , query,query ", false, []Toolset{ToolsetQuery, ToolsetJobs}},
		{"all", false, []Toolset{ToolsetSchema, ToolsetQuery, ToolsetJobs, ToolsetExport, ToolsetSemantic}},
		{"all", true, []Toolset{ToolsetSchema, ToolsetQuery, ToolsetJobs, ToolsetWrite, ToolsetExport, ToolsetSemantic}},
		// Named, write stays, for Validate to refuse without allow-writes.
		{"all,write", false, []Toolset{ToolsetSchema, ToolsetQuery, ToolsetJobs, ToolsetWrite, ToolsetExport, ToolsetSemantic}},
		{"query,semantic", false, []Toolset{ToolsetQuery, ToolsetSemantic}},
		{"query,export", false, []Toolset{ToolsetQuery, ToolsetExport}},
		{"write", true, []Toolset{ToolsetWrite}},
	} {
		got, err := ParseToolsets(c.spec, c.writes)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseToolsets(%q, %v) = %v, %v; want %v", c.spec, c.writes, got, err, c.want)
		}
	}
	for _, spec := range []string{"", " , ", "schema,tables", "admin"} {
		_, err := ParseToolsets(spec, true)
		if err == nil || !strings.Contains(err.Error(), "valid: schema, query, jobs, write, export, semantic, or all") {
			t.Errorf("ParseToolsets(%q): %v, want an error listing the valid toolsets", spec, err)
		}
	}
}

func TestToolsetSettingsThatContradictFailValidation(t *testing.T) {
	valid := Defaults()
	valid.Project = "p"
	for _, c := range []struct {
		name string
		edit func(*Config)
		want string // "" for valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"read-only", func(c *Config) { c.ReadOnly = true }, ""},
		{"write with allow-writes", func(c *Config) { c.Toolsets, c.AllowWrites = []Toolset{ToolsetWrite}, true }, ""},
		{"read-only with allow-writes", func(c *Config) { c.ReadOnly, c.AllowWrites = true, true }, "read-only and allow-writes contradict"},
		{"write without allow-writes", func(c *Config) { c.Toolsets = []Toolset{ToolsetQuery, ToolsetWrite} }, "write (insert_rows) needs allow-writes"},
		{"unknown", func(c *Config) { c.Toolsets = []Toolset{"admin"} }, `unknown toolset "admin"`},
		{"empty", func(c *Config) { c.Toolsets = []Toolset{} }, "no toolset chosen"},
	} {
		cfg := valid
		c.edit(&cfg)
		err := cfg.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// The semantic toolset is chosen like any other when a manifest is
// configured, and never listed without one.
func TestWithSemantic(t *testing.T) {
	for _, c := range []struct {
		sets     []Toolset
		manifest bool
		want     []Toolset
	}{
		{nil, true, DefaultToolsets()},
		{nil, false, []Toolset{ToolsetSchema, ToolsetQuery, ToolsetJobs}},
		{[]Toolset{ToolsetQuery}, true, []Toolset{ToolsetQuery}},
		{[]Toolset{ToolsetQuery, ToolsetSemantic}, true, []Toolset{ToolsetQuery, ToolsetSemantic}},
		{[]Toolset{ToolsetQuery, ToolsetSemantic}, false, []Toolset{ToolsetQuery}},
	} {
		if got := withSemantic(c.sets, c.manifest); !slices.Equal(got, c.want) {
			t.Errorf("withSemantic(%v, %v) = %v, want %v", c.sets, c.manifest, got, c.want)
		}
	}
}
