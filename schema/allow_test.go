package schema

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

func allowlist(t *testing.T, spec string) *governance.Allowlist {
	t.Helper()
	a, err := governance.ParseAllowlist(spec, "p")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// wantDenied fails unless err is the allowlist's PERMISSION_DENIED, with a
// hint naming every allowed dataset.
func wantDenied(t *testing.T, err error, allowed ...string) {
	t.Helper()
	e := wantCode(t, err, bqerr.PermissionDenied)
	if e.Retryable {
		t.Errorf("refusal is retryable: %s", e.JSON())
	}
	for _, a := range allowed {
		if !strings.Contains(e.Hint, a) {
			t.Errorf("hint %q does not name %s", e.Hint, a)
		}
	}
}

// shop is a project p with two allowed-looking datasets and one other: a
// table, a view and rows in sales_eu, a table in hr, and a dataset public
// with a table t, which project other has too.
func shop(t *testing.T) *bqfake.Fake {
	fake := bqfake.New(t)
	for _, d := range []string{"sales_eu", "sales_us", "hr", "public"} {
		fake.AddDataset(d, "EU")
	}
	cols := &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "id", Type: "INTEGER"}, {Name: "customer_email", Type: "STRING"}}}
	orders := table("orders")
	orders.Schema = cols
	addTable(fake, "sales_eu", orders)
	view := table("orders_v")
	view.Type, view.Schema = "VIEW", cols
	view.View = &bq.ViewDefinition{Query: "SELECT * FROM hr.salaries"}
	addTable(fake, "sales_eu", view)
	salaries := table("salaries")
	salaries.Schema = &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "customer_email", Type: "STRING"}, {Name: "salary", Type: "INTEGER"}}}
	addTable(fake, "hr", salaries)
	addTable(fake, "public", table("t"))
	fake.AddTable(&bq.Table{TableReference: &bq.TableReference{ProjectId: "other", DatasetId: "public", TableId: "t"}})
	row := &bq.TableRow{F: []*bq.TableCell{{V: "1"}, {V: "a@example.com"}}}
	fake.SetRows("sales_eu", "orders", row)
	fake.SetRows("sales_eu", "orders_v", row)
	fake.SetRows("hr", "salaries", row)
	return fake
}

// Every metadata tool refuses a dataset outside the allowlist, in every
// spelling of its name, before any request: even when the answer is
// already in the metadata cache.
func TestAllowlistRefusesOtherDatasetsBeforeAnyRequest(t *testing.T) {
	fake := shop(t)
	s := newTestService(t, fake, serviceOptions{project: "p", cacheTTL: time.Hour})
	ctx := context.Background()
	// Warm the cache with hr's answers before the allowlist is set.
	if _, err := s.GetTableSchema(ctx, GetTableSchemaInput{Table: "hr.salaries"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListTables(ctx, ListTablesInput{Dataset: "hr"}); err != nil {
		t.Fatal(err)
	}
	s.cfg.Datasets = allowlist(t, "sales_*, other.public")

	calls := map[string]func() error{}
	for _, name := range []string{"hr", "p.hr", "`p.hr`", "`p`.`hr`", " hr ", "other.private", "p.public"} {
		calls["list_tables "+name] = func() error { _, err := s.ListTables(ctx, ListTablesInput{Dataset: name}); return err }
	}
	calls["list_tables project arg"] = func() error {
		_, err := s.ListTables(ctx, ListTablesInput{Project: "p", Dataset: "hr"})
		return err
	}
	calls["list_tables other project's sales"] = func() error {
		_, err := s.ListTables(ctx, ListTablesInput{Project: "q", Dataset: "sales_eu"})
		return err
	}
	for _, name := range []string{"hr.salaries", "p.hr.salaries", "`p.hr.salaries`", "`p`.`hr`.`salaries`", "p:hr.salaries",
		"other.private.t", "p.public.t", "q.sales_eu.orders"} {
		calls["get_table_schema "+name] = func() error { _, err := s.GetTableSchema(ctx, GetTableSchemaInput{Table: name}); return err }
		calls["preview_table "+name] = func() error { _, err := s.Preview(ctx, PreviewInput{Table: name}); return err }
	}
	calls["list_datasets other project"] = func() error { _, err := s.ListDatasets(ctx, ListDatasetsInput{Project: "q"}); return err }
	calls["search_columns named"] = func() error {
		_, err := s.SearchColumns(ctx, SearchInput{Query: "email", Datasets: []string{"sales_eu", "hr"}})
		return err
	}
	calls["search_columns other project"] = func() error {
		_, err := s.SearchColumns(ctx, SearchInput{Query: "email", Project: "q"})
		return err
	}
	before := fake.Count(bqfake.Any)
	for name, call := range calls {
		t.Run(name, func(t *testing.T) { wantDenied(t, call(), "p.sales_*", "other.public") })
	}
	if n := fake.Count(bqfake.Any) - before; n != 0 {
		t.Errorf("refused calls sent %d requests: %v", n, paths(fake)[before:])
	}
}

// Tables and views of an allowed dataset read as they do without an
// allowlist, in each spelling, by wildcard or in another project.
func TestAllowlistAllowsItsDatasets(t *testing.T) {
	fake := shop(t)
	s := newTestService(t, fake, serviceOptions{project: "p"})
	s.cfg.Datasets = allowlist(t, "sales_*, other.public")
	ctx := context.Background()

	l, err := s.ListTables(ctx, ListTablesInput{Dataset: "`p.sales_eu`"})
	if err != nil {
		t.Fatal(err)
	}
	if got := tableIDs(l.Tables); !slices.Equal(got, []string{"orders", "orders_v"}) {
		t.Errorf("tables = %v", got)
	}
	for _, name := range []string{"sales_eu.orders", "p.sales_eu.orders", "`p`.`sales_eu`.`orders_v`", "p:sales_eu.orders_v", "other.public.t"} {
		if _, err := s.GetTableSchema(ctx, GetTableSchemaInput{Table: name}); err != nil {
			t.Errorf("get_table_schema %s: %v", name, err)
		}
	}
	// A view's SQL may name other datasets: it is the allowed dataset's
	// metadata, and its rows are the view's to give.
	v, err := s.GetTableSchema(ctx, GetTableSchemaInput{Table: "sales_eu.orders_v"})
	if err != nil || v.Type != "VIEW" || v.ViewQuery == "" {
		t.Fatalf("view = %+v, %v", v, err)
	}
	for _, name := range []string{"sales_eu.orders", "sales_eu.orders_v"} {
		p, err := s.Preview(ctx, PreviewInput{Table: name})
		if err != nil {
			t.Fatalf("preview_table %s: %v", name, err)
		}
		if p.RowCount != 1 || string(p.Rows[0]) != `[1,"a@example.com"]` {
			t.Errorf("preview_table %s = %d rows %s", name, p.RowCount, p.Rows)
		}
	}
}

// list_datasets shows only allowed datasets, pages through them without
// ever showing another, and refuses a project no pattern allows.
func TestListDatasetsShowsOnlyAllowed(t *testing.T) {
	fake := bqfake.New(t)
	for i := range 12 {
		id := fmt.Sprintf("raw_%02d", i)
		if i%4 == 1 {
			id = fmt.Sprintf("sales_%02d", i)
		}
		fake.AddDataset(id, "US")
	}
	s := newTestService(t, fake, serviceOptions{project: "p", cacheTTL: time.Hour})
	s.cfg.Datasets = allowlist(t, "sales_*, p.raw_02, other.*")
	ctx := context.Background()

	var got []string
	token := ""
	for range 10 {
		out, err := s.ListDatasets(ctx, ListDatasetsInput{MaxResults: 2, PageToken: token})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, datasetIDs(out.Datasets)...)
		if token = out.NextPageToken; token == "" {
			break
		}
	}
	if want := []string{"sales_01", "raw_02", "sales_05", "sales_09"}; !slices.Equal(got, want) {
		t.Fatalf("listed %v, want %v", got, want)
	}
	// Through the same cache, the allowlisted first page (cached above)
	// is never served to a service without the allowlist, nor the other
	// way round.
	open := newTestService(t, fake, serviceOptions{project: "p", cache: s.cache})
	for range 2 {
		all, err := open.ListDatasets(ctx, ListDatasetsInput{MaxResults: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got := datasetIDs(all.Datasets); !slices.Equal(got, []string{"raw_00", "sales_01"}) {
			t.Errorf("unrestricted first page = %v", got)
		}
		first, err := s.ListDatasets(ctx, ListDatasetsInput{MaxResults: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got := datasetIDs(first.Datasets); !slices.Equal(got, []string{"sales_01", "raw_02"}) {
			t.Errorf("allowlisted first page = %v", got)
		}
	}
}

// A listing that matches little reads at most maxListPages pages, and its
// short page says why and where to go on.
func TestListDatasetsSparseAllowlistIsBounded(t *testing.T) {
	fake := bqfake.New(t)
	for i := range 30 {
		fake.AddDataset(fmt.Sprintf("raw_%02d", i), "US")
	}
	fake.AddDataset("sales", "US")
	s := newTestService(t, fake, serviceOptions{project: "p"})
	s.cfg.Datasets = allowlist(t, "sales")
	out, err := s.ListDatasets(context.Background(), ListDatasetsInput{MaxResults: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Datasets) != 0 || out.NextPageToken == "" || !strings.Contains(out.Hint, "nextPageToken") {
		t.Errorf("first call = %+v, want an empty page with a token and a hint", out)
	}
	if n := fake.Count(bqfake.Any); n != maxListPages {
		t.Errorf("%d requests, want %d", n, maxListPages)
	}
	out, err = s.ListDatasets(context.Background(), ListDatasetsInput{MaxResults: 2, PageToken: out.NextPageToken})
	if err != nil {
		t.Fatal(err)
	}
	if got := datasetIDs(out.Datasets); !slices.Equal(got, []string{"sales"}) || out.NextPageToken != "" || out.Hint != "" {
		t.Errorf("second call = %+v, want [sales], no token, no hint", out)
	}
}

// search_columns reads only allowed datasets: none named means the allowed
// ones, a named other dataset is refused before any request, and a row of
// another dataset in an answer is dropped.
func TestSearchColumnsAllowlist(t *testing.T) {
	meta := bqfake.New(t)
	meta.AddDataset("a", "US")
	meta.AddDataset("b", "US")
	people := table("people")
	people.Schema = &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "customer", Type: "STRING"}}}
	addTable(meta, "b", people)
	orders := table("orders")
	orders.Schema = &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "customer_id", Type: "INTEGER"}}}
	addTable(meta, "a", orders)
	answerColumnPaths(meta, true)
	s := newSearchService(t, meta)
	s.cfg.Datasets = allowlist(t, "a")
	ctx := context.Background()

	for _, method := range []string{"auto", "information_schema", "metadata"} {
		out, err := s.SearchColumns(ctx, SearchInput{Query: "customer", Method: method})
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if out.DatasetsScanned != 1 {
			t.Errorf("%s: %d datasets scanned, want only a", method, out.DatasetsScanned)
		}
		for _, m := range out.Matches {
			if !strings.HasPrefix(m.Table, "a.") {
				t.Errorf("%s: match %s.%s outside the allowlist", method, m.Table, m.Column)
			}
		}
	}
	for _, q := range queries(meta) {
		if !strings.Contains(q.Query, "`p.a.INFORMATION_SCHEMA.COLUMN_FIELD_PATHS`") {
			t.Errorf("query outside dataset a: %s", q.Query)
		}
	}
	if slices.ContainsFunc(paths(meta), func(p string) bool { return strings.Contains(p, "/datasets/b/") }) {
		t.Errorf("dataset b was read: %v", paths(meta))
	}
	asked, requests := len(queries(meta)), meta.Count(bqfake.Any)
	_, err := s.SearchColumns(ctx, SearchInput{Query: "customer", Datasets: []string{"b"}})
	wantDenied(t, err, "p.a")
	if len(queries(meta)) != asked || meta.Count(bqfake.Any) != requests {
		t.Errorf("a refused search sent requests")
	}
}
