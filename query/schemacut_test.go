package query

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
)

// A dry run of SELECT * over a wide, nested table reports the leading
// columns within its budget, and says it cut them.
func TestCutSchemaKeepsLeadingColumnsWithinBudget(t *testing.T) {
	var cols []bqtype.Column
	for i := range 300 {
		cols = append(cols, bqtype.Column{Name: fmt.Sprintf("c%03d", i), Type: "STRUCT", Mode: "NULLABLE", Fields: []bqtype.Column{
			{Name: "inner", Type: "STRUCT", Mode: "NULLABLE", Fields: []bqtype.Column{{Name: "deep", Type: "INT64", Mode: "NULLABLE"}}}}})
	}
	kept, omitted, nested := cutSchema(cols, maxDryRunSchemaBytes)
	b, _ := json.Marshal(kept)
	if len(b) > maxDryRunSchemaBytes || omitted == 0 || len(kept)+omitted != 300 || !nested || kept[0].Name != "c000" {
		t.Fatalf("%d bytes, %d kept, %d omitted, nested %v", len(b), len(kept), omitted, nested)
	}
	if kept[0].Fields[0].Fields != nil || cols[0].Fields[0].Fields == nil {
		t.Error("deep fields kept, or the input was changed")
	}
	if note := schemaCutNote(len(kept), omitted, nested); !strings.Contains(note, fmt.Sprintf("%d of 300", len(kept))) || !strings.Contains(note, "get_table_schema") {
		t.Errorf("note = %q", note)
	}
	small := cols[:3]
	if k, o, n := cutSchema(small, maxDryRunSchemaBytes); len(k) != 3 || o != 0 || n {
		t.Errorf("a small schema was cut: %d kept, %d omitted, nested %v", len(k), o, n)
	}
}
