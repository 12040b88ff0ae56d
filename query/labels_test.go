package query

import (
	"context"
	"maps"
	"testing"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// jobBodies lists the job requests that reached fake: jobs.insert (dry
// runs here) and jobs.query.
func jobBodies(fake *bqfake.Fake) (inserts []*bq.Job, queries []*bq.QueryRequest) {
	for _, r := range fake.Requests(bqfake.JobsInsert) {
		inserts = append(inserts, r.Job)
	}
	for _, r := range fake.Requests(bqfake.JobsQuery) {
		queries = append(queries, r.QueryRequest)
	}
	return inserts, queries
}

// Every job request carries the call's labels: execute_sql's jobs.query,
// the read-only check's dry run before it, and dry_run_sql's dry run. A
// call without labels sends none.
func TestJobRequestsCarryTheCallsLabels(t *testing.T) {
	fake := newPlanBigQuery(t, map[string]plan{})
	s := newTestService(t, fake, func(c *Config) { c.AllowWrites = false }) // the read-only check dry-runs the query first
	labels := map[string]string{"mcp_server": "bigquery-mcp", "mcp_tool": "execute_sql", "mcp_client": "claude-code", "team": "data"}
	ctx := governance.WithJobLabels(context.Background(), labels)

	if _, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT 1"}); err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if _, err := s.DryRun(ctx, DryRunInput{SQL: "SELECT 2"}); err != nil {
		t.Fatalf("DryRun: %v", err)
	}
	if _, err := s.Execute(context.Background(), ExecuteInput{SQL: "SELECT 3"}); err != nil {
		t.Fatalf("Execute without labels: %v", err)
	}

	inserts, queries := jobBodies(fake.Fake)
	if len(queries) != 2 || len(inserts) != 3 {
		t.Fatalf("%d jobs.query and %d jobs.insert requests, want 2 and 3", len(queries), len(inserts))
	}
	if got := queries[0].Labels; !maps.Equal(got, labels) {
		t.Errorf("execute_sql's jobs.query labels = %v, want %v", got, labels)
	}
	for i, what := range []string{"execute_sql's read-only dry run", "dry_run_sql's dry run"} {
		if got := inserts[i].Configuration.Labels; !maps.Equal(got, labels) {
			t.Errorf("%s labels = %v, want %v", what, got, labels)
		}
	}
	if got := queries[1].Labels; len(got) != 0 {
		t.Errorf("a call without labels sent %v", got)
	}
}
