package emulator

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"sync"
	"time"

	bq "google.golang.org/api/bigquery/v2"
)

// jobStore puts in front of the emulator the part of jobs.query that
// v0.6.6 lacks and the server relies on (shared/NOTES.md, "Emulator
// v0.6.6 fidelity for the fast path"):
//
//   - the job of a jobs.query is kept, so getQueryResults (paging from
//     startIndex or a page token), jobs.get and jobs.cancel find it;
//   - maxResults cuts the first page and sets a page token, as BigQuery does;
//   - getQueryResults of a job the emulator ran itself (jobs.insert), to
//     which v0.6.6 answers every row whatever maxResults, is cut the same
//     way (pageOfBackend);
//   - a repeated requestId answers the first answer again instead of
//     running the statement twice (BigQuery's idempotent jobs.query).
//
// Everything else goes to the emulator untouched. Results are kept in
// memory; test runs are short.
type jobStore struct {
	backend *httputil.ReverseProxy
	mu      sync.Mutex
	jobs    map[string]*storedJob
	// byRequest maps a requestId to the answer BigQuery gave it.
	byRequest map[string][]byte
	// Executions counts the jobs.query requests that ran a statement.
	executions int
	// anonymousOnce creates anonymousDataset (nameDestination).
	anonymousOnce sync.Once
}

type storedJob struct {
	project, query string
	created        time.Time
	schema         *bq.TableSchema
	rows           []*bq.TableRow
	total          uint64
	bytes          int64 // stand-in for totalBytesProcessed; see query
}

var (
	queriesPath = regexp.MustCompile(`^/projects/([^/]+)/queries$`)
	resultsPath = regexp.MustCompile(`^/projects/([^/]+)/queries/([^/]+)$`)
	jobGetPath  = regexp.MustCompile(`^/projects/([^/]+)/jobs/([^/]+)(/cancel)?$`)
	jobsPath    = regexp.MustCompile(`^/projects/([^/]+)/jobs$`)
)

func newJobStore(backend string) (*jobStore, error) {
	u, err := url.Parse(backend)
	if err != nil {
		return nil, err
	}
	return &jobStore{backend: httputil.NewSingleHostReverseProxy(u), jobs: map[string]*storedJob{}, byRequest: map[string][]byte{}}, nil
}

// anonymousDataset holds the result tables of query jobs that name no
// destination, as BigQuery's hidden anonymous datasets do (a leading
// underscore hides a dataset from datasets.list).
const anonymousDataset = "_anonymous"

// nameDestination gives a query job sent to jobs.insert without a
// destination table one in anonymousDataset. v0.6.6 would write its rows
// into a table named after the job in a dataset of the same name, which
// its own tabledata.list and Storage Read API then cannot find, and which
// jobs.get does not name; BigQuery always names a query's destination, and
// export_results reads it.
func (s *jobStore) nameDestination(r *http.Request) {
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return
	}
	var job bq.Job
	if json.Unmarshal(body, &job) != nil || job.Configuration == nil || job.Configuration.Query == nil ||
		job.Configuration.DryRun || job.Configuration.Query.DestinationTable != nil || job.JobReference == nil || job.JobReference.JobId == "" {
		return
	}
	project := jobsPath.FindStringSubmatch(r.URL.Path)[1]
	s.anonymousOnce.Do(func() {
		ds, _ := json.Marshal(&bq.Dataset{DatasetReference: &bq.DatasetReference{ProjectId: project, DatasetId: anonymousDataset}})
		req := httptest.NewRequest(http.MethodPost, "/projects/"+project+"/datasets", bytes.NewReader(ds))
		req.Header.Set("Content-Type", "application/json")
		s.backend.ServeHTTP(httptest.NewRecorder(), req)
	})
	job.Configuration.Query.DestinationTable = &bq.TableReference{ProjectId: project, DatasetId: anonymousDataset, TableId: "anon_" + job.JobReference.JobId}
	if b, err := json.Marshal(&job); err == nil {
		body = b
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
}

func (s *jobStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A request whose client goes away is still run to its end: v0.6.6
	// cancelled mid-statement leaves its SQLite connection closed, and
	// answers 500 to every later request (goccy/bigquery-emulator#478;
	// TestCancelledRequestLeavesEmulatorServing). The tests share one
	// emulator, so one test's cancelled call failed every test after it.
	// The proxy would also cancel it when the client's connection closes
	// (http.CloseNotifier), which the plain writer hides.
	r = r.WithContext(context.WithoutCancel(r.Context()))
	w = plainWriter{w}
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && queriesPath.MatchString(path):
		s.query(w, r)
		return
	case r.Method == http.MethodPost && jobsPath.MatchString(path):
		s.nameDestination(r)
	case r.Method == http.MethodGet && resultsPath.MatchString(path):
		if job := s.job(resultsPath.FindStringSubmatch(path)[2]); job != nil {
			s.results(w, r, resultsPath.FindStringSubmatch(path)[2], job)
			return
		}
		s.pageOfBackend(w, r)
		return
	case jobGetPath.MatchString(path):
		m := jobGetPath.FindStringSubmatch(path)
		if job := s.job(m[2]); job != nil {
			j := jobJSON(m[2], job)
			if m[3] != "" {
				writeJSON(w, http.StatusOK, &bq.JobCancelResponse{Job: j})
				return
			}
			writeJSON(w, http.StatusOK, j)
			return
		}
	}
	s.backend.ServeHTTP(w, r)
}

// plainWriter is an http.ResponseWriter and nothing else.
type plainWriter struct{ http.ResponseWriter }

func (s *jobStore) job(id string) *storedJob {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.jobs[id]
}

// query runs jobs.query on the emulator, keeps the job and answers the
// first page.
func (s *jobStore) query(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req bq.QueryRequest
	if err := json.Unmarshal(body, &req); err != nil || req.DryRun {
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.backend.ServeHTTP(w, r)
		return
	}
	if req.RequestId != "" {
		s.mu.Lock()
		prev, ok := s.byRequest[req.RequestId]
		s.mu.Unlock()
		if ok {
			w.Header().Set("Content-Type", "application/json")
			w.Write(prev)
			return
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	rec := httptest.NewRecorder()
	s.backend.ServeHTTP(rec, r)
	s.mu.Lock()
	s.executions++
	s.mu.Unlock()
	var resp bq.QueryResponse
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &resp) != nil || resp.JobReference == nil {
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
		return
	}
	job := &storedJob{project: resp.JobReference.ProjectId, query: req.Query, created: time.Now(), schema: resp.Schema, rows: resp.Rows, total: resp.TotalRows}
	if job.total == 0 {
		job.total = uint64(len(resp.Rows))
	}
	// The emulator reports no bytes processed. BigQuery always does, and the
	// server's statistics, metrics and budgets run on it, so the store
	// stands in the size of the answer: not BigQuery's figure, but non-zero
	// and stable, like a real one.
	if resp.TotalBytesProcessed == 0 {
		resp.TotalBytesProcessed = int64(rec.Body.Len())
	}
	job.bytes = resp.TotalBytesProcessed
	resp.Rows, resp.PageToken = job.page(0, req.MaxResults)
	out, _ := json.Marshal(&resp)
	s.mu.Lock()
	s.jobs[resp.JobReference.JobId] = job
	if req.RequestId != "" {
		s.byRequest[req.RequestId] = out
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

// page returns up to max rows (0: all) from start, and the token of the
// page after them ("" at the end).
func (j *storedJob) page(start int, max int64) ([]*bq.TableRow, string) {
	if start > len(j.rows) {
		start = len(j.rows)
	}
	end := len(j.rows)
	if max > 0 && int64(end-start) > max {
		end = start + int(max)
	}
	token := ""
	if end < len(j.rows) {
		token = "row-" + strconv.Itoa(end)
	}
	return j.rows[start:end], token
}

// pageOf reads a getQueryResults request's page: its first row (from the
// page token, else startIndex) and maxResults (0: all).
func pageOf(r *http.Request) (start int, max int64) {
	q := r.URL.Query()
	if tok := q.Get("pageToken"); len(tok) > 4 {
		start, _ = strconv.Atoi(tok[4:])
	} else if si := q.Get("startIndex"); si != "" {
		start, _ = strconv.Atoi(si)
	}
	max, _ = strconv.ParseInt(q.Get("maxResults"), 10, 64)
	return start, max
}

// pageOfBackend answers getQueryResults of a job the emulator ran itself
// with the page asked for, as BigQuery does: v0.6.6 ignores maxResults,
// startIndex and pageToken and sends every row, so a server waiting for a
// job with maxResults=1 would receive the whole result. The emulator's
// answer is cut here, its rows kept byte for byte.
func (s *jobStore) pageOfBackend(w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	s.backend.ServeHTTP(rec, r)
	var resp map[string]json.RawMessage
	var rows []json.RawMessage
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &resp) != nil || json.Unmarshal(resp["rows"], &rows) != nil {
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
		return
	}
	start, max := pageOf(r)
	start = min(start, len(rows))
	end := len(rows)
	if max > 0 && int64(end-start) > max {
		end = start + int(max)
	}
	delete(resp, "rows")
	if end > start {
		resp["rows"], _ = json.Marshal(rows[start:end])
	}
	delete(resp, "pageToken")
	if end < len(rows) {
		resp["pageToken"], _ = json.Marshal("row-" + strconv.Itoa(end))
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *jobStore) results(w http.ResponseWriter, r *http.Request, id string, job *storedJob) {
	start, max := pageOf(r)
	resp := &bq.GetQueryResultsResponse{
		Kind: "bigquery#getQueryResultsResponse", JobComplete: true, Schema: job.schema, TotalRows: job.total,
		JobReference: &bq.JobReference{ProjectId: job.project, JobId: id},
	}
	resp.Rows, resp.PageToken = job.page(start, max)
	writeJSON(w, http.StatusOK, resp)
}

func jobJSON(id string, job *storedJob) *bq.Job {
	ms := job.created.UnixMilli()
	return &bq.Job{
		Kind:          "bigquery#job",
		Id:            job.project + ":" + id,
		JobReference:  &bq.JobReference{ProjectId: job.project, JobId: id},
		Configuration: &bq.JobConfiguration{JobType: "QUERY", Query: &bq.JobConfigurationQuery{Query: job.query}},
		Status:        &bq.JobStatus{State: "DONE"},
		Statistics: &bq.JobStatistics{CreationTime: ms, StartTime: ms, EndTime: ms, TotalBytesProcessed: job.bytes,
			Query: &bq.JobStatistics2{TotalBytesProcessed: job.bytes, StatementType: "SELECT"}},
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// Executions reports how many jobs.query requests ran a statement on the
// emulator (repeats of a requestId are answered without running it).
func (e *Emulator) Executions() int {
	e.jobs.mu.Lock()
	defer e.jobs.mu.Unlock()
	return e.jobs.executions
}
