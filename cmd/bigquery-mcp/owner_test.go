package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/auth/clientauth"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/server"
)

// jobsBigQuery is a fake BigQuery REST API with three kinds of query:
// "SELECT 'running'" runs until cancelled, "SELECT 'failed'" fails after
// its first answer, any other finishes at once.
func jobsBigQuery(t *testing.T) *bqfake.Fake {
	t.Helper()
	fake := bqfake.New(t)
	fake.QueryResult(bqfake.Columns("n INTEGER"), bqfake.Row("1"))
	fake.OnJob(func(job *bq.Job) {
		job.Statistics = &bq.JobStatistics{TotalBytesProcessed: 10, Query: &bq.JobStatistics2{StatementType: "SELECT", TotalBytesProcessed: 10}}
		if job.Configuration.DryRun {
			job.Statistics.Query.ReferencedTables = []*bq.TableReference{{ProjectId: "p", DatasetId: "sales", TableId: "t"}}
			return
		}
		job.Statistics.Query.TotalBytesBilled = 10
		if q := job.Configuration.Query.Query; strings.Contains(q, "running") || strings.Contains(q, "failed") {
			job.Status.State = "RUNNING"
		}
	})
	// The failed query's job fails once jobs.query has answered.
	fake.On(bqfake.Any).When(func(r *bqfake.Request) bool { return r.JobID != "" }).ReplyFunc(func(r *bqfake.Request) (any, error) {
		fake.UpdateJob(r.JobID, func(job *bq.Job) {
			if strings.Contains(job.Configuration.Query.Query, "failed") {
				job.Status = &bq.JobStatus{State: "DONE", ErrorResult: &bq.ErrorProto{Reason: "invalidQuery", Message: "Division by zero: 1 / 0"}}
			}
		})
		return nil, nil
	})
	return fake
}

// requestsFor counts the requests naming job id.
func requestsFor(fake *bqfake.Fake, id string) int {
	n := 0
	for _, r := range fake.Requests(bqfake.Any) {
		if r.JobID == id {
			n++
		}
	}
	return n
}

// cancelled says whether job id was cancelled.
func cancelled(fake *bqfake.Fake, id string) bool {
	for _, r := range fake.Requests(bqfake.JobsCancel) {
		if r.JobID == id {
			return true
		}
	}
	return false
}

// bearer adds a bearer token to every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestJobsBelongToTheirCallerOverHTTP is issue 24's trial on one HTTP
// instance with --client-auth token and two tokens: B's get_job,
// get_query_results and cancel_job on A's running, finished and failed
// jobs answer exactly as for a job ID that names no job, with no request
// naming the job and nothing cancelled; A's own calls work.
func TestJobsBelongToTheirCallerOverHTTP(t *testing.T) {
	fake := jobsBigQuery(t)
	const tokenA, tokenB = "alice-token-0123456789", "bob-token-0123456789"
	s, err := parseArgs([]string{"http", "--client-auth", "token", "--client-tokens", tokenA + "," + tokenB,
		"--endpoint", fake.URL, "--project", "p"}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !s.multiPrincipal() {
		t.Fatal("HTTP with token client auth is not multi-principal")
	}
	ctx, stop := context.WithCancel(context.Background())
	s.Stateless, s.MultiPrincipal = true, s.multiPrincipal()
	backend, err := server.Build(ctx, s.Config)
	if err != nil {
		t.Fatal(err)
	}
	guard, err := clientauth.New(ctx, s.client)
	if err != nil {
		t.Fatal(err)
	}
	bound, done := make(chan net.Addr, 1), make(chan error, 1)
	h := &httpServer{addr: "127.0.0.1:0", limits: testLimits(), guard: guard, log: slog.New(slog.DiscardHandler), listening: func(a net.Addr) { bound <- a }}
	go func() { done <- h.serve(ctx, backend.MCP, func() bool { return true }) }()
	addr := <-bound
	t.Cleanup(func() {
		stop()
		<-done
		backend.Close()
	})
	connect := func(token string) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: "http://" + addr.String() + "/mcp", HTTPClient: &http.Client{Transport: bearer(token)}},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	alice, bob := connect(tokenA), connect(tokenB)
	call := func(cs *mcp.ClientSession, tool string, args map[string]any) (text string, isError bool) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}

	jobs := map[string]string{}
	for _, kind := range []string{"finished", "running", "failed"} {
		text, isErr := call(alice, "execute_sql", map[string]any{"sql": "SELECT '" + kind + "' AS n FROM sales.t", "waitSeconds": 1})
		// A failed job's ID comes with its error.
		var out struct {
			JobID   string `json:"jobId"`
			Details struct {
				JobID string `json:"jobId"`
			} `json:"details"`
		}
		if json.Unmarshal([]byte(text), &out) != nil || out.JobID+out.Details.JobID == "" || isErr != (kind == "failed") {
			t.Fatalf("alice's %s query: %s", kind, text)
		}
		jobs[kind] = out.JobID + out.Details.JobID
	}

	const missing = "job_missing_0"
	tools := []string{"get_job", "get_query_results", "cancel_job"}
	want := map[string]string{}
	for _, tool := range tools {
		text, isErr := call(bob, tool, map[string]any{"jobId": missing})
		if !isErr || !strings.Contains(text, "NOT_FOUND") {
			t.Fatalf("bob's %s of a missing job = %s, want NOT_FOUND", tool, text)
		}
		want[tool] = strings.ReplaceAll(text, missing, "ID")
	}
	for kind, id := range jobs {
		before := requestsFor(fake, id)
		for _, tool := range tools {
			text, isErr := call(bob, tool, map[string]any{"jobId": id})
			if got := strings.ReplaceAll(text, id, "ID"); !isErr || got != want[tool] {
				t.Errorf("bob's %s of alice's %s job answers\n%s\nnot as for a missing job:\n%s", tool, kind, got, want[tool])
			}
		}
		if n := requestsFor(fake, id) - before; n != 0 {
			t.Errorf("bob's calls on alice's %s job made %d BigQuery requests naming it", kind, n)
		}
	}
	if cancelled(fake, jobs["running"]) {
		t.Error("bob cancelled alice's running job")
	}

	if text, isErr := call(alice, "get_query_results", map[string]any{"jobId": jobs["finished"]}); isErr || !strings.Contains(text, `"jobComplete":true`) {
		t.Errorf("alice's get_query_results of her finished job: %s", text)
	}
	if text, isErr := call(alice, "get_job", map[string]any{"jobId": jobs["failed"]}); isErr || !strings.Contains(text, "Division by zero") {
		t.Errorf("alice's get_job of her failed job: %s", text)
	}
	if text, isErr := call(alice, "cancel_job", map[string]any{"jobId": jobs["running"]}); isErr {
		t.Errorf("alice's cancel_job: %s", text)
	}
	if !cancelled(fake, jobs["running"]) {
		t.Error("alice could not cancel her running job")
	}
}

// TestMultiPrincipalOnlyWithClientAuth: only HTTP with client
// authentication serves several principals; stdio and unauthenticated
// HTTP serve one, and read jobs as before.
func TestMultiPrincipalOnlyWithClientAuth(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"stdio"}, false},
		{[]string{"http", "--addr", "127.0.0.1:8080"}, false},
		{[]string{"http", "--client-auth", "token", "--client-tokens", "a-token-0123456789"}, true},
		{[]string{"http", "--client-auth", "google", "--client-audience", "https://x.run.app", "--allowed-principals", "a@example.com"}, true},
	} {
		s, err := parseArgs(c.args, env(nil))
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if got := s.multiPrincipal(); got != c.want {
			t.Errorf("%v: multiPrincipal = %v, want %v", c.args, got, c.want)
		}
	}
}
