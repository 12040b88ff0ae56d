package server

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/bigquery-mcp/bigquery-mcp/ui"
)

// toolReference renders docs/tools.md from the tool definitions, so the
// reference can never drift from what tools/list says.
func toolReference() string {
	var b strings.Builder
	b.WriteString("# Tool reference\n\n")
	b.WriteString("<!-- Generated from the tool definitions by `make docs`; do not edit by hand. -->\n\n")
	b.WriteString("Every tool returns its result as JSON in both `structuredContent` and a text block. ")
	b.WriteString("Every failure is a result with `isError: true` whose text is the structured error described in [errors.md](errors.md).\n\n")
	b.WriteString("Tools advertise no `outputSchema`: the result shapes below are documented here instead. ")
	b.WriteString("Output schemas were 55% of `tools/list` (11.7 of 21.4 KB), which every session pays for, while the hosts that feed tools to models ignore them; ")
	b.WriteString("the spec asks results to conform when one is given, and ours still carry the same JSON in `structuredContent` and the text block. ")
	b.WriteString("`tools/list` is held under 8 KB by a test.\n\n")
	b.WriteString("Table schemas are also resources, `bigquery://{project}/{dataset}/{table}` (get_table_schema's default answer), ")
	b.WriteString("with completion of the `dataset` and `table` arguments.\n\n")
	b.WriteString("**Views (MCP Apps).** For a client that declares the `io.modelcontextprotocol/ui` extension with the MIME type `text/html;profile=mcp-app`, ")
	b.WriteString("the tools marked *view* below carry `_meta.ui.resourceUri: \"" + ui.URI + "\"`, and the host shows their results in that app (a table, a chart, a schema tree or a cost card; see the README). ")
	b.WriteString("Every other client's `tools/list` is the one documented here, byte for byte.\n\n")
	b.WriteString("| Tool | Read-only | Destructive | Idempotent | Open world |\n|---|---|---|---|---|\n")
	ro := Tools(Services{}, false)
	samples := toolSamples()
	for _, t := range ro {
		a := t.tool.Annotations
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s | %s |\n", t.tool.Name, t.tool.Name, yes(a.ReadOnlyHint), yes(*a.DestructiveHint), yes(a.IdempotentHint), yes(*a.OpenWorldHint))
	}
	b.WriteString("\nWith `--allow-writes`, `execute_sql` is annotated read-only: no, destructive: yes, idempotent: no.\n")
	for _, t := range ro {
		fmt.Fprintf(&b, "\n## %s\n\n", t.tool.Name)
		b.WriteString(t.tool.Description + "\n")
		if view, ok := appViews[t.tool.Name]; ok {
			b.WriteString("\n*View* (MCP Apps clients): " + view + ".\n")
		}
		in, _ := t.tool.InputSchema.(*jsonschema.Schema)
		b.WriteString("\n**Input**\n\n")
		writeProps(&b, in)
		b.WriteString("\n**Output**\n\n")
		writeProps(&b, t.out())
		if sample, ok := samples[t.tool.Name]; ok {
			j, err := json.MarshalIndent(sample, "", "  ")
			if err != nil {
				panic(err)
			}
			b.WriteString("\n**Sample answer**\n\n```json\n" + string(j) + "\n```\n")
		}
	}
	return b.String()
}

func writeProps(b *strings.Builder, s *jsonschema.Schema) {
	if s == nil || len(s.Properties) == 0 {
		b.WriteString("None.\n")
		return
	}
	b.WriteString("| Field | Type | Required | Description |\n|---|---|---|---|\n")
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	names := s.PropertyOrder
	if len(names) == 0 {
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	for _, n := range names {
		p := s.Properties[n]
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", n, typeName(p), yes(required[n]), strings.ReplaceAll(p.Description, "|", "\\|"))
	}
}

func typeName(s *jsonschema.Schema) string {
	if s == nil {
		return "any"
	}
	t := s.Type
	if t == "" && len(s.Types) > 0 {
		var parts []string
		for _, x := range s.Types {
			if x != "null" {
				parts = append(parts, x)
			}
		}
		t = strings.Join(parts, " or ")
	}
	switch t {
	case "":
		return "any"
	case "array":
		return "array of " + typeName(s.Items)
	}
	return t
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
