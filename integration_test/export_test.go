package integration_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/export"
	"github.com/bigquery-mcp/bigquery-mcp/server"
)

// exportQuery makes 1,000 rows of most scalar types, a nested column and
// NULLs. No ARRAY: the emulator's Arrow writer (v0.6.6) panics on a
// repeated field ("field has 2000 rows, want 1000").
const exportQuery = `SELECT n AS id,
  CONCAT('row ', CAST(n AS STRING), IF(MOD(n, 7) = 0, ', "quoted"\nline', '')) AS label,
  n * 1.25 AS ratio,
  MOD(n, 2) = 0 AS even,
  CAST(n AS NUMERIC) / 8 AS amount,
  DATE_ADD(DATE '2024-01-01', INTERVAL n DAY) AS day,
  TIMESTAMP_ADD(TIMESTAMP '2024-01-01 00:00:00+00', INTERVAL n SECOND) AS ts,
  IF(MOD(n, 5) = 0, NULL, n * 1000) AS maybe,
  STRUCT(n AS k, CAST(n AS STRING) AS v) AS rec
FROM UNNEST(GENERATE_ARRAY(1, 1000)) AS n`

func exportConfig(t *testing.T, rec *recorder) server.Config {
	t.Helper()
	addr, err := emu.StorageAddr()
	if err != nil {
		t.Fatal(err)
	}
	return exportConfigAt(t, rec, addr)
}

// exportConfigAt is exportConfig reading through the Storage Read
// endpoint at addr.
func exportConfigAt(t *testing.T, rec *recorder, addr string) server.Config {
	t.Helper()
	cfg := testConfig()
	cfg.Toolsets = []server.Toolset{server.ToolsetQuery, server.ToolsetExport}
	cfg.Export.Dir = filepath.Join(t.TempDir(), "exports")
	cfg.StorageEndpoint = addr
	cfg.Logger = slog.New(slog.NewTextHandler(&logBuffer{t: t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if rec != nil {
		cfg.Transport = rec
	}
	return cfg
}

// exportResult calls export_results, which must succeed, and checks its
// resource_link against the structured result.
func exportResult(t *testing.T, cs *mcp.ClientSession, args map[string]any) export.Output {
	t.Helper()
	res := call(t, cs, "export_results", args)
	if res.IsError {
		t.Fatalf("export_results(%v) failed: %s", args, text(res))
	}
	var got, structured export.Output
	if err := json.Unmarshal([]byte(text(res)), &got); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &structured); err != nil || structured.URI != got.URI || structured.Rows != got.Rows {
		t.Fatalf("structured content %s differs from the text %s", b, text(res))
	}
	link, isLink := res.Content[0].(*mcp.ResourceLink)
	if !isLink || link.URI != got.URI || link.Size == nil || *link.Size != got.Bytes {
		t.Fatalf("first content %#v is not a resource_link to %s of %d bytes", res.Content[0], got.URI, got.Bytes)
	}
	return got
}

func filePath(t *testing.T, uri string) string {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		t.Fatalf("uri %q is not a file URI", uri)
	}
	return filepath.FromSlash(u.Path)
}

// executeAll reads every row of sql through execute_sql and
// get_query_results (format objects) in pages of 500, keyed by id, with
// the column order.
func executeAll(t *testing.T, cs *mcp.ClientSession, sql string) (map[int64]json.RawMessage, []string) {
	t.Helper()
	return executeAllPaged(t, cs, sql, 500)
}

// TestExportMatchesExecuteSQL exports a 1,000-row query to JSON Lines and
// to CSV through the emulator's Storage Read API and checks every value
// against what execute_sql returns for the same rows: a JSON Lines line is
// byte for byte execute_sql's row (format objects), a CSV cell is that
// value with a string's quotes taken off and NULL empty. A jobId export
// reads the finished job again without a second query job.
func TestExportMatchesExecuteSQL(t *testing.T) {
	rec := &recorder{base: http.DefaultTransport}
	cs := connect(t, exportConfig(t, rec), "")
	want, cols := executeAll(t, cs, exportQuery)
	if len(want) != 1000 {
		t.Fatalf("execute_sql returned %d rows, want 1000", len(want))
	}

	jl := exportResult(t, cs, map[string]any{"sql": exportQuery, "name": "rows.jsonl"})
	t.Logf("jsonl: %d rows, %d bytes in %d ms (%.0f rows/s), read via %s", jl.Rows, jl.Bytes, jl.DurationMs, float64(jl.Rows)/(float64(max(jl.DurationMs, 1))/1000), jl.ReadAPI)
	if jl.Rows != 1000 || jl.Format != "jsonl" || jl.ReadAPI != "storage" || len(jl.Columns) != len(cols) || jl.JobID == "" {
		t.Fatalf("jsonl export = %+v", jl)
	}
	b, err := os.ReadFile(filePath(t, jl.URI))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	if len(lines) != 1000 || int64(len(b)) != jl.Bytes {
		t.Fatalf("%d lines, %d bytes; want 1000 lines, %d bytes", len(lines), len(b), jl.Bytes)
	}
	seen := map[int64]bool{}
	for _, line := range lines {
		var row struct {
			ID int64 `json:"id"`
		}
		if err := json.Unmarshal(line, &row); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if seen[row.ID] {
			t.Fatalf("id %d exported twice", row.ID)
		}
		seen[row.ID] = true
		if string(line) != string(want[row.ID]) {
			t.Fatalf("id %d:\nexport      %s\nexecute_sql %s", row.ID, line, want[row.ID])
		}
	}

	// The same job's result again, as CSV, without running the query.
	inserts := rec.count("POST", "/jobs")
	cv := exportResult(t, cs, map[string]any{"jobId": jl.JobID, "format": "csv"})
	t.Logf("csv by jobId (read and write only): %d rows, %d bytes in %d ms (%.0f rows/s)", cv.Rows, cv.Bytes, cv.DurationMs, float64(cv.Rows)/(float64(max(cv.DurationMs, 1))/1000))
	if rec.count("POST", "/jobs") != inserts {
		t.Errorf("a jobId export started a job")
	}
	f, err := os.Open(filePath(t, cv.URI))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1001 || cv.Rows != 1000 {
		t.Fatalf("csv has %d records (rows %d), want a header and 1000", len(recs), cv.Rows)
	}
	if got := recs[0]; len(got) != len(cols) {
		t.Fatalf("csv header %v, want %v", got, cols)
	}
	for i, c := range cols {
		if recs[0][i] != c {
			t.Fatalf("csv header %v, want %v", recs[0], cols)
		}
	}
	ids := make([]int64, 0, 1000)
	for _, r := range recs[1:] {
		id, err := strconv.ParseInt(r[0], 10, 64)
		if err != nil {
			t.Fatalf("csv id %q", r[0])
		}
		ids = append(ids, id)
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(want[id], &obj); err != nil {
			t.Fatal(err)
		}
		for i, c := range cols {
			if w := csvCell(t, obj[c]); r[i] != w {
				t.Fatalf("id %d column %s: csv %q, execute_sql %q", id, c, r[i], w)
			}
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for i, id := range ids {
		if id != int64(i+1) {
			t.Fatalf("csv ids are not 1..1000 once each (at %d: %d)", i, id)
		}
	}
}

// csvCell is a JSON value as a CSV cell.
func csvCell(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	switch {
	case raw == nil || string(raw) == "null":
		return ""
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestExportRefusals: a name outside --export-dir and a query of a
// dataset outside the allowlist are refused with nothing written and no
// request to BigQuery at all.
func TestExportRefusals(t *testing.T) {
	rec := &recorder{base: http.DefaultTransport}
	cfg := exportConfig(t, rec)
	cfg.Governance.Datasets = "shop"
	cs := connect(t, cfg, "")
	for _, args := range []map[string]any{
		{"sql": "SELECT 1 AS n", "name": "../escape.jsonl"},
		{"sql": "SELECT 1 AS n", "name": "/tmp/escape.jsonl"},
		{"sql": "SELECT * FROM `demo-project.telemetry.events`"},
	} {
		e := fails(t, cs, "export_results", args)
		if e.Code != bqerr.InvalidArgument && e.Code != bqerr.PermissionDenied {
			t.Errorf("export_results(%v) = %s, want INVALID_ARGUMENT or PERMISSION_DENIED", args, e.Code)
		}
	}
	if n := len(rec.reqs); n != 0 {
		t.Errorf("refused exports sent %d requests to BigQuery: %v", n, rec.reqs)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(cfg.Export.Dir), "escape.jsonl")); !os.IsNotExist(err) {
		t.Error("a file was written outside --export-dir")
	}
	if es, _ := os.ReadDir(cfg.Export.Dir); len(es) != 0 {
		t.Errorf("refused exports left %d files", len(es))
	}
}

// TestExportParquet exports the 1,000-row query to Parquet and reads it
// back with the Arrow library: every row once, and id, label, ratio and
// even equal what execute_sql returns.
func TestExportParquet(t *testing.T) {
	cs := connect(t, exportConfig(t, nil), "")
	want, _ := executeAll(t, cs, exportQuery)
	out := exportResult(t, cs, map[string]any{"sql": exportQuery, "format": "parquet"})
	t.Logf("parquet: %d rows, %d bytes in %d ms", out.Rows, out.Bytes, out.DurationMs)
	if out.Rows != 1000 || out.Format != "parquet" || out.ReadAPI != "storage" {
		t.Fatalf("parquet export = %+v", out)
	}
	tbl := readParquet(t, filePath(t, out.URI))
	defer tbl.Release()
	t.Logf("parquet schema: %s", tbl.Schema())
	if tbl.NumRows() != 1000 {
		t.Fatalf("parquet holds %d rows, want 1000", tbl.NumRows())
	}
	col := func(name string) arrow.Array {
		idx := tbl.Schema().FieldIndices(name)
		if len(idx) != 1 || len(tbl.Column(idx[0]).Data().Chunks()) != 1 {
			t.Fatalf("column %s: %v", name, idx)
		}
		return tbl.Column(idx[0]).Data().Chunk(0)
	}
	ids, labels, ratios, evens := col("id").(*array.Int64), col("label").(*array.String), col("ratio").(*array.Float64), col("even").(*array.Boolean)
	seen := map[int64]bool{}
	for i := 0; i < ids.Len(); i++ {
		var row struct {
			Label string  `json:"label"`
			Ratio float64 `json:"ratio"`
			Even  bool    `json:"even"`
		}
		id := ids.Value(i)
		if seen[id] {
			t.Fatalf("id %d twice", id)
		}
		seen[id] = true
		if err := json.Unmarshal(want[id], &row); err != nil {
			t.Fatalf("id %d: %v", id, err)
		}
		if labels.Value(i) != row.Label || ratios.Value(i) != row.Ratio || evens.Value(i) != row.Even {
			t.Fatalf("id %d: parquet (%q, %v, %v), execute_sql %s", id, labels.Value(i), ratios.Value(i), evens.Value(i), want[id])
		}
	}
}

// readParquet reads a whole Parquet file with the Arrow library, as an
// Arrow reader of the exported file would.
func readParquet(t *testing.T, path string) arrow.Table {
	t.Helper()
	f, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fr, err := pqarrow.NewFileReader(f, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}
