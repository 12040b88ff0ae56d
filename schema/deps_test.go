package schema

import (
	"os/exec"
	"strings"
	"testing"
)

// schema and query are siblings: preview_table shares row encoding with
// execute_sql through package rows, not by importing query. An import of
// query (or anything that imports it) would make every change to query's
// preflight rebuild and retest schema, and let the two grow into one.
func TestSchemaDoesNotImportQuery(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/bigquery-mcp/bigquery-mcp/query" {
			t.Fatal("schema depends on query; share code through a leaf package such as rows")
		}
	}
}
