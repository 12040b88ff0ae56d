package job

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// newFakeRunner is a Runner on fake, under policies that retry at once
// (three attempts), with an in-memory state the test reads.
func newFakeRunner(t *testing.T, fake *bqfake.Fake) (*Runner, governance.State) {
	t.Helper()
	hc := &http.Client{Transport: &resilience.Transport{Base: fake.HTTPClient().Transport}}
	t.Cleanup(hc.CloseIdleConnections)
	rcfg := resilience.Defaults()
	for _, op := range resilience.Operations() {
		p := rcfg.Retry[op]
		p.Attempts, p.BaseDelay, p.MaxDelay = 3, time.Millisecond, time.Millisecond
		rcfg.Retry[op] = p
	}
	exec, err := resilience.NewExecutor(rcfg, resilience.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	state := governance.NewMemory(governance.NewBudget(governance.Limits{}), nil)
	r := New(Config{Client: fake.Client(t, hc), REST: fake.REST(t, hc), Executor: exec, Project: "p", State: state})
	t.Cleanup(r.Close)
	return r, state
}

// hold reserves bytes for the local user, as a tool's checks would.
func hold(t *testing.T, state governance.State, bytes int64) Charge {
	t.Helper()
	id, err := state.Reserve(context.Background(), "", bytes)
	if err != nil {
		t.Fatal(err)
	}
	return Charge{Reservation: id, Estimate: bytes, Meta: Meta{Tool: "execute_sql", Statement: "SELECT", Started: time.Now()}}
}

func report(t *testing.T, state governance.State) governance.Report {
	t.Helper()
	rep, err := state.Report(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// A job that completes in its jobs.query answer is settled from that
// answer's bytes billed when the handle closes, once however often Close
// is called, and recorded as the caller's; a retry after a 503 sent the
// same requestId.
func TestHandleSettlesACompleteJobOnce(t *testing.T) {
	fake := bqfake.New(t)
	fake.QueryResult(bqfake.Columns("n INTEGER"), bqfake.Row("1"))
	fake.OnJob(func(j *bq.Job) { j.Statistics.Query.TotalBytesBilled = 30 << 20 })
	fake.On(bqfake.JobsQuery).Times(1).Fail(http.StatusServiceUnavailable, "backendError")
	r, state := newFakeRunner(t, fake)
	ctx := context.Background()
	c := hold(t, state, 50<<20)

	h := r.Begin(resilience.Query, c, false)
	p, err := h.Query(ctx, r.QueryRequest(ctx, QueryConfig(QuerySpec{SQL: "SELECT 1 AS n"}), "", 10, time.Minute), time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Complete || len(p.Rows) != 1 || h.Job().ID == "" {
		t.Fatalf("page = %+v, job %+v; want the complete answer", p, h.Job())
	}
	if rep := report(t, state); rep.Reserved != 50<<20 || rep.Today.Jobs != 0 {
		t.Errorf("before Close: %+v, want the hold kept and nothing charged", rep)
	}
	h.Close(ctx)
	h.Close(ctx)
	if rep := report(t, state); rep.Reserved != 0 || rep.Today.Jobs != 1 || rep.Today.BytesBilled != 30<<20 {
		t.Errorf("after Close: %+v, want one job of 30 MiB and nothing held", rep)
	}
	reqs := fake.Requests(bqfake.JobsQuery)
	if len(reqs) != 2 || reqs[0].QueryRequest.RequestId == "" || reqs[0].QueryRequest.RequestId != reqs[1].QueryRequest.RequestId {
		t.Errorf("jobs.query attempts = %d, want 2 with one requestId", len(reqs))
	}
	if rec, err := state.LookupJob(ctx, h.Job().ID); err != nil || rec.Reservation != c.Reservation {
		t.Errorf("job record = %+v, %v; want the caller's, with its hold", rec, err)
	}
}

// A job BigQuery refuses never started: Close gives the hold back and
// charges nothing.
func TestHandleGivesTheHoldBackWhenNoJobStarted(t *testing.T) {
	fake := bqfake.New(t)
	fake.On(bqfake.JobsQuery).FailWith(bqfake.Errorf(http.StatusBadRequest, "invalidQuery", "Unrecognized name: x at [1:8]"))
	r, state := newFakeRunner(t, fake)
	ctx := context.Background()
	h := r.Begin(resilience.Query, hold(t, state, 50<<20), false)
	_, err := h.Query(ctx, r.QueryRequest(ctx, QueryConfig(QuerySpec{SQL: "SELECT x"}), "", 10, time.Minute), time.Now().Add(time.Minute))
	if err == nil || h.Job().ID != "" {
		t.Fatalf("Query = %v, job %+v; want BigQuery's refusal and no job", err, h.Job())
	}
	h.Close(ctx)
	if rep := report(t, state); rep.Reserved != 0 || rep.Today.Jobs != 0 || rep.Today.BytesBilled != 0 {
		t.Errorf("after Close: %+v, want the hold given back and nothing charged", rep)
	}
	if n := fake.Count(bqfake.JobsQuery); n != 1 {
		t.Errorf("jobs.query requests = %d, want 1 (a 400 is not retried)", n)
	}
}

// A job still running when the call's wait ends goes to the follower with
// its hold, which settles it once jobs.get shows it done. In a synctest
// bubble: the follower's pace takes no real time.
func TestHandleFollowsAJobThatOutlivesItsCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := bqfake.New(t, bqfake.InProcess())
		fake.QueryResult(bqfake.Columns("n INTEGER"), bqfake.Row("1"))
		fake.OnJob(func(j *bq.Job) { j.Status.State = "RUNNING" })
		r, state := newFakeRunner(t, fake)
		ctx := context.Background()
		h := r.Begin(resilience.Query, hold(t, state, 50<<20), false)
		p, err := h.Query(ctx, r.QueryRequest(ctx, QueryConfig(QuerySpec{SQL: "SELECT 1 AS n"}), "", 10, time.Minute), time.Now().Add(time.Minute))
		if err != nil || p.Complete {
			t.Fatalf("Query = %+v, %v; want a running job", p, err)
		}
		h.Close(ctx)
		if !r.follower.has(h.Job().ID) {
			t.Fatal("a running job was not followed")
		}
		time.Sleep(time.Minute) // the bubble's clock: no real time
		synctest.Wait()
		if rep := report(t, state); rep.Reserved != 50<<20 || rep.Today.Jobs != 0 {
			t.Errorf("while the job runs: %+v, want the hold kept", rep)
		}
		fake.UpdateJob(h.Job().ID, func(j *bq.Job) {
			j.Status.State = "DONE"
			j.Statistics.Query.TotalBytesBilled = 20 << 20
		})
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if rep := report(t, state); rep.Reserved != 0 || rep.Today.Jobs != 1 || rep.Today.BytesBilled != 20<<20 {
			t.Errorf("after the job ended: %+v, want 20 MiB charged and nothing held", rep)
		}
		if r.follower.has(h.Job().ID) {
			t.Error("a settled job is still followed")
		}
	})
}

// A jobs.insert whose answer was lost is tried again under the same job
// ID; BigQuery's 409 for it is that job, never a second one.
func TestHandleInsertRetryIsOneJob(t *testing.T) {
	fake := bqfake.New(t)
	fake.On(bqfake.JobsInsert).Times(1).FailAfter(http.StatusServiceUnavailable, "backendError")
	r, state := newFakeRunner(t, fake)
	ctx := context.Background()
	h := r.Begin(resilience.Query, hold(t, state, 1<<20), false)
	defer h.Close(ctx)
	if err := h.Insert(ctx, Ref{ID: r.NewJobID()}, QueryConfig(QuerySpec{SQL: "SELECT 1"}), time.Minute); err != nil {
		t.Fatal(err)
	}
	reqs := fake.Requests(bqfake.JobsInsert)
	if len(reqs) != 2 || reqs[0].Job.JobReference.JobId != h.Job().ID || reqs[1].Job.JobReference.JobId != h.Job().ID {
		t.Fatalf("jobs.insert attempts = %d, want 2 under the job's one ID %s", len(reqs), h.Job().ID)
	}
	if n := len(fake.Jobs()); n != 1 {
		t.Errorf("jobs kept = %d, want 1", n)
	}
	j, err := h.Finished(ctx)
	if err != nil || j.Ref.ID != h.Job().ID {
		t.Fatalf("Finished = %+v, %v", j, err)
	}
	if rep := report(t, state); rep.Reserved != 0 || rep.Today.Jobs != 1 {
		t.Errorf("after Finished: %+v, want the job settled", rep)
	}
}

// A handle whose job was never started, or is asked to wait before it
// started, refuses instead of guessing.
func TestHandleRefusesOutOfOrder(t *testing.T) {
	r, _ := newFakeRunner(t, bqfake.New(t))
	h := r.Begin(resilience.Query, Charge{}, false)
	if _, err := h.Await(context.Background(), 10, time.Now(), time.Now().Add(time.Second)); err == nil {
		t.Error("Await before a start did not fail")
	}
	if j, err := h.Finished(context.Background()); err == nil {
		t.Errorf("Finished before a start = %+v, want a refusal", j)
	}
	h.Close(context.Background())
}
