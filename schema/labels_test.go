package schema

import (
	"context"
	"maps"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// search_columns' INFORMATION_SCHEMA queries are jobs, and carry the
// call's labels like every other.
func TestSearchJobsCarryTheCallsLabels(t *testing.T) {
	meta := bqfake.New(t)
	meta.AddDataset("a", "US")
	answerColumnPaths(meta, false)
	s := newSearchService(t, meta)
	labels := map[string]string{"mcp_server": "bigquery-mcp", "mcp_tool": "search_columns", "team": "data"}
	ctx := governance.WithJobLabels(context.Background(), labels)
	if _, err := s.SearchColumns(ctx, SearchInput{Query: "customer", Method: "information_schema"}); err != nil {
		t.Fatal(err)
	}
	if len(queries(meta)) != 1 {
		t.Fatalf("%d INFORMATION_SCHEMA queries, want 1", len(queries(meta)))
	}
	if got := queries(meta)[0].Labels; !maps.Equal(got, labels) {
		t.Errorf("labels = %v, want %v", got, labels)
	}
}
