package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
)

// appResultsFile is the app's result types, generated from the output
// schemas of the tools it shows (appTools): the schemas docs/tools.md
// documents and the server would advertise as outputSchema.
var appResultsFile = filepath.Join("..", "ui", "src", "results.ts")

// TestAppResultTypes fails when ui/src/results.ts is not what the tools'
// output schemas give, so the app cannot read a field a result does not
// have, or miss that one became optional; TestAppTypeChecks (ui) then
// checks the app against it. `go test ./server -run TestAppResultTypes
// -update` rewrites it; rebuild the app after (make ui).
func TestAppResultTypes(t *testing.T) {
	got, err := appResultTypes()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(appResultsFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(appResultsFile)
	if err != nil || string(want) != got {
		t.Errorf("ui/src/results.ts is not what the tools' output schemas give: run go test ./server -run TestAppResultTypes -update, then make ui")
	}
}

// appResultTypes renders a TypeScript interface per tool in appTools from
// its output schema, and Column, which every one of them uses for a
// result's or a table's columns.
//
// The rules: a property not in required is optional (?). A Go slice, map or
// pointer is inferred as ["null", T]; where it is optional it is T, since
// encoding/json leaves out a nil one with omitempty rather than writing
// null, and where it is required it is T | null. Anything the rules do not
// cover is an error, not a guess.
func appResultTypes() (string, error) {
	var b strings.Builder
	b.WriteString("// The results of the tools the app shows, generated from their output\n")
	b.WriteString("// schemas (docs/tools.md) by server/appresults_test.go: do not edit. After a\n")
	b.WriteString("// tool's result changes, run `go test ./server -run TestAppResultTypes -update`\n")
	b.WriteString("// and `make ui`.\n")

	column := columnSchema()
	g := tsGen{column: column}
	b.WriteString("\n// A column of a result or a table (bqtype.Column); a STRUCT's fields are columns too.\nexport interface Column ")
	if f := column.Properties["fields"]; f == nil || f.Type != "array" || f.Items == nil || f.Items.Type != "object" || len(f.Items.Properties) != 0 {
		return "", fmt.Errorf("the Column schema's fields are no longer an array of objects: change the generator")
	}
	body, err := g.object(column, "", map[string]string{"fields": "Column[]"})
	if err != nil {
		return "", fmt.Errorf("Column: %w", err)
	}
	b.WriteString(body + "\n")

	specs := map[string]toolSpec{}
	for _, s := range Tools(Services{}, false) {
		specs[s.tool.Name] = s.toolSpec
	}
	var byTool strings.Builder
	for _, name := range slices.Concat(appTools, appCalls) {
		s, ok := specs[name]
		if !ok {
			return "", fmt.Errorf("the app shows %s, which is not a tool", name)
		}
		body, err := g.object(s.out(), "", nil)
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(&b, "\n// %s's result.\nexport interface %s %s\n", name, resultTypeName(name), body)
		fmt.Fprintf(&byTool, "  %s: %s;\n", name, resultTypeName(name))
	}
	b.WriteString("\n// The result of each tool the app shows, by the tool's name.\nexport interface ToolResults {\n" + byTool.String() + "}\n")
	return b.String(), nil
}

// columnSchema is the schema every bqtype.Column is given (schemaOptions).
func columnSchema() *jsonschema.Schema {
	return schemaOptions.TypeSchemas[reflect.TypeFor[bqtype.Column]()]
}

// resultTypeName is execute_sql → ExecuteSQLResult.
func resultTypeName(tool string) string {
	var b strings.Builder
	for _, w := range strings.Split(tool, "_") {
		if w == "sql" {
			b.WriteString("SQL")
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String() + "Result"
}

type tsGen struct {
	column *jsonschema.Schema
}

// object renders an object schema with properties as a TypeScript object
// type, indented by indent; override gives some properties' types.
func (g tsGen) object(s *jsonschema.Schema, indent string, override map[string]string) (string, error) {
	if s.Type != "object" && !slices.Equal(s.Types, []string{"null", "object"}) || len(s.Properties) == 0 {
		return "", fmt.Errorf("not an object with properties")
	}
	names := s.PropertyOrder
	if len(names) == 0 {
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	var b strings.Builder
	b.WriteString("{\n")
	for _, n := range names {
		p := s.Properties[n]
		required := slices.Contains(s.Required, n)
		t, ok := override[n]
		if !ok {
			var err error
			if t, err = g.value(p, indent+"  ", required); err != nil {
				return "", fmt.Errorf("%s: %w", n, err)
			}
		}
		if p.Description != "" {
			fmt.Fprintf(&b, "%s  // %s\n", indent, strings.Join(strings.Fields(p.Description), " "))
		}
		opt := "?"
		if required {
			opt = ""
		}
		fmt.Fprintf(&b, "%s  %s%s: %s;\n", indent, n, opt, t)
	}
	for _, r := range s.Required {
		if s.Properties[r] == nil {
			return "", fmt.Errorf("%s is required but not a property", r)
		}
	}
	b.WriteString(indent + "}")
	return b.String(), nil
}

// value renders a property's schema; nullable says whether null stays in a
// ["null", T] union (see appResultTypes).
func (g tsGen) value(s *jsonschema.Schema, indent string, nullable bool) (string, error) {
	u, err := g.union(s, indent, nullable)
	return strings.Join(u, " | "), err
}

// union is value as the members of a union.
func (g tsGen) union(s *jsonschema.Schema, indent string, nullable bool) ([]string, error) {
	if sameSchema(s, g.column) {
		return []string{"Column"}, nil
	}
	if sameSchema(s, anyValue) {
		return []string{"unknown"}, nil
	}
	if len(s.AnyOf) > 0 || len(s.OneOf) > 0 || len(s.AllOf) > 0 || s.Not != nil || len(s.Enum) > 0 || s.Const != nil || s.Ref != "" {
		return nil, fmt.Errorf("unsupported schema %s", jsonOf(s))
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if len(types) == 0 {
		return nil, fmt.Errorf("no type in %s", jsonOf(s))
	}
	var out []string
	for _, t := range types {
		switch t {
		case "null":
			if nullable {
				out = append(out, "null")
			}
		case "string", "boolean", "number":
			out = append(out, t)
		case "integer":
			out = append(out, "number")
		case "array":
			if s.Items == nil {
				out = append(out, "unknown[]")
				continue
			}
			items, err := g.union(s.Items, indent, true)
			if err != nil {
				return nil, fmt.Errorf("items: %w", err)
			}
			item := strings.Join(items, " | ")
			if len(items) > 1 {
				item = "(" + item + ")"
			}
			out = append(out, item+"[]")
		case "object":
			switch {
			case len(s.Properties) > 0:
				o, err := g.object(s, indent, nil)
				if err != nil {
					return nil, err
				}
				out = append(out, o)
			case s.AdditionalProperties != nil && s.AdditionalProperties.Not == nil:
				v, err := g.value(s.AdditionalProperties, indent, true)
				if err != nil {
					return nil, fmt.Errorf("additionalProperties: %w", err)
				}
				out = append(out, "Record<string, "+v+">")
			default:
				out = append(out, "Record<string, unknown>")
			}
		default:
			return nil, fmt.Errorf("unknown type %q", t)
		}
	}
	// Nulls last: T | null.
	sort.SliceStable(out, func(i, j int) bool { return out[j] == "null" && out[i] != "null" })
	return out, nil
}

func sameSchema(a, b *jsonschema.Schema) bool {
	return jsonOf(a) == jsonOf(b)
}

func jsonOf(s *jsonschema.Schema) string {
	j, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(j)
}
