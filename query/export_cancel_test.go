package query

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
)

// runningBigQuery answers RunToTable for a query job that never ends:
// jobs.insert keeps the caller's job ID and answers RUNNING,
// getQueryResults waits out its timeoutMs (or the request) and answers
// jobComplete false, jobs.cancel is logged. inserted is closed at the
// first insert.
type runningBigQuery struct {
	*bqfake.Fake
	inserted chan struct{}
	once     sync.Once
}

func newRunningBigQuery(t *testing.T) *runningBigQuery {
	f := &runningBigQuery{Fake: bqfake.New(t, bqfake.InProcess()), inserted: make(chan struct{})}
	f.OnJob(func(job *bq.Job) { job.Status.State = "RUNNING" })
	f.On(bqfake.JobsInsert).Rewrite(func(_ *bqfake.Request, answer any) any {
		f.once.Do(func() { close(f.inserted) })
		return answer
	})
	f.On(bqfake.JobsGetQueryResults).ReplyFunc(func(r *bqfake.Request) (any, error) {
		ms, _ := strconv.ParseInt(r.Query.Get("timeoutMs"), 10, 64)
		select {
		case <-time.After(time.Duration(min(max(ms, 1), 500)) * time.Millisecond):
		case <-r.HTTP.Context().Done():
		}
		return &bq.GetQueryResultsResponse{JobReference: &bq.JobReference{ProjectId: "p", JobId: r.JobID, Location: "US"}}, nil
	})
	return f
}

// seen is the ID of the first job inserted and those of the jobs.cancel
// requests.
func (f *runningBigQuery) seen() (job string, cancelled []string) {
	if ins := f.Requests(bqfake.JobsInsert); len(ins) > 0 {
		job = ins[0].Job.JobReference.JobId
	}
	for _, r := range f.Requests(bqfake.JobsCancel) {
		cancelled = append(cancelled, r.JobID)
	}
	return job, cancelled
}

// TestRunToTableCancelsItsJob: export_results' query job does not outlive
// its call. When the caller goes away while the job runs (the client's
// notifications/cancelled, SIGTERM) or the query's time limit passes,
// RunToTable sends jobs.cancel for that job and says what happened: the
// emulator's queries finish inside jobs.insert, so only a fake can hold
// one running.
func TestRunToTableCancelsItsJob(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      ExecuteInput
		cancel  bool
		message string
	}{
		{name: "client cancel", in: ExecuteInput{SQL: "SELECT n FROM slow"}, cancel: true, message: "cancelled"},
		{name: "timeout", in: ExecuteInput{SQL: "SELECT n FROM slow", TimeoutSeconds: 1}, message: "did not finish within 1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake := newRunningBigQuery(t)
				s := newTestService(t, fake)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if tc.cancel {
					go func() {
						<-fake.inserted
						time.Sleep(100 * time.Millisecond) // into the wait
						cancel()
					}()
				}
				start := time.Now()
				_, err := s.RunToTable(ctx, tc.in, nil)
				if took := time.Since(start); took > 10*time.Second {
					t.Errorf("RunToTable returned after %s", took)
				}
				job, cancelled := fake.seen()
				if job == "" {
					t.Fatal("no job was inserted")
				}
				if len(cancelled) != 1 || cancelled[0] != job {
					t.Errorf("jobs.cancel requests = %v, want one for the export's job %s", cancelled, job)
				}
				e, ok := bqerr.As(err)
				if !ok {
					t.Fatalf("RunToTable = %v, want a bqerr.Error", err)
				}
				if e.Code != bqerr.DeadlineExceeded || !strings.Contains(e.Message, tc.message) || e.Details.JobID != job {
					t.Errorf("error = %s %q (job %q), want DEADLINE_EXCEEDED saying %q for job %s", e.Code, e.Message, e.Details.JobID, tc.message, job)
				}
			})
		})
	}
}
