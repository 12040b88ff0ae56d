package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
)

// wide is a table of n STRING columns, each with a 150-byte description.
func wide(n int) *TableSchema {
	s := &TableSchema{Table: "p.d.wide", Type: "TABLE", Columns: []bqtype.Column{}}
	for i := range n {
		s.Columns = append(s.Columns, bqtype.Column{Name: fmt.Sprintf("column_%03d", i), Type: "STRING", Mode: "NULLABLE",
			Description: strings.Repeat(fmt.Sprintf("what column %d holds. ", i), 8)[:150]})
	}
	return s
}

func encoded(t *testing.T, s *TableSchema) int {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

func opts(t *testing.T, in GetTableSchemaInput) cutOptions {
	t.Helper()
	o, err := newCutOptions(in)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// A 100-column table with descriptions is ~22 KB whole; by default it keeps
// every column within 6 KB, drops the descriptions and says so.
func TestCutHundredColumnsFitsBudget(t *testing.T) {
	full := wide(100)
	t.Logf("whole: %d bytes", encoded(t, full))
	got := cut(full, opts(t, GetTableSchemaInput{}))
	n := encoded(t, got)
	t.Logf("default cut: %d bytes", n)
	if n > MaxSchemaBytes || len(got.Columns) != 100 || got.OmittedColumns != 0 {
		t.Fatalf("%d bytes, %d columns, %d omitted", n, len(got.Columns), got.OmittedColumns)
	}
	if !got.Truncated || !strings.Contains(got.Hint, "descriptions") || got.Columns[0].Description != "" {
		t.Errorf("descriptions cut without saying so: truncated=%v hint=%q", got.Truncated, got.Hint)
	}
	if full.Columns[0].Description == "" {
		t.Error("cut changed the cached schema")
	}
	ddl := cut(full, opts(t, GetTableSchemaInput{Format: FormatDDL}))
	t.Logf("ddl: %d bytes (%d of them DDL)", encoded(t, ddl), len(ddl.DDL))
	if strings.Count(ddl.DDL, "\n") != 100 || !strings.HasPrefix(ddl.DDL, "column_000 STRING\n") || len(ddl.Columns) != 0 {
		t.Errorf("ddl = %.200q, columns %d", ddl.DDL, len(ddl.Columns))
	}
	// Asked for, descriptions still go before any column does: an agent
	// needs every column name more than any description.
	yes := true
	for _, format := range []string{FormatJSON, FormatDDL} {
		desc := cut(full, opts(t, GetTableSchemaInput{IncludeDescriptions: &yes, Format: format}))
		if n := encoded(t, desc); n > MaxSchemaBytes || desc.OmittedColumns != 0 || strings.Contains(desc.DDL, "--") ||
			!strings.Contains(desc.Hint, "descriptions left out") {
			t.Errorf("%s with descriptions asked for: %d bytes, %d omitted, hint %q", format, n, desc.OmittedColumns, desc.Hint)
		}
		if format == FormatJSON && (len(desc.Columns) != 100 || desc.Columns[0].Description != "") {
			t.Errorf("with descriptions asked for: %d columns, first description %q", len(desc.Columns), desc.Columns[0].Description)
		}
	}
}

// Descriptions that fit once shortened are shortened, not dropped, nested
// fields' too; every column stays.
func TestCutShortensDescriptionsBeforeDroppingThem(t *testing.T) {
	long := strings.Repeat("a long description. ", 20) // 400 bytes
	full := &TableSchema{Table: "p.d.t", Type: "TABLE", Columns: []bqtype.Column{}}
	for i := range 12 {
		full.Columns = append(full.Columns, bqtype.Column{Name: fmt.Sprintf("c%02d", i), Type: "STRING", Description: long})
	}
	full.Columns = append(full.Columns, bqtype.Column{Name: "s", Type: "STRUCT", Description: long,
		Fields: []bqtype.Column{{Name: "f", Type: "INT64", Description: long}}})
	if encoded(t, full) <= MaxSchemaBytes {
		t.Fatalf("the test table fits whole (%d bytes)", encoded(t, full))
	}
	yes := true
	for name, in := range map[string]GetTableSchemaInput{"default": {}, "asked for": {IncludeDescriptions: &yes}} {
		got := cut(full, opts(t, in))
		if n := encoded(t, got); n > MaxSchemaBytes || len(got.Columns) != 13 || got.OmittedColumns != 0 ||
			!strings.Contains(got.Hint, "descriptions shortened") {
			t.Fatalf("%s: %d bytes, %d columns, hint %q", name, n, len(got.Columns), got.Hint)
		}
		for _, d := range []string{got.Columns[0].Description, got.Columns[12].Description, got.Columns[12].Fields[0].Description} {
			if r := []rune(d); len(r) != shortDescriptionRunes || !strings.HasPrefix(long, string(r[:len(r)-1])) || r[len(r)-1] != '…' {
				t.Errorf("%s: description %q, want the first %d runes ending in …", name, d, shortDescriptionRunes)
			}
		}
	}
	if full.Columns[12].Fields[0].Description != long {
		t.Error("cut changed the cached schema's nested description")
	}
	no := false
	if got := cut(full, opts(t, GetTableSchemaInput{IncludeDescriptions: &no})); got.Columns[0].Description != "" || got.Truncated {
		t.Errorf("includeDescriptions false: %q, truncated %v", got.Columns[0].Description, got.Truncated)
	}
}

// A table too wide even without descriptions shows the columns that fit and
// names the first one left out.
func TestCutOmitsColumnsAndSaysWhich(t *testing.T) {
	got := cut(wide(500), opts(t, GetTableSchemaInput{}))
	if encoded(t, got) > MaxSchemaBytes || got.OmittedColumns == 0 || len(got.Columns)+got.OmittedColumns != 500 || !got.Truncated {
		t.Fatalf("%d bytes, %d shown, %d omitted", encoded(t, got), len(got.Columns), got.OmittedColumns)
	}
	next := fmt.Sprintf("column_%03d", len(got.Columns))
	if !strings.Contains(got.Hint, next) {
		t.Errorf("hint does not name %s: %q", next, got.Hint)
	}
	// The rest can be read by pattern.
	rest := cut(wide(500), opts(t, GetTableSchemaInput{Columns: []string{"column_4*"}}))
	if len(rest.Columns) != 100 || rest.MatchedColumns != 100 || rest.Columns[0].Name != "column_400" {
		t.Errorf("pattern: %d columns from %s", len(rest.Columns), rest.Columns[0].Name)
	}
}

func TestCutDepthViewAndFilter(t *testing.T) {
	leaf := bqtype.Column{Name: "leaf", Type: "INT64", Mode: "NULLABLE"}
	mid := bqtype.Column{Name: "mid", Type: "STRUCT", Mode: "REPEATED", Fields: []bqtype.Column{leaf}}
	top := bqtype.Column{Name: "Top", Type: "STRUCT", Mode: "NULLABLE", Fields: []bqtype.Column{mid}}
	full := &TableSchema{Table: "p.d.v", Type: "VIEW", Columns: []bqtype.Column{top, leaf}, ViewQuery: "SELECT " + strings.Repeat("x, ", 1000) + "1"}
	got := cut(full, opts(t, GetTableSchemaInput{}))
	if got.Columns[0].Fields[0].Fields != nil || !got.Truncated || !strings.Contains(got.Hint, "maxDepth") {
		t.Errorf("depth 2 kept level 3: %+v hint %q", got.Columns[0], got.Hint)
	}
	if len(got.ViewQuery) != MaxViewQueryBytes || !got.ViewQueryTruncated || !strings.Contains(got.Hint, "fullViewQuery") {
		t.Errorf("view SQL %d bytes, flagged %v", len(got.ViewQuery), got.ViewQueryTruncated)
	}
	whole := cut(full, opts(t, GetTableSchemaInput{MaxDepth: 3, FullViewQuery: true, Columns: []string{"top"}}))
	if len(whole.Columns) != 1 || whole.Columns[0].Fields[0].Fields == nil || whole.ViewQuery != full.ViewQuery || whole.Truncated {
		t.Errorf("asked for everything: %+v truncated=%v", whole.Columns, whole.Truncated)
	}
	ddl := cut(full, opts(t, GetTableSchemaInput{MaxDepth: 3, Format: FormatDDL, Columns: []string{"top"}}))
	if ddl.DDL != "Top STRUCT<mid ARRAY<STRUCT<leaf INT64>>>\n" {
		t.Errorf("ddl = %q", ddl.DDL)
	}
	for _, in := range []GetTableSchemaInput{{MaxDepth: -1}, {Format: "yaml"}, {Columns: []string{"[x"}}} {
		if _, err := newCutOptions(in); err == nil {
			t.Errorf("%+v accepted", in)
		}
	}
}
