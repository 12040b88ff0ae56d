package schema

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
)

// wantCode fails unless err maps to code.
func wantCode(t *testing.T, err error, code bqerr.Code) *bqerr.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("error = nil, want %s", code)
	}
	e, ok := bqerr.As(err)
	if !ok {
		t.Fatalf("error %v (%T) is not a *bqerr.Error", err, err)
	}
	if e.Code != code {
		t.Fatalf("code = %s (%s), want %s", e.Code, e.Message, code)
	}
	return e
}

func datasetIDs(ds []Dataset) []string {
	var ids []string
	for _, d := range ds {
		ids = append(ids, d.ID)
	}
	return ids
}

func tableIDs(ts []Table) []string {
	var ids []string
	for _, t := range ts {
		ids = append(ids, t.ID)
	}
	return ids
}

func TestListDatasetsPages(t *testing.T) {
	fake := bqfake.New(t)
	for i := range 5 {
		fake.AddDataset(fmt.Sprintf("ds%d", i), "EU")
	}
	s := newTestService(t, fake, serviceOptions{project: "p"})
	ctx := context.Background()

	var got []string
	token := ""
	for range 3 {
		out, err := s.ListDatasets(ctx, ListDatasetsInput{MaxResults: 2, PageToken: token})
		if err != nil {
			t.Fatal(err)
		}
		if out.Project != "p" || len(out.Datasets) > 2 {
			t.Fatalf("page = %+v", out)
		}
		got = append(got, datasetIDs(out.Datasets)...)
		token = out.NextPageToken
		if token == "" {
			break
		}
	}
	if want := []string{"ds0", "ds1", "ds2", "ds3", "ds4"}; !slices.Equal(got, want) || token != "" {
		t.Fatalf("paged through %v (token %q), want %v and no token", got, token, want)
	}
	out, err := s.ListDatasets(ctx, ListDatasetsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Datasets) != 5 || out.Datasets[0].Location != "EU" || out.Datasets[0].Project != "p" || out.Stale {
		t.Fatalf("default page = %+v", out)
	}
	// The page size reaches BigQuery: 2 per page, 100 by default.
	for _, want := range []string{"maxResults=2", "maxResults=100"} {
		if !slices.ContainsFunc(paths(fake), func(p string) bool { return strings.HasSuffix(p, want) }) {
			t.Errorf("no request with %s in %v", want, paths(fake))
		}
	}
}

func TestListDatasetsFilterReadsOnUntilAPageIsFull(t *testing.T) {
	fake := bqfake.New(t)
	for i := range 9 {
		id := fmt.Sprintf("raw_%d", i)
		if i%3 == 2 {
			id = fmt.Sprintf("Sales_%d", i)
		}
		fake.AddDataset(id, "US")
	}
	s := newTestService(t, fake, serviceOptions{project: "p"})

	// Two matches per page of three: the filter is case-insensitive and
	// reads further BigQuery pages rather than returning an empty one.
	out, err := s.ListDatasets(context.Background(), ListDatasetsInput{Filter: "sales", MaxResults: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := datasetIDs(out.Datasets), []string{"Sales_2", "Sales_5"}; !slices.Equal(got, want) {
		t.Fatalf("datasets = %v, want %v", got, want)
	}
	if out.NextPageToken == "" {
		t.Fatal("no nextPageToken although a match is left")
	}
	out, err = s.ListDatasets(context.Background(), ListDatasetsInput{Filter: "sales", MaxResults: 2, PageToken: out.NextPageToken})
	if err != nil {
		t.Fatal(err)
	}
	if got := datasetIDs(out.Datasets); !slices.Equal(got, []string{"Sales_8"}) || out.NextPageToken != "" {
		t.Fatalf("second page = %v (token %q), want [Sales_8] and no token", got, out.NextPageToken)
	}
}

func TestListInputErrorsSendNoRequest(t *testing.T) {
	fake := bqfake.New(t)
	noDefault := newTestService(t, fake, serviceOptions{})
	s := newTestService(t, fake, serviceOptions{project: "p"})
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"no project":           func() error { _, err := noDefault.ListDatasets(ctx, ListDatasetsInput{}); return err },
		"no project (tables)":  func() error { _, err := noDefault.ListTables(ctx, ListTablesInput{Dataset: "d"}); return err },
		"no project (schema)":  func() error { _, err := noDefault.GetTableSchema(ctx, GetTableSchemaInput{Table: "d.t"}); return err },
		"maxResults too large": func() error { _, err := s.ListDatasets(ctx, ListDatasetsInput{MaxResults: 1001}); return err },
		"negative maxResults":  func() error { _, err := s.ListTables(ctx, ListTablesInput{Dataset: "d", MaxResults: -1}); return err },
		"bad dataset":          func() error { _, err := s.ListTables(ctx, ListTablesInput{Dataset: "d/../x"}); return err },
		"bad table":            func() error { _, err := s.GetTableSchema(ctx, GetTableSchemaInput{Table: "t"}); return err },
	} {
		t.Run(name, func(t *testing.T) {
			e := wantCode(t, call(), bqerr.InvalidArgument)
			if e.Retryable || e.Hint == "" {
				t.Errorf("retryable %v, hint %q", e.Retryable, e.Hint)
			}
		})
	}
	if n := fake.Count(bqfake.Any); n != 0 {
		t.Fatalf("invalid input sent %d requests to BigQuery: %v", n, paths(fake))
	}
}

func TestListTables(t *testing.T) {
	fake := bqfake.New(t)
	fake.AddDataset("sales", "US")
	orders := table("orders")
	orders.CreationTime = 1700000000000
	orders.TimePartitioning = &bq.TimePartitioning{Type: "DAY", Field: "ts", ExpirationMs: 86400000}
	orders.Clustering = &bq.Clustering{Fields: []string{"customer_id"}}
	orders.Labels = map[string]string{"team": "finance"}
	orders.NumRows, orders.NumBytes = 42, 4096
	addTable(fake, "sales", orders)
	view := table("orders_view")
	view.Type = "VIEW"
	addTable(fake, "sales", view)
	ranged := table("buckets")
	ranged.RangePartitioning = &bq.RangePartitioning{Field: "bucket", Range: &bq.RangePartitioningRange{Start: 0, End: 100, Interval: 10}}
	addTable(fake, "sales", ranged)

	s := newTestService(t, fake, serviceOptions{project: "default-project"})
	// project.dataset in the dataset argument wins over the default.
	out, err := s.ListTables(context.Background(), ListTablesInput{Dataset: "`p.sales`"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Project != "p" || out.Dataset != "sales" || len(out.Tables) != 3 {
		t.Fatalf("listing = %+v", out)
	}
	o, v, r := out.Tables[0], out.Tables[1], out.Tables[2]
	if o.Type != "TABLE" || o.Created != "2023-11-14T22:13:20Z" || o.Partitioning == nil || o.Partitioning.Type != "DAY" ||
		o.Partitioning.Field != "ts" || o.Partitioning.ExpirationMs != 86400000 || !slices.Equal(o.Clustering, []string{"customer_id"}) ||
		o.Labels["team"] != "finance" {
		t.Errorf("orders = %+v", o)
	}
	if o.NumRows != nil || o.NumBytes != nil {
		t.Errorf("sizes read without includeDetails: %+v", o)
	}
	if v.Type != "VIEW" {
		t.Errorf("view type = %q", v.Type)
	}
	if r.Partitioning == nil || r.Partitioning.Type != "RANGE" || r.Partitioning.Field != "bucket" {
		t.Errorf("range partitioning = %+v", r.Partitioning)
	}
	if n := fake.Count(bqfake.TablesGet); n != 0 {
		t.Errorf("listing without details made %d tables.get calls", n)
	}
}

func TestListTablesPagesAndFilters(t *testing.T) {
	fake := bqfake.New(t)
	fake.AddDataset("d", "US")
	for i := range 7 {
		addTable(fake, "d", table(fmt.Sprintf("t%d", i)))
	}
	addTable(fake, "d", table("Orders_2024"))
	s := newTestService(t, fake, serviceOptions{project: "p"})
	ctx := context.Background()

	first, err := s.ListTables(ctx, ListTablesInput{Dataset: "d", MaxResults: 5})
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.ListTables(ctx, ListTablesInput{Dataset: "d", MaxResults: 5, PageToken: first.NextPageToken})
	if err != nil {
		t.Fatal(err)
	}
	got := append(tableIDs(first.Tables), tableIDs(second.Tables)...)
	if len(first.Tables) != 5 || first.NextPageToken == "" || second.NextPageToken != "" || len(got) != 8 || got[7] != "Orders_2024" {
		t.Fatalf("pages = %v / %v (tokens %q, %q)", tableIDs(first.Tables), tableIDs(second.Tables), first.NextPageToken, second.NextPageToken)
	}
	out, err := s.ListTables(ctx, ListTablesInput{Dataset: "d", Filter: "ORDERS", MaxResults: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := tableIDs(out.Tables); !slices.Equal(got, []string{"Orders_2024"}) || out.NextPageToken != "" {
		t.Fatalf("filtered = %v (token %q)", got, out.NextPageToken)
	}
}

func TestListTablesDetails(t *testing.T) {
	fake := bqfake.New(t)
	fake.AddDataset("d", "US")
	for i := range 20 {
		tab := table(fmt.Sprintf("t%02d", i))
		tab.NumRows, tab.NumBytes = uint64(i*10), int64(i*1000)
		addTable(fake, "d", tab)
	}
	// A table dropped between the listing and the size read.
	fake.On(bqfake.TablesGet).When(func(r *bqfake.Request) bool { return r.Table == "t07" }).Fail(404, "notFound")
	s := newTestService(t, fake, serviceOptions{project: "p"})
	out, err := s.ListTables(context.Background(), ListTablesInput{Dataset: "d", IncludeDetails: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Tables) != 20 || fake.Count(bqfake.TablesGet) != 20 {
		t.Fatalf("%d tables, %d tables.get calls; want 20 and 20", len(out.Tables), fake.Count(bqfake.TablesGet))
	}
	for i, tab := range out.Tables {
		if i == 7 {
			if tab.NumRows != nil || tab.NumBytes != nil {
				t.Errorf("vanished table has sizes %+v", tab)
			}
			continue
		}
		if tab.NumRows == nil || *tab.NumRows != uint64(i*10) || tab.NumBytes == nil || *tab.NumBytes != int64(i*1000) {
			t.Errorf("table %s: rows %v bytes %v, want %d and %d", tab.ID, tab.NumRows, tab.NumBytes, i*10, i*1000)
		}
	}
}

// TestListTablesDetailsStopsAtFirstError: when one size read fails for a
// reason other than a vanished table, the listing fails with that error at
// once; the reads in flight are cancelled and no further read starts.
func TestListTablesDetailsStopsAtFirstError(t *testing.T) {
	fake := bqfake.New(t)
	fake.AddDataset("d", "US")
	for i := range 40 {
		addTable(fake, "d", table(fmt.Sprintf("t%02d", i)))
	}
	fake.On(bqfake.TablesGet).When(func(r *bqfake.Request) bool { return r.Table == "t00" }).Fail(403, "accessDenied")
	// Every other size read hangs until its request is cancelled: only the
	// failure can end the call early.
	hung := fake.On(bqfake.TablesGet).Hold()
	s := newTestService(t, fake, serviceOptions{project: "p"})
	start := time.Now()
	_, err := s.ListTables(context.Background(), ListTablesInput{Dataset: "d", IncludeDetails: true})
	elapsed := time.Since(start)
	wantCode(t, err, bqerr.PermissionDenied)
	if elapsed > 5*time.Second {
		t.Errorf("the failure took %s to surface: the hung reads were not cancelled", elapsed)
	}
	if n := fake.Count(bqfake.TablesGet); n > sizeReaders {
		t.Errorf("%d size reads started, want at most %d (none after the failure)", n, sizeReaders)
	}
	// Every hung request ends: the reads were cancelled, not abandoned.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hung.WaitEnded(ctx)
	if started, ended := hung.Started(), hung.Ended(); ended != started {
		t.Errorf("%d of %d hung reads ended", ended, started)
	}
}

func TestGetTableSchema(t *testing.T) {
	fake := bqfake.New(t)
	fake.AddDataset("sales", "US")
	orders := table("orders")
	orders.Type = "TABLE"
	orders.Description = "One row per order."
	orders.Location = "US"
	orders.NumRows, orders.NumBytes = 3, 300
	orders.CreationTime, orders.LastModifiedTime = 1700000000000, 1700000360000
	orders.TimePartitioning = &bq.TimePartitioning{Field: "ordered_at"}
	orders.RequirePartitionFilter = true
	orders.Clustering = &bq.Clustering{Fields: []string{"customer_id"}}
	orders.Schema = &bq.TableSchema{Fields: []*bq.TableFieldSchema{
		{Name: "id", Type: "INTEGER", Mode: "REQUIRED", Description: "Order ID"},
		{Name: "amount", Type: "NUMERIC", Precision: 10, Scale: 2},
		{Name: "tags", Type: "STRING", Mode: "REPEATED"},
		{Name: "customer", Type: "RECORD", Fields: []*bq.TableFieldSchema{{Name: "name", Type: "STRING"}}},
		{Name: "ordered_at", Type: "TIMESTAMP"},
	}}
	addTable(fake, "sales", orders)
	view := table("big_orders")
	view.Type = "VIEW"
	view.View = &bq.ViewDefinition{Query: "SELECT * FROM sales.orders WHERE amount > 100"}
	addTable(fake, "sales", view)

	s := newTestService(t, fake, serviceOptions{project: "p"})
	got, err := s.GetTableSchema(context.Background(), GetTableSchemaInput{Table: "`sales.orders`"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got.Columns)
	// NULLABLE, BigQuery's default mode, is left out.
	const wantCols = `[{"name":"id","type":"INT64","mode":"REQUIRED","description":"Order ID"},` +
		`{"name":"amount","type":"NUMERIC","precision":10,"scale":2},` +
		`{"name":"tags","type":"STRING","mode":"REPEATED"},` +
		`{"name":"customer","type":"STRUCT","fields":[{"name":"name","type":"STRING"}]},` +
		`{"name":"ordered_at","type":"TIMESTAMP"}]`
	if string(b) != wantCols {
		t.Errorf("columns =\n%s\nwant\n%s", b, wantCols)
	}
	if got.Table != "p.sales.orders" || got.Type != "TABLE" || got.Description != "One row per order." || got.Location != "US" ||
		got.NumRows != 3 || got.NumBytes != 300 || got.Created != "2023-11-14T22:13:20Z" || got.LastModified != "2023-11-14T22:19:20Z" {
		t.Errorf("table = %+v", got)
	}
	if p := got.Partitioning; p == nil || p.Type != "DAY" || p.Field != "ordered_at" || !p.RequireFilter {
		t.Errorf("partitioning = %+v, want DAY on ordered_at with a required filter", p)
	}
	if !slices.Equal(got.Clustering, []string{"customer_id"}) {
		t.Errorf("clustering = %v", got.Clustering)
	}

	v, err := s.GetTableSchema(context.Background(), GetTableSchemaInput{Table: "p.sales.big_orders"})
	if err != nil {
		t.Fatal(err)
	}
	if v.Type != "VIEW" || v.ViewQuery != "SELECT * FROM sales.orders WHERE amount > 100" {
		t.Errorf("view = %+v", v)
	}
}

func TestMetadataErrors(t *testing.T) {
	fake := bqfake.New(t)
	fake.AddDataset("d", "US")
	addTable(fake, "d", table("secret"))
	fake.On(bqfake.TablesGet).When(func(r *bqfake.Request) bool { return r.Table == "secret" }).Fail(403, "accessDenied")
	s := newTestService(t, fake, serviceOptions{project: "p"})
	ctx := context.Background()

	for name, tc := range map[string]struct {
		call func() error
		code bqerr.Code
	}{
		"missing table":   {func() error { _, err := s.GetTableSchema(ctx, GetTableSchemaInput{Table: "d.nope"}); return err }, bqerr.NotFound},
		"missing dataset": {func() error { _, err := s.ListTables(ctx, ListTablesInput{Dataset: "nope"}); return err }, bqerr.NotFound},
		"missing project": {func() error { _, err := s.ListDatasets(ctx, ListDatasetsInput{Project: "other"}); return err }, bqerr.NotFound},
		"access denied":   {func() error { _, err := s.GetTableSchema(ctx, GetTableSchemaInput{Table: "d.secret"}); return err }, bqerr.PermissionDenied},
	} {
		t.Run(name, func(t *testing.T) {
			before := fake.Count(bqfake.Any)
			e := wantCode(t, tc.call(), tc.code)
			if e.Retryable || e.Hint == "" || e.Details.Reason == "" {
				t.Errorf("error = %s", e.JSON())
			}
			// Answers from a healthy BigQuery are not retried.
			if n := fake.Count(bqfake.Any) - before; n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

func TestCacheServesFreshAnswersPerIdentity(t *testing.T) {
	fake := bqfake.New(t)
	fake.AddDataset("d", "US")
	alice := newTestService(t, fake, serviceOptions{project: "p", cacheTTL: time.Hour, identity: "oauth:alice@example.com"})
	bob := newTestService(t, fake, serviceOptions{project: "p", identity: "oauth:bob@example.com", cache: alice.cache})
	ctx := context.Background()
	for range 3 {
		if _, err := alice.ListDatasets(ctx, ListDatasetsInput{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := fake.Count(bqfake.Any); n != 1 {
		t.Fatalf("three identical listings within the TTL made %d requests, want 1", n)
	}
	// Another identity may see other datasets: it never gets alice's answer.
	if _, err := bob.ListDatasets(ctx, ListDatasetsInput{}); err != nil {
		t.Fatal(err)
	}
	if n := fake.Count(bqfake.Any); n != 2 {
		t.Fatalf("a second identity was served from the first one's cache (%d requests, want 2)", n)
	}
}

func TestStaleAnswerWhenBigQueryIsDown(t *testing.T) {
	fake := bqfake.New(t)
	fake.AddDataset("d", "US")
	schemaOf := table("t")
	schemaOf.Schema = &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "x", Type: "STRING"}}}
	addTable(fake, "d", schemaOf)
	s := newTestService(t, fake, serviceOptions{project: "p"}) // TTL 0: every call asks BigQuery
	ctx := context.Background()
	fresh, err := s.GetTableSchema(ctx, GetTableSchemaInput{Table: "d.t"})
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Stale || fresh.StaleReason != "" {
		t.Fatalf("fresh answer marked stale: %+v", fresh.Freshness)
	}

	down := fake.On(bqfake.Any).Fail(503, "backendError")
	stale, err := s.GetTableSchema(ctx, GetTableSchemaInput{Table: "d.t"})
	if err != nil {
		t.Fatalf("BigQuery down: error %v, want the last answer marked stale", err)
	}
	if !stale.Stale || !strings.Contains(stale.StaleReason, "UNAVAILABLE") || len(stale.Columns) != 1 || stale.Columns[0].Name != "x" {
		t.Fatalf("stale answer = %+v", stale)
	}
	b, _ := json.Marshal(stale)
	if !strings.Contains(string(b), `"stale":true`) {
		t.Errorf("stale flag missing from the JSON an agent reads: %s", b)
	}
	if fresh.Stale {
		t.Error("serving stale changed the earlier answer")
	}

	// Access taken away is news, not an outage: never papered over.
	down.Off()
	denied := fake.On(bqfake.Any).Fail(403, "accessDenied")
	_, err = s.GetTableSchema(ctx, GetTableSchemaInput{Table: "d.t"})
	wantCode(t, err, bqerr.PermissionDenied)

	// Nothing cached yet: the outage itself is the answer.
	denied.Off()
	fake.On(bqfake.Any).Fail(503, "backendError")
	_, err = s.ListTables(ctx, ListTablesInput{Dataset: "d"})
	if e := wantCode(t, err, bqerr.Unavailable); !e.Retryable {
		t.Errorf("outage not retryable: %s", e.JSON())
	}
}
