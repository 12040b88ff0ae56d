package query

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// resultBigQuery answers what RunToTable and ResultOf send: dry runs (a
// SELECT of sales.orders or secret.orders, 100 bytes), jobs.insert of
// query jobs (kept by the ID the caller chose; a repeat is 409
// duplicate), getQueryResults (complete) and jobs.get with the job's
// destination table and statistics. failFirstInsert makes the first insert
// reach BigQuery but lose its answer (503).
type resultBigQuery struct {
	*bqfake.Fake
	failFirstInsert bool

	mu sync.Mutex
	// noEstimate makes dry runs answer without bytes processed.
	noEstimate bool
}

// serve starts the fake f describes.
func (f *resultBigQuery) serve(t *testing.T) {
	f.Fake = bqfake.New(t, bqfake.InProcess())
	schema := &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "n", Type: "INTEGER"}}}
	f.OnJob(func(job *bq.Job) {
		table := "p.sales.orders"
		if strings.Contains(job.Configuration.Query.Query, "secret") {
			table = "p.secret.orders"
		}
		if job.Configuration.DryRun {
			job.Statistics = &bq.JobStatistics{TotalBytesProcessed: 100, Query: &bq.JobStatistics2{
				StatementType: "SELECT", ReferencedTables: tableRefs([]string{table}), TotalBytesProcessed: 100}}
			f.mu.Lock()
			if f.noEstimate {
				job.Statistics.TotalBytesProcessed, job.Statistics.Query.TotalBytesProcessed = 0, 0
			}
			f.mu.Unlock()
			return
		}
		dst := &bq.TableReference{ProjectId: "p", DatasetId: "_anon", TableId: "anon_" + job.JobReference.JobId}
		f.AddTable(&bq.Table{TableReference: dst, Schema: schema}, &bq.TableRow{F: []*bq.TableCell{{V: "1"}}})
		job.Configuration.Query.DestinationTable = dst
		job.Statistics = &bq.JobStatistics{TotalBytesProcessed: 100, Query: &bq.JobStatistics2{TotalBytesProcessed: 100, TotalBytesBilled: 100, StatementType: "SELECT"}}
	})
	notDry := func(r *bqfake.Request) bool { return !r.Job.Configuration.DryRun }
	if f.failFirstInsert {
		f.On(bqfake.JobsInsert).When(notDry).Times(1).FailAfter(http.StatusServiceUnavailable, "backendError")
	}
	// The insert's answer says the job runs; jobs.get then finds it done.
	f.On(bqfake.JobsInsert).When(notDry).Rewrite(func(_ *bqfake.Request, answer any) any {
		running := *answer.(*bq.Job)
		running.Status = &bq.JobStatus{State: "RUNNING"}
		return &running
	})
}

// inserts lists every non-dry-run jobs.insert, repeats included.
func (f *resultBigQuery) inserts() []*bq.Job {
	var out []*bq.Job
	for _, r := range f.Requests(bqfake.JobsInsert) {
		if !r.Job.Configuration.DryRun {
			out = append(out, r.Job)
		}
	}
	return out
}

func (f *resultBigQuery) insertCount() int { return len(f.inserts()) }

// newResultService serves fake to a read-only service for several
// principals, under the allowlist "sales" and a session budget of 1 MiB,
// then each configure.
func newResultService(t *testing.T, fake *resultBigQuery, configure ...func(*Config)) *Service {
	t.Helper()
	fake.serve(t)
	allow, err := governance.ParseAllowlist("sales", "p")
	if err != nil {
		t.Fatal(err)
	}
	return newTestService(t, fake, func(c *Config) {
		c.AllowWrites = false
		c.Datasets = allow
		c.MultiPrincipal = true
		c.State = governance.NewMemory(governance.NewBudget(governance.Limits{MaxBytesPerSession: 1 << 20}), nil)
		c.Catalog = fakeCatalog{types: map[string]string{"p.sales.orders": "TABLE", "p.secret.orders": "TABLE"}, datasets: []string{"sales", "secret"}}
		for _, f := range configure {
			f(c)
		}
	})
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
	job := fake.inserts()[0]
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
	synctest.Test(t, func(t *testing.T) {
		fake := &resultBigQuery{failFirstInsert: true}
		s := newResultService(t, fake)
		res, err := s.RunToTable(as(""), ExecuteInput{SQL: "SELECT * FROM sales.orders"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ins := fake.inserts(); len(ins) != 2 || ins[0].JobReference.JobId != ins[1].JobReference.JobId {
			t.Fatalf("inserts = %d, want 2 with one job ID", len(ins))
		}
		if len(fake.Jobs()) != 1 || res.JobID != fake.inserts()[0].JobReference.JobId {
			t.Errorf("jobs = %d, result job %s; want the one job", len(fake.Jobs()), res.JobID)
		}
	})
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

	// No budget to estimate for, and the verdict is remembered (an export
	// at the cap ran): the cap still asks for a dry run.
	fake = &resultBigQuery{}
	s = newResultService(t, fake, func(c *Config) { c.State = governance.NewMemory(governance.NewBudget(governance.Limits{}), nil) })
	if _, err := s.RunToTable(ctx, ExecuteInput{SQL: "SELECT * FROM sales.orders"}, capAt(100)); err != nil {
		t.Fatalf("without a budget, at the cap: %v", err)
	}
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
