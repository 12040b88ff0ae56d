package observability

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
)

const slowBody = 60 * time.Millisecond

// runTransportRequests sends BigQuery-shaped requests through the
// Transport to a fake: an insert, results with a secret in the query
// string, a slow table read, a 503, a listing, and one to a dead server.
func runTransportRequests(t *testing.T, f *fixture) {
	t.Helper()
	srv := bqfake.New(t, bqfake.WithProject("proj-a"))
	srv.AddJob(&bq.Job{JobReference: &bq.JobReference{ProjectId: "proj-a", JobId: "job_secret", Location: "US"}, Status: &bq.JobStatus{State: "RUNNING"}})
	srv.On(bqfake.TabledataList).Handle(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"rows":[`)
		w.(http.Flusher).Flush()
		time.Sleep(slowBody)
		io.WriteString(w, `]}`)
	})
	srv.On(bqfake.JobsGet).Fail(http.StatusServiceUnavailable, "backendError")
	client := &http.Client{Transport: f.tel.Transport(&http.Transport{})}
	defer client.CloseIdleConnections()

	do := func(ctx context.Context, method, url string) error {
		req, err := http.NewRequestWithContext(ctx, method, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		_, err = io.ReadAll(resp.Body)
		return err
	}
	base := srv.URL + "/bigquery/v2/projects/proj-a"
	// The insert runs inside an attempt span, as it does in the server.
	attemptCtx, finish := f.tel.StartAttempt(context.Background(), "query", 1)
	err := do(attemptCtx, http.MethodPost, base+"/jobs?alt=json&prettyPrint=false")
	if err != nil {
		t.Fatal(err)
	}
	finish(nil, false)
	ctx := context.Background()
	for _, r := range []struct{ method, url string }{
		{http.MethodGet, base + "/queries/job_secret?location=US&key=SECRET_KEY"},
		{http.MethodGet, base + "/datasets/secret_ds/tables/secret_table/data?maxResults=10"},
		{http.MethodGet, base + "/jobs/job_secret?location=US"},
		{http.MethodGet, base + "/datasets"},
	} {
		if err := do(ctx, r.method, r.url); err != nil {
			t.Fatalf("%s %s: %v", r.method, r.url, err)
		}
	}
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	if err := do(ctx, http.MethodGet, deadURL+"/bigquery/v2/projects/proj-a/jobs/job_secret"); err == nil {
		t.Fatal("a request to a closed server succeeded")
	}
}

func TestTransport(t *testing.T) {
	f := newFixture(t)
	runTransportRequests(t, f)

	ms := f.metrics(t)
	points := hists(t, get(t, ms, MetricDBOperationDuration, "s"))
	sys := AttrDBSystemName.String("gcp.bigquery")
	op := AttrDBOperationName.String
	status := AttrHTTPStatusCode.Int
	counts := map[string]uint64{}
	for k, dp := range points {
		counts[k] = dp.Count
	}
	wantPoints(t, MetricDBOperationDuration, counts, map[string]uint64{
		attrs(sys, op("jobs.insert"), status(200)):                           1,
		attrs(sys, op("jobs.getQueryResults"), status(200)):                  1,
		attrs(sys, op("tabledata.list"), status(200)):                        1,
		attrs(sys, op("jobs.get"), status(503), AttrErrorType.String("503")): 1,
		attrs(sys, op("datasets.list"), status(200)):                         1,
		attrs(sys, op("jobs.get"), AttrErrorType.String("*net.OpError")):     1,
	})
	// The duration runs until the body was read.
	if dp := points[attrs(sys, op("tabledata.list"), status(200))]; dp.Sum < slowBody.Seconds() {
		t.Errorf("tabledata.list took %vs, want at least %v: the body was not timed", dp.Sum, slowBody)
	}

	names := map[string]int{}
	for _, s := range f.spans.Ended() {
		names[s.Name()]++
		if !strings.HasPrefix(s.Name(), "bigquery ") {
			continue
		}
		if s.SpanKind() != trace.SpanKindClient {
			t.Errorf("%s: kind %v, want client", s.Name(), s.SpanKind())
		}
		for _, kv := range s.Attributes() {
			v := kv.Value.Emit()
			if strings.Contains(v, "SECRET") || strings.Contains(v, "secret") || strings.Contains(v, "proj-a") || strings.Contains(v, "?") {
				t.Errorf("%s: attribute %s=%s leaks the URL", s.Name(), kv.Key, v)
			}
		}
		if v, _ := spanAttr(s, AttrDBSystemName); v.AsString() != "gcp.bigquery" {
			t.Errorf("%s: db.system.name = %q", s.Name(), v.AsString())
		}
		if v, _ := spanAttr(s, AttrDBOperationName); "bigquery "+v.AsString() != s.Name() {
			t.Errorf("%s: db.operation.name = %q", s.Name(), v.AsString())
		}
		et, hasET := spanAttr(s, AttrErrorType)
		if (s.Status().Code == codes.Error) != hasET {
			t.Errorf("%s: status %v but error.type %q", s.Name(), s.Status(), et.AsString())
		}
	}
	for name, n := range map[string]int{
		"bigquery jobs.insert": 1, "bigquery jobs.getQueryResults": 1, "bigquery tabledata.list": 1,
		"bigquery jobs.get": 2, "bigquery datasets.list": 1, "bigquery.attempt query": 1,
	} {
		if names[name] != n {
			t.Errorf("%d spans named %q, want %d (all: %v)", names[name], name, n, names)
		}
	}
	insert := spansNamed(f.spans, "bigquery jobs.insert")[0]
	attempt := spansNamed(f.spans, "bigquery.attempt query")[0]
	if insert.Parent().SpanID() != attempt.SpanContext().SpanID() {
		t.Error("the request span is not a child of the attempt span")
	}
	for _, s := range spansNamed(f.spans, "bigquery jobs.get") {
		if s.Status().Code != codes.Error {
			t.Errorf("failed jobs.get span has status %v", s.Status())
		}
	}
}

// The Transport passes CloseIdleConnections through, as resilience's
// Transport expects of its base.
func TestTransportCloseIdleConnections(t *testing.T) {
	f := newFixture(t)
	base := &closeRecorder{}
	rt := f.tel.Transport(base)
	rt.(interface{ CloseIdleConnections() }).CloseIdleConnections()
	if !base.closed {
		t.Error("CloseIdleConnections did not reach the base transport")
	}
}

type closeRecorder struct{ closed bool }

func (c *closeRecorder) RoundTrip(*http.Request) (*http.Response, error) { return nil, io.EOF }
func (c *closeRecorder) CloseIdleConnections()                           { c.closed = true }

func TestDBOperationName(t *testing.T) {
	const p = "/bigquery/v2/projects/my-proj"
	for _, c := range []struct{ method, path, want string }{
		{"POST", p + "/jobs", "jobs.insert"},
		{"POST", "/upload/bigquery/v2/projects/my-proj/jobs", "jobs.insert"},
		{"GET", p + "/jobs", "jobs.list"},
		{"GET", p + "/jobs/job_1", "jobs.get"},
		{"POST", p + "/jobs/job_1/cancel", "jobs.cancel"},
		{"DELETE", p + "/jobs/job_1/delete", "jobs.delete"},
		{"POST", p + "/queries", "jobs.query"},
		{"GET", p + "/queries/job_1", "jobs.getQueryResults"},
		{"GET", p + "/datasets", "datasets.list"},
		{"POST", p + "/datasets", "datasets.insert"},
		{"GET", p + "/datasets/ds", "datasets.get"},
		{"PATCH", p + "/datasets/ds", "datasets.patch"},
		{"PUT", p + "/datasets/ds", "datasets.update"},
		{"DELETE", p + "/datasets/ds", "datasets.delete"},
		{"POST", p + "/datasets/ds:undelete", "datasets.undelete"},
		{"GET", p + "/datasets/ds/tables", "tables.list"},
		{"GET", p + "/datasets/ds/tables/t", "tables.get"},
		{"", p + "/datasets/ds/tables/t", "tables.get"},
		{"POST", p + "/datasets/ds/tables/t:getIamPolicy", "tables.getIamPolicy"},
		{"GET", p + "/datasets/ds/tables/t/data", "tabledata.list"},
		{"POST", p + "/datasets/ds/tables/t/insertAll", "tabledata.insertAll"},
		{"GET", p + "/datasets/ds/routines", "routines.list"},
		{"GET", p + "/datasets/ds/models/m", "models.get"},
		{"GET", p + "/datasets/ds/tables/t/rowAccessPolicies", "rowAccessPolicies.list"},
		{"GET", "/bigquery/v2/projects", "projects.list"},
		{"GET", p + "/serviceAccount", "projects.getServiceAccount"},
		// Emulators and custom endpoints may drop the /bigquery/v2 prefix.
		{"GET", "/projects/my-proj/datasets/ds/tables/t", "tables.get"},
		// Nothing unknown, and no part of a path, ever comes back.
		{"GET", p, "_OTHER"},
		{"GET", "/projects/example.com:my-proj", "_OTHER"},
		{"GET", p + "/secret_collection/x", "_OTHER"},
		{"GET", p + "/datasets/ds/secret_sub", "_OTHER"},
		{"POST", p + "/datasets/ds/tables/t:secret-action!", "_OTHER"},
		{"POST", p + "/datasets/ds/tables/t/data", "_OTHER"},
		{"GET", "/token", "_OTHER"},
		{"GET", "", "_OTHER"},
	} {
		if got := DBOperationName(c.method, c.path); got != c.want {
			t.Errorf("DBOperationName(%q, %q) = %q, want %q", c.method, c.path, got, c.want)
		}
	}
}
