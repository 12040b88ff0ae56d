package bqfake_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/googleapi"

	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
)

func statusOf(t *testing.T, err error) (int, string) {
	t.Helper()
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		t.Fatalf("error %v is not a googleapi.Error", err)
	}
	reason := ""
	if len(ge.Errors) > 0 {
		reason = ge.Errors[0].Reason
	}
	return ge.Code, reason
}

func TestStorePagesAndMisses(t *testing.T) {
	f := bqfake.New(t)
	for _, id := range []string{"a", "b", "c"} {
		f.AddDataset(id, "EU")
	}
	rest := f.REST(t, nil)
	ctx := context.Background()
	page, err := rest.Datasets.List("p").MaxResults(2).Context(ctx).Do()
	if err != nil || len(page.Datasets) != 2 || page.NextPageToken == "" {
		t.Fatalf("first page = %+v, %v", page, err)
	}
	page, err = rest.Datasets.List("p").MaxResults(2).PageToken(page.NextPageToken).Context(ctx).Do()
	if err != nil || len(page.Datasets) != 1 || page.Datasets[0].DatasetReference.DatasetId != "c" || page.NextPageToken != "" {
		t.Fatalf("second page = %+v, %v", page, err)
	}
	_, err = rest.Tables.Get("p", "a", "nope").Context(ctx).Do()
	if code, reason := statusOf(t, err); code != 404 || reason != "notFound" {
		t.Errorf("missing table: %d %s", code, reason)
	}
	if got := f.Requests(bqfake.DatasetsList); len(got) != 2 || got[1].Query.Get("pageToken") == "" || got[1].N != 2 {
		t.Errorf("log = %v", got)
	}
}

func TestJobsAreKeptByID(t *testing.T) {
	f := bqfake.New(t)
	f.AddTable(&bq.Table{TableReference: &bq.TableReference{DatasetId: "_anon", TableId: "r"},
		Schema: &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "n", Type: "INTEGER"}}}},
		&bq.TableRow{F: []*bq.TableCell{{V: "1"}}}, &bq.TableRow{F: []*bq.TableCell{{V: "2"}}})
	f.OnJob(func(j *bq.Job) {
		if !j.Configuration.DryRun {
			j.Configuration.Query.DestinationTable = &bq.TableReference{ProjectId: "p", DatasetId: "_anon", TableId: "r"}
		}
	})
	// The first insert's answer is lost: the retry meets the job.
	f.On(bqfake.JobsInsert).Times(1).FailAfter(503, "backendError")
	rest := f.REST(t, nil)
	ctx := context.Background()
	job := &bq.Job{JobReference: &bq.JobReference{JobId: "j1"}, Configuration: &bq.JobConfiguration{Query: &bq.JobConfigurationQuery{Query: "SELECT n"}}}
	_, err := rest.Jobs.Insert("p", job).Context(ctx).Do()
	if code, _ := statusOf(t, err); code != 503 {
		t.Fatalf("first insert: %v", err)
	}
	_, err = rest.Jobs.Insert("p", job).Context(ctx).Do()
	if code, reason := statusOf(t, err); code != 409 || reason != "duplicate" {
		t.Fatalf("second insert: %d %s", code, reason)
	}
	res, err := rest.Jobs.GetQueryResults("p", "j1").MaxResults(1).Context(ctx).Do()
	if err != nil || !res.JobComplete || res.TotalRows != 2 || len(res.Rows) != 1 || res.PageToken == "" || res.Schema == nil {
		t.Fatalf("results = %+v, %v", res, err)
	}
	if reqs := f.Requests(bqfake.JobsInsert); len(reqs) != 2 || reqs[0].Job.Configuration.Query.Query != "SELECT n" {
		t.Errorf("inserts logged: %v", reqs)
	}
	dry, err := rest.Jobs.Insert("p", &bq.Job{Configuration: &bq.JobConfiguration{DryRun: true, Query: &bq.JobConfigurationQuery{Query: "SELECT n"}}}).Context(ctx).Do()
	if err != nil || dry.Statistics.Query.StatementType != "SELECT" || len(f.Jobs()) != 1 {
		t.Errorf("dry run = %+v, %v; %d jobs kept", dry, err, len(f.Jobs()))
	}

	f.AddJob(&bq.Job{JobReference: &bq.JobReference{ProjectId: "p", JobId: "slow", Location: "US"}, Status: &bq.JobStatus{State: "RUNNING"}})
	c, err := rest.Jobs.Cancel("p", "slow").Context(ctx).Do()
	if err != nil || c.Job.Status.State != "DONE" || c.Job.Status.ErrorResult.Reason != "stopped" {
		t.Errorf("cancel = %+v, %v", c, err)
	}
}

func TestRulesFaultsAndHolds(t *testing.T) {
	f := bqfake.New(t)
	f.AddDataset("d", "US")
	hold := f.On(bqfake.DatasetsGet).Times(1).Hold()
	f.On(bqfake.DatasetsGet).When(func(r *bqfake.Request) bool { return r.Dataset == "x" }).Fail(403, "accessDenied")
	drop := f.On(bqfake.TablesList).Drop()
	rest := f.REST(t, &http.Client{Transport: &http.Transport{}})
	ctx := context.Background()

	got := make(chan error, 1)
	go func() {
		_, err := rest.Datasets.Get("p", "d").Context(ctx).Do()
		got <- err
	}()
	select {
	case r := <-hold.Arrived():
		if r.Dataset != "d" {
			t.Errorf("held %s", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the request never reached the hold")
	}
	select {
	case err := <-got:
		t.Fatalf("a held request was answered: %v", err)
	default:
	}
	hold.Release()
	if err := <-got; err != nil {
		t.Fatalf("released request: %v", err)
	}
	if _, err := rest.Datasets.Get("p", "d").Context(ctx).Do(); err != nil || hold.Started() != 1 {
		t.Errorf("second get: %v; hold took %d", err, hold.Started())
	}
	_, err := rest.Datasets.Get("p", "x").Context(ctx).Do()
	if code, reason := statusOf(t, err); code != 403 || reason != "accessDenied" {
		t.Errorf("scripted fault: %d %s", code, reason)
	}
	if _, err := rest.Tables.List("p", "d").Context(ctx).Do(); err == nil {
		t.Error("a dropped connection answered")
	}
	drop.Off()
	if _, err := rest.Tables.List("p", "d").Context(ctx).Do(); err != nil {
		t.Errorf("after Off: %v", err)
	}
}

func TestQueryResultIsEveryQuerysRows(t *testing.T) {
	f := bqfake.New(t)
	f.QueryResult(bqfake.Columns("n INTEGER", "s STRING"), bqfake.Row("1", "a"), bqfake.Row("2", nil))
	rest := f.REST(t, nil)
	res, err := rest.Jobs.Query("p", &bq.QueryRequest{Query: "SELECT n, s", MaxResults: 1}).Context(context.Background()).Do()
	if err != nil || !res.JobComplete || res.TotalRows != 2 || len(res.Rows) != 1 || res.PageToken == "" ||
		len(res.Schema.Fields) != 2 || res.Schema.Fields[1].Type != "STRING" || res.JobReference.JobId == "" {
		t.Fatalf("jobs.query = %+v, %v", res, err)
	}
	if j := f.Job(res.JobReference.JobId); j == nil || j.Configuration.Query.Query != "SELECT n, s" || j.Configuration.Query.DestinationTable == nil {
		t.Errorf("kept job = %+v", j)
	}
}

// In process, the fake runs inside a synctest bubble: a held request waits
// on the bubble's clock, faults are the network's errors, a stalled body
// ends with the client's deadline, and no goroutine outlives the test.
func TestInProcessRunsInABubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := bqfake.New(t, bqfake.InProcess())
		f.AddDataset("d", "US")
		hold := f.On(bqfake.DatasetsGet).Times(1).Hold()
		f.On(bqfake.TablesList).Times(1).Drop()
		f.On(bqfake.TablesList).Times(1).Reset()
		f.On(bqfake.JobsList).Stall(`{"jobs": [`)
		rest := f.REST(t, nil)
		ctx := context.Background()

		start := time.Now()
		time.AfterFunc(time.Hour, hold.Release)
		if _, err := rest.Datasets.Get("p", "d").Context(ctx).Do(); err != nil {
			t.Fatalf("held get: %v", err)
		}
		if waited := time.Since(start); waited != time.Hour {
			t.Errorf("held get answered after %s of the bubble's clock, want 1h (its release)", waited)
		}
		if _, err := rest.Tables.List("p", "d").Context(ctx).Do(); !errors.Is(err, io.EOF) {
			t.Errorf("dropped connection: %v, want EOF", err)
		}
		if _, err := rest.Tables.List("p", "d").Context(ctx).Do(); !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("reset connection: %v, want ECONNRESET", err)
		}
		if _, err := rest.Tables.List("p", "d").Context(ctx).Do(); err != nil {
			t.Errorf("after the faults: %v", err)
		}
		tctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if _, err := rest.Jobs.List("p").Context(tctx).Do(); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("stalled body: %v, want the deadline", err)
		}
	})
}

// TestPropertyGraphsView: a dataset's INFORMATION_SCHEMA.PROPERTY_GRAPHS
// answers the graphs the test added, one row per graph with BigQuery's
// columns, filtered by property_graph_name; through jobs.query and
// getQueryResults alike. A dataset the fake does not know is 404
// notFound; another shape of query is refused by name.
func TestPropertyGraphsView(t *testing.T) {
	f := bqfake.New(t)
	f.AddPropertyGraph(bqfake.PropertyGraph{Dataset: "graph_db", Name: "FinGraph", MetadataJSON: `{"nodeTables":[]}`, DDL: "CREATE PROPERTY GRAPH graph_db.FinGraph NODE TABLES (graph_db.Person)"})
	f.AddPropertyGraph(bqfake.PropertyGraph{Dataset: "graph_db", Name: "Other", MetadataJSON: "{}"})
	f.AddPropertyGraph(bqfake.PropertyGraph{Project: "q", Dataset: "graph_db", Name: "FinGraph", MetadataJSON: "elsewhere"})
	f.AddDataset("empty", "US")
	rest := f.REST(t, nil)
	ctx := context.Background()
	name := []*bq.QueryParameter{{Name: "name", ParameterType: &bq.QueryParameterType{Type: "STRING"}, ParameterValue: &bq.QueryParameterValue{Value: "FinGraph"}}}
	res, err := rest.Jobs.Query("p", &bq.QueryRequest{Query: "SELECT property_graph_metadata_json, ddl FROM `p.graph_db`.INFORMATION_SCHEMA.PROPERTY_GRAPHS WHERE property_graph_name = @name",
		QueryParameters: name, UseLegacySql: new(bool)}).Context(ctx).Do()
	if err != nil || !res.JobComplete || len(res.Rows) != 1 || res.TotalBytesBilled != 10<<20 {
		t.Fatalf("lookup = %+v, %v", res, err)
	}
	if v := res.Rows[0].F[0].V; v != `{"nodeTables":[]}` || len(res.Schema.Fields) != 2 || res.Schema.Fields[1].Name != "ddl" {
		t.Errorf("row %v, schema %+v", v, res.Schema.Fields)
	}
	again, err := rest.Jobs.GetQueryResults("p", res.JobReference.JobId).Context(ctx).Do()
	if err != nil || len(again.Rows) != 1 || again.Rows[0].F[1].V != "CREATE PROPERTY GRAPH graph_db.FinGraph NODE TABLES (graph_db.Person)" {
		t.Errorf("getQueryResults = %+v, %v", again, err)
	}
	all, err := rest.Jobs.Query("p", &bq.QueryRequest{Query: "SELECT * FROM `p.graph_db.INFORMATION_SCHEMA.PROPERTY_GRAPHS`"}).Context(ctx).Do()
	if err != nil || len(all.Rows) != 2 || len(all.Rows[0].F) != 5 || all.Rows[0].F[0].V != "p" || all.Rows[0].F[1].V != "graph_db" {
		t.Errorf("every graph of the dataset = %+v, %v", all, err)
	}
	none, err := rest.Jobs.Query("p", &bq.QueryRequest{Query: "SELECT ddl FROM empty.INFORMATION_SCHEMA.PROPERTY_GRAPHS WHERE property_graph_name = 'x'"}).Context(ctx).Do()
	if err != nil || len(none.Rows) != 0 {
		t.Errorf("a dataset without graphs = %+v, %v", none, err)
	}
	_, err = rest.Jobs.Query("p", &bq.QueryRequest{Query: "SELECT ddl FROM nope.INFORMATION_SCHEMA.PROPERTY_GRAPHS"}).Context(ctx).Do()
	if code, reason := statusOf(t, err); code != 404 || reason != "notFound" {
		t.Errorf("unknown dataset: %d %s", code, reason)
	}
	_, err = rest.Jobs.Query("p", &bq.QueryRequest{Query: "SELECT COUNT(*) FROM graph_db.INFORMATION_SCHEMA.PROPERTY_GRAPHS"}).Context(ctx).Do()
	if code, reason := statusOf(t, err); code != 400 || reason != "invalidQuery" {
		t.Errorf("another shape: %d %s", code, reason)
	}
}
