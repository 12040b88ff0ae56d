// Package faults is a fault-injecting HTTP proxy for the BigQuery REST API,
// for tests of what the emulator cannot do by itself: failures, slow and
// hanging responses, jobs that stay RUNNING, and BigQuery's idempotent job
// insert (a second insert of a job ID answers 409 duplicate).
//
// It sits between the server and the emulator and records every request, so
// tests can assert what reached the wire: attempts per call, duplicate jobs,
// jobs.cancel.
package faults

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fault is what the proxy does instead of (or after) forwarding a request.
type Fault struct {
	// Status answers with this HTTP status and a BigQuery error body.
	Status int
	// Reason is the BigQuery error reason in the body (e.g. backendError).
	Reason string
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter string
	// Reset closes the connection without an answer.
	Reset bool
	// Delay waits this long first (then forwards, unless another fault applies).
	Delay time.Duration
	// Hang never answers: the request waits until the client gives up.
	Hang bool
	// AfterForward forwards the request first, then replaces the answer:
	// the request took effect but its response was lost.
	AfterForward bool
}

func (f Fault) String() string {
	switch {
	case f.Hang:
		return "hang"
	case f.Reset:
		return "reset"
	case f.Status != 0 && f.AfterForward:
		return fmt.Sprintf("lost-%d", f.Status)
	case f.Status != 0:
		return strconv.Itoa(f.Status)
	case f.Delay > 0:
		return "delay"
	}
	return "none"
}

// Rule injects a fault into matching requests.
type Rule struct {
	// Match selects requests; nil matches all.
	Match func(*Request) bool
	Fault Fault
	// Mix, when set, replaces Fault: each firing picks one at random.
	Mix []Fault
	// Probability of applying the fault to a matching request; 0 means always.
	Probability float64
	// Times limits how often the rule fires; 0 means no limit.
	Times int
	fired int
}

// Request is a recorded request.
type Request struct {
	Method string
	Path   string
	// RawQuery is the URL's query string (paging, maxResults, startIndex).
	RawQuery string
	// Op is the REST method: jobs.insert, jobs.get, jobs.getQueryResults,
	// jobs.cancel, tabledata.list, tables.get, tables.list, datasets.list, …
	Op string
	// JobID is the job the request is about, when there is one.
	JobID string
	// DryRun marks a dry-run jobs.insert.
	DryRun bool
	// Query is the SQL of a jobs.insert or jobs.query.
	Query string
	// RequestID is the requestId of a jobs.query.
	RequestID string
	// Labels are the job labels of a jobs.insert or jobs.query.
	Labels map[string]string
	// Fault is what was injected ("none" when forwarded untouched).
	Fault string
	// Forwarded says the request reached the backend.
	Forwarded bool
	Time      time.Time
}

// Proxy is the fault-injecting proxy. Create it with New.
type Proxy struct {
	URL       string
	server    *httptest.Server
	target    *httputil.ReverseProxy
	transport *http.Transport

	mu       sync.Mutex
	rules    []*Rule
	requests []Request
	jobs     map[string]bool // job IDs the backend has accepted
	held     map[string]*heldJob
	holdFn   func(sql string) bool
	rng      *rand.Rand
	// plan answers what the emulator's planner lacks (plan.go).
	plan *Plan
	// graphs are property graphs' definitions by project.dataset.name
	// (graphs.go).
	graphs map[string]string
}

type heldJob struct {
	project, location, query string
	cancelled                bool
}

// New starts a proxy in front of backend (the emulator's URL).
func New(backend string) (*Proxy, error) {
	u, err := url.Parse(backend)
	if err != nil {
		return nil, err
	}
	p := &Proxy{target: httputil.NewSingleHostReverseProxy(u), transport: http.DefaultTransport.(*http.Transport).Clone(),
		jobs: map[string]bool{}, held: map[string]*heldJob{}, rng: rand.New(rand.NewPCG(1, 2))}
	p.target.Transport = p.transport
	p.server = httptest.NewServer(http.HandlerFunc(p.serve))
	p.URL = p.server.URL
	return p, nil
}

// Close stops the proxy.
func (p *Proxy) Close() {
	p.server.CloseClientConnections()
	p.server.Close()
	p.transport.CloseIdleConnections()
}

// AddRule adds a fault rule; rules are tried in order, the first that fires wins.
func (p *Proxy) AddRule(r Rule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = append(p.rules, &r)
}

// ClearRules removes every rule.
func (p *Proxy) ClearRules() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = nil
}

// Seed makes probabilistic rules repeatable.
func (p *Proxy) Seed(a, b uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rng = rand.New(rand.NewPCG(a, b))
}

// HoldQueries makes query jobs whose SQL matches stay RUNNING for ever: the
// proxy answers jobs.insert, jobs.get and jobs.getQueryResults itself, and
// records jobs.cancel. Dry runs still reach the backend.
func (p *Proxy) HoldQueries(match func(sql string) bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.holdFn = match
}

// Requests returns what was recorded so far.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.requests...)
}

// Reset forgets recorded requests.
func (p *Proxy) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = nil
}

// Cancelled reports whether jobs.cancel was called for a held job.
func (p *Proxy) Cancelled(jobID string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	h, ok := p.held[jobID]
	return ok && h.cancelled
}

var (
	jobPath     = regexp.MustCompile(`/projects/([^/]+)/jobs/([^/]+)(/cancel)?$`)
	queryPath   = regexp.MustCompile(`/projects/([^/]+)/queries/([^/]+)$`)
	insertPath  = regexp.MustCompile(`/projects/([^/]+)/jobs$`)
	jobsQuery   = regexp.MustCompile(`/projects/([^/]+)/queries$`)
	datasetPath = regexp.MustCompile(`/projects/[^/]+/datasets(/[^/]+)?(/tables(/[^/]+)?(/data)?)?$`)
)

func describe(r *http.Request, body []byte) Request {
	req := Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Time: time.Now()}
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && insertPath.MatchString(path):
		req.Op = "jobs.insert"
		var job struct {
			JobReference struct {
				JobID string `json:"jobId"`
			} `json:"jobReference"`
			Configuration struct {
				DryRun bool                   `json:"dryRun"`
				Query  struct{ Query string } `json:"query"`
				Labels map[string]string      `json:"labels"`
			} `json:"configuration"`
		}
		if json.Unmarshal(body, &job) == nil {
			req.JobID, req.DryRun, req.Query = job.JobReference.JobID, job.Configuration.DryRun, job.Configuration.Query.Query
			req.Labels = job.Configuration.Labels
		}
	case r.Method == http.MethodPost && jobsQuery.MatchString(path):
		req.Op = "jobs.query"
		var q struct {
			Query     string            `json:"query"`
			RequestID string            `json:"requestId"`
			DryRun    bool              `json:"dryRun"`
			Labels    map[string]string `json:"labels"`
		}
		if json.Unmarshal(body, &q) == nil {
			req.Query, req.RequestID, req.DryRun, req.Labels = q.Query, q.RequestID, q.DryRun, q.Labels
		}
		if req.RequestID != "" {
			req.JobID = heldPrefix + req.RequestID
		}
	case jobPath.MatchString(path):
		m := jobPath.FindStringSubmatch(path)
		req.JobID = m[2]
		req.Op = "jobs.get"
		if m[3] != "" {
			req.Op = "jobs.cancel"
		}
	case queryPath.MatchString(path):
		req.Op, req.JobID = "jobs.getQueryResults", queryPath.FindStringSubmatch(path)[2]
	case datasetPath.MatchString(path):
		m := datasetPath.FindStringSubmatch(path)
		switch {
		case m[4] != "":
			req.Op = "tabledata.list"
		case m[3] != "":
			req.Op = "tables.get"
		case m[2] != "":
			req.Op = "tables.list"
		case m[1] != "":
			req.Op = "datasets.get"
		default:
			req.Op = "datasets.list"
		}
	default:
		req.Op = "other"
	}
	return req
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	req := describe(r, body)

	p.mu.Lock()
	fault := p.pick(&req)
	hold := p.holdFn != nil && (req.Op == "jobs.insert" || req.Op == "jobs.query") && !req.DryRun && p.holdFn(req.Query)
	_, heldJob := p.held[req.JobID]
	if req.Op == "jobs.query" && !hold && !heldJob {
		// Only held queries are named by the proxy; BigQuery names the rest.
		req.JobID = ""
	}
	duplicate := req.Op == "jobs.insert" && req.JobID != "" && (p.jobs[req.JobID] || heldJob)
	req.Fault = fault.String()
	p.mu.Unlock()

	if fault.Delay > 0 {
		select {
		case <-time.After(fault.Delay):
		case <-r.Context().Done():
		}
	}
	switch {
	case fault.Hang:
		p.record(req)
		<-r.Context().Done()
		return
	case fault.Reset:
		p.record(req)
		reset(w)
		return
	case fault.Status != 0 && !fault.AfterForward:
		p.record(req)
		writeError(w, fault)
		return
	}

	switch {
	case duplicate:
		// BigQuery's idempotent insert, which the emulator lacks.
		req.Fault = "duplicate"
		p.record(req)
		writeError(w, Fault{Status: http.StatusConflict, Reason: "duplicate"})
		return
	case hold:
		p.holdJob(w, r, req)
		return
	case heldJob:
		p.answerHeld(w, r, req)
		return
	}

	if project, def, found, answer := p.graphFor(req, body); answer {
		req.Fault = "planned"
		p.record(req)
		answerGraph(w, project, def, found)
		return
	}
	plan := p.planFor(req)
	if plan != nil && req.Op == "jobs.query" {
		req.Fault = "planned"
		p.record(req)
		plan.answerPartitions(w)
		return
	}
	rec := httptest.NewRecorder()
	p.target.ServeHTTP(rec, r)
	req.Forwarded = true
	if plan != nil {
		plan.planDryRun(rec)
	}
	if req.Op == "jobs.insert" && req.JobID != "" && rec.Code < 300 && !req.DryRun {
		p.mu.Lock()
		p.jobs[req.JobID] = true
		p.mu.Unlock()
	}
	p.record(req)
	if fault.AfterForward {
		if fault.Reset {
			reset(w)
		} else {
			writeError(w, fault)
		}
		return
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

// pick returns the fault for req (zero Fault when none fires). p.mu is held.
func (p *Proxy) pick(req *Request) Fault {
	for _, rule := range p.rules {
		if rule.Match != nil && !rule.Match(req) {
			continue
		}
		if rule.Times > 0 && rule.fired >= rule.Times {
			continue
		}
		if rule.Probability > 0 && p.rng.Float64() >= rule.Probability {
			continue
		}
		rule.fired++
		if len(rule.Mix) > 0 {
			return rule.Mix[p.rng.IntN(len(rule.Mix))]
		}
		return rule.Fault
	}
	return Fault{}
}

func (p *Proxy) record(req Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, req)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, f Fault) {
	reason := f.Reason
	if reason == "" {
		switch {
		case f.Status == http.StatusTooManyRequests:
			reason = "rateLimitExceeded"
		case f.Status >= 500:
			reason = "backendError"
		default:
			reason = "invalid"
		}
	}
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.Status)
	msg := "injected fault: " + reason
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": f.Status, "message": msg,
		"errors": []any{map[string]any{"reason": reason, "message": msg, "domain": "global"}},
		"status": strings.ToUpper(http.StatusText(f.Status)),
	}})
}

// reset drops the connection without a response.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("faults: response writer cannot be hijacked")
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(interface{ SetLinger(int) error }); ok {
		tc.SetLinger(0) // RST rather than FIN
	}
	conn.Close()
}
