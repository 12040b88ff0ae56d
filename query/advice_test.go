package query

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// partitionBigQuery fakes the REST API for advice on bqfake: dry runs
// answer from bytes (every SQL reads p.sales.events; a text it has no
// figure for is invalid), INFORMATION_SCHEMA.PARTITIONS answers 60 day
// partitions of 1 MiB each, the most recent on adviceDay, and bills 10 MB;
// any other jobs.query is a job, counted, and refused over its
// maximumBytesBilled.
type partitionBigQuery struct {
	*bqfake.Fake
	t     *testing.T
	bytes map[string]int64
	// partitions, when set, replaces the 60 day partitions.
	partitions map[string]int64
	// wide, when set, is the result schema of every dry run.
	wide *bq.TableSchema
	// requireFilter, when set, makes the dry run and jobs.query refuse a
	// text that does not filter on ts, as BigQuery refuses a query without the
	// partition filter a table requires.
	requireFilter bool
	// lookupFaults is how many INFORMATION_SCHEMA.PARTITIONS lookups
	// still fail with a 503 before one is answered.
	lookupFaults int

	mu      sync.Mutex
	lookups int
	jobs    int
	dryRuns []string
}

const partitionMiB = 1 << 20

// adviceDay is "today" for the advice tests: the service's clock and the
// fake's newest partition agree on it whatever the date.
var adviceDay = time.Date(2026, time.March, 14, 23, 59, 59, 0, time.UTC)

func newPartitionBigQuery(t *testing.T, bytes map[string]int64) *partitionBigQuery {
	t.Helper()
	f := &partitionBigQuery{Fake: bqfake.New(t), t: t, bytes: bytes}
	f.On(bqfake.JobsInsert).ReplyFunc(f.dryRun)
	f.On(bqfake.JobsQuery).ReplyFunc(f.query)
	return f
}

func (f *partitionBigQuery) dryRun(r *bqfake.Request) (any, error) {
	job := r.Job
	sql := job.Configuration.Query.Query
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dryRuns = append(f.dryRuns, sql)
	if f.requireFilter && !strings.Contains(sql, "WHERE ts") {
		return nil, noPartitionFilter()
	}
	n, known := f.bytes[sql]
	if !known {
		return nil, bqfake.Errorf(http.StatusBadRequest, "invalidQuery", "no plan for this text")
	}
	job.JobReference = &bq.JobReference{ProjectId: "p", Location: "US"}
	job.Status = &bq.JobStatus{State: "DONE"}
	job.Statistics = &bq.JobStatistics{TotalBytesProcessed: n, Query: &bq.JobStatistics2{
		StatementType: "SELECT", TotalBytesProcessed: n, ReferencedTables: tableRefs([]string{"p.sales.events"}), Schema: f.wide,
	}}
	return job, nil
}

func (f *partitionBigQuery) query(r *bqfake.Request) (any, error) {
	req := r.QueryRequest
	f.mu.Lock()
	defer f.mu.Unlock()
	if strings.Contains(req.Query, "`p.sales.INFORMATION_SCHEMA.PARTITIONS`") {
		if f.lookupFaults > 0 {
			f.lookupFaults--
			return nil, bqfake.Errorf(http.StatusServiceUnavailable, "backendError", "injected backendError")
		}
		f.lookups++
		if len(req.QueryParameters) != 1 || req.QueryParameters[0].ParameterValue.Value != "events" {
			f.t.Errorf("partition lookup parameters = %+v", req.QueryParameters)
		}
		var rows []*bq.TableRow
		for i := 0; i < 60 && f.partitions == nil; i++ {
			id := adviceDay.AddDate(0, 0, -i).Format("20060102")
			rows = append(rows, &bq.TableRow{F: []*bq.TableCell{{V: id}, {V: strconv.Itoa(partitionMiB)}}})
		}
		for id, n := range f.partitions {
			rows = append(rows, &bq.TableRow{F: []*bq.TableCell{{V: id}, {V: strconv.FormatInt(n, 10)}}})
		}
		return &bq.QueryResponse{
			JobReference: &bq.JobReference{ProjectId: "p", JobId: "lookup", Location: "US"},
			JobComplete:  true, TotalRows: 60, Rows: rows, TotalBytesProcessed: 1 << 16, TotalBytesBilled: 10 << 20,
		}, nil
	}
	if f.requireFilter && !strings.Contains(req.Query, "WHERE ts") {
		return nil, noPartitionFilter()
	}
	if req.MaximumBytesBilled > 0 && f.bytes[req.Query] > req.MaximumBytesBilled {
		return nil, bqfake.Errorf(http.StatusBadRequest, "bytesBilledLimitExceeded", "Query exceeded limit for bytes billed: 10485760. 31457280 or higher required.")
	}
	f.jobs++
	return &bq.QueryResponse{
		JobReference: &bq.JobReference{ProjectId: "p", JobId: "job_1", Location: "US"},
		JobComplete:  true, TotalRows: 1, TotalBytesBilled: 1,
		Schema: &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "n", Type: "INTEGER"}}},
		Rows:   []*bq.TableRow{{F: []*bq.TableCell{{V: "1"}}}},
	}, nil
}

// noPartitionFilter is BigQuery's refusal of a query over p.sales.events
// without a filter on its partition column, as real BigQuery words it.
func noPartitionFilter() error {
	return bqfake.Errorf(http.StatusBadRequest, "invalidQuery", "Cannot query over table 'p.sales.events' without a filter over column(s) 'ts' that can be used for partition elimination")
}

// newAdviceService serves a partitioned, clustered sales.events to a
// service whose clock is fixed at adviceDay, then each configure.
func newAdviceService(t *testing.T, requireFilter bool, configure ...func(*Config)) (*Service, *partitionBigQuery) {
	t.Helper()
	fake := newPartitionBigQuery(t, map[string]int64{
		"SELECT * FROM sales.events":                                          30 * partitionMiB,
		"SELECT * FROM sales.events WHERE ts >= DATE '2024-01-01'":            2 * partitionMiB,
		"SELECT COUNT(*) FROM sales.events WHERE ts = CURRENT_DATE() LIMIT 1": partitionMiB,
	})
	fake.requireFilter = requireFilter
	s := newTestService(t, fake, func(c *Config) {
		c.now = func() time.Time { return adviceDay }
		c.State = governance.NewMemory(governance.NewBudget(governance.Limits{}), nil)
		c.Catalog = fakeCatalog{layouts: map[string]*bqtype.TableLayout{
			"p.sales.events": {Type: "TABLE", NumBytes: 60 * partitionMiB, Clustering: []string{"customer_id"},
				Partitioning: &bqtype.PartitionLayout{Type: "DAY", Column: "ts", ColumnType: "DATE", RequireFilter: requireFilter}},
		}}
		for _, f := range configure {
			f(c)
		}
	})
	return s, fake
}

func TestDryRunAdvisesPartitionFilterWithPartitionSizes(t *testing.T) {
	s, fake := newAdviceService(t, false)
	out, err := s.DryRun(context.Background(), DryRunInput{SQL: "SELECT * FROM sales.events"})
	if err != nil {
		t.Fatal(err)
	}
	// The query reads 30 of the table's 60 MiB: half of each partition.
	want := map[string]int64{"last 1 day": partitionMiB / 2, "last 7 days": 7 * partitionMiB / 2, "last 30 days": 30 * partitionMiB / 2}
	var head Advice
	got := map[string]int64{}
	var last int64
	for _, a := range out.Advice {
		if strings.Contains(a.Change, "partitioned by DAY on ts (DATE)") {
			head = a
		}
		for w := range want {
			if strings.Contains(a.Change, "("+w+")") {
				got[w] = a.reads()
				if a.reads() < last {
					t.Errorf("advice not cheapest first: %+v", out.Advice)
				}
				last = a.reads()
			}
		}
	}
	if head.Change == "" || !strings.Contains(head.Method, "INFORMATION_SCHEMA.PARTITIONS") || !strings.Contains(head.Method, "50%") || !strings.Contains(head.Method, "10 MB") {
		t.Errorf("no partition advice with its method: %+v", out.Advice)
	}
	for w, n := range want {
		if got[w] != n {
			t.Errorf("%s reads %d, want %d (advice %+v)", w, got[w], n, out.Advice)
		}
	}
	if !strings.Contains(out.Advice[len(out.Advice)-1].Change, "clustered by customer_id") {
		t.Errorf("no clustering advice: %+v", out.Advice)
	}
	b, _ := json.Marshal(out)
	t.Logf("dry_run_sql answer with advice: %d bytes: %s", len(b), b)
	if len(b) >= 2048 {
		t.Errorf("answer with advice is %d bytes, want under 2 KB", len(b))
	}
	// The lookup is billed to the caller; a second call reuses it.
	rep, err := s.cfg.State.Report(context.Background(), "")
	if err != nil || rep.Today.BytesBilled != 10<<20 {
		t.Errorf("spend after lookup = %+v, %v; want 10 MB billed", rep.Today, err)
	}
	if _, err := s.DryRun(context.Background(), DryRunInput{SQL: "SELECT * FROM sales.events"}); err != nil {
		t.Fatal(err)
	}
	if fake.lookups != 1 {
		t.Errorf("INFORMATION_SCHEMA lookups = %d, want 1 (cached)", fake.lookups)
	}
}

func TestFilteredQueryGetsNoPartitionAdvice(t *testing.T) {
	s, fake := newAdviceService(t, true)
	out, err := s.DryRun(context.Background(), DryRunInput{SQL: "SELECT * FROM sales.events WHERE ts >= DATE '2024-01-01'"})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range out.Advice {
		if strings.Contains(a.Change, "partition") || a.ReadsBytes != nil {
			t.Errorf("partition advice for a filtered query: %+v", a)
		}
	}
	if fake.lookups != 0 {
		t.Errorf("INFORMATION_SCHEMA lookups = %d, want 0", fake.lookups)
	}
}

// BigQuery refuses a query without the partition filter its table
// requires, in the dry run or the job, and the refusal carries a filter
// BigQuery accepts, from the table looked up then; nothing looks tables up
// before the dry run (issue 36: that cost a tables.get on every cold query
// and hid a hung BigQuery from the breaker).
func TestRequirePartitionFilterRefusalGetsAFilterHint(t *testing.T) {
	var lookups atomic.Int64
	layouts := map[string]*bqtype.TableLayout{
		"p.sales.events": {Type: "TABLE", Partitioning: &bqtype.PartitionLayout{Type: "DAY", Column: "ts", ColumnType: "DATE", RequireFilter: true}},
	}
	s, fake := newAdviceService(t, true, func(c *Config) {
		c.Catalog = fakeCatalog{layouts: layouts, layoutLookups: &lookups}
	})
	ctx := context.Background()
	if _, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT COUNT(*) FROM sales.events WHERE ts = CURRENT_DATE() LIMIT 1"}); err != nil {
		t.Fatalf("filtered query refused: %v", err)
	}
	if n := lookups.Load(); n != 0 {
		t.Errorf("table lookups for a query BigQuery accepted = %d, want 0", n)
	}
	wantHint := func(what string, err error) {
		t.Helper()
		e := bqerr.From(err)
		if err == nil || e.Code != bqerr.QueryError || !strings.Contains(e.Message, "without a filter over column(s) 'ts'") ||
			!strings.Contains(e.Hint, "partition column ts (DATE), e.g. WHERE ts >= DATE_SUB(CURRENT_DATE(), INTERVAL 6 DAY)") {
			t.Errorf("%s = %v (hint %q), want BigQuery's refusal with a filter on ts", what, err, e.Hint)
		}
	}
	_, err := s.DryRun(ctx, DryRunInput{SQL: "SELECT * FROM sales.events"})
	wantHint("dry_run_sql", err)
	_, err = s.Execute(ctx, ExecuteInput{SQL: "SELECT * FROM sales.events"})
	wantHint("execute_sql", err)
	if fake.jobs != 1 {
		t.Errorf("jobs started = %d, want 1 (the filtered query's)", fake.jobs)
	}
	if n := lookups.Load(); n != 2 {
		t.Errorf("table lookups = %d, want one per refusal", n)
	}

	// The job refuses it (no dry run on a server that allows writes): the
	// same hint. A table that cannot be looked up gets one naming the
	// column alone.
	s, _ = newAdviceService(t, true, func(c *Config) {
		c.AllowWrites = true
		c.Catalog = fakeCatalog{layouts: layouts}
	})
	_, err = s.Execute(ctx, ExecuteInput{SQL: "SELECT * FROM sales.events"})
	wantHint("execute_sql without a dry run", err)
	s, _ = newAdviceService(t, true, func(c *Config) { c.Catalog = fakeCatalog{} })
	_, err = s.Execute(ctx, ExecuteInput{SQL: "SELECT * FROM sales.events"})
	if e := bqerr.From(err); e.Code != bqerr.QueryError || !strings.Contains(e.Hint, "partition column ts: add one to WHERE") {
		t.Errorf("refusal over a table not looked up = %v (hint %q), want a hint naming ts", err, e.Hint)
	}
}

func TestPartitionFilterRefusalIsRead(t *testing.T) {
	for _, c := range []struct {
		msg            string
		table, columns string
		ref            tableRef
	}{
		{"Cannot query over table 'p.sales.events' without a filter over column(s) 'ts' that can be used for partition elimination", "p.sales.events", "ts", tableRef{"p", "sales", "events"}},
		{"Cannot query over table 'example.com:p.d.t' without a filter over column(s) 'a, b' that can be used for partition elimination", "example.com:p.d.t", "a, b", tableRef{"example.com:p", "d", "t"}},
		{"Cannot query over table 'sales.events' without a filter over column(s) 'day' that can be used for partition elimination", "sales.events", "day", tableRef{"dflt", "sales", "events"}},
	} {
		table, columns, ok := partitionFilterRefusal(c.msg)
		ref, refOK := splitTable(table, "dflt")
		if !ok || !refOK || table != c.table || columns != c.columns || ref != c.ref {
			t.Errorf("%q: read %q %q %v, %+v %v", c.msg, table, columns, ok, ref, refOK)
		}
	}
	for _, msg := range []string{"Syntax error: Unexpected identifier", "Cannot query over table 'p.d.t' without", "Cannot query over table 'x"} {
		if _, _, ok := partitionFilterRefusal(msg); ok {
			t.Errorf("%q read as a partition filter refusal", msg)
		}
	}
}

// The partition lookup is a job like any other (job.Runner.Lookup): a
// retry after BigQuery failed its first attempt sends the same requestId,
// which BigQuery answers with the same job, never a second; its cost
// settles the 10 MB hold once.
func TestRetriedPartitionLookupIsOneJob(t *testing.T) {
	_, fast := withOpLog(t)
	s, fake := newAdviceService(t, false, fast)
	fake.lookupFaults = 1
	out, err := s.DryRun(context.Background(), DryRunInput{SQL: "SELECT * FROM sales.events"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range fake.Requests(bqfake.JobsQuery) {
		if strings.Contains(r.QueryRequest.Query, "INFORMATION_SCHEMA.PARTITIONS") {
			ids = append(ids, r.QueryRequest.RequestId)
		}
	}
	if len(ids) != 2 || ids[0] == "" || ids[0] != ids[1] {
		t.Fatalf("lookup attempts sent requestIds %q, want two attempts of one", ids)
	}
	if len(out.Advice) == 0 || out.Advice[0].ReadsBytes == nil {
		t.Errorf("advice after a retried lookup = %+v, want the partition figures", out.Advice)
	}
	rep, err := s.cfg.State.Report(context.Background(), "")
	if err != nil || rep.Today.Jobs != 1 || rep.Today.BytesBilled != 10<<20 || rep.Reserved != 0 {
		t.Errorf("spend after the retried lookup = %+v (reserved %d), %v; want one job of 10 MB, nothing held", rep.Today, rep.Reserved, err)
	}
}
