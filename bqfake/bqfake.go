// Package bqfake is the one fake of the BigQuery REST API that unit tests
// use, in the style of github-mcp-server's githubv4mock: a real HTTP server
// speaking BigQuery's JSON (the types of google.golang.org/api/bigquery/v2,
// BigQuery's error shape), which a test scripts for what it needs.
//
// Unscripted, the fake is a small BigQuery: datasets, tables and their rows
// that the test adds (listed in pages as BigQuery pages them), and jobs
// (jobs.insert keeps a job under the ID it was sent with and answers a
// second insert of that ID with 409 duplicate; jobs.get, jobs.cancel,
// getQueryResults and jobs.query read and change the kept jobs; a query
// job's rows are its destination table's; a query of a dataset's
// INFORMATION_SCHEMA.PROPERTY_GRAPHS is answered from the graphs the test
// added, graphs.go). OnJob finishes each new job (its state, statistics,
// destination) as the test wants.
//
// Scripted, a rule On a route answers the requests it matches before the
// store does: a canned reply, a function of the request, a fault (status
// and reason, a dropped connection, a stalled body), or a hold that keeps
// the request until the test releases it. Times limits a rule to its first
// n requests. Every request is logged, its body decoded into the REST type
// of its route, for the test to assert on.
//
// InProcess serves the fake without a socket, through its Transport, so a
// test can run it and the code under test in a testing/synctest bubble,
// where holds, long polls and deadlines take no real time.
//
// The emulator proves real SQL in the integration tests; this fake is for
// what the emulator cannot do: page sizes, faults, slow and held jobs,
// idempotency, and exact requests.
package bqfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"

	bq "google.golang.org/api/bigquery/v2"
)

// Route names a BigQuery REST method, as the API reference names it.
type Route string

// The routes the fake serves. Any matches every request in On and Count.
const (
	Any                 Route = "*"
	DatasetsList        Route = "datasets.list"
	DatasetsGet         Route = "datasets.get"
	TablesList          Route = "tables.list"
	TablesGet           Route = "tables.get"
	TablesPatch         Route = "tables.patch"
	TablesDelete        Route = "tables.delete"
	TabledataList       Route = "tabledata.list"
	TabledataInsertAll  Route = "tabledata.insertAll"
	JobsInsert          Route = "jobs.insert"
	JobsList            Route = "jobs.list"
	JobsGet             Route = "jobs.get"
	JobsCancel          Route = "jobs.cancel"
	JobsQuery           Route = "jobs.query"
	JobsGetQueryResults Route = "jobs.getQueryResults"
	// Unknown is a path that is none of the above; the store answers it
	// 404 notFound.
	Unknown Route = "unknown"
)

// Option configures a Fake.
type Option func(*Fake)

// WithProject sets the project the fake knows without any dataset, and
// the project of jobs sent without one ("p" by default).
func WithProject(p string) Option { return func(f *Fake) { f.project = p } }

// Fake is a BigQuery REST endpoint on a local port, or in process only
// (InProcess).
type Fake struct {
	// URL is the endpoint to hand to the client (option.WithEndpoint) or
	// to a server's config.
	URL string

	srv       *httptest.Server // nil InProcess
	inProcess bool
	project   string
	// location is where jobs that name none run, as in BigQuery's US
	// multi-region.
	location string

	mu       sync.Mutex
	rules    []*Rule
	log      []*Request
	counts   map[Route]int
	datasets []*bq.Dataset // in listing order
	tables   map[string][]*table
	jobs     map[string]*bq.Job
	jobOrder []string
	nextJob  int
	onJob    func(*bq.Job)
	// hasResult: query jobs without a destination write QueryResult's table.
	hasResult bool
	// graphs are the rows of INFORMATION_SCHEMA.PROPERTY_GRAPHS
	// (graphs.go); nextResult numbers the result tables of its queries.
	graphs     []PropertyGraph
	nextResult int
	holds      []*Hold
}

// TB is what the fake needs of the test that owns it: testing.TB has it;
// an Example, which has no *testing.T, passes a stand-in that runs the
// cleanups when it ends.
type TB interface {
	Helper()
	Cleanup(func())
	Fatalf(format string, args ...any)
}

// New starts a fake that stops when the test ends (held requests are
// released and client connections closed first).
func New(t TB, opts ...Option) *Fake {
	t.Helper()
	f := &Fake{project: "p", location: "US", counts: map[Route]int{}, tables: map[string][]*table{}, jobs: map[string]*bq.Job{}}
	for _, o := range opts {
		o(f)
	}
	if f.inProcess {
		f.URL = "http://" + inProcessHost
	} else {
		f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
		f.URL = f.srv.URL
	}
	t.Cleanup(func() {
		f.mu.Lock()
		holds := f.holds
		f.mu.Unlock()
		for _, h := range holds {
			h.Release()
		}
		if f.srv != nil {
			f.srv.CloseClientConnections()
			f.srv.Close()
		}
	})
	return f
}

// Project is the fake's default project.
func (f *Fake) Project() string { return f.project }

// Request is one request as the fake received it. Its body is decoded into
// the REST type of its route: Job for jobs.insert, QueryRequest for
// jobs.query, InsertAll for tabledata.insertAll, Table for tables.patch.
type Request struct {
	Route  Route
	Method string
	// Path is the URL path without the /bigquery/v2 prefix.
	Path  string
	Query url.Values
	// N counts the requests of this route, from 1, this one included.
	N int

	Project, Dataset, Table, JobID string

	Job          *bq.Job
	QueryRequest *bq.QueryRequest
	InsertAll    *bq.TableDataInsertAllRequest
	TableBody    *bq.Table
	// Raw is the body as sent.
	Raw []byte

	// HTTP is the request being served; nil in the log.
	HTTP *http.Request
}

// String is "METHOD path?query", for failure messages.
func (r *Request) String() string {
	if len(r.Query) == 0 {
		return r.Method + " " + r.Path
	}
	return r.Method + " " + r.Path + "?" + r.Query.Encode()
}

// Requests returns the requests of route (Any for all) so far, in order.
func (f *Fake) Requests(route Route) []*Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*Request
	for _, r := range f.log {
		if route == Any || r.Route == route {
			out = append(out, r)
		}
	}
	return out
}

// Count is how many requests of route (Any for all) the fake received.
func (f *Fake) Count(route Route) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if route == Any {
		return len(f.log)
	}
	return f.counts[route]
}

const tablePath = "projects/{project}/datasets/{dataset}/tables/{table}"

// routes are the REST methods the fake serves, by HTTP method and path;
// a {name} segment is one of the request's IDs.
var routes = []restMethod{
	{http.MethodGet, "projects/{project}/datasets", DatasetsList},
	{http.MethodGet, "projects/{project}/datasets/{dataset}", DatasetsGet},
	{http.MethodGet, "projects/{project}/datasets/{dataset}/tables", TablesList},
	{http.MethodGet, tablePath, TablesGet},
	{http.MethodPatch, tablePath, TablesPatch},
	{http.MethodPut, tablePath, TablesPatch},
	{http.MethodDelete, tablePath, TablesDelete},
	{http.MethodGet, tablePath + "/data", TabledataList},
	{http.MethodPost, tablePath + "/insertAll", TabledataInsertAll},
	{http.MethodPost, "projects/{project}/jobs", JobsInsert},
	{http.MethodGet, "projects/{project}/jobs", JobsList},
	{http.MethodGet, "projects/{project}/jobs/{job}", JobsGet},
	{http.MethodPost, "projects/{project}/jobs/{job}/cancel", JobsCancel},
	{http.MethodPost, "projects/{project}/queries", JobsQuery},
	{http.MethodGet, "projects/{project}/queries/{job}", JobsGetQueryResults},
}

// restMethod is one REST method: its HTTP method and path.
type restMethod struct {
	method, path string
	route        Route
}

// match reports whether a request of method for path segments segs is
// this REST method's, with the IDs its {name} segments hold.
func (rm restMethod) match(method string, segs []string) (map[string]string, bool) {
	want := strings.Split(rm.path, "/")
	if method != rm.method || len(segs) != len(want) {
		return nil, false
	}
	ids := map[string]string{}
	for i, w := range want {
		switch {
		case strings.HasPrefix(w, "{"):
			ids[w] = segs[i]
		case w != segs[i]:
			return nil, false
		}
	}
	return ids, true
}

// parse names the route of r and reads its body.
func (f *Fake) parse(r *http.Request) (*Request, error) {
	path := r.URL.Path
	for _, prefix := range []string{"/upload/bigquery/v2", "/bigquery/v2"} {
		path = strings.TrimPrefix(path, prefix)
	}
	req := &Request{Route: Unknown, Method: r.Method, Path: path, Query: r.URL.Query(), HTTP: r}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	req.Raw = raw
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for _, rt := range routes {
		if ids, ok := rt.match(r.Method, segs); ok {
			req.Route = rt.route
			req.Project, req.Dataset, req.Table, req.JobID = ids["{project}"], ids["{dataset}"], ids["{table}"], ids["{job}"]
			break
		}
	}
	var into any
	switch req.Route {
	case JobsInsert:
		req.Job = &bq.Job{}
		into = req.Job
	case JobsQuery:
		req.QueryRequest = &bq.QueryRequest{}
		into = req.QueryRequest
	case TabledataInsertAll:
		req.InsertAll = &bq.TableDataInsertAllRequest{}
		into = req.InsertAll
	case TablesPatch:
		req.TableBody = &bq.Table{}
		into = req.TableBody
	}
	if into != nil && len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, into); err != nil {
			return nil, fmt.Errorf("%s body: %w", req.Route, err)
		}
	}
	return req, nil
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	req, err := f.parse(r)
	if err != nil {
		writeError(w, &Error{Status: http.StatusBadRequest, Reason: "invalid", Message: err.Error()})
		return
	}
	f.mu.Lock()
	f.counts[req.Route]++
	req.N = f.counts[req.Route]
	// The log keeps the request as sent, whatever a rule does to its body.
	logged := *req
	logged.HTTP = nil
	logged.Job, logged.QueryRequest, logged.InsertAll, logged.TableBody = clone(req.Job), clone(req.QueryRequest), clone(req.InsertAll), clone(req.TableBody)
	f.log = append(f.log, &logged)
	rules := append([]*Rule(nil), f.rules...)
	f.mu.Unlock()

	for _, rule := range rules {
		if !rule.take(req) {
			continue
		}
		if done := rule.apply(f, w, req); done {
			return
		}
		if r.Context().Err() != nil {
			return
		}
	}
	f.answer(w, req)
}

// answer writes the store's answer to req.
func (f *Fake) answer(w http.ResponseWriter, req *Request) {
	v, err := f.handle(req)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// Error is BigQuery's error answer: an HTTP status and one reason. A
// reply function that returns one gets BigQuery's JSON error shape.
type Error struct {
	Status  int
	Reason  string
	Message string
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter string
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Reason, e.Message) }

// Errorf is a BigQuery error answer with a formatted message.
func Errorf(status int, reason, format string, args ...any) *Error {
	return &Error{Status: status, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// writeError writes err as BigQuery does; an err that is no *Error is a
// 500 backendError.
func writeError(w http.ResponseWriter, err error) {
	e, ok := err.(*Error)
	if !ok {
		e = &Error{Status: http.StatusInternalServerError, Reason: "backendError", Message: err.Error()}
	}
	msg := e.Message
	if msg == "" {
		msg = e.Reason
	}
	if e.RetryAfter != "" {
		w.Header().Set("Retry-After", e.RetryAfter)
	}
	writeJSON(w, e.Status, map[string]any{"error": map[string]any{
		"code": e.Status, "message": msg,
		"errors": []map[string]string{{"reason": e.Reason, "message": msg, "domain": "global"}},
	}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	if raw, ok := v.(json.RawMessage); ok {
		_, _ = w.Write(raw)
		return
	}
	_ = json.NewEncoder(w).Encode(v)
}

// hijack closes the connection under w without an answer; with reset, by
// a TCP reset ("connection reset by peer").
func hijack(w http.ResponseWriter, reset bool) {
	if pw, ok := w.(*pipeWriter); ok { // served in process (Transport)
		pw.abort(reset)
		return
	}
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok && reset {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}
