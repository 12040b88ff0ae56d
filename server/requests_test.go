package server

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
)

// routesSent are the routes of the requests the fake received after the
// first n, in order; a dry run is "jobs.insert (dry run)".
func routesSent(fake *bqfake.Fake, n int) []string {
	var out []string
	for _, r := range fake.Requests(bqfake.Any)[n:] {
		route := string(r.Route)
		if r.Job != nil && r.Job.Configuration != nil && r.Job.Configuration.DryRun {
			route += " (dry run)"
		}
		out = append(out, route)
	}
	return out
}

// A small read-only query costs two BigQuery requests the first time its
// text is seen (the dry run, whose statement type the read-only check
// needs, and jobs.query) and one after (jobs.query), counted at the wire
// with the whole server and its real metadata catalog, over a table that
// requires a partition filter: nothing is looked up before the dry run
// (issue 36: a tables.get there made it three). docs/performance.md
// records the same counts from make bench.
func TestSmallQueryRequestsAtTheWire(t *testing.T) {
	fake := bqfake.New(t)
	fake.AddDataset("sales", "US")
	fake.AddTable(&bq.Table{
		TableReference:   &bq.TableReference{ProjectId: "p", DatasetId: "sales", TableId: "t"},
		Schema:           bqfake.Columns("n INTEGER", "day DATE"),
		TimePartitioning: &bq.TimePartitioning{Type: "DAY", Field: "day", RequirePartitionFilter: true},
	})
	fake.QueryResult(bqfake.Columns("n INTEGER"), bqfake.Row("1"))
	fake.OnJob(func(j *bq.Job) {
		j.Statistics.TotalBytesProcessed = 1 << 20
		j.Statistics.Query.TotalBytesProcessed = 1 << 20
		j.Statistics.Query.ReferencedTables = []*bq.TableReference{{ProjectId: "p", DatasetId: "sales", TableId: "t"}}
	})
	cfg := Defaults()
	cfg.Project, cfg.Endpoint, cfg.Auth = "p", fake.URL, auth.None
	b, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	cs := connect(t, b.MCP, "", nil)
	run := func(sql string) []string {
		t.Helper()
		before := fake.Count(bqfake.Any)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute_sql", Arguments: map[string]any{"sql": sql}})
		if err != nil || res.IsError {
			t.Fatalf("execute_sql %q: %v %+v", sql, err, res)
		}
		return routesSent(fake, before)
	}
	for i, sql := range []string{"SELECT n FROM sales.t WHERE day = CURRENT_DATE()", "SELECT n FROM sales.t WHERE day = '2026-01-01'"} {
		if got, want := strings.Join(run(sql), ", "), "jobs.insert (dry run), jobs.query"; got != want {
			t.Errorf("cold query %d sent %s, want %s", i+1, got, want)
		}
		if got, want := strings.Join(run(sql), ", "), "jobs.query"; got != want {
			t.Errorf("warm query %d sent %s, want %s", i+1, got, want)
		}
	}
}
