package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
	"github.com/bigquery-mcp/bigquery-mcp/integration_test/faults"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
	"github.com/bigquery-mcp/bigquery-mcp/schema"
	"github.com/bigquery-mcp/bigquery-mcp/server"
)

// startProxy puts a fault-injecting proxy in front of the emulator.
func startProxy(t *testing.T) *faults.Proxy {
	t.Helper()
	return startProxyTo(t, emu)
}

// startProxyTo starts a fault-injecting proxy in front of e.
func startProxyTo(t *testing.T, e *emulator.Emulator) *faults.Proxy {
	t.Helper()
	p, err := faults.New(e.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// fastConfig is testConfig through the proxy, with the production attempt
// caps but millisecond backoff so fault tests run quickly, and no metadata
// caching so every call reaches BigQuery.
func fastConfig(p *faults.Proxy) server.Config {
	cfg := testConfig()
	cfg.Endpoint = p.URL
	r := resilience.Defaults()
	for op, pol := range r.Retry {
		pol.BaseDelay, pol.MaxDelay = time.Millisecond, 4*time.Millisecond
		r.Retry[op] = pol
	}
	cfg.Resilience = r
	cfg.Cache.TTL = 0
	return cfg
}

// injected are the transient faults of the fault mix: HTTP errors, resets,
// and answers lost after BigQuery acted on the request. (Retry-After is
// honoured, and tested, in the resilience package; here it would only make
// the run slow.)
var injected = []faults.Fault{
	{Status: 503},
	{Status: 500, Reason: "backendError"},
	{Status: 500, Reason: "internalError"},
	{Status: 429},
	{Status: 403, Reason: "rateLimitExceeded"},
	{Status: 502},
	{Reset: true},
	{Status: 503, AfterForward: true},
}

// ownEmulator starts an emulator for t alone. The shared one answers each
// request in time that grows with every job run on it so far (goccy's
// emulator loads all of a project's jobs to serve any request), so a test
// of thousands of requests late in the suite took 246 s there, against
// 15 s on an emulator of its own; and its own jobs no longer slow the tests
// after it.
func ownEmulator(t *testing.T) *emulator.Emulator {
	t.Helper()
	e, err := emulator.Start(context.Background())
	if err != nil {
		t.Fatalf("starting an emulator: %v", err)
	}
	t.Cleanup(e.Close)
	return e
}

func TestFaultMixIsAbsorbedWithinAttemptCaps(t *testing.T) {
	p := startProxyTo(t, ownEmulator(t))
	cfg := fastConfig(p)
	cfg.Resilience.Breaker.Failures = 1000 // this test is about retries
	cs := connect(t, cfg, "")
	p.Seed(7, 11)
	p.AddRule(faults.Rule{Probability: 0.3, Mix: injected})

	metaCap := cfg.Resilience.Retry[resilience.Metadata].Attempts
	queryCap := cfg.Resilience.Retry[resilience.Query].Attempts
	type tally struct{ calls, ok int }
	results := map[string]*tally{}
	maxPerRequest := map[string]int{}
	// hit counts each fault kind injected into each REST method: the run
	// must put every kind in front of every method the calls make, so a
	// kind that one method mishandles cannot go unseen.
	hit := map[string]map[string]int{}
	const metadataCalls, queryCalls = 1200, 150
	for i := range metadataCalls + queryCalls {
		tool, args := "get_table_schema", map[string]any{"table": "shop.orders"}
		switch {
		case i >= metadataCalls:
			tool, args = "execute_sql", map[string]any{"sql": fmt.Sprintf("SELECT %d AS n, COUNT(*) AS c FROM shop.orders", i)}
		case i%2 == 1:
			tool, args = "list_tables", map[string]any{"dataset": "shop"}
		}
		p.Reset()
		res := call(t, cs, tool, args)
		if results[tool] == nil {
			results[tool] = &tally{}
		}
		results[tool].calls++
		if !res.IsError {
			results[tool].ok++
		} else {
			var e bqerr.Error
			if err := json.Unmarshal([]byte(text(res)), &e); err != nil {
				t.Fatalf("unstructured error: %s", text(res))
			}
			// Only exhausted retries may fail: retryable, with every attempt spent.
			want := metaCap
			if tool == "execute_sql" {
				want = queryCap
			}
			if !e.Retryable || e.Details.Attempts != want {
				t.Errorf("%s failed with a non-exhausted error: %s", tool, text(res))
			}
		}
		// At the wire: no request was sent more often than the cap.
		counts := map[string]int{}
		inserts := map[string]int{}
		requestIDs := map[string]bool{}
		for _, r := range p.Requests() {
			if hit[r.Op] == nil {
				hit[r.Op] = map[string]int{}
			}
			hit[r.Op][r.Fault]++
			if r.Op == "jobs.query" && !r.DryRun {
				requestIDs[r.RequestID] = true
			}
			// One logical request: the same method, path and parameters
			// (waiting for a job and reading its rows differ in parameters).
			key := r.Op + " " + r.Path + "?" + r.RawQuery
			if r.Op == "jobs.insert" {
				key = fmt.Sprintf("jobs.insert dry=%v", r.DryRun)
				if r.Forwarded && !r.DryRun {
					inserts[r.JobID]++
				}
			}
			counts[key]++
		}
		for key, n := range counts {
			limit := metaCap
			if tool == "execute_sql" {
				limit = queryCap
			}
			if n > limit {
				t.Errorf("call %d (%s): %q sent %d times, cap %d", i, tool, key, n, limit)
			}
			maxPerRequest[key] = max(maxPerRequest[key], n)
		}
		for id, n := range inserts {
			if n > 1 {
				t.Errorf("job %s was created %d times", id, n)
			}
		}
		// Every attempt of one query carries the same requestId, so
		// BigQuery (and the emulator's job store) never runs it twice.
		if len(requestIDs) > 1 {
			t.Errorf("call %d (%s): jobs.query sent with %d requestIds, want one for every attempt: %v", i, tool, len(requestIDs), requestIDs)
		}
	}
	for tool, r := range results {
		rate := float64(r.ok) / float64(r.calls)
		t.Logf("%s: %d/%d succeeded (%.1f%%)", tool, r.ok, r.calls, 100*rate)
		if rate < 0.95 {
			t.Errorf("%s: only %.1f%% of calls succeeded under a 30%% fault mix", tool, 100*rate)
		}
	}
	t.Logf("most attempts seen for one request: %v", maxPerRequest)
	t.Logf("faults injected by method: %v", hit)
	for _, op := range []string{"tables.get", "tables.list", "jobs.query"} {
		for _, f := range injected {
			if hit[op][f.String()] == 0 {
				t.Errorf("%s never met %s: the run is too short for its fault mix", op, f)
			}
		}
	}
	retried := false
	for _, n := range maxPerRequest {
		retried = retried || n > 1
	}
	if !retried {
		t.Error("no request was ever retried: the fault mix did not bite")
	}
}

// schemaCall asks for the orders schema and returns the raw result.
func schemaCall(t *testing.T, cs *mcp.ClientSession) *mcp.CallToolResult {
	return call(t, cs, "get_table_schema", map[string]any{"table": "shop.orders"})
}

func TestBreakerOpensFailsFastProbesAndCloses(t *testing.T) {
	p := startProxy(t)
	cfg := fastConfig(p)
	pol := cfg.Resilience.Retry[resilience.Metadata]
	pol.Attempts = 1 // one request per call, so calls and failures line up
	cfg.Resilience.Retry[resilience.Metadata] = pol
	cfg.Resilience.Breaker = resilience.Breaker{Failures: 5, Open: 2 * time.Second, Successes: 2}
	cs := connect(t, cfg, "")

	// User errors never open it.
	p.AddRule(faults.Rule{Fault: faults.Fault{Status: 404, Reason: "notFound"}})
	for range 10 {
		if e := fails(t, cs, "get_table_schema", map[string]any{"table": "shop.orders"}); e.Code != bqerr.NotFound {
			t.Fatalf("404: %+v", e)
		}
	}
	p.ClearRules()
	p.AddRule(faults.Rule{Fault: faults.Fault{Status: 503}})
	for i := range 5 {
		e := fails(t, cs, "get_table_schema", map[string]any{"table": "shop.orders"})
		if e.Code != bqerr.Unavailable || !e.Retryable || e.RetryAfterSeconds != nil {
			t.Fatalf("failure %d: %+v", i+1, e)
		}
	}
	p.Reset()
	e := fails(t, cs, "get_table_schema", map[string]any{"table": "shop.orders"})
	if e.Code != bqerr.Unavailable || !e.Retryable || e.RetryAfterSeconds == nil || *e.RetryAfterSeconds < 1 || *e.RetryAfterSeconds > 2 ||
		!strings.Contains(e.Message, "circuit breaker") {
		t.Fatalf("open breaker: %+v", e)
	}
	if n := len(p.Requests()); n != 0 {
		t.Fatalf("an open breaker let %d requests through", n)
	}
	if h := health(t, cs); h.Breakers["demo-project"] != resilience.Open || h.Ready {
		t.Errorf("health with the breaker open: %+v", h)
	}

	// After the open period a probe goes through; a failing probe re-opens it.
	time.Sleep(2100 * time.Millisecond)
	p.Reset()
	fails(t, cs, "get_table_schema", map[string]any{"table": "shop.orders"})
	if n := len(p.Requests()); n != 1 {
		t.Fatalf("half-open breaker sent %d probes, want 1", n)
	}
	if e := fails(t, cs, "get_table_schema", map[string]any{"table": "shop.orders"}); e.RetryAfterSeconds == nil {
		t.Fatalf("after a failed probe the breaker must be open again: %+v", e)
	}

	// Healthy again: two successful probes close it.
	p.ClearRules()
	time.Sleep(2100 * time.Millisecond)
	for range 2 {
		if res := schemaCall(t, cs); res.IsError {
			t.Fatalf("probe failed: %s", text(res))
		}
	}
	if h := health(t, cs); h.Breakers["demo-project"] != resilience.Closed || !h.Ready || !h.BigQuery.Reachable {
		t.Errorf("health after recovery: %+v", h)
	}
}

func health(t *testing.T, cs *mcp.ClientSession) server.HealthReport {
	t.Helper()
	return ok[server.HealthReport](t, cs, "health", nil)
}

func TestStaleMetadataDuringOutageButNeverForDenialOrNotFound(t *testing.T) {
	p := startProxy(t)
	cfg := fastConfig(p)
	cfg.Cache.TTL = time.Millisecond
	cs := connect(t, cfg, "")
	fresh := ok[schema.TableSchema](t, cs, "get_table_schema", map[string]any{"table": "shop.orders"})
	tables := ok[schema.ListTablesOutput](t, cs, "list_tables", map[string]any{"dataset": "shop"})
	if fresh.Stale || tables.Stale {
		t.Fatal("a fresh answer is marked stale")
	}
	time.Sleep(5 * time.Millisecond)

	p.AddRule(faults.Rule{Fault: faults.Fault{Status: 503}})
	stale := ok[schema.TableSchema](t, cs, "get_table_schema", map[string]any{"table": "shop.orders"})
	if !stale.Stale || stale.CacheAgeSeconds < 0 || !strings.Contains(stale.StaleReason, "UNAVAILABLE") || len(stale.Columns) != len(fresh.Columns) {
		t.Errorf("during the outage: %+v", stale)
	}
	staleTables := ok[schema.ListTablesOutput](t, cs, "list_tables", map[string]any{"dataset": "shop"})
	if !staleTables.Stale || len(staleTables.Tables) != len(tables.Tables) {
		t.Errorf("stale table list: %+v", staleTables)
	}
	for _, f := range []struct {
		fault faults.Fault
		code  bqerr.Code
	}{
		{faults.Fault{Status: 404, Reason: "notFound"}, bqerr.NotFound},
		{faults.Fault{Status: 403, Reason: "accessDenied"}, bqerr.PermissionDenied},
		{faults.Fault{Status: 401, Reason: "authError"}, bqerr.Unauthenticated},
	} {
		p.ClearRules()
		p.AddRule(faults.Rule{Fault: f.fault})
		if e := fails(t, cs, "get_table_schema", map[string]any{"table": "shop.orders"}); e.Code != f.code {
			t.Errorf("%d: got %s, want %s and no stale answer", f.fault.Status, e.Code, f.code)
		}
	}
}

func TestQueryTimeoutCancelsTheJob(t *testing.T) {
	// Registered first, so it runs after every other cleanup has closed
	// the session, the server and the proxy.
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	p := startProxy(t)
	p.HoldQueries(func(sql string) bool { return strings.Contains(sql, "/* hold */") })
	cs := connect(t, fastConfig(p), "")
	start := time.Now()
	e := fails(t, cs, "execute_sql", map[string]any{"sql": "SELECT 1 AS n /* hold */", "timeoutSeconds": 1})
	if e.Code != bqerr.DeadlineExceeded || e.Details.JobID == "" || !strings.Contains(e.Hint, e.Details.JobID) {
		t.Fatalf("timeout: %+v", e)
	}
	if !p.Cancelled(e.Details.JobID) {
		t.Errorf("job %s was not cancelled after the timeout; requests: %+v", e.Details.JobID, p.Requests())
	}
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("a 1 s timeout took %s", elapsed)
	}
}

// heldJob waits until the proxy holds a job and returns its ID.
func heldJob(t *testing.T, p *faults.Proxy) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, r := range p.Requests() {
			if (r.Op == "jobs.insert" || r.Op == "jobs.query") && r.Fault == "held" {
				return r.JobID
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no job was held")
	return ""
}

func waitCancelled(t *testing.T, p *faults.Proxy, id string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if p.Cancelled(id) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("job %s was not cancelled after the client cancelled the call", id)
}

// cancelMidQuery starts a held query, cancels the call once the job exists,
// and checks that the job gets cancelled.
func cancelMidQuery(t *testing.T, p *faults.Proxy, cs *mcp.ClientSession) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_sql", Arguments: map[string]any{"sql": "SELECT 2 AS n /* hold */"}})
		done <- err
	}()
	id := heldJob(t, p)
	cancel()
	if err := <-done; err == nil {
		t.Error("a cancelled call returned no error to the client")
	}
	waitCancelled(t, p, id)
}

func TestClientCancelCancelsTheJob(t *testing.T) {
	t.Run("in-memory", func(t *testing.T) {
		p := startProxy(t)
		p.HoldQueries(func(sql string) bool { return strings.Contains(sql, "/* hold */") })
		cancelMidQuery(t, p, connect(t, fastConfig(p), ""))
	})
	t.Run("stdio", func(t *testing.T) {
		p := startProxy(t)
		p.HoldQueries(func(sql string) bool { return strings.Contains(sql, "/* hold */") })
		cmd := exec.Command(serverBin, "stdio", "--endpoint", p.URL, "--project", emulator.Project)
		cmd.Stderr = &logBuffer{t: t}
		cancelMidQuery(t, p, clientSession(t, &mcp.CommandTransport{Command: cmd}, ""))
	})
	t.Run("http", func(t *testing.T) {
		p := startProxy(t)
		p.HoldQueries(func(sql string) bool { return strings.Contains(sql, "/* hold */") })
		addr := freeAddr(t)
		cmd := exec.Command(serverBin, "http", "--addr", addr, "--endpoint", p.URL, "--project", emulator.Project)
		cmd.Stderr = &logBuffer{t: t}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		waitListening(t, addr)
		cancelMidQuery(t, p, clientSession(t, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp"}, ""))
	})
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func waitListening(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("server did not listen on %s", addr)
}

func TestHTTPProbes(t *testing.T) {
	addr := freeAddr(t)
	cmd := exec.Command(serverBin, "http", "--addr", addr, "--endpoint", emu.URL, "--project", emulator.Project)
	cmd.Stderr = &logBuffer{t: t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitListening(t, addr)
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := httpGet("http://" + addr + path)
		if err != nil || resp != 200 {
			t.Errorf("%s: %d %v", path, resp, err)
		}
	}
	cs := clientSession(t, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp"}, "2025-06-18")
	out := ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": "SELECT COUNT(*) AS n FROM shop.orders", "format": "objects"})
	if string(out.Rows[0]) != `{"n":5}` {
		t.Errorf("over HTTP: %s", out.Rows[0])
	}
}
