package query

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/googleapi"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// plan is what the fake's dry run says of one SQL text.
type plan struct {
	statementType string
	tables        []string // project.dataset.table
	bytes         int64
}

// planBigQuery answers dry runs (jobs.insert with dryRun) from plans keyed
// by SQL text, as BigQuery does: statementType, referencedTables (views
// resolved to the tables under them) and the bytes estimate. jobs.query
// runs complete at once, billing the plan's bytes; jobs.get answers for
// foreign jobs. counts tells dry runs and real jobs apart.
type planBigQuery struct {
	*bqfake.Fake
	t     *testing.T
	plans map[string]plan

	// jobs are jobs.get answers by job ID (jobs this fake did not start).
	jobs map[string]plan
	// stats, when set for a SQL text, is the dry run's whole answer
	// (routines, DDL and DCL targets); dryRunErrors are dry runs that fail
	// the way BigQuery fails them (status, reason, message).
	stats        map[string]*bq.JobStatistics2
	dryRunErrors map[string]*googleapi.Error
}

func newPlanBigQuery(t *testing.T, plans map[string]plan) *planBigQuery {
	t.Helper()
	f := &planBigQuery{Fake: bqfake.New(t), t: t, plans: plans, jobs: map[string]plan{}}
	f.On(bqfake.JobsInsert).ReplyFunc(f.dryRun)
	f.OnJob(func(job *bq.Job) {
		if job.Configuration.DryRun {
			return
		}
		p := f.plan(job.Configuration.Query.Query)
		job.Statistics = &bq.JobStatistics{TotalBytesProcessed: p.bytes, Query: &bq.JobStatistics2{StatementType: p.statementType, TotalBytesProcessed: p.bytes, TotalBytesBilled: p.bytes}}
	})
	f.QueryResult(bqfake.Columns("n INTEGER"), bqfake.Row("1"))
	f.On(bqfake.JobsGet).ReplyFunc(func(r *bqfake.Request) (any, error) {
		p, ok := f.jobs[r.JobID]
		if !ok {
			return nil, bqfake.Errorf(http.StatusNotFound, "notFound", "Not found: Job p:%s", r.JobID)
		}
		return &bq.Job{
			JobReference: &bq.JobReference{ProjectId: "p", JobId: r.JobID, Location: "US"},
			Status:       &bq.JobStatus{State: "DONE"},
			Statistics: &bq.JobStatistics{Query: &bq.JobStatistics2{
				StatementType: p.statementType, ReferencedTables: tableRefs(p.tables),
			}},
		}, nil
	})
	return f
}

// counts is how many dry runs, jobs.query and jobs.get reached the fake;
// the allowlist's lookups of property graphs (graphLookups) are not among
// the queries.
func (f *planBigQuery) counts() (dryRuns, queries, gets int) {
	return f.Count(bqfake.JobsInsert), f.Count(bqfake.JobsQuery) - f.graphLookups(), f.Count(bqfake.JobsGet)
}

// graphLookups is how many jobs.query read INFORMATION_SCHEMA.PROPERTY_GRAPHS.
func (f *planBigQuery) graphLookups() int {
	n := 0
	for _, r := range f.Requests(bqfake.JobsQuery) {
		if r.QueryRequest != nil && strings.Contains(r.QueryRequest.Query, "INFORMATION_SCHEMA.PROPERTY_GRAPHS") {
			n++
		}
	}
	return n
}

func (f *planBigQuery) plan(sql string) plan {
	p, ok := f.plans[sql]
	if !ok {
		p = plan{statementType: "SELECT"}
	}
	return p
}

func tableRefs(names []string) []*bq.TableReference {
	var refs []*bq.TableReference
	for _, n := range names {
		i, j := strings.Index(n, "."), strings.LastIndex(n, ".")
		refs = append(refs, &bq.TableReference{ProjectId: n[:i], DatasetId: n[i+1 : j], TableId: n[j+1:]})
	}
	return refs
}

// dryRun answers a dry run from its plan.
func (f *planBigQuery) dryRun(r *bqfake.Request) (any, error) {
	job := r.Job
	if !job.Configuration.DryRun {
		f.t.Errorf("plan bigquery: a job was inserted that is not a dry run")
		return nil, bqfake.Errorf(http.StatusBadRequest, "invalid", "not a dry run")
	}
	sql := job.Configuration.Query.Query
	if e, ok := f.dryRunErrors[sql]; ok {
		return nil, bqfake.Errorf(e.Code, e.Errors[0].Reason, "%s", e.Message)
	}
	p := f.plan(sql)
	job.JobReference = &bq.JobReference{ProjectId: "p", Location: "US"}
	job.Status = &bq.JobStatus{State: "DONE"}
	job.Statistics = &bq.JobStatistics{TotalBytesProcessed: p.bytes, Query: &bq.JobStatistics2{
		StatementType: p.statementType, ReferencedTables: tableRefs(p.tables), TotalBytesProcessed: p.bytes,
	}}
	if st, ok := f.stats[sql]; ok {
		job.Statistics.Query = st
	}
	return job, nil
}

// fakeCatalog is the cached metadata the allowlist consults.
type fakeCatalog struct {
	types    map[string]string // project.dataset.table -> type
	datasets []string
	// layouts are tables' partitioning and clustering (advice.go).
	layouts map[string]*bqtype.TableLayout
	// layoutLookups, when set, counts the calls of TableLayout.
	layoutLookups *atomic.Int64
}

func (c fakeCatalog) TableLayout(_ context.Context, project, dataset, table string) (*bqtype.TableLayout, error) {
	if c.layoutLookups != nil {
		c.layoutLookups.Add(1)
	}
	if l, ok := c.layouts[project+"."+dataset+"."+table]; ok {
		return l, nil
	}
	return nil, bqerr.New(bqerr.NotFound, "not found")
}

func (c fakeCatalog) TableType(_ context.Context, project, dataset, table string) (string, error) {
	if t, ok := c.types[project+"."+dataset+"."+table]; ok {
		return t, nil
	}
	return "", bqerr.New(bqerr.NotFound, "not found")
}

func (c fakeCatalog) DatasetIDs(context.Context, string) ([]string, error) { return c.datasets, nil }

func (fakeCatalog) DatasetLocation(context.Context, string, string) (string, error) { return "", nil }

func (fakeCatalog) DatasetLocations(context.Context, string) ([]string, error) { return nil, nil }

// The warehouse of the corpus: sales and mkt_* are allowed. sales.v_orders
// is an authorized view over secret.orders; hr.v_all, outside the
// allowlist, reads the same table. Each configure then changes the config.
func newGovernedService(t *testing.T, plans map[string]plan, allowWrites bool, configure ...func(*Config)) (*Service, *planBigQuery) {
	t.Helper()
	fake := newPlanBigQuery(t, plans)
	allow, err := governance.ParseAllowlist("sales,mkt_*", "p")
	if err != nil {
		t.Fatal(err)
	}
	s := newTestService(t, fake, func(c *Config) {
		c.AllowWrites = allowWrites
		c.Datasets = allow
		c.State = governance.NewMemory(governance.NewBudget(governance.Limits{}), nil)
		c.Catalog = fakeCatalog{
			types: map[string]string{
				"p.sales.orders": "TABLE", "p.sales.v_orders": "VIEW", "p.hr.v_all": "VIEW", "p.secret.orders": "TABLE",
			},
			datasets: []string{"sales", "mkt_eu", "secret", "hr"},
		}
		for _, f := range configure {
			f(c)
		}
	})
	return s, fake
}

// corpusPlans are the dry-run answers for the corpus' statements.
var corpusPlans = map[string]plan{
	"SELECT * FROM sales.orders":                                                     {"SELECT", []string{"p.sales.orders"}, 100},
	"SELECT * FROM `p.sales.orders`":                                                 {"SELECT", []string{"p.sales.orders"}, 100},
	"SELECT * FROM mkt_eu.clicks":                                                    {"SELECT", []string{"p.mkt_eu.clicks"}, 100},
	"SELECT * FROM sales.v_orders":                                                   {"SELECT", []string{"p.secret.orders"}, 100},
	"SELECT * FROM `p.sales.v_orders`":                                               {"SELECT", []string{"p.secret.orders"}, 100},
	"SELECT o.id FROM sales.v_orders AS o, o.items":                                  {"SELECT", []string{"p.secret.orders"}, 100},
	"SELECT id AS secret FROM sales.v_orders":                                        {"SELECT", []string{"p.secret.orders"}, 100},
	"SELECT id AS hr FROM sales.v_orders AS `secret`":                                {"SELECT", []string{"p.secret.orders"}, 100},
	"SELECT id AS secret FROM sales.v_orders UNION ALL SELECT id FROM secret.orders": {"SELECT", []string{"p.secret.orders"}, 100},
	"SELECT * FROM p.sales.events_*":                                                 {"SELECT", []string{"p.sales.events_2024"}, 100},
	"SELECT table_name FROM sales.INFORMATION_SCHEMA.TABLES":                         {"SELECT", nil, 0},
	"SELECT 1": {"SELECT", nil, 0},
	"SELECT EXTRACT(YEAR FROM CURRENT_DATE())":                                   {"SELECT", nil, 0},
	"WITH x AS (SELECT * FROM sales.orders) SELECT * FROM x":                     {"SELECT", []string{"p.sales.orders"}, 100},
	"SELECT * FROM orders":                                                       {"SELECT", []string{"p.sales.orders"}, 100},
	"SELECT * FROM secret.orders":                                                {"SELECT", []string{"p.secret.orders"}, 100},
	"SELECT * FROM `p.secret.orders`":                                            {"SELECT", []string{"p.secret.orders"}, 100},
	"SELECT * FROM `p`.`secret`.`orders`":                                        {"SELECT", []string{"p.secret.orders"}, 100},
	"select * from SECRET.orders":                                                {"SELECT", []string{"p.secret.orders"}, 100},
	"SELECT * FROM sales.orders o JOIN secret.orders s ON o.id = s.id":           {"SELECT", []string{"p.sales.orders", "p.secret.orders"}, 100},
	"SELECT * FROM sales.orders WHERE id IN (SELECT id FROM secret.orders)":      {"SELECT", []string{"p.sales.orders", "p.secret.orders"}, 100},
	"WITH s AS (SELECT * FROM secret.orders) SELECT * FROM s":                    {"SELECT", []string{"p.secret.orders"}, 100},
	"SELECT * FROM sales.orders, secret.orders":                                  {"SELECT", []string{"p.sales.orders", "p.secret.orders"}, 100},
	"SELECT * FROM secret.orders_*":                                              {"SELECT", []string{"p.secret.orders_1"}, 100},
	"SELECT * FROM sales.v_orders UNION ALL SELECT * FROM secret.orders":         {"SELECT", []string{"p.secret.orders"}, 100},
	"SELECT * FROM sales.v_orders UNION ALL SELECT * FROM `p.secret.orders`":     {"SELECT", []string{"p.secret.orders"}, 100},
	"SELECT * FROM sales.v_orders UNION ALL SELECT * FROM hr.v_all":              {"SELECT", []string{"p.secret.orders"}, 100},
	"SELECT * FROM sales.v_orders, hr.fn(1)":                                     {"SELECT", []string{"p.secret.orders"}, 100},
	"SELECT * FROM `other-proj.sales.orders`":                                    {"SELECT", []string{"other-proj.sales.orders"}, 100},
	"SELECT * FROM other-proj.secret.orders":                                     {"SELECT", []string{"other-proj.secret.orders"}, 100},
	"SELECT * FROM sales.orders /* reads nothing else */":                        {"SELECT", nil, 100},
	"SELECT * FROM `region-us`.INFORMATION_SCHEMA.TABLES":                        {"SELECT", nil, 0},
	"SELECT * FROM p.`region-us`.INFORMATION_SCHEMA.JOBS":                        {"SELECT", nil, 0},
	"SELECT * FROM secret.INFORMATION_SCHEMA.COLUMNS":                            {"SELECT", nil, 0},
	"SELECT * FROM INFORMATION_SCHEMA.SCHEMATA":                                  {"SELECT", nil, 0},
	"SELECT * FROM EXTERNAL_QUERY('p.us.conn', 'SELECT * FROM customers')":       {"SELECT", nil, 0},
	"DECLARE n INT64; SET n = (SELECT COUNT(*) FROM secret.orders); SELECT n":    {"SCRIPT", nil, 100},
	"INSERT INTO sales.copy SELECT * FROM secret.orders":                         {"INSERT", []string{"p.secret.orders", "p.sales.copy"}, 100},
	"CREATE TABLE sales.copy AS SELECT * FROM sales.v_orders JOIN hr.v_all ON 1": {"CREATE_TABLE_AS_SELECT", []string{"p.secret.orders"}, 100},
	"INSERT INTO sales.copy (n) VALUES (1)":                                      {"INSERT", nil, 0},
	"INSERT INTO secret.copy (n) VALUES (1)":                                     {"INSERT", nil, 0},
	"CREATE TABLE hr.t AS SELECT 1 AS n":                                         {"CREATE_TABLE_AS_SELECT", nil, 0},
}

// TestDatasetAllowlistCorpus: no form of reading a table outside the
// allowlist gets a job (zero jobs.query at the fake), while allowed reads,
// authorized views included, run.
func TestDatasetAllowlistCorpus(t *testing.T) {
	for _, tc := range []struct {
		sql            string
		defaultDataset string
		writes         bool
		allowed        bool
		// noDryRun: refused from the text alone, before any request.
		noDryRun bool
	}{
		{sql: "SELECT * FROM sales.orders", allowed: true},
		{sql: "SELECT * FROM `p.sales.orders`", allowed: true},
		{sql: "SELECT * FROM mkt_eu.clicks", allowed: true},
		{sql: "SELECT * FROM sales.v_orders", allowed: true},
		{sql: "SELECT * FROM `p.sales.v_orders`", allowed: true},
		{sql: "SELECT o.id FROM sales.v_orders AS o, o.items", allowed: true},
		// An alias that spells a hidden dataset's name names no dataset.
		{sql: "SELECT id AS secret FROM sales.v_orders", allowed: true},
		{sql: "SELECT id AS hr FROM sales.v_orders AS `secret`", allowed: true},
		{sql: "SELECT * FROM p.sales.events_*", allowed: true},
		{sql: "SELECT table_name FROM sales.INFORMATION_SCHEMA.TABLES", allowed: true},
		{sql: "SELECT 1", allowed: true},
		{sql: "SELECT EXTRACT(YEAR FROM CURRENT_DATE())", allowed: true},
		{sql: "WITH x AS (SELECT * FROM sales.orders) SELECT * FROM x", allowed: true},
		{sql: "SELECT * FROM orders", defaultDataset: "sales", allowed: true},

		{sql: "SELECT * FROM secret.orders"},
		{sql: "SELECT * FROM `p.secret.orders`"},
		{sql: "SELECT * FROM `p`.`secret`.`orders`"},
		{sql: "select * from SECRET.orders"},
		{sql: "SELECT * FROM sales.orders o JOIN secret.orders s ON o.id = s.id"},
		{sql: "SELECT * FROM sales.orders WHERE id IN (SELECT id FROM secret.orders)"},
		{sql: "WITH s AS (SELECT * FROM secret.orders) SELECT * FROM s"},
		{sql: "SELECT * FROM sales.orders, secret.orders"},
		{sql: "SELECT * FROM secret.orders_*"},
		{sql: "SELECT * FROM orders", defaultDataset: "secret", noDryRun: true},
		{sql: "SELECT * FROM orders", defaultDataset: "p.secret", noDryRun: true},
		// The authorized view is named, but so is the table under it, or
		// another dataset's view over the same table.
		{sql: "SELECT * FROM sales.v_orders UNION ALL SELECT * FROM secret.orders"},
		{sql: "SELECT * FROM sales.v_orders UNION ALL SELECT * FROM `p.secret.orders`"},
		{sql: "SELECT * FROM sales.v_orders UNION ALL SELECT * FROM hr.v_all"},
		{sql: "SELECT * FROM sales.v_orders, hr.fn(1)"},
		// A path after the alias still names the dataset.
		{sql: "SELECT id AS secret FROM sales.v_orders UNION ALL SELECT id FROM secret.orders"},
		{sql: "SELECT * FROM `other-proj.sales.orders`"},
		{sql: "SELECT * FROM other-proj.secret.orders"},
		// BigQuery listing no table for a query that names one: fail closed.
		{sql: "SELECT * FROM sales.orders /* reads nothing else */"},
		{sql: "SELECT * FROM `region-us`.INFORMATION_SCHEMA.TABLES", noDryRun: true},
		{sql: "SELECT * FROM p.`region-us`.INFORMATION_SCHEMA.JOBS", noDryRun: true},
		{sql: "SELECT * FROM secret.INFORMATION_SCHEMA.COLUMNS", noDryRun: true},
		{sql: "SELECT * FROM INFORMATION_SCHEMA.SCHEMATA", noDryRun: true},
		{sql: "SELECT * FROM EXTERNAL_QUERY('p.us.conn', 'SELECT * FROM customers')", noDryRun: true},
		// With writes on: a script's tables are not all listed; DML and
		// DDL read like any query.
		{sql: "DECLARE n INT64; SET n = (SELECT COUNT(*) FROM secret.orders); SELECT n", writes: true},
		{sql: "INSERT INTO sales.copy SELECT * FROM secret.orders", writes: true},
		{sql: "CREATE TABLE sales.copy AS SELECT * FROM sales.v_orders JOIN hr.v_all ON 1", writes: true},
		{sql: "INSERT INTO sales.copy (n) VALUES (1)", writes: true, allowed: true},
		{sql: "INSERT INTO secret.copy (n) VALUES (1)", writes: true},
		{sql: "CREATE TABLE hr.t AS SELECT 1 AS n", writes: true},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			s, fake := newGovernedService(t, corpusPlans, tc.writes)
			ctx := context.Background()
			_, err := s.Execute(ctx, ExecuteInput{SQL: tc.sql, DefaultDataset: tc.defaultDataset})
			dryRuns, queries, _ := fake.counts()
			if tc.allowed {
				if err != nil {
					t.Fatalf("Execute refused an allowed read: %v", err)
				}
				if queries != 1 {
					t.Errorf("%d jobs.query requests, want 1", queries)
				}
				// dry_run_sql agrees.
				if _, err := s.DryRun(ctx, DryRunInput{SQL: tc.sql, DefaultDataset: tc.defaultDataset}); err != nil {
					t.Errorf("DryRun refused an allowed read: %v", err)
				}
				return
			}
			e, ok := bqerr.As(err)
			if !ok || e.Code != bqerr.PermissionDenied {
				t.Fatalf("Execute = %v, want PERMISSION_DENIED", err)
			}
			if !strings.Contains(e.Hint, "p.sales, p.mkt_*") && !strings.Contains(e.Hint, "allowlist") && !strings.Contains(e.Hint, "p.sales") {
				t.Errorf("hint %q does not name the allowed datasets", e.Hint)
			}
			if queries != 0 {
				t.Errorf("%d jobs.query requests reached BigQuery for a refused read", queries)
			}
			if tc.noDryRun && dryRuns != 0 {
				t.Errorf("%d dry runs for a read the text alone refuses", dryRuns)
			}
			if _, err := s.DryRun(ctx, DryRunInput{SQL: tc.sql, DefaultDataset: tc.defaultDataset}); err == nil {
				t.Errorf("DryRun accepted a read outside the allowlist")
			}
			if _, _, q := fake.counts(); q != 0 {
				t.Errorf("jobs.get requests: %d", q)
			}
		})
	}
}

// TestAllowlistVerdictIsRemembered: an allowed query costs a dry run the
// first time only; a read through an authorized view is checked each time.
func TestAllowlistVerdictIsRemembered(t *testing.T) {
	s, fake := newGovernedService(t, corpusPlans, false)
	ctx := context.Background()
	for range 3 {
		if _, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT * FROM sales.orders"}); err != nil {
			t.Fatal(err)
		}
	}
	if d, q, _ := fake.counts(); d != 1 || q != 3 {
		t.Errorf("dry runs, queries = %d, %d; want 1, 3", d, q)
	}
	for range 2 {
		if _, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT * FROM sales.v_orders"}); err != nil {
			t.Fatal(err)
		}
	}
	// Two query dry runs and one of the view itself (remembered).
	if d, q, _ := fake.counts(); d != 1+2+1 || q != 5 {
		t.Errorf("dry runs, queries = %d, %d; want 4, 5", d, q)
	}
}

// TestAuthorizedViewNeedsCatalog: without metadata to tell a view from a
// table, a read of tables outside the allowlist is refused.
func TestAuthorizedViewNeedsCatalog(t *testing.T) {
	s, _ := newGovernedService(t, corpusPlans, false, func(c *Config) { c.Catalog = nil })
	_, err := s.Execute(context.Background(), ExecuteInput{SQL: "SELECT * FROM sales.v_orders"})
	if e, ok := bqerr.As(err); !ok || e.Code != bqerr.PermissionDenied {
		t.Fatalf("Execute = %v, want PERMISSION_DENIED", err)
	}
}

// TestGetResultsOfForeignJobs: under an allowlist, results of a job this
// server did not start are refused as not found, whatever it read, with no
// request naming it (package job, owner.go).
func TestGetResultsOfForeignJobs(t *testing.T) {
	s, fake := newGovernedService(t, corpusPlans, false)
	fake.jobs["mine_elsewhere"] = plan{statementType: "SELECT", tables: []string{"p.sales.orders"}}
	fake.jobs["secret_job"] = plan{statementType: "SELECT", tables: []string{"p.secret.orders"}}
	fake.jobs["unlisted_job"] = plan{statementType: "SELECT"}
	ctx := context.Background()
	for _, id := range []string{"mine_elsewhere", "secret_job", "unlisted_job"} {
		_, err := s.GetResults(ctx, GetResultsInput{JobID: id})
		if e, ok := bqerr.As(err); !ok || e.Code != bqerr.NotFound {
			t.Errorf("%s: GetResults = %v, want NOT_FOUND", id, err)
		}
	}
	if _, _, gets := fake.counts(); gets != 0 {
		t.Errorf("%d jobs.get requests for jobs this server did not start", gets)
	}
	// A job this server started (through an authorized view) is read
	// without asking BigQuery about it again.
	out, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT * FROM sales.v_orders"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, before := fake.counts()
	if _, err := s.GetResults(ctx, GetResultsInput{JobID: out.JobID}); err != nil {
		t.Errorf("own job: %v", err)
	}
	if _, _, after := fake.counts(); after != before {
		t.Errorf("reading an own job's results made %d jobs.get requests", after-before)
	}
}

// TestBytesBudget: a query whose estimate passes what is left is refused
// before it runs; bytes billed are counted from the job's statistics.
func TestBytesBudget(t *testing.T) {
	const mb = 1 << 20
	plans := map[string]plan{
		"SELECT a FROM sales.orders": {"SELECT", []string{"p.sales.orders"}, 60 * mb},
		"SELECT b FROM sales.orders": {"SELECT", []string{"p.sales.orders"}, 30 * mb},
	}
	s, fake := newGovernedService(t, plans, false, func(c *Config) {
		c.State = governance.NewMemory(governance.NewBudget(governance.Limits{MaxBytesPerSession: 100 * mb}), nil)
	})
	ctx := context.Background()
	if _, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT a FROM sales.orders"}); err != nil {
		t.Fatalf("first query: %v", err)
	}
	_, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT a FROM sales.orders"})
	e, ok := bqerr.As(err)
	if !ok || e.Code != bqerr.ResourceExhausted || e.Retryable {
		t.Fatalf("second query = %v, want RESOURCE_EXHAUSTED, not retryable", err)
	}
	if !strings.Contains(e.Message, "60.0 MiB") || !strings.Contains(e.Message, "40.0 MiB is left") || e.Hint == "" {
		t.Errorf("error %q (hint %q) does not give the estimate and what is left", e.Message, e.Hint)
	}
	if _, q, _ := fake.counts(); q != 1 {
		t.Errorf("%d jobs.query requests, want 1 (the refused query must not run)", q)
	}
	if _, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT b FROM sales.orders"}); err != nil {
		t.Fatalf("a query within what is left: %v", err)
	}
	u, err := s.Usage(ctx, UsageInput{})
	if err != nil {
		t.Fatal(err)
	}
	if u.Session.Jobs != 2 || u.Session.BytesBilled != 90*mb || u.Left == nil || *u.Left != 10*mb {
		t.Errorf("usage = %+v, want 2 jobs, 90 MiB billed, 10 MiB left", u)
	}
}

// TestConfirmationAboveThreshold: a query above --confirm-above-bytes asks
// first and runs only on accept.
func TestConfirmationAboveThreshold(t *testing.T) {
	const gb = 1 << 30
	plans := map[string]plan{
		"SELECT * FROM sales.big":   {"SELECT", []string{"p.sales.big"}, 2 * gb},
		"SELECT * FROM sales.small": {"SELECT", []string{"p.sales.small"}, gb / 2},
	}
	s, fake := newGovernedService(t, plans, false, func(c *Config) {
		c.ConfirmAboveBytes = gb
		c.PricePerTiB = 6.25
	})
	ctx := context.Background()

	_, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT * FROM sales.big"})
	var need *ConfirmationRequired
	if !errors.As(err, &need) || need.Bytes != 2*gb || need.Threshold != gb {
		t.Fatalf("Execute = %v, want ConfirmationRequired for 2 GiB", err)
	}
	if !strings.Contains(need.Message(), "2.0 GiB") || !strings.Contains(need.Message(), "$0.01") {
		t.Errorf("message %q lacks the bytes and the cost", need.Message())
	}
	if e := need.AsError(); e.Code != bqerr.ResourceExhausted || e.Hint == "" {
		t.Errorf("AsError = %+v, want RESOURCE_EXHAUSTED with a hint", e)
	}
	_, err = s.Execute(WithAnswer(ctx, Declined), ExecuteInput{SQL: "SELECT * FROM sales.big"})
	if e, ok := bqerr.As(err); !ok || e.Code != bqerr.PermissionDenied {
		t.Fatalf("declined: Execute = %v, want PERMISSION_DENIED", err)
	}
	if _, q, _ := fake.counts(); q != 0 {
		t.Fatalf("%d jobs ran before the user accepted", q)
	}
	if _, err := s.Execute(WithAnswer(ctx, Accepted), ExecuteInput{SQL: "SELECT * FROM sales.big"}); err != nil {
		t.Fatalf("accepted: %v", err)
	}
	if _, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT * FROM sales.small"}); err != nil {
		t.Fatalf("below the threshold: %v", err)
	}
	if _, q, _ := fake.counts(); q != 2 {
		t.Errorf("%d jobs ran, want 2", q)
	}
}

// TestTTLCacheExpires: entries vanish after their TTL, and the cache starts
// no goroutine (the integration tests' leak checks hold it to that).
func TestTTLCacheExpires(t *testing.T) {
	c := newTTLCache[string, int](2, 20*time.Millisecond)
	now := time.Now()
	c.now = func() time.Time { return now }
	c.Add("a", 1)
	now = now.Add(20 * time.Millisecond)
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Fatalf("Get at its TTL = %v, %v", v, ok)
	}
	now = now.Add(time.Nanosecond)
	if _, ok := c.Get("a"); ok {
		t.Error("an expired entry was returned")
	}
	c.Add("b", 2)
	c.Add("c", 3)
	c.Add("d", 4)
	if _, ok := c.Get("b"); ok {
		t.Error("the size bound did not evict the oldest entry")
	}
}

// assertRefusedWithoutJob checks that execute_sql refuses sql with
// PERMISSION_DENIED, that dry_run_sql refuses it too, and that neither sent
// BigQuery a dry run or a job: the allowlist decides from the text alone.
func assertRefusedWithoutJob(t *testing.T, s *Service, fake *planBigQuery, sql string) {
	t.Helper()
	_, err := s.Execute(context.Background(), ExecuteInput{SQL: sql})
	if e, ok := bqerr.As(err); !ok || e.Code != bqerr.PermissionDenied {
		t.Fatalf("Execute = %v, want PERMISSION_DENIED", err)
	}
	if _, err := s.DryRun(context.Background(), DryRunInput{SQL: sql}); err == nil {
		t.Error("dry_run_sql accepted it")
	}
	if d, q, _ := fake.counts(); d != 0 || q != 0 {
		t.Errorf("%d dry runs and %d jobs, want none", d, q)
	}
}
