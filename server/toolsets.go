package server

import (
	"fmt"
	"slices"
	"strings"
)

// A Toolset is a group of tools that --toolsets lists or hides together,
// so a deployment shows an agent only the tools its job needs (and pays
// tools/list bytes only for those).
type Toolset string

// The toolsets. Tools in no toolset (health, usage) are always listed.
const (
	ToolsetSchema Toolset = "schema" // datasets, tables, schemas, previews, column search
	ToolsetQuery  Toolset = "query"  // execute_sql, dry_run_sql, get_query_results
	ToolsetJobs   Toolset = "jobs"   // get_job, cancel_job
	ToolsetWrite  Toolset = "write"  // insert_rows; only with --allow-writes
	// ToolsetExport is export_results. It writes files, tables and Cloud
	// Storage objects, so it is listed only when asked for. It needs no
	// --allow-writes and stays under --read-only: it runs only SELECTs
	// (the read-only guard holds) and writes only where the operator said
	// (--export-dir, --export-dataset, --export-gcs), places nothing else
	// writes to.
	ToolsetExport Toolset = "export"
	// ToolsetSemantic is list_metrics, describe_metrics, query_metrics
	// and get_dimension_values. On by default and chosen like any other,
	// but listed only when a semantic manifest is configured
	// (--semantic-manifest): without one its tools have nothing to answer,
	// and naming it explicitly is a startup error (cmd/bigquery-mcp).
	ToolsetSemantic Toolset = "semantic"
	alwaysOn        Toolset = ""
)

// toolsets are every toolset in documentation order: the order
// ParseToolsets returns them in and its errors name them in. Only this
// package reads the list; unexported, no importer can change what
// --toolsets accepts.
var toolsets = []Toolset{ToolsetSchema, ToolsetQuery, ToolsetJobs, ToolsetWrite, ToolsetExport, ToolsetSemantic}

// DefaultToolsets are listed when none are chosen: everything but writes
// and exports (semantic only with a manifest, see withSemantic).
func DefaultToolsets() []Toolset {
	return []Toolset{ToolsetSchema, ToolsetQuery, ToolsetJobs, ToolsetSemantic}
}

// ParseToolsets reads --toolsets: a comma-separated list of toolset names,
// or "all" for every toolset the server may list (write only when
// allowWrites, since insert_rows is refused without it). Unknown names are
// an error that lists the valid ones.
func ParseToolsets(spec string, allowWrites bool) ([]Toolset, error) {
	chosen := map[Toolset]bool{}
	for _, name := range strings.Split(spec, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		switch {
		case name == "":
		case name == "all":
			for _, t := range toolsets {
				if t != ToolsetWrite || allowWrites {
					chosen[t] = true
				}
			}
		case slices.Contains(toolsets, Toolset(name)):
			chosen[Toolset(name)] = true
		default:
			return nil, fmt.Errorf("toolsets: unknown toolset %q (valid: %s, or all)", name, toolsetNames())
		}
	}
	var out []Toolset
	for _, t := range toolsets {
		if chosen[t] {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("toolsets: %q names no toolset (valid: %s, or all)", spec, toolsetNames())
	}
	return out, nil
}

func toolsetNames() string {
	names := make([]string, len(toolsets))
	for i, t := range toolsets {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// withSemantic keeps the chosen toolsets (nil: the defaults), without
// the semantic one when no manifest is configured: its tools would have
// nothing to answer.
func withSemantic(sets []Toolset, manifest bool) []Toolset {
	if sets == nil {
		sets = DefaultToolsets()
	}
	if manifest {
		return sets
	}
	return slices.DeleteFunc(slices.Clone(sets), func(t Toolset) bool { return t == ToolsetSemantic })
}

// checkToolsets reports the toolset settings that cannot work together.
// --read-only with --allow-writes is refused rather than resolved one way
// or the other: either reading would surprise someone who set the other.
func checkToolsets(sets []Toolset, readOnly, allowWrites bool) []string {
	var problems []string
	for _, t := range sets {
		if !slices.Contains(toolsets, t) {
			problems = append(problems, fmt.Sprintf("toolsets: unknown toolset %q (valid: %s, or all)", t, toolsetNames()))
		}
	}
	if sets != nil && len(sets) == 0 {
		problems = append(problems, "toolsets: no toolset chosen")
	}
	if readOnly && allowWrites {
		problems = append(problems, "read-only and allow-writes contradict each other: set only one (BIGQUERY_ALLOW_WRITES=false or --allow-writes=false turns writes off)")
	}
	if slices.Contains(sets, ToolsetWrite) && !allowWrites {
		problems = append(problems, "toolsets: write (insert_rows) needs allow-writes; add --allow-writes, or drop write from --toolsets")
	}
	return problems
}

// listedTool is one entry of the tool table: a tool and its toolset.
type listedTool struct {
	set Toolset
	toolSpec
}

// selectTools keeps the tools of the chosen toolsets (nil: the defaults)
// and the always-on ones. readOnly then drops every tool whose annotations
// say it may write, whatever toolsets are chosen: the annotations decide,
// not a list of names, so a new writing tool is hidden without anyone
// remembering to. The one exception is the export toolset, whose writes
// go only to the operator's export places (ToolsetExport). The write
// toolset is never listed without allowWrites.
func selectTools(all []listedTool, sets []Toolset, readOnly, allowWrites bool) []listedTool {
	if sets == nil {
		sets = DefaultToolsets()
	}
	var out []listedTool
	for _, t := range all {
		switch {
		case t.set != alwaysOn && !slices.Contains(sets, t.set):
		case t.set == ToolsetWrite && !allowWrites:
		case readOnly && writes(t) && t.set != ToolsetExport:
		default:
			out = append(out, t)
		}
	}
	return out
}

// writes reports whether a tool's annotations say it may change anything:
// a missing annotation counts as writing (MCP's default for readOnlyHint
// is false).
func writes(t listedTool) bool {
	return t.tool.Annotations == nil || !t.tool.Annotations.ReadOnlyHint
}

// guidance is the server's instructions, a sentence at a time; a sentence
// is said only when every tool it names is listed, so hiding tools never
// makes the instructions point at tools the agent cannot see.
var guidance = []struct {
	tools []string
	text  string
}{
	{nil, "BigQuery tools."},
	{[]string{"list_datasets", "list_tables", "search_columns", "get_table_schema", "preview_table"},
		"Explore first: list_datasets, list_tables or search_columns, then get_table_schema for exact column names and types, preview_table (free) for sample rows."},
	{[]string{"dry_run_sql", "execute_sql"},
		"Dry-run any query that may be expensive with dry_run_sql before execute_sql, and follow its advice (a partition filter, fewer columns): each figure says how BigQuery measured it. A query refused or held for its cost carries the same advice in details.advice. Pass values as typed @name parameters instead of pasting them into SQL."},
	{[]string{"list_metrics", "query_metrics"},
		"For business metrics use list_metrics and query_metrics, not your own SQL."},
	{[]string{"export_results"},
		"When the user needs a whole result (a file, a table), use export_results: it writes every row and returns a link, not rows."},
	{nil, "Errors come back as JSON with a stable code, whether a retry can help, and a hint for what to do next."},
}

// instructionsFor returns the guidance that holds for the listed tools.
func instructionsFor(listed []listedTool) string {
	names := map[string]bool{}
	for _, t := range listed {
		names[t.tool.Name] = true
	}
	var parts []string
	for _, g := range guidance {
		if !slices.ContainsFunc(g.tools, func(n string) bool { return !names[n] }) {
			parts = append(parts, g.text)
		}
	}
	return strings.Join(parts, " ")
}
