package query

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// resultBigQuery answers what RunToTable and ResultOf send: dry runs (a
// SELECT of sales.orders or secret.orders, 100 bytes), jobs.insert of
// query jobs (kept by the ID the caller chose; a repeat is 409
// duplicate), getQueryResults (complete) and jobs.get with the job's
// destination table and statistics. failFirstInsert makes the first insert
// reach BigQuery but lose its answer (503).
type resultBigQuery struct {
	t               *testing.T
	failFirstInsert bool
	// noEstimate makes dry runs answer without bytes processed.
	noEstimate bool

	mu       sync.Mutex
	inserts  []*bq.Job // every non-dry-run jobs.insert, repeats included
	jobs     map[string]*bq.Job
	requests []string
}

func (f *resultBigQuery) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	path := r.URL.Path
	f.requests = append(f.requests, r.Method+" "+path)
	switch {
	case r.Method == http.MethodPost && path == "/projects/p/jobs":
		var job bq.Job
		if err := json.NewDecoder(r.Body).Decode(&job); err != nil {
			writeJSON(w, http.StatusBadRequest, apiError(http.StatusBadRequest, "invalid", err.Error()))
			return
		}
		table := "p.sales.orders"
		if strings.Contains(job.Configuration.Query.Query, "secret") {
			table = "p.secret.orders"
		}
		if job.Configuration.DryRun {
			job.Status = &bq.JobStatus{State: "DONE"}
			job.Statistics = &bq.JobStatistics{TotalBytesProcessed: 100, Query: &bq.JobStatistics2{
				StatementType: "SELECT", ReferencedTables: tableRefs([]string{table}), TotalBytesProcessed: 100}}
			if f.noEstimate {
				job.Statistics.TotalBytesProcessed, job.Statistics.Query.TotalBytesProcessed = 0, 0
			}
			writeJSON(w, http.StatusOK, &job)
			return
		}
		f.inserts = append(f.inserts, &job)
		id := job.JobReference.JobId
		if _, ok := f.jobs[id]; ok {
			writeJSON(w, http.StatusConflict, apiError(http.StatusConflict, "duplicate", "Already Exists: Job p:US."+id))
			return
		}
		job.JobReference.Location = "US"
		job.Configuration.Query.DestinationTable = &bq.TableReference{ProjectId: "p", DatasetId: "_anon", TableId: "anon_" + id}
		job.Status = &bq.JobStatus{State: "DONE"}
		job.Statistics = &bq.JobStatistics{TotalBytesProcessed: 100, Query: &bq.JobStatistics2{TotalBytesProcessed: 100, TotalBytesBilled: 100, StatementType: "SELECT"}}
		f.jobs[id] = &job
		if f.failFirstInsert && len(f.inserts) == 1 {
			writeJSON(w, http.StatusServiceUnavailable, apiError(http.StatusServiceUnavailable, "backendError", "try again"))
			return
		}
		running := job
		running.Status = &bq.JobStatus{State: "RUNNING"}
		writeJSON(w, http.StatusOK, &running)
	case r.Method == http.MethodGet && strings.HasPrefix(path, "/projects/p/queries/"):
		id := strings.TrimPrefix(path, "/projects/p/queries/")
		writeJSON(w, http.StatusOK, &bq.GetQueryResultsResponse{
			JobReference: &bq.JobReference{ProjectId: "p", JobId: id, Location: "US"}, JobComplete: true, TotalRows: 1,
			Schema: &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "n", Type: "INTEGER"}}},
			Rows:   []*bq.TableRow{{F: []*bq.TableCell{{V: "1"}}}},
		})
	case r.Method == http.MethodGet && strings.HasPrefix(path, "/projects/p/jobs/"):
		job, ok := f.jobs[strings.TrimPrefix(path, "/projects/p/jobs/")]
		if !ok {
			writeJSON(w, http.StatusNotFound, apiError(http.StatusNotFound, "notFound", "Not found: Job"))
			return
		}
		writeJSON(w, http.StatusOK, job)
	default:
		writeJSON(w, http.StatusNotFound, apiError(http.StatusNotFound, "notFound", "no fake for "+r.Method+" "+path))
	}
}

func (f *resultBigQuery) insertCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.inserts)
}

func newResultService(t *testing.T, fake *resultBigQuery) *Service {
	t.Helper()
	fake.t, fake.jobs = t, map[string]*bq.Job{}
	s := newSlowService(t, fake)
	allow, err := governance.ParseAllowlist("sales", "p")
	if err != nil {
		t.Fatal(err)
	}
	s.cfg.AllowWrites = false
	s.cfg.Datasets = allow
	s.cfg.MultiPrincipal = true
	s.cfg.State = governance.NewMemory(governance.NewBudget(governance.Limits{MaxBytesPerSession: 1 << 20}), nil)
	s.cfg.Catalog = fakeCatalog{types: map[string]string{"p.sales.orders": "TABLE", "p.secret.orders": "TABLE"}, datasets: []string{"sales", "secret"}}
	return s
}

// TestRunToTableRunsUnderTheChecks: the export's query passes the same
// gates as execute_sql's (a table outside the allowlist and a statement
// that is not a SELECT start no job), its job carries the call's labels
// and an ID chosen up front, it is recorded for its caller only, its cost
// is settled in the budget, and the result table is the job's destination.
func TestRunToTableRunsUnderTheChecks(t *testing.T) {
	fake := &resultBigQuery{}
	s := newResultService(t, fake)
	alice := governance.WithJobLabels(as("token:1"), map[string]string{"mcp_tool": "export_results"})

	for _, sql := range []string{"SELECT * FROM secret.orders", "DELETE FROM sales.orders WHERE true"} {
		_, err := s.RunToTable(alice, ExecuteInput{SQL: sql}, nil)
		if e, ok := bqerr.As(err); !ok || (e.Code != bqerr.PermissionDenied && e.Code != bqerr.InvalidArgument) {
			t.Errorf("RunToTable(%q) = %v, want a refusal", sql, err)
		}
	}
	if n := fake.insertCount(); n != 0 {
		t.Fatalf("refused exports started %d jobs, want 0", n)
	}

	res, err := s.RunToTable(alice, ExecuteInput{SQL: "SELECT * FROM sales.orders"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fake.insertCount() != 1 {
		t.Fatalf("%d jobs inserted, want 1", fake.insertCount())
	}
	job := fake.inserts[0]
	if !strings.HasPrefix(job.JobReference.JobId, "bqmcp_") || strings.Contains(job.JobReference.JobId, "-") {
		t.Errorf("job ID %q: want bqmcp_ and no dashes", job.JobReference.JobId)
	}
	if job.Configuration.Labels["mcp_tool"] != "export_results" || job.Configuration.Query.MaximumBytesBilled != 1<<30 || job.Configuration.JobTimeoutMs == 0 {
		t.Errorf("job configuration = %+v, want the call's labels, maximumBytesBilled and jobTimeoutMs", job.Configuration)
	}
	if res.JobID != job.JobReference.JobId || res.Location != "US" || res.Table == nil ||
		res.Table.DatasetID != "_anon" || res.Table.TableID != "anon_"+res.JobID || res.BytesBilled != 100 {
		t.Errorf("RunToTable = %+v (table %+v), want the job's destination and statistics", res, res.Table)
	}
	u, err := s.Usage(alice, UsageInput{})
	if err != nil || u.Session.BytesBilled != 100 || u.Session.Jobs != 1 || u.Reserved != 0 {
		t.Errorf("usage after the export = %+v, %v; want 100 bytes billed in 1 job, nothing held", u, err)
	}

	// Only its caller finds the result again.
	if _, err := s.ResultOf(as("token:2"), res.JobID, ""); err == nil {
		t.Error("another principal read the export's job")
	} else if e, _ := bqerr.As(err); e.Code != bqerr.NotFound {
		t.Errorf("another principal's ResultOf = %v, want NOT_FOUND", err)
	}
	again, err := s.ResultOf(alice, res.JobID, "")
	if err != nil || again.Table.TableID != res.Table.TableID {
		t.Errorf("ResultOf(own job) = %+v, %v", again, err)
	}
	if fake.insertCount() != 1 {
		t.Errorf("ResultOf started a job")
	}
}

// TestRunToTableRetryFindsTheSameJob: an insert whose answer was lost is
// sent again with the same job ID, and BigQuery's 409 duplicate is taken
// as the job having started: one job, not two.
func TestRunToTableRetryFindsTheSameJob(t *testing.T) {
	fake := &resultBigQuery{failFirstInsert: true}
	s := newResultService(t, fake)
	res, err := s.RunToTable(as(""), ExecuteInput{SQL: "SELECT * FROM sales.orders"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(fake.inserts) != 2 || fake.inserts[0].JobReference.JobId != fake.inserts[1].JobReference.JobId {
		t.Fatalf("inserts = %d, want 2 with one job ID", len(fake.inserts))
	}
	if len(fake.jobs) != 1 || res.JobID != fake.inserts[0].JobReference.JobId {
		t.Errorf("jobs = %d, result job %s; want the one job", len(fake.jobs), res.JobID)
	}
}

// capAt is a caller's check of the estimate (export's --max-export-bytes,
// package export): more than max bytes is refused, with the estimate.
func capAt(max int64) func(int64) error {
	return func(estimate int64) error {
		if estimate <= max {
			return nil
		}
		return bqerr.Newf(bqerr.ResourceExhausted, "the query would read about %s", governance.FormatBytes(estimate)).WithRetryable(false)
	}
}

// TestRunToTableRefusesAnEstimateOverTheExportCap: an export whose dry run
// estimates more bytes than its caller's check allows is refused with the
// check's error, before any job is inserted and with nothing of the budget
// held; at the cap it runs. The estimate is asked for even when the query's
// verdict is remembered and no budget needs it, and only after the
// allowlist (a refused query's size is not told). A dry run without an
// estimate cannot be checked in advance, and runs.
func TestRunToTableRefusesAnEstimateOverTheExportCap(t *testing.T) {
	fake := &resultBigQuery{}
	s := newResultService(t, fake)
	ctx := as("token:1")
	_, err := s.RunToTable(ctx, ExecuteInput{SQL: "SELECT * FROM sales.orders"}, capAt(99))
	e, ok := bqerr.As(err)
	if !ok || e.Code != bqerr.ResourceExhausted || e.Retryable || !strings.Contains(e.Message, "about 100 B") {
		t.Fatalf("over the cap: %+v, want the check's RESOURCE_EXHAUSTED with the estimate", err)
	}
	if n := fake.insertCount(); n != 0 {
		t.Fatalf("a refused export inserted %d jobs, want 0", n)
	}
	if u, err := s.Usage(ctx, UsageInput{}); err != nil || u.Reserved != 0 || u.Session.Jobs != 0 {
		t.Errorf("usage after the refusal = %+v, %v; want nothing held or spent", u, err)
	}
	if _, err := s.RunToTable(ctx, ExecuteInput{SQL: "SELECT * FROM secret.orders"}, capAt(1)); err == nil {
		t.Error("a query outside the allowlist ran")
	} else if e, _ := bqerr.As(err); e.Code != bqerr.PermissionDenied || strings.Contains(e.Message, "100 B") {
		t.Errorf("outside the allowlist: %v, want PERMISSION_DENIED without the estimate", err)
	}
	if _, err := s.RunToTable(ctx, ExecuteInput{SQL: "SELECT * FROM sales.orders"}, capAt(100)); err != nil {
		t.Fatalf("at the cap: %v", err)
	}
	if n := fake.insertCount(); n != 1 {
		t.Fatalf("at the cap: %d jobs inserted, want 1", n)
	}

	// No budget to estimate for, and the verdict is remembered: the cap
	// still asks for a dry run.
	s.cfg.State = governance.NewMemory(governance.NewBudget(governance.Limits{}), nil)
	reconfigured(s)
	if _, err := s.RunToTable(ctx, ExecuteInput{SQL: "SELECT * FROM sales.orders"}, capAt(50)); err == nil {
		t.Error("without a budget, an export over the cap ran")
	}
	fake.mu.Lock()
	fake.noEstimate = true
	fake.mu.Unlock()
	if _, err := s.RunToTable(ctx, ExecuteInput{SQL: "SELECT * FROM sales.orders"}, capAt(50)); err != nil {
		t.Errorf("a dry run without an estimate: %v, want the export to run (the cap is held as it writes)", err)
	}
	if n := fake.insertCount(); n != 2 {
		t.Errorf("%d jobs inserted, want 2", n)
	}
}
