package schema

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// answerColumnPaths makes meta answer jobs.query for dataset a's
// COLUMN_FIELD_PATHS view and refuse it for any other dataset as a location
// mismatch would. foreign adds a row of dataset b to a's answer, as a view
// reading more than its dataset would.
func answerColumnPaths(meta *bqfake.Fake, foreign bool) {
	meta.On(bqfake.JobsQuery).ReplyFunc(func(r *bqfake.Request) (any, error) {
		if !strings.Contains(r.QueryRequest.Query, "`p.a.INFORMATION_SCHEMA.COLUMN_FIELD_PATHS`") {
			return nil, bqfake.Errorf(400, "invalidQuery", "Not found: Dataset p:b was not found in location US")
		}
		str := func(s string) *bq.TableCell { return &bq.TableCell{V: s} }
		row := func(ds, t, p, typ, d string) *bq.TableRow {
			desc := str(d)
			if d == "" {
				// COLUMN_FIELD_PATHS reports a missing description as NULL.
				desc = &bq.TableCell{V: nil}
			}
			return &bq.TableRow{F: []*bq.TableCell{str(ds), str(t), str(p), str(typ), desc}}
		}
		rows := []*bq.TableRow{
			row("a", "orders", "customer_id", "INT64", "who bought"),
			row("a", "orders", "customer.name", "STRING", ""),
			row("a", "notes", "body", "STRING", "what the customer wrote"),
		}
		if foreign {
			rows = append(rows, row("b", "leak", "customer_secret", "STRING", ""))
		}
		return &bq.QueryResponse{
			JobComplete:  true,
			JobReference: &bq.JobReference{ProjectId: "p", JobId: "j1", Location: "US"},
			TotalRows:    uint64(len(rows)),
			// BigQuery's minimum bill for an INFORMATION_SCHEMA query.
			TotalBytesBilled: infoSchemaMinBill,
			Schema: &bq.TableSchema{Fields: []*bq.TableFieldSchema{
				{Name: "table_schema", Type: "STRING"}, {Name: "table_name", Type: "STRING"}, {Name: "field_path", Type: "STRING"},
				{Name: "data_type", Type: "STRING"}, {Name: "description", Type: "STRING"}}},
			Rows: rows,
		}, nil
	})
}

// queries lists the jobs.query requests meta received.
func queries(meta *bqfake.Fake) []*bq.QueryRequest {
	var out []*bq.QueryRequest
	for _, r := range meta.Requests(bqfake.JobsQuery) {
		out = append(out, r.QueryRequest)
	}
	return out
}

// newSearchService serves meta to a Service with the default policies and
// a cache, then each configure.
func newSearchService(t *testing.T, meta *bqfake.Fake, configure ...func(*Config)) *Service {
	t.Helper()
	hc := &http.Client{Transport: &resilience.Transport{Base: &http.Transport{}}}
	client, rest := meta.Client(t, hc), meta.REST(t, hc)
	t.Cleanup(hc.CloseIdleConnections)
	exec, err := resilience.NewExecutor(resilience.Defaults(), resilience.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	cache := resilience.NewCache(resilience.CacheConfig{TTL: time.Minute, MaxStale: time.Hour})
	cfg := Config{Client: client, REST: rest, Executor: exec, Cache: cache, Identity: "adc:test", Project: "p"}
	for _, f := range configure {
		f(&cfg)
	}
	s := NewService(cfg)
	t.Cleanup(s.Close)
	return s
}

// search_columns asks INFORMATION_SCHEMA where it answers, falls back on
// the table schemas where it does not, and ranks what both found: exact
// name, name prefix, path, description.
func TestSearchColumnsInformationSchemaThenMetadata(t *testing.T) {
	meta := bqfake.New(t)
	meta.AddDataset("a", "US")
	meta.AddDataset("b", "EU")
	people := table("people")
	people.Schema = &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "customer", Type: "STRING"}, {Name: "age", Type: "INTEGER"}}}
	addTable(meta, "b", people)
	answerColumnPaths(meta, false)
	s := newSearchService(t, meta)

	out, err := s.SearchColumns(context.Background(), SearchInput{Query: "Customer"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range out.Matches {
		got = append(got, m.Table+"."+m.Column)
	}
	want := []string{"b.people.customer", "a.orders.customer_id", "a.orders.customer.name", "a.notes.body"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("matches = %v, want %v", got, want)
	}
	if out.DatasetsScanned != 2 || out.TablesScanned != 1 || out.Method != "metadata" || out.Truncated {
		t.Errorf("out = %+v", out)
	}
	if len(queries(meta)) != 2 {
		t.Fatalf("%d INFORMATION_SCHEMA queries, want one per dataset", len(queries(meta)))
	}
	q := queries(meta)[0]
	if q.MaximumBytesBilled != infoSchemaBytes || len(q.QueryParameters) != 1 || q.QueryParameters[0].ParameterValue.Value != "customer" || strings.Contains(q.Query, "customer") {
		t.Errorf("query = %q, cap %d, params %+v: the text must go as a parameter", q.Query, q.MaximumBytesBilled, q.QueryParameters)
	}

	capped, err := s.SearchColumns(context.Background(), SearchInput{Query: "customer", MaxResults: 2, Datasets: []string{"a"}, Method: "information_schema"})
	if err != nil {
		t.Fatal(err)
	}
	if len(capped.Matches) != 2 || !capped.Truncated || !strings.Contains(capped.Hint, "maxResults") || capped.Method != "information_schema" {
		t.Errorf("capped = %+v", capped)
	}
	if _, err := s.SearchColumns(context.Background(), SearchInput{Query: "customer", Datasets: []string{"b"}, Method: "information_schema"}); err == nil {
		t.Error("information_schema on a dataset that refuses it did not fail")
	}
	for _, in := range []SearchInput{{}, {Query: "x", MaxResults: 501}, {Query: "x", Method: "grep"}, {Query: "x", Datasets: []string{"bad/name"}}} {
		if _, err := s.SearchColumns(context.Background(), in); err == nil {
			t.Errorf("%+v accepted", in)
		}
	}
}

// search_columns' INFORMATION_SCHEMA queries spend from the caller's bytes
// budget (BigQuery's 10 MB minimum each) and are refused when it is spent.
func TestSearchColumnsSpendsTheBudget(t *testing.T) {
	meta := bqfake.New(t)
	meta.AddDataset("a", "US")
	answerColumnPaths(meta, false)
	budget := governance.NewBudget(governance.Limits{MaxBytesPerSession: 15 << 20})
	s := newSearchService(t, meta, func(c *Config) { c.Budget = governance.NewMemory(budget, nil) })
	in := SearchInput{Query: "customer", Datasets: []string{"a"}, Method: "information_schema"}
	if _, err := s.SearchColumns(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	if r := budget.Report(""); r.Session.Jobs != 1 || r.Session.BytesBilled != infoSchemaMinBill {
		t.Errorf("usage after one search = %+v", r.Session)
	}
	_, err := s.SearchColumns(context.Background(), in)
	if e, ok := bqerr.As(err); !ok || e.Code != bqerr.ResourceExhausted {
		t.Fatalf("second search = %v, want RESOURCE_EXHAUSTED", err)
	}
	if len(queries(meta)) != 1 {
		t.Errorf("%d INFORMATION_SCHEMA queries ran, want 1", len(queries(meta)))
	}
}

// COLUMN_FIELD_PATHS reports NULL for a column without a description; such
// a match is returned with no description instead of failing the search
// with INTERNAL.
func TestSearchColumnsNullDescription(t *testing.T) {
	meta := bqfake.New(t)
	meta.AddDataset("a", "US")
	answerColumnPaths(meta, false)
	s := newSearchService(t, meta)
	out, err := s.SearchColumns(context.Background(), SearchInput{Query: "name", Datasets: []string{"a"}, Method: "information_schema"})
	if err != nil {
		t.Fatalf("search: %v", err)
	}
	if len(out.Matches) != 1 || out.Matches[0] != (ColumnMatch{Table: "a.orders", Column: "customer.name", Type: "STRING"}) {
		t.Errorf("matches = %+v", out.Matches)
	}
}

// search_columns' INFORMATION_SCHEMA query is a job like any other
// (job.Runner.Lookup): a retry after BigQuery failed its first attempt
// sends the same requestId, so BigQuery answers with the same job, never a
// second (issue 36: each retry of the client's Query.Read picked a new
// one).
func TestRetriedSearchIsOneJob(t *testing.T) {
	meta := bqfake.New(t)
	meta.AddDataset("a", "US")
	meta.On(bqfake.JobsQuery).Times(1).Fail(http.StatusServiceUnavailable, "backendError")
	answerColumnPaths(meta, false)
	rcfg := resilience.Defaults()
	rcfg.Retry[resilience.Query] = resilience.Policy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, Multiplier: 2}
	exec, err := resilience.NewExecutor(rcfg, resilience.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	budget := governance.NewBudget(governance.Limits{MaxBytesPerSession: 1 << 30})
	s := newSearchService(t, meta, func(c *Config) { c.Executor, c.Budget = exec, governance.NewMemory(budget, nil) })
	out, err := s.SearchColumns(context.Background(), SearchInput{Query: "customer", Datasets: []string{"a"}, Method: "information_schema"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Matches) != 3 {
		t.Errorf("matches after a retried search = %+v, want 3", out.Matches)
	}
	var ids []string
	for _, q := range queries(meta) {
		ids = append(ids, q.RequestId)
	}
	if len(ids) != 2 || ids[0] == "" || ids[0] != ids[1] {
		t.Fatalf("search attempts sent requestIds %q, want two attempts of one", ids)
	}
	if r := budget.Report(""); r.Session.Jobs != 1 || r.Session.BytesBilled != infoSchemaMinBill || r.Reserved != 0 {
		t.Errorf("usage after the retried search = %+v (reserved %d), want one job of 10 MB, nothing held", r.Session, r.Reserved)
	}
}
