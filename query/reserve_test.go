package query

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/job"
)

const mib = 1 << 20

// ledgerBigQuery is a fake BigQuery REST API for budgets: every dry run
// estimates estimate bytes; every query job bills billed bytes and runs
// for runFor, or, when runFor is untilFinished, until the test calls
// finish. jobs.query waits for its job up to its timeoutMs, as
// BigQuery does, so a job that runs longer is handed back with
// jobComplete false; getQueryResults carries no bytes billed, jobs.get
// does (statistics.query.totalBytesBilled). It sums what its jobs billed,
// as BigQuery's invoice would.
type ledgerBigQuery struct {
	*bqfake.Fake
	estimate int64
	billed   int64
	runFor   time.Duration

	mu   sync.Mutex
	jobs map[string]*ledgerJob
	n    int
}

// untilFinished, as a ledgerBigQuery's runFor, starts jobs that run until
// the test ends them with finish.
const untilFinished time.Duration = -1

type ledgerJob struct {
	ends      time.Time
	held      bool          // runs until ended is closed, whatever ends says
	ended     chan struct{} // closed by finish
	billed    int64
	failed    bool
	cancelled bool
}

func newLedgerBigQuery(t *testing.T, estimate, billed int64, runFor time.Duration) *ledgerBigQuery {
	f := &ledgerBigQuery{Fake: bqfake.New(t, bqfake.InProcess()), estimate: estimate, billed: billed, runFor: runFor, jobs: map[string]*ledgerJob{}}
	f.On(bqfake.JobsInsert).ReplyFunc(func(r *bqfake.Request) (any, error) { return f.dryRun(t, r) })
	f.On(bqfake.JobsQuery).ReplyFunc(f.query)
	f.On(bqfake.JobsGetQueryResults).ReplyFunc(f.results)
	f.On(bqfake.JobsCancel).ReplyFunc(f.cancel)
	f.On(bqfake.JobsGet).ReplyFunc(func(r *bqfake.Request) (any, error) {
		j, err := f.job(r.JobID)
		if err != nil {
			return nil, err
		}
		return f.jobResource(r.JobID, j), nil
	})
	return f
}

// invoice is what the finished jobs billed, and how many jobs ran.
func (f *ledgerBigQuery) invoice() (billed int64, jobs int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, j := range f.jobs {
		if j.done() {
			billed += j.billed
		}
	}
	return billed, len(f.jobs)
}

// finish ends the held jobs named by ids, or every held job when none is
// named.
func (f *ledgerBigQuery) finish(ids ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, j := range f.jobs {
		if j.held && !j.done() && (len(ids) == 0 || slices.Contains(ids, id)) {
			close(j.ended)
		}
	}
}

// requestsFor counts the requests naming job id.
func (f *ledgerBigQuery) requestsFor(id string) int {
	n := 0
	for _, r := range f.Requests(bqfake.Any) {
		if r.JobID == id {
			n++
		}
	}
	return n
}

func (f *ledgerBigQuery) job(id string) (*ledgerJob, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, ok := f.jobs[id]
	if !ok {
		return nil, bqfake.Errorf(http.StatusNotFound, "notFound", "Not found: Job p:US.%s", id)
	}
	return j, nil
}

func (j *ledgerJob) done() bool {
	select {
	case <-j.ended:
		return true
	default:
		return !j.held && !time.Now().Before(j.ends)
	}
}

// waitFor waits until the job ends or timeoutMs passes.
func (j *ledgerJob) waitFor(r *bqfake.Request, timeoutMs int64) {
	d := time.Duration(timeoutMs) * time.Millisecond
	if !j.held {
		d = min(time.Until(j.ends), d)
	}
	if d <= 0 || j.done() {
		return
	}
	select {
	case <-time.After(d):
	case <-j.ended:
	case <-r.HTTP.Context().Done():
	}
}

var (
	ledgerSchema = &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "n", Type: "INTEGER"}}}
	ledgerRows   = []*bq.TableRow{{F: []*bq.TableCell{{V: "1"}}}}
)

func (f *ledgerBigQuery) dryRun(t *testing.T, r *bqfake.Request) (any, error) {
	job := r.Job
	if !job.Configuration.DryRun {
		t.Errorf("ledger bigquery: a job was inserted that is not a dry run")
		return nil, bqfake.Errorf(http.StatusBadRequest, "invalid", "not a dry run")
	}
	job.JobReference = &bq.JobReference{ProjectId: "p", Location: "US"}
	job.Status = &bq.JobStatus{State: "DONE"}
	job.Statistics = &bq.JobStatistics{TotalBytesProcessed: f.estimate, Query: &bq.JobStatistics2{
		StatementType: "SELECT", ReferencedTables: tableRefs([]string{"p.sales.t"}), TotalBytesProcessed: f.estimate,
	}}
	return job, nil
}

func (f *ledgerBigQuery) query(r *bqfake.Request) (any, error) {
	req := r.QueryRequest
	f.mu.Lock()
	f.n++
	id := fmt.Sprintf("job_%d", f.n)
	j := &ledgerJob{ends: time.Now().Add(f.runFor), held: f.runFor == untilFinished, ended: make(chan struct{}), billed: f.billed, failed: strings.Contains(req.Query, "fail")}
	f.jobs[id] = j
	f.mu.Unlock()
	j.waitFor(r, req.TimeoutMs)
	ref := &bq.JobReference{ProjectId: "p", JobId: id, Location: "US"}
	if !j.done() {
		return &bq.QueryResponse{JobReference: ref}, nil
	}
	return &bq.QueryResponse{
		JobReference: ref, JobComplete: true, TotalRows: 1, Schema: ledgerSchema, Rows: ledgerRows,
		TotalBytesProcessed: j.billed, TotalBytesBilled: j.billed,
	}, nil
}

func (f *ledgerBigQuery) results(r *bqfake.Request) (any, error) {
	j, err := f.job(r.JobID)
	if err != nil {
		return nil, err
	}
	ms, _ := strconv.ParseInt(r.Query.Get("timeoutMs"), 10, 64)
	j.waitFor(r, min(ms, 2000))
	ref := &bq.JobReference{ProjectId: "p", JobId: r.JobID, Location: "US"}
	switch {
	case !j.done():
		return &bq.GetQueryResultsResponse{JobReference: ref}, nil
	case j.failed:
		return nil, bqfake.Errorf(http.StatusBadRequest, "invalidQuery", "Division by zero: 1 / 0")
	}
	return &bq.GetQueryResultsResponse{JobReference: ref, JobComplete: true, TotalRows: 1, Schema: ledgerSchema, Rows: ledgerRows, TotalBytesProcessed: j.billed}, nil
}

func (f *ledgerBigQuery) cancel(r *bqfake.Request) (any, error) {
	j, err := f.job(r.JobID)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	j.cancelled = true
	f.mu.Unlock()
	return &bq.JobCancelResponse{Job: f.jobResource(r.JobID, j)}, nil
}

func (f *ledgerBigQuery) jobResource(id string, j *ledgerJob) *bq.Job {
	out := &bq.Job{
		JobReference:  &bq.JobReference{ProjectId: "p", JobId: id, Location: "US"},
		Configuration: &bq.JobConfiguration{JobType: "QUERY", Query: &bq.JobConfigurationQuery{Query: "SELECT n FROM sales.t"}},
		Status:        &bq.JobStatus{State: "RUNNING"},
		Statistics:    &bq.JobStatistics{CreationTime: time.Now().UnixMilli(), Query: &bq.JobStatistics2{StatementType: "SELECT"}},
	}
	if j.done() {
		out.Status.State = "DONE"
		out.Statistics.TotalBytesProcessed = j.billed
		out.Statistics.Query.TotalBytesBilled = j.billed
		out.Statistics.Query.TotalBytesProcessed = j.billed
		if j.failed {
			out.Status.ErrorResult = &bq.ErrorProto{Reason: "invalidQuery", Message: "Division by zero: 1 / 0 in secret.salaries"}
			out.Statistics.Query.TotalBytesBilled = 0
		}
	}
	return out
}

// newLedgerService is a read-only service on fake with the given budgets,
// then each configure.
func newLedgerService(t *testing.T, fake *ledgerBigQuery, perSession, perDay int64, configure ...func(*Config)) *Service {
	t.Helper()
	return newTestService(t, fake, func(c *Config) {
		c.AllowWrites = false
		c.State = governance.NewMemory(governance.NewBudget(governance.Limits{MaxBytesPerSession: perSession, MaxBytesPerDay: perDay}), nil)
		for _, f := range configure {
			f(c)
		}
	})
}

// fastFollower makes the follower look at unfinished jobs every 20 ms, not
// every few seconds.
func fastFollower(c *Config) {
	c.follow = job.FollowTiming{Every: 20 * time.Millisecond, First: 20 * time.Millisecond, Longest: 20 * time.Millisecond}
}

// settled waits until the caller holds nothing: every job was settled. It
// looks again each 10 ms, when the follower (fastFollower) may have settled
// one, for up to 10 s.
func settled(t *testing.T, s *Service, ctx context.Context) *UsageOutput {
	t.Helper()
	followerSettled := time.Tick(10 * time.Millisecond)
	timeout := time.After(10 * time.Second)
	for {
		u, err := s.Usage(ctx, UsageInput{})
		if err != nil {
			t.Fatal(err)
		}
		if u.Reserved == 0 {
			return u
		}
		select {
		case <-followerSettled:
		case <-timeout:
			return u
		}
	}
}

// TestParallelQueriesNeverOverspend: N callers at once under a 150 MiB day
// budget, each query estimated at 100 MiB. The bound: what the jobs billed
// is at most the budget plus the estimate errors of the queries admitted,
// whose estimates together fit the budget, so with each job billing 10%
// over its estimate, at most 110% of the budget. It holds for jobs that
// finish within the call and for jobs handed back unfinished (waitSeconds
// 1, each running until every call has returned), which stay held until
// the follower settles them; and the ledger ends equal to what BigQuery
// billed.
func TestParallelQueriesNeverOverspend(t *testing.T) {
	const budget = 150 * mib
	for _, c := range []struct {
		name           string
		callers        int
		estimate       int64
		billed         int64
		runFor         time.Duration
		wait           int
		bound          int64
		wantJobs       int
		wantHandedBack bool
	}{
		{"10 of 100 MiB", 10, 100 * mib, 100 * mib, 50 * time.Millisecond, 0, budget, 1, false},
		{"70 of 40 MiB", 70, 40 * mib, 40 * mib, 50 * time.Millisecond, 0, budget, 3, false},
		{"70 of 40 MiB billed 10% over", 70, 40 * mib, 44 * mib, 50 * time.Millisecond, 0, budget * 11 / 10, 3, false},
		{"70 of 40 MiB outliving their call", 70, 40 * mib, 40 * mib, untilFinished, 1, budget, 3, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake := newLedgerBigQuery(t, c.estimate, c.billed, c.runFor)
			s := newLedgerService(t, fake, 0, budget, fastFollower)
			ctx := context.Background()
			var wg sync.WaitGroup
			var mu sync.Mutex
			handedBack := 0
			for range c.callers {
				wg.Go(func() {
					out, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM sales.t", WaitSeconds: c.wait})
					if err == nil && !out.JobComplete {
						mu.Lock()
						handedBack++
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			if c.wantHandedBack && handedBack == 0 {
				t.Fatal("no job was handed back unfinished")
			}
			// Every call has returned: a job that finished within its call
			// has ended, and the ones handed back end now.
			fake.finish()
			u := settled(t, s, ctx)
			billed, jobs := fake.invoice()
			t.Logf("%d parallel calls: %d jobs billed %d MiB under a %d MiB budget (%.2fx); ledger %d MiB",
				c.callers, jobs, billed/mib, budget/mib, float64(billed)/budget, u.Today.BytesBilled/mib)
			if billed > c.bound || jobs != c.wantJobs {
				t.Errorf("%d jobs billed %d MiB, want %d jobs within %d MiB", jobs, billed/mib, c.wantJobs, c.bound/mib)
			}
			if u.Today.BytesBilled != billed || u.Today.Jobs != int64(jobs) || u.Reserved != 0 {
				t.Errorf("usage = %+v, want the %d MiB of %d jobs BigQuery billed, nothing held", u.Report, billed/mib, jobs)
			}
		})
	}
}

// TestUnfinishedJobsAreChargedWhatTheyBilled is issue 24's trial: each
// query is handed back with jobComplete false and finishes later. While it
// runs its estimate is held (usage shows it as reserved); once the
// follower sees it done, usage shows the bytes the job billed, not what it
// processed or was estimated at, and the budget refuses the query that
// would pass it.
func TestUnfinishedJobsAreChargedWhatTheyBilled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Estimated 100 MiB, billed 80 MiB, under a 250 MiB day budget.
		fake := newLedgerBigQuery(t, 100*mib, 80*mib, untilFinished)
		s := newLedgerService(t, fake, 0, 250*mib, fastFollower)
		ctx := context.Background()

		var ids []string
		for i := range 2 {
			out, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM sales.t", WaitSeconds: 1})
			if err != nil || out.JobComplete {
				t.Fatalf("query %d: %+v, %v; want a job handed back unfinished", i, out, err)
			}
			ids = append(ids, out.JobID)
		}
		u, _ := s.Usage(ctx, UsageInput{})
		if u.Reserved != 200*mib || u.Today.BytesBilled != 0 || *u.Left != 50*mib {
			t.Errorf("usage while running = %+v, want 200 MiB reserved, 50 MiB left", u.Report)
		}
		// A third would pass what is left while the first two hold theirs.
		if _, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM sales.t", WaitSeconds: 1}); !isExhausted(err) {
			t.Fatalf("third query while two run = %v, want RESOURCE_EXHAUSTED", err)
		}

		fake.finish(ids...)
		u = settled(t, s, ctx)
		if u.Today.BytesBilled != 160*mib || u.Today.Jobs != 2 || *u.Left != 90*mib {
			t.Errorf("usage after the jobs ended = %+v, want 2 jobs, 160 MiB billed, 90 MiB left", u.Report)
		}
		// Every tool that sees the same end again charges nothing more.
		for _, id := range ids {
			if _, err := s.GetResults(ctx, GetResultsInput{JobID: id}); err != nil {
				t.Fatalf("GetResults(%s): %v", id, err)
			}
			if _, err := s.GetJob(ctx, JobInput{JobID: id}); err != nil {
				t.Fatalf("GetJob(%s): %v", id, err)
			}
			if _, err := s.CancelJob(ctx, JobInput{JobID: id}); err != nil {
				t.Fatalf("CancelJob(%s): %v", id, err)
			}
		}
		if u2, _ := s.Usage(ctx, UsageInput{}); u2.Today != u.Today || u2.Session != u.Session || u2.Reserved != 0 || *u2.Left != *u.Left {
			t.Errorf("usage changed when tools saw the same ends again: %+v, was %+v", u2.Report, u.Report)
		}
		// 90 MiB is left: a 100 MiB estimate is refused, a 90 MiB one runs.
		if _, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM sales.t", WaitSeconds: 1}); !isExhausted(err) {
			t.Errorf("query past what is left = %v, want RESOURCE_EXHAUSTED", err)
		}
		fake.estimate = 90 * mib
		if _, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM sales.t", WaitSeconds: 1}); err != nil {
			t.Errorf("query within what is left: %v", err)
		}
	})
}

// TestEachToolSettlesTheJobItSeesEnd: whichever tool sees a job finish
// first settles it (get_query_results, get_job, cancel_job), with the
// job's bytes billed, once; the follower is not needed.
func TestEachToolSettlesTheJobItSeesEnd(t *testing.T) {
	for _, tool := range []string{"get_query_results", "get_job", "cancel_job"} {
		t.Run(tool, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake := newLedgerBigQuery(t, 100*mib, 70*mib, untilFinished)
				s := newLedgerService(t, fake, 0, 1000*mib, func(c *Config) { c.follow.First = time.Hour }) // only the tool may settle
				ctx := context.Background()
				out, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM sales.t", WaitSeconds: 1})
				if err != nil || out.JobComplete {
					t.Fatalf("Execute = %+v, %v; want a job handed back unfinished", out, err)
				}
				fake.finish(out.JobID)
				for range 2 {
					switch tool {
					case "get_query_results":
						_, err = s.GetResults(ctx, GetResultsInput{JobID: out.JobID, WaitSeconds: 5})
					case "get_job":
						_, err = s.GetJob(ctx, JobInput{JobID: out.JobID})
					case "cancel_job":
						_, err = s.CancelJob(ctx, JobInput{JobID: out.JobID})
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				u, _ := s.Usage(ctx, UsageInput{})
				if u.Today.BytesBilled != 70*mib || u.Today.Jobs != 1 || u.Reserved != 0 {
					t.Errorf("usage = %+v, want one job charged its 70 MiB billed", u.Report)
				}
			})
		})
	}
}

// TestFailedJobChargesWhatItBilled: a job that fails after it was handed
// back is settled to what jobs.get says it billed (nothing), and a query
// BigQuery refuses outright gives its hold back.
func TestFailedJobChargesWhatItBilled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := newLedgerBigQuery(t, 100*mib, 100*mib, untilFinished)
		s := newLedgerService(t, fake, 0, 150*mib, fastFollower)
		ctx := context.Background()
		out, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT 1/0 AS fail FROM sales.t", WaitSeconds: 1})
		if err != nil || out.JobComplete {
			t.Fatalf("Execute = %+v, %v; want a job handed back unfinished", out, err)
		}
		fake.finish(out.JobID)
		u := settled(t, s, ctx)
		if u.Today.BytesBilled != 0 || u.Today.Jobs != 1 || *u.Left != 150*mib {
			t.Errorf("usage after a failed job = %+v, want 1 job, nothing billed", u.Report)
		}
	})
}

// TestJobBigQueryDoesNotKnowIsChargedItsEstimate: a job handed back
// unfinished that jobs.get then answers 404 for (the emulator keeps no
// jobs.query jobs) is charged its estimate once, not asked about for a day.
func TestJobBigQueryDoesNotKnowIsChargedItsEstimate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := newLedgerBigQuery(t, 100*mib, 30*mib, time.Minute)
		s := newLedgerService(t, fake, 0, 150*mib, fastFollower)
		ctx := context.Background()
		out, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM sales.t", WaitSeconds: 1})
		if err != nil || out.JobComplete {
			t.Fatalf("Execute = %+v, %v; want a job handed back unfinished", out, err)
		}
		fake.mu.Lock()
		delete(fake.jobs, out.JobID)
		fake.mu.Unlock()
		u := settled(t, s, ctx)
		if u.Reserved != 0 || u.Today.BytesBilled != 100*mib || u.Today.Jobs != 1 {
			t.Errorf("usage = %+v, want the job charged its 100 MiB estimate", u.Report)
		}
		if s.jobs.Unsettled(mustCheck(t, s, ctx, out.JobID)) {
			t.Error("the follower still follows a job BigQuery does not know")
		}
	})
}

func isExhausted(err error) bool {
	e, ok := bqerr.As(err)
	return ok && e.Code == bqerr.ResourceExhausted
}

// mustCheck is what the job records let the caller of ctx know of job id.
func mustCheck(t *testing.T, s *Service, ctx context.Context, id string) job.Access {
	t.Helper()
	acc, _, err := s.jobs.Check(ctx, job.Ref{ID: id})
	if err != nil {
		t.Fatalf("Check(%s): %v", id, err)
	}
	return acc
}
