package query

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"cloud.google.com/go/bigquery"
	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/option"

	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
	"github.com/bigquery-mcp/bigquery-mcp/rows"
)

const (
	slowJobID    = "bqmcp_slow_job"
	slowJobBytes = 12345
)

// slowBigQuery answers a query whose job runs until finish is called, as
// BigQuery does: jobs.query and getQueryResults wait up to their timeoutMs
// and answer jobComplete false with the job's reference while it runs;
// jobs.get says RUNNING with the bytes read so far; jobs.cancel is
// recorded.
type slowBigQuery struct {
	*bqfake.Fake
	done chan struct{}
	once sync.Once
	// pollMs, when set, makes getQueryResults answer after at most this
	// long, as BigQuery may.
	pollMs int64
}

func newSlowBigQuery(t *testing.T) *slowBigQuery {
	f := &slowBigQuery{Fake: bqfake.New(t, bqfake.InProcess()), done: make(chan struct{})}
	ref := &bq.JobReference{ProjectId: "p", JobId: slowJobID, Location: "EU"}
	schema := &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "n", Type: "INTEGER"}}}
	rows := []*bq.TableRow{{F: []*bq.TableCell{{V: "1"}}}, {F: []*bq.TableCell{{V: "2"}}}, {F: []*bq.TableCell{{V: "3"}}}}
	f.On(bqfake.Any).ReplyFunc(func(r *bqfake.Request) (any, error) {
		t.Logf("slow bigquery: %s", r)
		return nil, nil
	})
	f.On(bqfake.JobsQuery).ReplyFunc(func(r *bqfake.Request) (any, error) {
		// BigQuery may answer before timeoutMs; answering early makes
		// the call go on to its getQueryResults long polls.
		if !f.wait(r, min(r.QueryRequest.TimeoutMs, 300)) {
			return &bq.QueryResponse{JobReference: ref}, nil
		}
		return &bq.QueryResponse{JobReference: ref, JobComplete: true, Schema: schema, Rows: rows, TotalRows: 3}, nil
	})
	ours := func(r *bqfake.Request) bool { return r.JobID == slowJobID }
	f.On(bqfake.JobsGetQueryResults).When(ours).ReplyFunc(func(r *bqfake.Request) (any, error) {
		ms, _ := strconv.ParseInt(r.Query.Get("timeoutMs"), 10, 64)
		if f.pollMs > 0 {
			ms = min(ms, f.pollMs)
		}
		if !f.wait(r, ms) {
			return &bq.GetQueryResultsResponse{JobReference: ref}, nil
		}
		return &bq.GetQueryResultsResponse{JobReference: ref, JobComplete: true, Schema: schema, Rows: rows, TotalRows: 3}, nil
	})
	f.On(bqfake.JobsCancel).When(ours).ReplyFunc(func(*bqfake.Request) (any, error) {
		return &bq.JobCancelResponse{Job: f.job(ref)}, nil
	})
	f.On(bqfake.JobsGet).When(ours).ReplyFunc(func(*bqfake.Request) (any, error) { return f.job(ref), nil })
	return f
}

// finish completes the job.
func (f *slowBigQuery) finish() { f.once.Do(func() { close(f.done) }) }

func (f *slowBigQuery) wasCancelled() bool { return f.Count(bqfake.JobsCancel) > 0 }

// gets counts the jobs.get requests.
func (f *slowBigQuery) gets() int { return f.Count(bqfake.JobsGet) }

// wait blocks until the job is done or timeoutMs passes; it reports
// whether the job is done.
func (f *slowBigQuery) wait(r *bqfake.Request, timeoutMs int64) bool {
	select {
	case <-f.done:
		return true
	case <-time.After(time.Duration(timeoutMs) * time.Millisecond):
	case <-r.HTTP.Context().Done():
	}
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

func (f *slowBigQuery) job(ref *bq.JobReference) *bq.Job {
	state := "RUNNING"
	select {
	case <-f.done:
		state = "DONE"
	default:
	}
	return &bq.Job{
		JobReference:  ref,
		Configuration: &bq.JobConfiguration{JobType: "QUERY", Query: &bq.JobConfigurationQuery{Query: "SELECT n FROM slow"}},
		Status:        &bq.JobStatus{State: state},
		Statistics: &bq.JobStatistics{
			CreationTime:        time.Now().Add(-3 * time.Second).UnixMilli(),
			TotalBytesProcessed: slowJobBytes,
			Query:               &bq.JobStatistics2{StatementType: "SELECT"},
		},
	}
}

// endpoint is a fake BigQuery a client can be pointed at: a *bqfake.Fake,
// or a test's script on one.
type endpoint interface {
	Options(*http.Client) []option.ClientOption
	HTTPClient() *http.Client
}

// newTestService returns a Service on the real clients talking to fake,
// its config the one below as changed by each configure in turn: like the
// server, a test configures a Service once, before NewService.
func newTestService(t *testing.T, fake endpoint, configure ...func(*Config)) *Service {
	t.Helper()
	ctx := context.Background()
	// On the fake's own transport: in process for a fake made
	// bqfake.InProcess, so the test can run in a synctest bubble.
	hc := &http.Client{Transport: &resilience.Transport{Base: fake.HTTPClient().Transport}}
	opts := fake.Options(hc)
	client, err := bigquery.NewClient(ctx, "p", opts...)
	if err != nil {
		t.Fatalf("bigquery.NewClient: %v", err)
	}
	rest, err := bq.NewService(ctx, opts...)
	if err != nil {
		t.Fatalf("bq.NewService: %v", err)
	}
	t.Cleanup(func() {
		client.Close()
		hc.CloseIdleConnections()
	})
	exec, err := resilience.NewExecutor(resilience.Defaults(), resilience.Hooks{})
	if err != nil {
		t.Fatalf("resilience.NewExecutor: %v", err)
	}
	cfg := Config{
		Client: client, REST: rest, Executor: exec,
		Project: "p",
		Settings: Settings{
			AllowWrites:     true, // no read-only dry run: the fake need not answer one
			MaxBytesBilled:  1 << 30,
			QueryTimeout:    30 * time.Second,
			MaxQueryTimeout: time.Minute,
			MaxWait:         10 * time.Second,
			Caps:            rows.Caps{DefaultMaxRows: 100, MaxRows: 1000, MaxResultBytes: 1 << 20},
		},
		Logger: slog.New(slog.NewTextHandler(tWriter{t}, nil)),
	}
	for _, f := range configure {
		f(&cfg)
	}
	s := NewService(cfg)
	t.Cleanup(s.Close)
	return s
}

// A job that outlives waitSeconds comes back as jobComplete false with
// what the agent needs to pick it up, and keeps running; get_query_results
// with waitSeconds then returns its rows once it is done.
func TestExecuteWaitEndsBeforeJobThenGetResultsWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := newSlowBigQuery(t)
		s := newTestService(t, fake)
		ctx := context.Background()

		start := time.Now()
		out, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM slow", WaitSeconds: 1})
		if err != nil {
			t.Fatalf("Execute: %v", err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("Execute returned after %s, want about waitSeconds (1 s)", took)
		}
		if out.JobComplete {
			t.Fatalf("jobComplete = true for a job still running: %+v", out)
		}
		if out.JobID != slowJobID || out.Location != "EU" || out.State != "RUNNING" {
			t.Errorf("jobId/location/state = %q/%q/%q, want %q/EU/RUNNING", out.JobID, out.Location, out.State, slowJobID)
		}
		if out.ElapsedMs < 1000 {
			t.Errorf("elapsedMs = %d, want the job's age (about 3 s by its creationTime)", out.ElapsedMs)
		}
		if out.BytesProcessed != slowJobBytes {
			t.Errorf("bytesProcessed = %d, want %d so far", out.BytesProcessed, slowJobBytes)
		}
		if !strings.Contains(out.Hint, "get_query_results") || !strings.Contains(out.Hint, "cancel_job") {
			t.Errorf("hint %q does not say how to pick the job up or stop it", out.Hint)
		}
		if len(out.Rows) != 0 {
			t.Errorf("rows of a running job: %v", rowTexts(out.Rows))
		}
		if fake.wasCancelled() {
			t.Fatal("the wait ending cancelled the job; it must keep running")
		}

		// Still running: get_query_results also says so, and does not cancel.
		again, err := s.GetResults(ctx, GetResultsInput{JobID: slowJobID, Location: "EU", WaitSeconds: 1})
		if err != nil {
			t.Fatalf("GetResults while running: %v", err)
		}
		if again.JobComplete || again.State != "RUNNING" || again.Hint == "" {
			t.Errorf("GetResults of a running job = complete %v state %q hint %q, want false/RUNNING/a hint", again.JobComplete, again.State, again.Hint)
		}
		if fake.wasCancelled() {
			t.Fatal("get_query_results cancelled the job")
		}

		// The job ends while get_query_results waits: the rows come back.
		time.AfterFunc(300*time.Millisecond, fake.finish)
		start = time.Now()
		done, err := s.GetResults(ctx, GetResultsInput{JobID: slowJobID, Location: "EU", WaitSeconds: 5})
		if err != nil {
			t.Fatalf("GetResults: %v", err)
		}
		if !done.JobComplete || done.RowCount != 3 || strings.Join(rowTexts(done.Rows), " ") != "[1] [2] [3]" {
			t.Errorf("GetResults after the job ended = complete %v rows %v, want true [1] [2] [3]", done.JobComplete, rowTexts(done.Rows))
		}
		if took := time.Since(start); took > 4*time.Second {
			t.Errorf("GetResults took %s; it should return soon after the job ends", took)
		}
		if fake.wasCancelled() {
			t.Error("the job was cancelled")
		}
	})
}

// A caller that asked for progress hears of the running job while the
// call waits: its ID, state and the bytes read so far.
func TestExecuteReportsProgressWhileWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := newSlowBigQuery(t)
		s := newTestService(t, fake)
		var mu sync.Mutex
		var reports []job.Progress
		ctx := job.WithProgress(context.Background(), func(_ context.Context, p job.Progress) {
			mu.Lock()
			reports = append(reports, p)
			mu.Unlock()
		})
		time.AfterFunc(1500*time.Millisecond, fake.finish)
		out, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM slow", WaitSeconds: 5})
		if err != nil {
			t.Fatalf("Execute: %v", err)
		}
		if !out.JobComplete || out.RowCount != 3 {
			t.Errorf("Execute = complete %v, %d rows; want the job's 3 rows", out.JobComplete, out.RowCount)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(reports) == 0 {
			t.Fatal("no progress reported while the call waited for the job")
		}
		p := reports[0]
		if p.JobID != slowJobID || p.State != "RUNNING" || p.BytesProcessed != slowJobBytes || p.Elapsed < time.Second {
			t.Errorf("progress = %+v, want job %s RUNNING, %d bytes, elapsed from the job's creation", p, slowJobID, slowJobBytes)
		}
	})
}

// Without a progress reporter in the context, no jobs.get is spent on
// progress: the one jobs.get is the finished job's bytes billed, which
// getQueryResults does not carry.
func TestExecuteWithoutProgressSkipsJobsGet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := newSlowBigQuery(t)
		s := newTestService(t, fake)
		time.AfterFunc(700*time.Millisecond, fake.finish)
		if _, err := s.Execute(context.Background(), ExecuteInput{SQL: "SELECT n FROM slow", WaitSeconds: 5}); err != nil {
			t.Fatalf("Execute: %v", err)
		}
		if gets := fake.gets(); gets != 1 {
			t.Errorf("%d jobs.get for a caller that did not ask for progress, want 1 (bytes billed)", gets)
		}
	})
}

// Polls that BigQuery answers early do not speed up progress reports: each
// costs a jobs.get, so they keep one per 5 s (package job).
func TestProgressKeepsItsPaceWhenPollsAnswerEarly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := newSlowBigQuery(t)
		fake.pollMs = 50
		s := newTestService(t, fake)
		var mu sync.Mutex
		reports := 0
		ctx := job.WithProgress(context.Background(), func(context.Context, job.Progress) {
			mu.Lock()
			reports++
			mu.Unlock()
		})
		time.AfterFunc(2*time.Second, fake.finish)
		if _, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM slow", WaitSeconds: 5}); err != nil {
			t.Fatalf("Execute: %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		if reports != 1 || fake.gets() != 2 {
			t.Errorf("%d reports and %d jobs.get in 2 s of 50 ms polls, want 1 report (one per 5 s) and 2 jobs.get (with bytes billed)", reports, fake.gets())
		}
	})
}
