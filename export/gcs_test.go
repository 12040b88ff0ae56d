package export

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// extract says how extractBigQuery answers.
type extract struct {
	// files is what the finished job reports for its one URI.
	files int64
	// numBytes is the result table's size.
	numBytes int64
	// lostAnswer makes the first insert reach BigQuery and its answer fail
	// (503), so the retry meets 409 duplicate.
	lostAnswer bool
	// failure, when set, is the finished job's errorResult.
	failure *bq.ErrorProto
	// running keeps the job RUNNING until it is cancelled.
	running bool
}

// resultTable is the query's result table the extract reads, of numBytes.
func resultTable(numBytes int64) *bq.Table {
	return &bq.Table{TableReference: &bq.TableReference{ProjectId: "p", DatasetId: "_anon", TableId: "anon1"},
		NumRows: 1500, NumBytes: numBytes, Type: "TABLE",
		Schema: &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "id", Type: "INTEGER"}, {Name: "s", Type: "STRING"}}}}
}

// extractBigQuery answers an extract's tables.get of the result table,
// jobs.insert and jobs.get as the BigQuery REST reference documents
// (configuration.extract in, statistics.extract.destinationUriFileCounts
// out, in the order of destinationUris), and keeps what was sent. The
// emulator (v0.6.6) cannot write to Cloud Storage, so the gcs path is held
// to this fake. It serves in process (bqfake.InProcess), so a test can
// wait on it inside a testing/synctest bubble.
func extractBigQuery(t *testing.T, x extract) *bqfake.Fake {
	t.Helper()
	fake := bqfake.New(t, bqfake.InProcess())
	fake.AddTable(resultTable(x.numBytes))
	fake.OnJob(func(job *bq.Job) {
		switch {
		case x.running:
			job.Status.State = "RUNNING"
		case x.failure != nil:
			job.Status.ErrorResult = x.failure
		default:
			job.Statistics = &bq.JobStatistics{Extract: &bq.JobStatistics4{DestinationUriFileCounts: []int64{x.files}}}
		}
	})
	if x.lostAnswer {
		fake.On(bqfake.JobsInsert).Times(1).FailAfter(http.StatusServiceUnavailable, "backendError")
	}
	return fake
}

// onlyJob is the one job fake keeps.
func onlyJob(t *testing.T, fake *bqfake.Fake) *bq.Job {
	t.Helper()
	jobs := fake.Jobs()
	if len(jobs) != 1 {
		t.Fatalf("%d jobs, want 1", len(jobs))
	}
	return jobs[0]
}

// newGCSService is a Service whose extracts go to fake through the client
// library, under the guard every BigQuery client of the server has.
func newGCSService(t *testing.T, fake *bqfake.Fake, q *fakeQueries) *Service {
	t.Helper()
	client := fake.Client(t, &http.Client{Transport: &resilience.Transport{Base: fake.Transport()}})
	s := newTestService(t, &fakeReader{}, q)
	s.cfg.Extractor, s.cfg.GCS = ClientExtractor{Client: client}, "gs://bkt/exports/"
	return s
}

// TestGCSExportExtractsOnce: the extract job reads the query's result
// table and writes under the operator's prefix (a wildcard URI in the
// agent's folder, the format's destinationFormat, the call's labels, the
// result's location, a job ID chosen up front); a retry after a lost
// answer (503) meets 409 duplicate and waits for that job, so exactly one
// job exists; the answer names every object from destinationUriFileCounts,
// shard numbers as BigQuery writes them.
func TestGCSExportExtractsOnce(t *testing.T) {
	fake := extractBigQuery(t, extract{lostAnswer: true, files: 3, numBytes: 4096})
	s := newGCSService(t, fake, &fakeQueries{})
	out, err := s.Export(contextWithLabels(context.Background()), Input{SQL: "SELECT 1", Destination: "gcs", Format: "csv", Name: "team/q1"})
	if err != nil {
		t.Fatal(err)
	}
	if fake.Count(bqfake.JobsInsert) != 2 {
		t.Errorf("%d extract inserts, want 2 (the lost answer and its retry)", fake.Count(bqfake.JobsInsert))
	}
	job := onlyJob(t, fake)
	ref, c := job.JobReference, job.Configuration
	if !strings.HasPrefix(ref.JobId, "bqmcp_job1_extract_") || ref.Location != "US" || c.Labels["mcp_tool"] != "export_results" {
		t.Errorf("job = %+v, labels %v", ref, c.Labels)
	}
	const pattern = "gs://bkt/exports/team/q1/part-*.csv"
	if x := c.Extract; x == nil || x.SourceTable == nil || x.SourceTable.DatasetId != "_anon" || x.SourceTable.TableId != "anon1" ||
		!slices.Equal(x.DestinationUris, []string{pattern}) || x.DestinationFormat != "CSV" || (x.PrintHeader != nil && !*x.PrintHeader) {
		t.Errorf("extract = %+v", c.Extract)
	}
	want := []string{"gs://bkt/exports/team/q1/part-000000000000.csv", "gs://bkt/exports/team/q1/part-000000000001.csv",
		"gs://bkt/exports/team/q1/part-000000000002.csv"}
	if !slices.Equal(out.Objects, want) || out.ObjectCount != 3 || out.URI != "gs://bkt/exports/team/q1/" ||
		out.Destination != "gcs" || out.Format != "csv" || out.Rows != 1500 || out.Bytes != 4096 ||
		!slices.Equal(out.Columns, []string{"id", "s"}) || out.JobID != "bqmcp_job1" {
		t.Errorf("output = %+v", out)
	}

	// Each format maps to its destinationFormat; the default name is the
	// query's job ID.
	for format, want := range map[string]string{"": "NEWLINE_DELIMITED_JSON", "parquet": "PARQUET"} {
		fake := extractBigQuery(t, extract{files: 1})
		out, err := newGCSService(t, fake, &fakeQueries{}).Export(context.Background(), Input{SQL: "SELECT 1", Destination: "gcs", Format: format})
		if err != nil {
			t.Fatal(err)
		}
		if got := onlyJob(t, fake).Configuration.Extract; got.DestinationFormat != want || !strings.HasPrefix(got.DestinationUris[0], "gs://bkt/exports/bqmcp_job1/part-*.") {
			t.Errorf("format %q: extract %+v", format, got)
		}
		if len(out.Objects) != 1 || !strings.HasSuffix(out.Objects[0], "000000000000."+out.Format) {
			t.Errorf("format %q: objects %v", format, out.Objects)
		}
	}
}

// TestGCSExportRefusals: a name that would leave the operator's prefix, a
// server without --export-gcs, and a result over --max-export-bytes are
// refused before any job; only the last runs the query (its size is the
// result's).
func TestGCSExportRefusals(t *testing.T) {
	fake := extractBigQuery(t, extract{files: 1})
	q := &fakeQueries{}
	s := newGCSService(t, fake, q)
	for _, name := range []string{"../up", "/abs", "a/../b", "a//b", "a/", ".hidden", "a/.b", `a\b`, "a b", "x*", "gs://other/x", "%2e%2e",
		strings.Repeat("n", maxGCSName+1)} {
		_, err := s.Export(context.Background(), Input{SQL: "SELECT 1", Destination: "gcs", Name: name})
		if e, ok := bqerr.As(err); !ok || e.Code != bqerr.InvalidArgument {
			t.Errorf("name %q: %v, want INVALID_ARGUMENT", name, err)
		}
	}
	if fake.Count(bqfake.Any) != 0 || q.runs.Load() != 0 {
		t.Errorf("refused names sent %v and ran %d queries", fake.Requests(bqfake.Any), q.runs.Load())
	}

	s.cfg.GCS = ""
	_, err := s.Export(context.Background(), Input{SQL: "SELECT 1", Destination: "gcs"})
	if e, ok := bqerr.As(err); !ok || e.Code != bqerr.InvalidArgument || !strings.Contains(e.Hint, "--export-gcs") {
		t.Errorf("gcs without --export-gcs: %v, want INVALID_ARGUMENT with a hint naming --export-gcs", err)
	}
	if q.runs.Load() != 0 {
		t.Error("a gcs export without --export-gcs ran its query")
	}

	s.cfg.GCS, s.cfg.MaxExportBytes = "gs://bkt", 1000
	fake.AddTable(resultTable(1001))
	_, err = s.Export(context.Background(), Input{SQL: "SELECT 1", Destination: "gcs"})
	if e, ok := bqerr.As(err); !ok || e.Code != bqerr.ResourceExhausted || e.Details.JobID != "bqmcp_job1" {
		t.Errorf("over --max-export-bytes: %v, want RESOURCE_EXHAUSTED naming the query's job", err)
	}
	if fake.Count(bqfake.JobsInsert) != 0 {
		t.Errorf("a result over --max-export-bytes started %d extract jobs", fake.Count(bqfake.JobsInsert))
	}
}

// TestGCSExportJobFails: an extract job that fails (CSV of a nested
// result) surfaces as a structured error naming the query's job, with no
// retry of a job BigQuery refused.
func TestGCSExportJobFails(t *testing.T) {
	fake := extractBigQuery(t, extract{failure: &bq.ErrorProto{Reason: "invalid", Message: "Operation cannot be performed on a nested schema. Field: items"}})
	s := newGCSService(t, fake, &fakeQueries{})
	_, err := s.Export(context.Background(), Input{SQL: "SELECT 1", Destination: "gcs", Format: "csv"})
	e, ok := bqerr.As(err)
	if !ok || (e.Code != bqerr.SchemaError && e.Code != bqerr.InvalidArgument) || e.Retryable || !strings.Contains(e.Message, "nested schema") || e.Details.JobID != "bqmcp_job1" {
		t.Fatalf("failed extract: %#v", err)
	}
	if fake.Count(bqfake.JobsInsert) != 1 {
		t.Errorf("%d extract inserts for a job that failed, want 1", fake.Count(bqfake.JobsInsert))
	}
}

// TestGCSDefaultDestination: a server whose default destination is gcs
// (http with --export-gcs) extracts when the agent names none; file and
// table stay reachable by name.
func TestGCSDefaultDestination(t *testing.T) {
	fake := extractBigQuery(t, extract{files: 2})
	s := newGCSService(t, fake, &fakeQueries{})
	s.cfg.Destination = "gcs"
	out, err := s.Export(context.Background(), Input{SQL: "SELECT 1"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Destination != "gcs" || out.ObjectCount != 2 || fake.Count(bqfake.JobsInsert) != 1 {
		t.Errorf("default destination: %+v after %d inserts", out, fake.Count(bqfake.JobsInsert))
	}
	s.cfg.Reader = &fakeReader{schema: testSchema, rows: testRows(3)}
	if out, err := s.Export(context.Background(), Input{SQL: "SELECT 1", Destination: "file"}); err != nil || out.Destination != "file" {
		t.Errorf("an explicit file export on a gcs-default server: %+v, %v", out, err)
	}
}

// TestParseGCS: --export-gcs takes gs://bucket or gs://bucket/prefix, and
// nothing that could make the prefix ambiguous.
func TestParseGCS(t *testing.T) {
	for in, want := range map[string]string{
		"gs://bkt": "gs://bkt/", "gs://bkt/": "gs://bkt/", "gs://my-bkt.example/a/b/": "gs://my-bkt.example/a/b/", "gs://b_k/x": "gs://b_k/x/",
	} {
		got, err := ParseGCS(in)
		if err != nil || got.URI() != want {
			t.Errorf("ParseGCS(%q) = %q, %v, want %q", in, got.URI(), err, want)
		}
	}
	for _, in := range []string{"", "bkt/x", "s3://bkt", "gs://", "gs://BKT", "gs://b", "gs://bkt//x", "gs://bkt/../x", "gs://bkt/a*", "gs://bkt/./x", "gs://bkt/a\nb"} {
		if _, err := ParseGCS(in); err == nil {
			t.Errorf("ParseGCS(%q) accepted", in)
		}
	}
}

// TestGCSExportCancelStopsTheJob: an export whose caller goes away while
// the extract runs cancels that job (jobs.cancel), so nothing goes on
// writing unseen.
func TestGCSExportCancelStopsTheJob(t *testing.T) {
	// The caller's deadline passes on the bubble's clock: no real wait.
	synctest.Test(t, func(t *testing.T) {
		fake := extractBigQuery(t, extract{running: true, files: 1})
		s := newGCSService(t, fake, &fakeQueries{})
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		if _, err := s.Export(ctx, Input{SQL: "SELECT 1", Destination: "gcs"}); err == nil {
			t.Fatal("an export whose caller went away succeeded")
		}
		if fake.Count(bqfake.JobsInsert) != 1 || fake.Count(bqfake.JobsCancel) != 1 {
			t.Errorf("%d inserts, %d cancels; want the one job, cancelled once", fake.Count(bqfake.JobsInsert), fake.Count(bqfake.JobsCancel))
		}
	})
}
