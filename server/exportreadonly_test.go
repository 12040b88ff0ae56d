package server

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
)

// exportingBigQuery answers what an export sends, as the REST reference
// documents: the dry run and the query job (a SELECT whose result lands in
// an anonymous table), the copy job and the exported table's patch, the
// extract job and the result table's tables.get. Every job is kept.
func exportingBigQuery(t *testing.T) *bqfake.Fake {
	t.Helper()
	fake := bqfake.New(t)
	schema := &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "n", Type: "INTEGER"}}}
	anon := &bq.TableReference{ProjectId: "p", DatasetId: "_anon", TableId: "anon1"}
	fake.AddTable(&bq.Table{TableReference: anon, NumBytes: 16, Schema: schema},
		&bq.TableRow{F: []*bq.TableCell{{V: "1"}}}, &bq.TableRow{F: []*bq.TableCell{{V: "2"}}})
	fake.OnJob(func(job *bq.Job) {
		switch c := job.Configuration; {
		case c.DryRun:
			job.Statistics = &bq.JobStatistics{TotalBytesProcessed: 100, Query: &bq.JobStatistics2{StatementType: "SELECT", TotalBytesProcessed: 100, Schema: schema}}
		case c.Query != nil:
			c.Query.DestinationTable = anon
			job.Statistics = &bq.JobStatistics{TotalBytesProcessed: 100, Query: &bq.JobStatistics2{StatementType: "SELECT", TotalBytesBilled: 10 << 20, Schema: schema}}
		case c.Extract != nil:
			job.Statistics = &bq.JobStatistics{Extract: &bq.JobStatistics4{DestinationUriFileCounts: []int64{2}}}
		}
	})
	return fake
}

// jobsOf lists the kept jobs of one kind: "copy", "extract" or "query".
func jobsOf(fake *bqfake.Fake, kind string) []*bq.Job {
	var out []*bq.Job
	for _, j := range fake.Jobs() {
		c := j.Configuration
		if (kind == "copy" && c.Copy != nil) || (kind == "extract" && c.Extract != nil) || (kind == "query" && c.Query != nil && !c.DryRun) {
			out = append(out, j)
		}
	}
	return out
}

// TestExportOnAReadOnlyServer: --read-only lists export_results (with the
// export toolset) and a table export works there, into --export-dataset
// although --datasets does not name it (the allowlist includes the export
// dataset implicitly); a statement that is not a SELECT is still refused
// before any job; on http with --export-gcs the default destination is
// Cloud Storage and the answer links every object.
func TestExportOnAReadOnlyServer(t *testing.T) {
	fake := exportingBigQuery(t)
	cfg := Defaults()
	cfg.Project, cfg.Endpoint, cfg.Auth = "p", fake.URL, auth.None
	cfg.ReadOnly, cfg.Toolsets, cfg.Governance.Datasets = true, []Toolset{ToolsetQuery, ToolsetExport}, "sales"
	cfg.Export.Dataset, cfg.Export.GCS, cfg.Export.Destination = "exports", "gs://bkt/pfx", "gcs"
	b, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	cs := connect(t, b.MCP, "", nil)
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || !slices.ContainsFunc(tools.Tools, func(t *mcp.Tool) bool { return t.Name == "export_results" }) {
		t.Fatalf("a read-only server with the export toolset does not list export_results: %v", err)
	}
	call := func(args map[string]any) (*mcp.CallToolResult, map[string]any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "export_results", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		if res.IsError && len(res.Content) > 0 {
			b = []byte(res.Content[0].(*mcp.TextContent).Text) // the structured error
		}
		json.Unmarshal(b, &out)
		return res, out
	}

	res, out := call(map[string]any{"sql": "SELECT 1 AS n", "destination": "table", "name": "campaign"})
	if res.IsError || out["uri"] != "bigquery://p/exports/campaign" {
		t.Fatalf("table export on a read-only server: %+v", out)
	}
	if cp := jobsOf(fake, "copy"); len(cp) != 1 || cp[0].Configuration.Copy.DestinationTable.DatasetId != "exports" {
		t.Errorf("copy jobs = %v", cp)
	}

	before := len(jobsOf(fake, "query"))
	res, out = call(map[string]any{"sql": "DELETE FROM sales.orders WHERE true", "destination": "table"})
	if !res.IsError || out["code"] != string(bqerr.InvalidArgument) || len(jobsOf(fake, "query")) != before {
		t.Errorf("a DELETE exported on a read-only server: %+v", out)
	}

	res, out = call(map[string]any{"sql": "SELECT 2 AS n", "format": "parquet", "name": "q/one"})
	if res.IsError || out["destination"] != "gcs" || out["uri"] != "gs://bkt/pfx/q/one/" {
		t.Fatalf("default (gcs) export: %+v", out)
	}
	var links []string
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			links = append(links, l.URI)
		}
	}
	want := []string{"gs://bkt/pfx/q/one/part-000000000000.parquet", "gs://bkt/pfx/q/one/part-000000000001.parquet"}
	if !slices.Equal(links, want) {
		t.Errorf("links %v, want %v", links, want)
	}
	if ex := jobsOf(fake, "extract"); len(ex) != 1 || ex[0].Configuration.Extract.DestinationUris[0] != "gs://bkt/pfx/q/one/part-*.parquet" ||
		ex[0].Configuration.Labels["mcp_tool"] != "export_results" {
		t.Errorf("extract jobs = %+v", ex)
	}
}

// TestExportSettingsAreChecked: --export-gcs must be gs://bucket[/prefix],
// and gcs cannot be the default destination without it.
func TestExportSettingsAreChecked(t *testing.T) {
	for _, c := range []struct{ gcs, dest, want string }{
		{"s3://bkt", "", "export-gcs"},
		{"gs://bkt/a*", "", "export-gcs"},
		{"", "gcs", "needs export-gcs"},
		{"gs://bkt", "ftp", "must be file, table or gcs"},
	} {
		cfg := Defaults()
		cfg.Export.GCS, cfg.Export.Destination = c.gcs, c.dest
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("export-gcs %q, destination %q: %v, want an error saying %q", c.gcs, c.dest, err, c.want)
		}
	}
	cfg := Defaults()
	cfg.Export.GCS, cfg.Export.Destination = "gs://bkt/team/exports/", "gcs"
	if err := cfg.Validate(); err != nil {
		t.Errorf("a valid --export-gcs: %v", err)
	}
}
