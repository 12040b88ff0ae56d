package integration_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance/redistest"
	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
	"github.com/bigquery-mcp/bigquery-mcp/integration_test/faults"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/schema"
)

const clientToken = "integration-client-token-0123456789"

// instance is one server process, as Cloud Run runs it.
type instance struct {
	addr string
	cmd  *exec.Cmd
	log  *syncBuffer
}

// startInstance runs the binary in http mode on a free loopback port.
func startInstance(t *testing.T, endpoint string, args ...string) *instance {
	t.Helper()
	in := &instance{addr: freeAddr(t), log: &syncBuffer{}}
	in.cmd = exec.Command(serverBin, append([]string{"http", "--addr", in.addr, "--endpoint", endpoint, "--project", emulator.Project}, args...)...)
	in.cmd.Stderr = in.log
	if err := in.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.cmd.Process.Kill()
		in.cmd.Wait()
		if t.Failed() {
			t.Logf("server %s log:\n%s", in.addr, in.log.String())
		}
	})
	waitListening(t, in.addr)
	return in
}

// syncBuffer is a log sink safe for the process's writes and the test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// roundRobin is Cloud Run's load balancer in front of several instances:
// each request goes to the next one. served counts requests per instance.
type roundRobin struct {
	*httptest.Server
	served []atomic.Int64
}

func newRoundRobin(t *testing.T, instances ...*instance) *roundRobin {
	t.Helper()
	rr := &roundRobin{served: make([]atomic.Int64, len(instances))}
	var next atomic.Int64
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			i := int(next.Add(1)-1) % len(instances)
			rr.served[i].Add(1)
			r.SetURL(&url.URL{Scheme: "http", Host: instances[i].addr})
			r.Out.Host = instances[i].addr // the instances' DNS-rebinding check wants a loopback Host
		},
		FlushInterval: -1, // SSE
		// A fresh upstream connection per request, as Cloud Run's front
		// end gives each request its own: a pooled connection that the
		// proxy tore down after an earlier stream could otherwise cut the
		// next response short ("use of closed network connection").
		Transport: &http.Transport{DisableKeepAlives: true},
		ErrorLog:  log.New(testWriter{t}, "roundRobin: ", 0),
	}
	rr.Server = httptest.NewServer(proxy)
	t.Cleanup(rr.Close)
	return rr
}

// testWriter sends a logger's lines to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// bearer adds a bearer token to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

func httpSession(t *testing.T, endpoint, token, protocol string) *mcp.ClientSession {
	t.Helper()
	hc := &http.Client{Transport: httpDefault()}
	if token != "" {
		hc.Transport = bearer{token: token, base: hc.Transport}
	}
	return clientSession(t, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, protocol)
}

// rawPost posts one JSON-RPC message and returns the status, the
// WWW-Authenticate header and the body.
func rawPost(t *testing.T, endpoint, authorization, body string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(b)
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// TestCloudRunTwoInstances drives two instances behind a round-robin
// balancer: with no session state, every call may land on either. A job
// started on one is paged, inspected and cancelled through the balancer.
//
//   - memory (the default): job records live in each instance's memory, so
//     the instance that started the job reads it and the other answers as
//     for an unknown job, without asking BigQuery.
//   - redis: both instances share one Redis (--state), so either reads
//     the job for its owner, and neither reads it for another principal.
func TestCloudRunTwoInstances(t *testing.T) {
	const tokenB = "integration-second-token-0123456789"
	for _, variant := range []string{"memory", "redis"} {
		t.Run("state="+variant, func(t *testing.T) {
			args := []string{"--client-auth", "token", "--client-tokens", clientToken + "," + tokenB}
			if variant == "redis" {
				args = append(args, "--state", redistest.Start(t).URL())
			}
			a := startInstance(t, emu.URL, args...)
			b := startInstance(t, emu.URL, args...)
			lb := newRoundRobin(t, a, b)
			for _, protocol := range protocolVersions {
				t.Run("protocol="+protocol, func(t *testing.T) {
					twoInstances(t, lb.URL+"/mcp", protocol, variant == "redis", tokenB)
				})
			}
			if lb.served[0].Load() == 0 || lb.served[1].Load() == 0 {
				t.Errorf("requests per instance: %d and %d, want both used", lb.served[0].Load(), lb.served[1].Load())
			}
			for _, in := range []*instance{a, b} {
				if strings.Contains(in.log.String(), clientToken) || strings.Contains(in.log.String(), tokenB) {
					t.Errorf("a client token reached the log of %s", in.addr)
				}
			}
		})
	}
}

// twoInstances starts a job through the balancer at endpoint and reads it
// with each job tool four times (twice per instance). With shared state
// every call answers its owner, and another principal is refused on every
// instance; without, the starting instance answers and the other refuses.
func twoInstances(t *testing.T, endpoint, protocol string, shared bool, tokenB string) {
	cs := httpSession(t, endpoint, clientToken, protocol)
	ds := ok[schema.ListDatasetsOutput](t, cs, "list_datasets", map[string]any{})
	if len(ds.Datasets) == 0 {
		t.Fatalf("no datasets: %+v", ds)
	}
	out := ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{
		"sql": "SELECT order_id FROM shop.orders ORDER BY order_id", "maxRows": 2,
	})
	if !out.Truncated || out.JobID == "" || out.NextStartIndex != 2 {
		t.Fatalf("first page = %+v", out)
	}
	args := map[string]any{"jobId": out.JobID, "location": out.Location}
	refusedText := func(res *mcp.CallToolResult) bool {
		return strings.Contains(text(res), "NOT_FOUND") && strings.Contains(text(res), "started by you on this server")
	}
	for _, tool := range []string{"get_query_results", "get_job", "cancel_job"} {
		read, refused := 0, 0
		for range 4 {
			res := call(t, cs, tool, args)
			switch {
			case !res.IsError:
				read++
			case refusedText(res):
				refused++
			case tool == "cancel_job":
				read++ // cancelling a finished job may be an error, but a structured one
			default:
				t.Errorf("%s through the balancer: %s", tool, text(res))
			}
		}
		switch {
		case shared && refused > 0:
			t.Errorf("%s: %d answered, %d refused; want every instance to answer the job's owner", tool, read, refused)
		case !shared && (read == 0 || refused == 0):
			t.Errorf("%s: %d answered, %d refused; want the starting instance to answer and the other to refuse", tool, read, refused)
		}
	}
	if !shared {
		return
	}
	// Another principal, on every instance: the answer for an unknown job.
	bob := httpSession(t, endpoint, tokenB, protocol)
	for _, tool := range []string{"get_query_results", "get_job", "cancel_job"} {
		for range 2 {
			if res := call(t, bob, tool, args); !res.IsError || !refusedText(res) {
				t.Errorf("another principal's %s of the job = %s, want NOT_FOUND", tool, text(res))
			}
		}
	}
}

func TestCloudRunRefusesStrangers(t *testing.T) {
	in := startInstance(t, emu.URL, "--client-auth", "token", "--client-tokens", clientToken)
	endpoint := "http://" + in.addr + "/mcp"
	for name, authz := range map[string]string{"no token": "", "wrong token": "Bearer not-the-token-0123456789", "basic": "Basic " + clientToken} {
		code, challenge, body := rawPost(t, endpoint, authz, initializeBody)
		if code != http.StatusUnauthorized || !strings.HasPrefix(challenge, "Bearer") {
			t.Errorf("%s: %d, WWW-Authenticate %q", name, code, challenge)
		}
		if strings.Contains(body, "0123456789") {
			t.Errorf("%s: the answer repeats the credential: %q", name, body)
		}
	}
	if code, _, _ := rawPost(t, endpoint, "Bearer "+clientToken, initializeBody); code != http.StatusOK {
		t.Errorf("right token: %d", code)
	}
	// Probes stay open: Cloud Run's health checks carry no token.
	if code, err := httpGet("http://" + in.addr + "/healthz"); err != nil || code != 200 {
		t.Errorf("/healthz: %d %v", code, err)
	}
}

func TestCloudRunRefusesToStartUnauthenticated(t *testing.T) {
	for _, args := range [][]string{
		{"http", "--addr", "0.0.0.0:0"},
		{"http"},
		{"http", "--addr", ":0", "--client-auth", "google"},
	} {
		cmd := exec.Command(serverBin, append(args, "--endpoint", emu.URL, "--project", emulator.Project)...)
		cmd.Env = append(os.Environ(), "PORT=0")
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Errorf("%v: started", args)
			continue
		}
		if !strings.Contains(string(out), "--client-") {
			t.Errorf("%v: the refusal does not say what to set: %s", args, out)
		}
	}
	// With --allow-unauthenticated (Cloud Run's IAM invoker check in front) it serves.
	addr := freeAddr(t)
	_, port, _ := strings.Cut(addr, ":")
	cmd := exec.Command(serverBin, "http", "--addr", "0.0.0.0:"+port, "--allow-unauthenticated", "--endpoint", emu.URL, "--project", emulator.Project)
	cmd.Stderr = &logBuffer{t: t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitListening(t, addr)
}

// TestCloudRunShedsLoad: beyond --max-concurrent-calls a call fails at
// once with a retryable UNAVAILABLE instead of queueing.
func TestCloudRunShedsLoad(t *testing.T) {
	p, err := faults.New(emu.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.HoldQueries(func(sql string) bool { return strings.Contains(sql, "/* hold */") })
	in := startInstance(t, p.URL, "--max-concurrent-calls", "1")
	endpoint := "http://" + in.addr + "/mcp"
	held := httpSession(t, endpoint, "", "2025-06-18")
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := held.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute_sql", Arguments: map[string]any{"sql": "SELECT 1 AS n /* hold */", "timeoutSeconds": 3}})
		done <- res
	}()
	// Probe only once the held query is at BigQuery: a probe sent earlier
	// could take the one slot itself and shed the held call instead.
	waitHeld := time.Now().Add(10 * time.Second)
	for !heldQuerySent(p) {
		if time.Now().After(waitHeld) {
			t.Fatal("the held query never reached BigQuery")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cs := httpSession(t, endpoint, "", "2025-06-18")
	deadline := time.Now().Add(10 * time.Second)
	var e bqerr.Error
	for {
		res := call(t, cs, "list_datasets", map[string]any{})
		if res.IsError {
			json.Unmarshal([]byte(text(res)), &e)
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no call was shed while one was held")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if e.Code != bqerr.Unavailable || !e.Retryable || !strings.Contains(e.Message, "busy") {
		t.Errorf("shed call: %+v", e)
	}
	// health is never shed.
	if res := call(t, cs, "health", map[string]any{}); res.IsError && strings.Contains(text(res), "busy") {
		t.Errorf("health was shed: %s", text(res))
	}
	<-done
	ok[schema.ListDatasetsOutput](t, cs, "list_datasets", map[string]any{})
}

// TestCloudRunMemoryFlat: thousands of clients that initialize and go away
// leave nothing behind in a stateless server.
func TestCloudRunMemoryFlat(t *testing.T) {
	in := startInstance(t, emu.URL)
	endpoint := "http://" + in.addr + "/mcp"
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	burst := func(n int) {
		for i := range n {
			body := initializeBody
			if i%2 == 1 {
				body = list
			}
			if code, _, _ := rawPost(t, endpoint, "", body); code != http.StatusOK {
				t.Fatalf("request %d: HTTP %d", i, code)
			}
		}
	}
	burst(500) // warm up: pools, caches and the heap reach their working size
	before := rssKB(t, in.cmd.Process.Pid)
	start := time.Now()
	burst(4000)
	elapsed := time.Since(start)
	time.Sleep(200 * time.Millisecond)
	after := rssKB(t, in.cmd.Process.Pid)
	t.Logf("RSS %d KB after warm-up, %d KB after 4000 more requests (%+d KB); %.0f requests/s",
		before, after, after-before, 4000/elapsed.Seconds())
	if after-before > 16<<10 {
		t.Errorf("RSS grew by %d KB over 4000 sessionless requests", after-before)
	}
}

func rssKB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// TestCloudRunClientCancelCancelsTheJob: without sessions, a client that
// cancels its call still gets the BigQuery job cancelled, under both
// protocol eras.
func TestCloudRunClientCancelCancelsTheJob(t *testing.T) {
	for _, protocol := range protocolVersions {
		t.Run("protocol="+protocol, func(t *testing.T) {
			p := startProxy(t)
			p.HoldQueries(func(sql string) bool { return strings.Contains(sql, "/* hold */") })
			in := startInstance(t, p.URL)
			cancelMidQuery(t, p, httpSession(t, "http://"+in.addr+"/mcp", "", protocol))
		})
	}
}

// heldQuerySent reports whether the proxy has seen the job of the query
// marked /* hold */ (not its dry run).
func heldQuerySent(p *faults.Proxy) bool {
	for _, r := range p.Requests() {
		if !r.DryRun && strings.Contains(r.Query, "/* hold */") {
			return true
		}
	}
	return false
}
