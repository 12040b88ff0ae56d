package export

import (
	"bufio"
	"context"
	"encoding/csv"
	"math"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"cloud.google.com/go/bigquery"
	"cloud.google.com/go/civil"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/cost"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
	"github.com/bigquery-mcp/bigquery-mcp/rows"
)

// fakeQueries stands in for package query: every call is counted, and the
// result is a table of the fake reader.
type fakeQueries struct {
	runs, lookups atomic.Int32
	err           error
}

// testPrice is the price the fake's job was billed at.
var testPrice = cost.Price{Billing: cost.OnDemand, Location: "US", PerTiBUSD: 6.25, Source: cost.SourceTable}

func (f *fakeQueries) RunToTable(_ context.Context, in query.ExecuteInput, _ func(int64) error) (*query.ResultTable, error) {
	f.runs.Add(1)
	if f.err != nil {
		return nil, f.err
	}
	usd := 0.0001
	return &query.ResultTable{JobID: "bqmcp_job1", Location: "US", BytesBilled: 42, CostUSD: &usd, Price: &testPrice,
		Table: &bigquery.Table{ProjectID: "p", DatasetID: "_anon", TableID: "anon1"}}, nil
}

func (f *fakeQueries) ResultOf(_ context.Context, id, _ string) (*query.ResultTable, error) {
	f.lookups.Add(1)
	return &query.ResultTable{JobID: id, Location: "US", Table: &bigquery.Table{ProjectID: "p", DatasetID: "_anon", TableID: "anon_" + id}}, nil
}

// fakeReader serves one table; failAfter > 0 makes the first read fail
// (retryably) after that many rows.
type fakeReader struct {
	schema    bigquery.Schema
	rows      [][]bigquery.Value
	failAfter int
	fatal     bool
	reads     atomic.Int32
}

func (r *fakeReader) Read(context.Context, *bigquery.Table) (*RowStream, error) {
	attempt := r.reads.Add(1)
	seq := func(yield func([]bigquery.Value, error) bool) {
		for i, row := range r.rows {
			if r.failAfter > 0 && i == r.failAfter && (attempt == 1 || r.fatal) {
				err := bqerr.New(bqerr.Unavailable, "stream reset")
				if r.fatal {
					err = err.WithRetryable(false)
				}
				yield(nil, err)
				return
			}
			if !yield(row, nil) {
				return
			}
		}
	}
	return NewRowStream(func() bigquery.Schema { return r.schema }, "storage", seq), nil
}

var testSchema = bigquery.Schema{
	{Name: "id", Type: bigquery.IntegerFieldType},
	{Name: "s", Type: bigquery.StringFieldType},
	{Name: "f", Type: bigquery.FloatFieldType},
	{Name: "n", Type: bigquery.NumericFieldType},
	{Name: "b", Type: bigquery.BytesFieldType},
	{Name: "ts", Type: bigquery.TimestampFieldType},
	{Name: "d", Type: bigquery.DateFieldType},
	{Name: "tags", Type: bigquery.StringFieldType, Repeated: true},
	{Name: "rec", Type: bigquery.RecordFieldType, Schema: bigquery.Schema{{Name: "x", Type: bigquery.IntegerFieldType}}},
}

func testRows(n int) [][]bigquery.Value {
	out := make([][]bigquery.Value, n)
	for i := range out {
		out[i] = []bigquery.Value{
			int64(i) + 1<<60, // beyond 2^53: a string in JSON
			"a, \"quoted\"\nline " + string(rune('a'+i%26)),
			math.NaN(),
			big.NewRat(int64(105+i), 10),
			[]byte{0, 1, byte(i)},
			time.Date(2024, 3, 1, 12, 0, 0, 500000000, time.UTC),
			civil.Date{Year: 2024, Month: 3, Day: 1 + i%28},
			[]bigquery.Value{"x", "y"},
			[]bigquery.Value{int64(i)},
		}
	}
	out[0][1] = nil // NULL
	return out
}

func newTestService(t *testing.T, reader TableReader, q *fakeQueries) *Service {
	t.Helper()
	cfg := resilience.Defaults()
	p := cfg.Retry[resilience.Export]
	p.BaseDelay, p.MaxDelay = time.Millisecond, time.Millisecond
	cfg.Retry[resilience.Export] = p
	exec, err := resilience.NewExecutor(cfg, resilience.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	return NewService(Config{Queries: q, Reader: reader, Executor: exec, Project: "p", Settings: Settings{Dir: filepath.Join(t.TempDir(), "exports")}})
}

// dirEntries lists the export folder, temporary files included.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func pathOf(t *testing.T, uri string) string {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		t.Fatalf("uri %q is not a file URI", uri)
	}
	return filepath.FromSlash(u.Path)
}

// TestFileExportEncodesAsExecuteSQL: a JSON Lines export holds, line by
// line, exactly what rows encodes for execute_sql (format objects); a CSV
// export of the same rows has a header and, per cell, that value with a
// string's quotes taken off (NULL empty), and survives commas, quotes and
// newlines (RFC 4180). The result counts rows and bytes and names the file.
func TestFileExportEncodesAsExecuteSQL(t *testing.T) {
	data := testRows(50)
	q := &fakeQueries{}
	s := newTestService(t, &fakeReader{schema: testSchema, rows: data}, q)
	ctx := context.Background()

	out, err := s.Export(ctx, Input{SQL: "SELECT 1"})
	if err != nil {
		t.Fatal(err)
	}
	path := pathOf(t, out.URI)
	if filepath.Base(path) != "bqmcp_job1.jsonl" || out.Rows != 50 || out.Format != "jsonl" || out.JobID != "bqmcp_job1" ||
		out.BytesBilled != 42 || out.ReadAPI != "storage" || len(out.Columns) != len(testSchema) ||
		out.CostUSD == nil || *out.CostUSD != 0.0001 || out.Price == nil || *out.Price != testPrice {
		t.Errorf("output = %+v", out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(b)) != out.Bytes {
		t.Errorf("bytes = %d, file has %d", out.Bytes, len(b))
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != len(data) {
		t.Fatalf("%d lines, want %d", len(lines), len(data))
	}
	for i, row := range data {
		want, err := rows.Encode(testSchema, row, rows.FormatObjects)
		if err != nil {
			t.Fatal(err)
		}
		if lines[i] != string(want) {
			t.Fatalf("line %d = %s\nwant %s", i, lines[i], want)
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
	}

	out, err = s.Export(ctx, Input{SQL: "SELECT 1", Format: "csv", Name: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(pathOf(t, out.URI)) != "orders.csv" {
		t.Errorf("csv file %s, want orders.csv", out.URI)
	}
	f, err := os.Open(pathOf(t, out.URI))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	raw, _ := os.ReadFile(pathOf(t, out.URI))
	if !strings.HasPrefix(string(raw), "id,s,f,n,b,ts,d,tags,rec\r\n") {
		t.Errorf("csv starts %q, want the header and CRLF", string(raw[:40]))
	}
	recs, err := csv.NewReader(bufio.NewReader(f)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(data)+1 {
		t.Fatalf("%d csv records, want %d", len(recs), len(data)+1)
	}
	want1 := []string{"1152921504606846977", "a, \"quoted\"\nline b", "NaN", "10.6", "AAEB", "2024-03-01T12:00:00.5Z", "2024-03-02", `["x","y"]`, `{"x":1}`}
	for j, w := range want1 {
		if recs[2][j] != w {
			t.Errorf("row 1 column %s = %q, want %q", testSchema[j].Name, recs[2][j], w)
		}
	}
	if recs[1][1] != "" {
		t.Errorf("NULL = %q, want an empty field", recs[1][1])
	}
	if names := dirEntries(t, s.cfg.Dir); len(names) != 2 {
		t.Errorf("export folder holds %v, want the two files only", names)
	}
}

// TestFileNamesStayInTheFolder: a name with a folder, "..", an absolute
// path or a leading dot, a symlink already in the folder, and an existing
// file without overwrite are refused before any query runs; overwrite
// replaces a regular file.
func TestFileNamesStayInTheFolder(t *testing.T) {
	q := &fakeQueries{}
	s := newTestService(t, &fakeReader{schema: testSchema, rows: testRows(3)}, q)
	ctx := context.Background()
	if err := os.MkdirAll(s.cfg.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(s.cfg.Dir), "outside.jsonl")
	if err := os.Symlink(outside, filepath.Join(s.cfg.Dir, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.cfg.Dir, "taken.jsonl"), []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"../escape.jsonl", "/tmp/abs.jsonl", "sub/x.jsonl", `..\x.jsonl`, ".hidden", "..", "link.jsonl", "taken.jsonl"} {
		_, err := s.Export(ctx, Input{SQL: "SELECT 1", Name: name})
		if e, ok := bqerr.As(err); !ok || e.Code != bqerr.InvalidArgument {
			t.Errorf("name %q: %v, want INVALID_ARGUMENT", name, err)
		}
	}
	if n := q.runs.Load(); n != 0 {
		t.Errorf("refused names ran %d queries, want 0", n)
	}
	if _, err := os.Lstat(outside); !os.IsNotExist(err) {
		t.Errorf("a file was written outside the folder through the symlink")
	}
	if b, _ := os.ReadFile(filepath.Join(s.cfg.Dir, "taken.jsonl")); string(b) != "keep\n" {
		t.Errorf("existing file changed without overwrite: %q", b)
	}
	if _, err := s.Export(ctx, Input{SQL: "SELECT 1", Name: "taken.jsonl", Overwrite: true}); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(s.cfg.Dir, "taken.jsonl")); strings.Count(string(b), "\n") != 3 {
		t.Errorf("overwritten file = %q, want 3 rows", b)
	}
	if _, err := s.Export(ctx, Input{SQL: "SELECT 1", Name: "link.jsonl", Overwrite: true}); err == nil {
		t.Error("overwrite replaced a symlink")
	}
}

// TestFailedExportLeavesNothing: a read that fails for good leaves no
// file and no temporary file; one that fails once is retried from the
// start, and every row is in the file exactly once.
func TestFailedExportLeavesNothing(t *testing.T) {
	data := testRows(20)
	fatal := &fakeReader{schema: testSchema, rows: data, failAfter: 5, fatal: true}
	s := newTestService(t, fatal, &fakeQueries{})
	if _, err := s.Export(context.Background(), Input{SQL: "SELECT 1"}); err == nil {
		t.Fatal("a failed read exported")
	}
	if names := dirEntries(t, s.cfg.Dir); len(names) != 0 {
		t.Errorf("after a failed export the folder holds %v", names)
	}

	flaky := &fakeReader{schema: testSchema, rows: data, failAfter: 5}
	s = newTestService(t, flaky, &fakeQueries{})
	out, err := s.Export(context.Background(), Input{SQL: "SELECT 1"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(pathOf(t, out.URI))
	if got := strings.Count(string(b), "\n"); got != len(data) || out.Rows != int64(len(data)) || flaky.reads.Load() != 2 {
		t.Errorf("after one retry: %d lines, rows %d, %d reads; want %d lines once, 2 reads", got, out.Rows, flaky.reads.Load(), len(data))
	}
}

// TestExportArguments: sql and jobId are exclusive and one is needed; a
// jobId export looks the job up and runs nothing.
func TestExportArguments(t *testing.T) {
	q := &fakeQueries{}
	s := newTestService(t, &fakeReader{schema: testSchema, rows: testRows(2)}, q)
	ctx := context.Background()
	for _, in := range []Input{{}, {SQL: "SELECT 1", JobID: "j"}, {SQL: "SELECT 1", Format: "xml"}, {SQL: "SELECT 1", Destination: "gcs"}} {
		if _, err := s.Export(ctx, in); err == nil {
			t.Errorf("Export(%+v) succeeded", in)
		}
	}
	out, err := s.Export(ctx, Input{JobID: "bqmcp_old"})
	if err != nil {
		t.Fatal(err)
	}
	if q.runs.Load() != 0 || q.lookups.Load() != 1 || out.JobID != "bqmcp_old" {
		t.Errorf("jobId export: %d runs, %d lookups, job %s", q.runs.Load(), q.lookups.Load(), out.JobID)
	}
}

// fakeCopier records the copy it was asked for.
type fakeCopier struct {
	src, dst *bigquery.Table
	spec     CopySpec
}

func (c *fakeCopier) Copy(_ context.Context, src, dst *bigquery.Table, spec CopySpec) (int64, int64, error) {
	c.src, c.dst, c.spec = src, dst, spec
	return 7, 700, nil
}

// TestTableExport: a table goes only to --export-dataset, which the
// allowlist includes implicitly (it names what queries read, not where
// exports go); the copy carries the call's labels, a job ID derived from
// the query's (fresh for each export), and the expiration.
func TestTableExport(t *testing.T) {
	q := &fakeQueries{}
	s := newTestService(t, &fakeReader{}, q)
	ctx := governance.WithJobLabels(context.Background(), map[string]string{"mcp_tool": "export_results"})
	if _, err := s.Export(ctx, Input{SQL: "SELECT 1", Destination: "table"}); err == nil {
		t.Fatal("a table export without --export-dataset ran")
	}
	if q.runs.Load() != 0 {
		t.Fatalf("a refused table export ran %d queries", q.runs.Load())
	}
	cp := &fakeCopier{}
	s.cfg.Copier, s.cfg.Dataset = cp, "exports"
	out, err := s.Export(ctx, Input{SQL: "SELECT 1", Destination: "table", Name: "campaign"})
	if err != nil {
		t.Fatal(err)
	}
	if out.URI != "bigquery://p/exports/campaign" || out.Rows != 7 || out.Bytes != 700 || out.Expires == "" {
		t.Errorf("output = %+v", out)
	}
	if cp.dst.DatasetID != "exports" || cp.dst.TableID != "campaign" || cp.src.TableID != "anon1" ||
		!strings.HasPrefix(cp.spec.JobID, "bqmcp_job1_copy_") || cp.spec.Labels["mcp_tool"] != "export_results" || cp.spec.Location != "US" ||
		time.Until(cp.spec.Expires) < DefaultTableTTL-time.Minute {
		t.Errorf("copy = %+v → %+v, spec %+v", cp.src, cp.dst, cp.spec)
	}
}

func contextWithLabels(ctx context.Context) context.Context {
	return governance.WithJobLabels(ctx, map[string]string{"mcp_tool": "export_results"})
}

// TestExportReportsProgressAndStopsAtItsLimit: a caller that asked for
// progress hears rows written, growing, of the total; an export that
// passes --max-export-bytes fails with RESOURCE_EXHAUSTED and leaves no
// file; a cancelled export leaves none either.
func TestExportReportsProgressAndStopsAtItsLimit(t *testing.T) {
	// The reader's pauses and the progress pace run on the bubble's
	// clock: the reports are the same on a busy machine, and no real wait.
	synctest.Test(t, func(t *testing.T) {
		data := testRows(5000)
		s := newTestService(t, &fakeReader{schema: testSchema, rows: data}, &fakeQueries{})
		s.progressEvery = 10 * time.Millisecond
		var reports []job.Progress
		ctx := job.WithProgress(context.Background(), func(_ context.Context, p job.Progress) { reports = append(reports, p) })
		slow := &slowReader{fakeReader: fakeReader{schema: testSchema, rows: data}, every: 1024, pause: 20 * time.Millisecond}
		s.cfg.Reader = slow
		out, err := s.Export(ctx, Input{SQL: "SELECT 1"})
		if err != nil {
			t.Fatal(err)
		}
		if len(reports) < 2 {
			t.Fatalf("%d progress reports for a %d ms export, want several", len(reports), out.DurationMs)
		}
		for i, r := range reports {
			if r.Rows <= 0 || r.Rows > out.Rows || (i > 0 && r.Rows <= reports[i-1].Rows) || r.Bytes <= 0 {
				t.Errorf("report %d = %+v after %+v: want rows growing up to %d", i, r, reports[max(i-1, 0)], out.Rows)
			}
		}

		s.cfg.Reader = &fakeReader{schema: testSchema, rows: data}
		s.cfg.MaxExportBytes = 16 << 10
		_, err = s.Export(context.Background(), Input{SQL: "SELECT 1", Name: "big"})
		if e, ok := bqerr.As(err); !ok || e.Code != bqerr.ResourceExhausted {
			t.Errorf("export past MaxBytes = %v, want RESOURCE_EXHAUSTED", err)
		}
		cctx, cancel := context.WithCancel(context.Background())
		s.cfg.MaxExportBytes = 0
		s.cfg.Reader = &slowReader{fakeReader: fakeReader{schema: testSchema, rows: data}, every: 100, pause: 20 * time.Millisecond, cancel: cancel}
		if _, err := s.Export(cctx, Input{SQL: "SELECT 1", Name: "cancelled"}); err == nil {
			t.Error("a cancelled export succeeded")
		}
		names := dirEntries(t, s.cfg.Dir)
		if len(names) != 1 { // the first export's file only
			t.Errorf("after a failed and a cancelled export the folder holds %v", names)
		}
	})
}

// slowReader pauses every rows; with cancel set it cancels the export at
// its first pause and then stops on the context.
type slowReader struct {
	fakeReader
	every  int
	pause  time.Duration
	cancel context.CancelFunc
}

func (r *slowReader) Read(ctx context.Context, table *bigquery.Table) (*RowStream, error) {
	inner, err := r.fakeReader.Read(ctx, table)
	if err != nil {
		return nil, err
	}
	seq := func(yield func([]bigquery.Value, error) bool) {
		i := 0
		for row, err := range inner.Rows {
			if i > 0 && i%r.every == 0 {
				if r.cancel != nil {
					r.cancel()
				}
				time.Sleep(r.pause)
				if ctx.Err() != nil {
					yield(nil, ctx.Err())
					return
				}
			}
			i++
			if !yield(row, err) {
				return
			}
		}
	}
	rs := NewRowStream(inner.Schema, inner.API, seq)
	rs.total = func() uint64 { return uint64(len(r.rows)) }
	return rs, nil
}
