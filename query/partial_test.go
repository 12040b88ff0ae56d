package query

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// fakeRows is how many rows the fake query produces (n = 0..fakeRows-1).
const fakeRows = 5

// fakePageRows is the most rows the fake serves per page, whatever
// maxResults asks for, as BigQuery does when a page would be too large. It
// makes the client page: the row at index 2 starts the second page.
const fakePageRows = 2

// fakeBigQuery answers just enough of the BigQuery REST API for a query:
// jobs.query with the first page and statistics, further pages through
// getQueryResults, jobs.get, and jobs.insert for dry runs.
//
// Row pages are counted by the row they start at, whether the client asked
// with startIndex or with a page token (the fake's tokens are "row-N", the
// page starting at row N). failPage decides, per request, whether the page
// fails with HTTP 503 backendError; attempt counts from 1 per start row.
type fakeBigQuery struct {
	*bqfake.Fake
	failPage func(start, attempt int) bool
	// failInsert makes every jobs.insert and jobs.query fail with HTTP 503
	// backendError.
	failInsert bool
	// wide, when set, adds two STRING columns, body and title, holding it
	// in every row.
	wide string

	mu      sync.Mutex
	pages   map[int]int // row pages requested, by start row
	byToken map[int]int // of those, the ones asked for by page token
}

func newFakeBigQuery(t *testing.T, failPage func(start, attempt int) bool) *fakeBigQuery {
	f := &fakeBigQuery{Fake: bqfake.New(t), failPage: failPage, pages: map[int]int{}, byToken: map[int]int{}}
	f.On(bqfake.Any).ReplyFunc(func(r *bqfake.Request) (any, error) {
		t.Logf("fake bigquery: %s", r)
		return nil, nil
	})
	f.On(bqfake.JobsQuery).ReplyFunc(f.query)
	f.On(bqfake.JobsInsert).ReplyFunc(f.insert)
	f.On(bqfake.JobsGetQueryResults).ReplyFunc(f.queryResults)
	f.On(bqfake.JobsGet).ReplyFunc(func(r *bqfake.Request) (any, error) {
		return fakeJob(&bq.JobReference{ProjectId: "p", JobId: r.JobID}, nil), nil
	})
	return f
}

// errBackend is the 503 BigQuery answers when a retry may help.
var errBackend = bqfake.Errorf(http.StatusServiceUnavailable, "backendError", "Error encountered during execution. Retrying may solve the problem.")

// query is jobs.query: the job is done at once, and the answer carries the
// first page (which failPage may fail like any other page at row 0) and the
// statistics. DML answers with its affected rows and no rows.
func (f *fakeBigQuery) query(r *bqfake.Request) (any, error) {
	req := r.QueryRequest
	if req.Query == "" || req.RequestId == "" {
		return nil, bqfake.Errorf(http.StatusBadRequest, "invalid", "bad jobs.query: %q, requestId %q", req.Query, req.RequestId)
	}
	if f.failInsert {
		return nil, errBackend
	}
	ref := &bq.JobReference{ProjectId: "p", JobId: partialJobID, Location: "US"}
	res := &bq.QueryResponse{JobComplete: true, JobReference: ref, TotalBytesProcessed: 1000, TotalBytesBilled: 10 << 20}
	if kw := strings.ToUpper(strings.Fields(req.Query)[0]); kw == "INSERT" || kw == "UPDATE" || kw == "DELETE" {
		res.DmlStats, res.NumDmlAffectedRows = &bq.DmlStatistics{UpdatedRowCount: 1}, 1
		return res, nil
	}
	pg, err := f.page(0, false, int(req.MaxResults))
	if err != nil {
		return nil, err
	}
	res.Schema, res.Rows, res.TotalRows, res.PageToken = pg.Schema, pg.Rows, pg.TotalRows, pg.PageToken
	return res, nil
}

// insert is jobs.insert: the job is done at once.
func (f *fakeBigQuery) insert(r *bqfake.Request) (any, error) {
	if f.failInsert {
		return nil, errBackend
	}
	job := r.Job
	if job.JobReference == nil || job.Configuration == nil || job.Configuration.Query == nil {
		return nil, bqfake.Errorf(http.StatusBadRequest, "invalid", "bad job insert")
	}
	return fakeJob(job.JobReference, job.Configuration), nil
}

func fakeJob(ref *bq.JobReference, cfg *bq.JobConfiguration) *bq.Job {
	if cfg == nil {
		cfg = &bq.JobConfiguration{Query: &bq.JobConfigurationQuery{Query: "SELECT n FROM t"}}
	}
	now := time.Now().UnixMilli()
	return &bq.Job{
		Id:            ref.ProjectId + ":" + ref.JobId,
		JobReference:  ref,
		Configuration: cfg,
		Status:        &bq.JobStatus{State: "DONE"},
		Statistics: &bq.JobStatistics{
			CreationTime:        now - 20,
			StartTime:           now - 10,
			EndTime:             now,
			TotalBytesProcessed: 1000,
			Query: &bq.JobStatistics2{
				StatementType:       "SELECT",
				TotalBytesProcessed: 1000,
				TotalBytesBilled:    10 << 20,
			},
		},
	}
}

var (
	fakeSchema = &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "n", Type: "INTEGER", Mode: "NULLABLE"}}}
	wideSchema = &bq.TableSchema{Fields: []*bq.TableFieldSchema{
		{Name: "n", Type: "INTEGER", Mode: "NULLABLE"},
		{Name: "body", Type: "STRING", Mode: "NULLABLE"},
		{Name: "title", Type: "STRING", Mode: "NULLABLE"},
	}}
)

// queryResults is jobs.getQueryResults: with maxResults=0 the client only
// waits for the job; otherwise it reads a page of rows.
func (f *fakeBigQuery) queryResults(r *bqfake.Request) (any, error) {
	q := r.Query
	if r.JobID != partialJobID {
		return nil, bqfake.Errorf(http.StatusNotFound, "notFound", "Not found: Job p:%s", r.JobID)
	}
	start, byToken := 0, false
	if tok := q.Get("pageToken"); tok != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(tok, "row-"))
		if err != nil || !strings.HasPrefix(tok, "row-") {
			return nil, bqfake.Errorf(http.StatusBadRequest, "invalid", "bad page token %s", tok)
		}
		start, byToken = n, true
	} else if s := q.Get("startIndex"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, bqfake.Errorf(http.StatusBadRequest, "invalid", "bad startIndex %s", s)
		}
		start = n
	}
	size := 0
	if s := q.Get("maxResults"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, bqfake.Errorf(http.StatusBadRequest, "invalid", "bad maxResults %s", s)
		}
		size = n
	}
	return f.page(start, byToken, size)
}

// page builds the page of rows from start (at most size rows, and at most
// fakePageRows; size 0 means no limit of the caller's), or fails it as
// failPage says.
func (f *fakeBigQuery) page(start int, byToken bool, size int) (*bq.GetQueryResultsResponse, error) {
	ref := &bq.JobReference{ProjectId: "p", JobId: partialJobID, Location: "US"}
	schema := fakeSchema
	if f.wide != "" {
		schema = wideSchema
	}
	if size <= 0 || size > fakePageRows {
		size = fakePageRows
	}
	f.mu.Lock()
	f.pages[start]++
	if byToken {
		f.byToken[start]++
	}
	attempt := f.pages[start]
	f.mu.Unlock()

	if f.failPage(start, attempt) {
		return nil, errBackend
	}
	res := &bq.GetQueryResultsResponse{JobComplete: true, TotalRows: fakeRows, Schema: schema, JobReference: ref}
	end := min(start+size, fakeRows)
	for i := start; i < end; i++ {
		row := &bq.TableRow{F: []*bq.TableCell{{V: strconv.Itoa(i)}}}
		if f.wide != "" {
			row.F = append(row.F, &bq.TableCell{V: f.wide}, &bq.TableCell{V: f.wide})
		}
		res.Rows = append(res.Rows, row)
	}
	if end < fakeRows {
		res.PageToken = "row-" + strconv.Itoa(end)
	}
	return res, nil
}

// pageCounts returns how often each page was requested, by start row, and
// how many of those requests used a page token.
func (f *fakeBigQuery) pageCounts() (pages, byToken map[int]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	pages, byToken = map[int]int{}, map[int]int{}
	for k, v := range f.pages {
		pages[k] = v
	}
	for k, v := range f.byToken {
		byToken[k] = v
	}
	return pages, byToken
}

// log lists every request as "METHOD path?query".
func (f *fakeBigQuery) log() []string {
	var out []string
	for _, r := range f.Requests(bqfake.Any) {
		out = append(out, r.Method+" "+r.Path+"?"+r.Query.Encode())
	}
	return out
}

// requestIDs are the requestIds of every jobs.query, in order.
func (f *fakeBigQuery) requestIDs() []string {
	var out []string
	for _, r := range f.Requests(bqfake.JobsQuery) {
		out = append(out, r.QueryRequest.RequestId)
	}
	return out
}

// tWriter sends the service's log lines to the test log.
type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

const partialJobID = "bqmcp_partial_test_job"

// newPartialService returns a Service on the real BigQuery client, talking
// to fake through resilience.Transport (newTestService), with three query
// attempts and millisecond backoff, then each configure.
func newPartialService(t *testing.T, fake *fakeBigQuery, configure ...func(*Config)) *Service {
	t.Helper()
	rcfg := resilience.Defaults()
	rcfg.Retry[resilience.Query] = resilience.Policy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, Multiplier: 2}
	exec, err := resilience.NewExecutor(rcfg, resilience.Hooks{})
	if err != nil {
		t.Fatalf("resilience.NewExecutor: %v", err)
	}
	return newTestService(t, fake, func(c *Config) {
		c.Executor = exec
		for _, f := range configure {
			f(c)
		}
	})
}

func rowTexts(rows []json.RawMessage) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = string(r)
	}
	return out
}

// TestExecutePartialResultsWhenLaterPageFails: rows 0-1 arrive, then every
// page from row 2 on fails. Execute returns the two rows marked incomplete,
// with where to resume; the failing page was tried exactly the attempt cap
// and the first page was never read again.
func TestExecutePartialResultsWhenLaterPageFails(t *testing.T) {
	fake := newFakeBigQuery(t, func(start, _ int) bool { return start >= 2 })
	s := newPartialService(t, fake)

	out, err := s.Execute(context.Background(), ExecuteInput{SQL: "SELECT n FROM t", MaxRows: 10, Format: "objects"})
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if out.JobID != partialJobID {
		t.Errorf("JobID = %q, want %q", out.JobID, partialJobID)
	}
	if !out.Incomplete {
		t.Errorf("Incomplete = false, want true")
	}
	if out.RowCount != 2 {
		t.Errorf("RowCount = %d, want 2", out.RowCount)
	}
	if got, want := rowTexts(out.Rows), []string{`{"n":0}`, `{"n":1}`}; !slices.Equal(got, want) {
		t.Errorf("Rows = %q, want %q", got, want)
	}
	if out.NextStartIndex != 2 {
		t.Errorf("NextStartIndex = %d, want 2", out.NextStartIndex)
	}
	if out.TotalRows != fakeRows {
		t.Errorf("TotalRows = %d, want %d", out.TotalRows, fakeRows)
	}
	for _, want := range []string{"get_query_results", partialJobID, "startIndex 2"} {
		if !strings.Contains(out.Warning, want) {
			t.Errorf("Warning = %q, want it to contain %q", out.Warning, want)
		}
	}
	if len(out.Schema) != 1 || out.Schema[0].Name != "n" {
		t.Errorf("Schema = %+v, want one column n", out.Schema)
	}
	// The statistics came with the first page.
	if out.StatementType != "SELECT" || out.BytesProcessed != 1000 {
		t.Errorf("StatementType, BytesProcessed = %q, %d; want SELECT, 1000", out.StatementType, out.BytesProcessed)
	}

	pages, byToken := fake.pageCounts()
	if pages[2] != 3 {
		t.Errorf("the page at row 2 was requested %d times, want 3 (the attempt cap); requests:\n%s", pages[2], strings.Join(fake.log(), "\n"))
	}
	if pages[0] != 1 {
		t.Errorf("the page at row 0 was requested %d times, want 1 (no re-read on retry)", pages[0])
	}
	if n := len(pages); n != 2 {
		t.Errorf("pages requested by start row = %v, want only rows 0 and 2", pages)
	}
	t.Logf("row pages by start row: %v; of those by page token: %v", pages, byToken)
}

// TestExecuteFirstPageFailsIsError: when no row can be read at all, Execute
// fails with the exhausted-retries error, not an empty "incomplete" result.
func TestExecuteFirstPageFailsIsError(t *testing.T) {
	fake := newFakeBigQuery(t, func(int, int) bool { return true })
	s := newPartialService(t, fake)

	out, err := s.Execute(context.Background(), ExecuteInput{SQL: "SELECT n FROM t", MaxRows: 10, Format: "objects"})
	if err == nil {
		t.Fatalf("Execute = %+v, nil; want an error", out)
	}
	if out != nil {
		t.Errorf("Execute returned rows %q with the error", rowTexts(out.Rows))
	}
	e := bqerr.From(err)
	if e.Code != bqerr.Unavailable {
		t.Errorf("code = %s, want %s (%v)", e.Code, bqerr.Unavailable, err)
	}
	if !e.Retryable {
		t.Errorf("Retryable = false, want true")
	}
	if e.Details.Attempts != 3 {
		t.Errorf("Details.Attempts = %d, want 3", e.Details.Attempts)
	}
	// jobs.query never answered, so no job is known to name.
	if e.Details.JobID != "" {
		t.Errorf("Details.JobID = %q, want none", e.Details.JobID)
	}
	var ae *resilience.AttemptError
	if !errors.As(err, &ae) || ae.Status != http.StatusServiceUnavailable {
		t.Errorf("cause is not the 503 attempt: %v", err)
	}
	pages, _ := fake.pageCounts()
	if pages[0] != 3 || len(pages) != 1 {
		t.Errorf("row pages by start row = %v, want row 0 three times only; requests:\n%s", pages, strings.Join(fake.log(), "\n"))
	}
}

// TestExecuteResumesAfterOneFailedPage: the page at row 2 fails once; the
// retry resumes at row 2, so all rows arrive once each and nothing is
// incomplete.
func TestExecuteResumesAfterOneFailedPage(t *testing.T) {
	fake := newFakeBigQuery(t, func(start, attempt int) bool { return start == 2 && attempt == 1 })
	s := newPartialService(t, fake)

	out, err := s.Execute(context.Background(), ExecuteInput{SQL: "SELECT n FROM t", MaxRows: 10, Format: "objects"})
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if out.Incomplete || out.Warning != "" {
		t.Errorf("Incomplete, Warning = %v, %q; want false, empty", out.Incomplete, out.Warning)
	}
	want := []string{`{"n":0}`, `{"n":1}`, `{"n":2}`, `{"n":3}`, `{"n":4}`}
	if got := rowTexts(out.Rows); !slices.Equal(got, want) {
		t.Errorf("Rows = %q, want %q", got, want)
	}
	if out.RowCount != fakeRows || out.TotalRows != fakeRows {
		t.Errorf("RowCount, TotalRows = %d, %d; want %d, %d", out.RowCount, out.TotalRows, fakeRows, fakeRows)
	}
	if out.Truncated || out.NextStartIndex != 0 {
		t.Errorf("Truncated, NextStartIndex = %v, %d; want false, 0", out.Truncated, out.NextStartIndex)
	}
	pages, byToken := fake.pageCounts()
	if pages[0] != 1 || pages[2] != 2 || pages[4] != 1 || len(pages) != 3 {
		t.Errorf("row pages by start row = %v, want map[0:1 2:2 4:1]; requests:\n%s", pages, strings.Join(fake.log(), "\n"))
	}
	t.Logf("row pages by start row: %v; of those by page token: %v", pages, byToken)
}
