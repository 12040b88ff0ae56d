package resilience

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"cloud.google.com/go/bigquery"
	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/option"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
)

// newJobsBQ is a fake BigQuery that knows one running query job "j" and
// answers jobs.get and jobs.getQueryResults for it the way mode says:
// "hang" holds every request until the client gives up; "running" answers
// at once that the job is still running; "longpoll" holds getQueryResults
// as a healthy BigQuery may (up to 10 s) while jobs.get says running;
// "stall" sends the headers of an answer and then nothing. opts add to the
// fake's (bqfake.InProcess for a test in a synctest bubble).
func newJobsBQ(t *testing.T, mode string, opts ...bqfake.Option) *bqfake.Fake {
	t.Helper()
	f := bqfake.New(t, append([]bqfake.Option{bqfake.WithProject("proj")}, opts...)...)
	f.AddJob(&bq.Job{Kind: "bigquery#job", JobReference: &bq.JobReference{ProjectId: "proj", JobId: "j", Location: "US"},
		Configuration: &bq.JobConfiguration{Query: &bq.JobConfigurationQuery{Query: "SELECT 1"}}, Status: &bq.JobStatus{State: "RUNNING"}})
	switch mode {
	case "hang":
		f.On(bqfake.Any).Hold()
	case "longpoll":
		f.On(bqfake.JobsGetQueryResults).Hold()
	case "stall":
		f.On(bqfake.Any).Stall(`{"kind":"bigquery#job",`)
	}
	return f
}

// hangConfig opens the breaker after 3 backend faults and retries queries
// once.
func hangConfig() Config {
	cfg := testConfig(2)
	cfg.Breaker.Open = time.Minute
	return cfg
}

// readJob is a query's wait for its results, as the query tools run it:
// look the job up, then wait for it with getQueryResults long polls.
func readJob(client *bigquery.Client) func(context.Context) error {
	return func(ctx context.Context) error {
		job, err := client.JobFromIDLocation(ctx, "j", "US")
		if err != nil {
			return err
		}
		_, err = job.Read(ctx)
		return err
	}
}

// queryCall runs one query operation whose caller allows it d.
func queryCall(e *Executor, client *bigquery.Client, d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return e.Do(ctx, Query, "proj", readJob(client))
}

// TestHungBigQueryOpensBreaker: query calls that end because BigQuery never
// answered count as backend faults, so after Failures of them the
// next call fails fast without a request.
func TestHungBigQueryOpensBreaker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newJobsBQ(t, "hang", bqfake.InProcess())
		e := newTestExecutor(t, hangConfig(), Hooks{})
		client := newBQClient(t, srv.URL, &Transport{Base: srv.Transport()})
		for i := range 3 {
			err := queryCall(e, client, 150*time.Millisecond)
			mustCode(t, err, bqerr.DeadlineExceeded)
			if i < 2 && e.BreakerStates()["proj"] != Closed {
				t.Fatalf("breaker %s after %d hung calls, want closed until 3", e.BreakerStates()["proj"], i+1)
			}
		}
		if got := e.BreakerStates()["proj"]; got != Open {
			t.Fatalf("breaker %s after 3 hung calls, want open", got)
		}
		before := srv.Count(bqfake.Any)
		start := time.Now()
		err := queryCall(e, client, time.Minute)
		if d := time.Since(start); d > time.Second {
			t.Errorf("the call after the breaker opened took %s, want fast", d)
		}
		be := mustCode(t, err, bqerr.Unavailable)
		if !IsBreakerOpen(err) || be.RetryAfterSeconds == nil {
			t.Errorf("error %s is not the open breaker's", be.JSON())
		}
		if n := srv.Count(bqfake.Any) - before; n != 0 {
			t.Errorf("the open breaker let %d requests through", n)
		}
	})
}

// TestAnsweredDeadlinesDoNotOpenBreaker: a query that is still running when
// its caller's time ends, BigQuery answering all along, says nothing about
// BigQuery's health; nor does a client that cancels a hung call.
func TestAnsweredDeadlinesDoNotOpenBreaker(t *testing.T) {
	t.Run("job still running", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv := newJobsBQ(t, "running", bqfake.InProcess())
			e := newTestExecutor(t, hangConfig(), Hooks{})
			client := newBQClient(t, srv.URL, &Transport{Base: srv.Transport()})
			for range 5 {
				mustCode(t, queryCall(e, client, 150*time.Millisecond), bqerr.DeadlineExceeded)
			}
			if srv.Count(bqfake.Any) < 10 {
				t.Fatalf("only %d requests: the job was not polled", srv.Count(bqfake.Any))
			}
			if got := e.BreakerStates()["proj"]; got != Closed {
				t.Fatalf("breaker %s after 5 queries that outlived their deadline, want closed", got)
			}
		})
	})
	t.Run("deadline inside a long poll", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			// getQueryResults without timeoutMs may be held 10 s by a healthy
			// BigQuery: a deadline inside that window is the caller's.
			srv := newJobsBQ(t, "longpoll", bqfake.InProcess())
			e := newTestExecutor(t, hangConfig(), Hooks{})
			client := newBQClient(t, srv.URL, &Transport{Base: srv.Transport()})
			for range 4 {
				mustCode(t, queryCall(e, client, 300*time.Millisecond), bqerr.DeadlineExceeded)
			}
			if got := e.BreakerStates()["proj"]; got != Closed {
				t.Fatalf("breaker %s after 4 deadlines inside long polls, want closed", got)
			}
		})
	})
	t.Run("client cancels a hung call", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv := newJobsBQ(t, "hang", bqfake.InProcess())
			e := newTestExecutor(t, hangConfig(), Hooks{})
			client := newBQClient(t, srv.URL, &Transport{Base: srv.Transport()})
			for range 4 {
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(100*time.Millisecond, cancel)
				err := e.Do(ctx, Query, "proj", readJob(client))
				cancel()
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("Do = %v, want context.Canceled", err)
				}
			}
			if got := e.BreakerStates()["proj"]; got != Closed {
				t.Fatalf("breaker %s after 4 client cancels, want closed", got)
			}
		})
	})
}

// TestUnansweredAttemptsOpenBreaker covers the other ways BigQuery can fail
// to answer: a response-header timeout on each attempt, and a response that
// stalls after its headers until the deadline.
func TestUnansweredAttemptsOpenBreaker(t *testing.T) {
	for _, tc := range []struct {
		mode     string
		base     *http.Transport
		deadline time.Duration
	}{
		// Each attempt times out by itself, well inside the caller's time.
		{"hang", &http.Transport{ResponseHeaderTimeout: 30 * time.Millisecond}, 2 * time.Second},
		{"stall", &http.Transport{}, 200 * time.Millisecond},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Cleanup(tc.base.CloseIdleConnections)
			srv := newJobsBQ(t, tc.mode)
			e := newTestExecutor(t, hangConfig(), Hooks{})
			client := newBQClient(t, srv.URL, &Transport{Base: tc.base})
			for range 3 {
				mustCode(t, queryCall(e, client, tc.deadline), bqerr.DeadlineExceeded)
			}
			if got := e.BreakerStates()["proj"]; got != Open {
				t.Fatalf("breaker %s after 3 unanswered calls, want open", got)
			}
		})
	}
}

func TestHoldTime(t *testing.T) {
	get := func(path string) *http.Request {
		r, _ := http.NewRequest(http.MethodGet, "https://bigquery.googleapis.com/bigquery/v2"+path, nil)
		return r
	}
	post := func(path, body string) *http.Request {
		r, _ := http.NewRequest(http.MethodPost, "https://bigquery.googleapis.com/bigquery/v2"+path, strings.NewReader(body))
		return r
	}
	for _, tc := range []struct {
		name string
		req  *http.Request
		want time.Duration
	}{
		{"jobs.get", get("/projects/p/jobs/j"), 0},
		{"tables.get", get("/projects/p/datasets/d/tables/queries"), 0},
		{"jobs.insert", post("/projects/p/jobs", `{"configuration":{"query":{"query":"SELECT 1"}}}`), 0},
		{"getQueryResults default", get("/projects/p/queries/j?maxResults=0"), 11 * time.Second},
		{"getQueryResults timeoutMs", get("/projects/p/queries/j?timeoutMs=2500"), 3500 * time.Millisecond},
		{"jobs.query default", post("/projects/p/queries", `{"query":"SELECT 1"}`), 11 * time.Second},
		{"jobs.query timeoutMs", post("/projects/p/queries", `{"query":"SELECT 1","timeoutMs":45000}`), 46 * time.Second},
		{"jobs.query bad body", post("/projects/p/queries", `{`), 11 * time.Second},
	} {
		if got := holdTime(tc.req); got != tc.want {
			t.Errorf("%s: holdTime = %s, want %s", tc.name, got, tc.want)
		}
	}
	// Reading the hold leaves the body for the request itself.
	r := post("/projects/p/queries", `{"timeoutMs":1}`)
	holdTime(r)
	if b, _ := io.ReadAll(r.Body); string(b) != `{"timeoutMs":1}` {
		t.Errorf("body after holdTime = %q", b)
	}
}

// TestWatchOnlyInsideDo: requests outside an executor attempt are not
// watched, and a hung attempt is reported per attempt.
func TestWatchOnlyInsideDo(t *testing.T) {
	if w := watchOf(context.Background()); w != nil || w.Hung() {
		t.Fatal("a context outside Do carries a watch")
	}
	_, w := watchAttempt(context.Background())
	if w.Hung() {
		t.Fatal("a fresh watch reports a hang")
	}
}

// holdRecorder records the hold time of each request it carries.
type holdRecorder struct{ holds []time.Duration }

func (h *holdRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	h.holds = append(h.holds, holdTime(r))
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{"jobComplete":false}`)), Request: r}, nil
}

// TestHoldTimeOfRealRequests: the long polls the REST service sends carry
// their timeoutMs where holdTime finds it.
func TestHoldTimeOfRealRequests(t *testing.T) {
	rec := &holdRecorder{}
	ctx := context.Background()
	svc, err := bq.NewService(ctx, option.WithHTTPClient(&http.Client{Transport: rec}), option.WithEndpoint("http://bigquery.test/"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Jobs.Query("p", &bq.QueryRequest{Query: "SELECT 1", TimeoutMs: 45000, RequestId: "r"}).Context(ctx).Do(); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Jobs.GetQueryResults("p", "j").TimeoutMs(2000).Context(ctx).Do(); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Jobs.Get("p", "j").Context(ctx).Do(); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{46 * time.Second, 3 * time.Second, 0}
	if !slices.Equal(rec.holds, want) {
		t.Errorf("holds = %v, want %v", rec.holds, want)
	}
}
