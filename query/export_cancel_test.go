package query

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// runningBigQuery answers RunToTable for a query job that never ends:
// jobs.insert keeps the caller's job ID and answers RUNNING,
// getQueryResults waits out its timeoutMs (or the request) and answers
// jobComplete false, jobs.cancel is recorded. inserted is closed at the
// first insert.
type runningBigQuery struct {
	inserted chan struct{}
	once     sync.Once

	mu        sync.Mutex
	jobID     string
	cancelled []string // job IDs of jobs.cancel requests
}

func (f *runningBigQuery) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && path == "/projects/p/jobs":
		var job bq.Job
		if err := json.NewDecoder(r.Body).Decode(&job); err != nil {
			writeJSON(w, http.StatusBadRequest, apiError(http.StatusBadRequest, "invalid", err.Error()))
			return
		}
		f.mu.Lock()
		f.jobID = job.JobReference.JobId
		f.mu.Unlock()
		job.JobReference.Location = "US"
		job.Status = &bq.JobStatus{State: "RUNNING"}
		writeJSON(w, http.StatusOK, &job)
		f.once.Do(func() { close(f.inserted) })
	case r.Method == http.MethodGet && strings.HasPrefix(path, "/projects/p/queries/"):
		ms, _ := strconv.ParseInt(r.URL.Query().Get("timeoutMs"), 10, 64)
		select {
		case <-time.After(time.Duration(min(max(ms, 1), 500)) * time.Millisecond):
		case <-r.Context().Done():
		}
		id := strings.TrimPrefix(path, "/projects/p/queries/")
		writeJSON(w, http.StatusOK, &bq.GetQueryResultsResponse{JobReference: &bq.JobReference{ProjectId: "p", JobId: id, Location: "US"}, JobComplete: false})
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/cancel"):
		id := strings.TrimSuffix(strings.TrimPrefix(path, "/projects/p/jobs/"), "/cancel")
		f.mu.Lock()
		f.cancelled = append(f.cancelled, id)
		f.mu.Unlock()
		writeJSON(w, http.StatusOK, &bq.JobCancelResponse{Job: &bq.Job{
			JobReference: &bq.JobReference{ProjectId: "p", JobId: id, Location: "US"}, Status: &bq.JobStatus{State: "DONE"}}})
	default:
		writeJSON(w, http.StatusNotFound, apiError(http.StatusNotFound, "notFound", "no fake for "+r.Method+" "+path))
	}
}

func (f *runningBigQuery) seen() (job string, cancelled []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.jobID, append([]string(nil), f.cancelled...)
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
			fake := &runningBigQuery{inserted: make(chan struct{})}
			s := newSlowService(t, fake)
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
	}
}
