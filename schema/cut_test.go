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
	// Asked for, descriptions stay, and the column list is cut instead.
	yes := true
	desc := cut(full, opts(t, GetTableSchemaInput{IncludeDescriptions: &yes}))
	if encoded(t, desc) > MaxSchemaBytes || desc.Columns[0].Description == "" || desc.OmittedColumns == 0 ||
		desc.OmittedColumns+len(desc.Columns) != 100 || !strings.Contains(desc.Hint, desc.Columns[len(desc.Columns)-1].Name[:7]) {
		t.Errorf("with descriptions: %d bytes, %d shown, %d omitted, hint %q", encoded(t, desc), len(desc.Columns), desc.OmittedColumns, desc.Hint)
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
