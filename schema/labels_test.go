package schema

import (
	"context"
	"maps"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// search_columns' INFORMATION_SCHEMA queries are jobs, and carry the
// call's labels like every other.
func TestSearchJobsCarryTheCallsLabels(t *testing.T) {
	meta := newFake()
	meta.addDataset("a", "US")
	f := &infoSchemaFake{fakeBigQuery: meta}
	s := newSearchService(t, f)
	labels := map[string]string{"mcp_server": "bigquery-mcp", "mcp_tool": "search_columns", "team": "data"}
	ctx := governance.WithJobLabels(context.Background(), labels)
	if _, err := s.SearchColumns(ctx, SearchInput{Query: "customer", Method: "information_schema"}); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.queries) != 1 {
		t.Fatalf("%d INFORMATION_SCHEMA queries, want 1", len(f.queries))
	}
	if got := f.queries[0].Labels; !maps.Equal(got, labels) {
		t.Errorf("labels = %v, want %v", got, labels)
	}
}
