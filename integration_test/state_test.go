package integration_test

// Shared governance state (--state redis://): two server processes on one
// Redis spend from one bytes budget, and Redis going away mid-run fails
// the budget closed (or, with --state-fail-open, lets queries run) without
// a process dying.

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance/redistest"
	"github.com/bigquery-mcp/bigquery-mcp/query"
)

// billedBytes is what every query costs behind billingProxy.
const billedBytes = 100 << 20

// billingProxy stands in front of the emulator, which reports no bytes:
// every dry run estimates billedBytes, and every query job (jobs.query,
// jobs.insert, jobs.get) processes and bills billedBytes, as BigQuery
// would say for a 100 MiB scan.
func billingProxy(t *testing.T, backend string) string {
	t.Helper()
	target, err := url.Parse(backend)
	if err != nil {
		t.Fatal(err)
	}
	n := strconv.Itoa(billedBytes)
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Header.Del("Accept-Encoding") // bodies to rewrite, not gzip
		},
		ModifyResponse: func(resp *http.Response) error {
			p := resp.Request.URL.Path
			if resp.StatusCode != http.StatusOK || !(strings.HasSuffix(p, "/queries") || strings.Contains(p, "/jobs")) || strings.Contains(p, "/queries/") {
				return nil
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			var m map[string]any
			if json.Unmarshal(body, &m) == nil {
				if strings.HasSuffix(p, "/queries") {
					m["totalBytesProcessed"], m["totalBytesBilled"] = n, n
				} else if _, isJob := m["jobReference"]; isJob {
					stats, _ := m["statistics"].(map[string]any)
					if stats == nil {
						stats = map[string]any{}
					}
					q, _ := stats["query"].(map[string]any)
					if q == nil {
						q = map[string]any{}
					}
					stats["totalBytesProcessed"], q["totalBytesProcessed"], q["totalBytesBilled"] = n, n, n
					stats["query"] = q
					m["statistics"] = stats
				}
				body, _ = json.Marshal(m)
			}
			resp.Body = io.NopCloser(bytes.NewReader(body))
			resp.ContentLength = int64(len(body))
			resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
			return nil
		},
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestSharedStateAcrossInstances: two instances with client auth on one
// Redis and a 250 MiB day budget, every query billing 100 MiB. Two queries
// on A leave 50 MiB for the principal on both instances, so B refuses the
// third; another principal's budget is untouched, and B reads A's job
// for its owner only. With Redis stopped, both refuse queries with the
// documented UNAVAILABLE and stay up; a --state-fail-open instance runs
// them; with Redis back, queries are counted again.
func TestSharedStateAcrossInstances(t *testing.T) {
	const tokenB = "integration-second-token-0123456789"
	rs := redistest.Start(t)
	endpoint := billingProxy(t, emu.URL)
	args := []string{"--client-auth", "token", "--client-tokens", clientToken + "," + tokenB,
		"--state", rs.URL(), "--max-bytes-per-day", strconv.Itoa(250 << 20),
		// A short breaker, so the test sees Redis come back within seconds.
		"--breaker-open", "2s"}
	a := startInstance(t, endpoint, args...)
	b := startInstance(t, endpoint, args...)
	open := startInstance(t, endpoint, append(args, "--state-fail-open")...)
	aliceA := httpSession(t, "http://"+a.addr+"/mcp", clientToken, "2025-06-18")
	aliceB := httpSession(t, "http://"+b.addr+"/mcp", clientToken, "2025-06-18")
	bobB := httpSession(t, "http://"+b.addr+"/mcp", tokenB, "2025-06-18")
	sql := map[string]any{"sql": "SELECT order_id FROM shop.orders ORDER BY order_id", "maxRows": 2}

	var first query.ExecuteOutput
	for i := range 2 {
		out := ok[query.ExecuteOutput](t, aliceA, "execute_sql", sql)
		if i == 0 {
			first = out
		}
	}
	u := ok[query.UsageOutput](t, aliceB, "usage", map[string]any{})
	if u.Today.BytesBilled != 2*billedBytes || u.Today.Jobs != 2 || u.Left == nil || *u.Left != 50<<20 {
		t.Fatalf("usage on B after two queries on A = %+v (left %v); want 200 MiB billed, 50 MiB left", u.Report, u.Left)
	}
	e := fails(t, aliceB, "execute_sql", sql)
	if e.Code != bqerr.ResourceExhausted {
		t.Fatalf("third query, on B = %+v; want RESOURCE_EXHAUSTED: the budget is the fleet's", e)
	}
	if out := ok[query.ExecuteOutput](t, bobB, "execute_sql", sql); out.JobID == "" {
		t.Errorf("another principal's query = %+v", out)
	}
	// A's job, on B: its owner pages it; another principal cannot tell it exists.
	page := ok[query.ExecuteOutput](t, aliceB, "get_query_results", map[string]any{"jobId": first.JobID, "location": first.Location, "startIndex": 2})
	if page.RowCount == 0 {
		t.Errorf("owner's next page on B = %+v", page)
	}
	if e := fails(t, bobB, "get_job", map[string]any{"jobId": first.JobID, "location": first.Location}); e.Code != bqerr.NotFound {
		t.Errorf("another principal's get_job of A's job on B = %+v", e)
	}
	t.Logf("two instances, one Redis: %d MiB billed of a 250 MiB day budget, the third query refused on the other instance", u.Today.BytesBilled>>20)

	// Redis goes away: budgets fail closed, processes stay up.
	rs.Stop()
	bobA := httpSession(t, "http://"+a.addr+"/mcp", tokenB, "2025-06-18")
	e = fails(t, bobA, "execute_sql", sql)
	if e.Code != bqerr.Unavailable || !e.Retryable || !strings.Contains(e.Message, "Redis") {
		t.Errorf("a query with Redis down = %+v; want a retryable UNAVAILABLE naming Redis", e)
	}
	bobOpen := httpSession(t, "http://"+open.addr+"/mcp", tokenB, "2025-06-18")
	if out := ok[query.ExecuteOutput](t, bobOpen, "execute_sql", sql); out.JobID == "" {
		t.Errorf("a query on the fail-open instance with Redis down = %+v", out)
	}
	for _, in := range []*instance{a, b, open} {
		if in.cmd.ProcessState != nil {
			t.Fatalf("instance %s exited with Redis down:\n%s", in.addr, in.log.String())
		}
	}
	// Back (empty: the day starts again): the fail-open instance's first
	// usage answers, at once, with the query it ran during the outage
	// written (issue 36), and the next queries are counted.
	rs.Restart()
	if u := ok[query.UsageOutput](t, bobOpen, "usage", map[string]any{}); u.Today.Jobs != 1 || u.Today.BytesBilled != billedBytes {
		t.Errorf("first usage on the fail-open instance after Redis came back = %+v; want the query it ran during the outage", u.Report)
	}
	waitFor(t, func() bool {
		res := call(t, bobA, "execute_sql", sql)
		return !res.IsError
	})
	// The restarted Redis is empty (as after losing an instance without
	// persistence): what it holds now is the query just run and the one
	// the fail-open instance ran during the outage, which that instance
	// kept and wrote when Redis answered again.
	waitFor(t, func() bool {
		u = ok[query.UsageOutput](t, bobA, "usage", map[string]any{})
		return u.Today.Jobs == 2
	})
	if u.Today.BytesBilled != 2*billedBytes {
		t.Errorf("usage after Redis came back = %+v; want the new query and the fail-open one, 200 MiB", u.Report)
	}
	for _, in := range []*instance{a, b, open} {
		if strings.Contains(in.log.String(), clientToken) || strings.Contains(in.log.String(), tokenB) {
			t.Errorf("a client token reached the log of %s", in.addr)
		}
	}
}

// waitFor polls cond for up to 20 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 20s")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestSharedBudgetParallel: 50 queries at once from one principal, spread
// by the balancer over three instances, under a 250 MiB day budget with
// every query billing 100 MiB. On one Redis the fleet admits two (every
// estimate is exact here, so the bound is the budget itself); with memory
// state each instance admits its own two, which is what issue 22 is about.
func TestSharedBudgetParallel(t *testing.T) {
	endpoint := billingProxy(t, emu.URL)
	for _, variant := range []string{"memory", "redis"} {
		t.Run("state="+variant, func(t *testing.T) {
			args := []string{"--client-auth", "token", "--client-tokens", clientToken, "--max-bytes-per-day", strconv.Itoa(250 << 20)}
			if variant == "redis" {
				args = append(args, "--state", redistest.Start(t).URL())
			}
			var ins []*instance
			for range 3 {
				ins = append(ins, startInstance(t, endpoint, args...))
			}
			lb := newRoundRobin(t, ins...)
			cs := httpSession(t, lb.URL+"/mcp", clientToken, "2025-06-18")
			sql := map[string]any{"sql": "SELECT order_id FROM shop.orders ORDER BY order_id", "maxRows": 2}
			var ran, refused atomic.Int64
			var wg sync.WaitGroup
			for range 50 {
				wg.Go(func() {
					res := call(t, cs, "execute_sql", sql)
					switch {
					case !res.IsError:
						ran.Add(1)
					case strings.Contains(text(res), "RESOURCE_EXHAUSTED"):
						refused.Add(1)
					default:
						t.Errorf("execute_sql: %s", text(res))
					}
				})
			}
			wg.Wait()
			billed := ran.Load() * billedBytes
			t.Logf("%s: 50 parallel queries of 100 MiB over 3 instances under a 250 MiB day budget: %d ran, %d refused, %d MiB billed (%.2fx the budget)",
				variant, ran.Load(), refused.Load(), billed>>20, float64(billed)/float64(250<<20))
			if variant == "redis" && (ran.Load() != 2 || refused.Load() != 48) {
				t.Errorf("%d ran and %d were refused; want exactly the 2 the fleet's budget holds", ran.Load(), refused.Load())
			}
		})
	}
}
