package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
)

const runningJobID = "bqmcp_running_job"

// runningBigQuery serves a query job that runs until done is closed:
// jobs.query answers early with jobComplete false, getQueryResults long
// polls up to its timeoutMs, jobs.get says RUNNING with bytes read so far.
type runningBigQuery struct {
	done chan struct{}
}

func (f *runningBigQuery) finished(r *http.Request, wait time.Duration) bool {
	select {
	case <-f.done:
		return true
	case <-time.After(wait):
	case <-r.Context().Done():
	}
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

func (f *runningBigQuery) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	ref := map[string]any{"projectId": "p", "jobId": runningJobID, "location": "US"}
	done := map[string]any{"jobReference": ref, "jobComplete": true, "totalRows": "1",
		"schema": map[string]any{"fields": []any{map[string]any{"name": "n", "type": "INTEGER"}}},
		"rows":   []any{map[string]any{"f": []any{map[string]any{"v": "42"}}}}}
	running := map[string]any{"jobReference": ref, "jobComplete": false}
	var out any
	switch p := r.URL.Path; {
	case r.Method == http.MethodPost && p == "/projects/p/queries":
		out = running
		if f.finished(r, 100*time.Millisecond) {
			out = done
		}
	case r.Method == http.MethodGet && p == "/projects/p/queries/"+runningJobID:
		ms, _ := strconv.Atoi(r.URL.Query().Get("timeoutMs"))
		out = running
		if f.finished(r, time.Duration(ms)*time.Millisecond) {
			out = done
		}
	case r.Method == http.MethodGet && p == "/projects/p/jobs/"+runningJobID:
		out = map[string]any{"jobReference": ref, "status": map[string]any{"state": "RUNNING"},
			"statistics": map[string]any{"creationTime": strconv.FormatInt(time.Now().Add(-2*time.Second).UnixMilli(), 10), "totalBytesProcessed": "4096"}}
	default:
		w.WriteHeader(http.StatusNotFound)
		out = map[string]any{"error": map[string]any{"code": 404, "message": "no fake for " + r.Method + " " + p, "errors": []any{map[string]any{"reason": "notFound"}}}}
	}
	json.NewEncoder(w).Encode(out)
}

// progressLog collects the progress notifications a client receives.
type progressLog struct {
	mu  sync.Mutex
	got []*mcp.ProgressNotificationParams
}

func (l *progressLog) handler(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, req.Params)
}

func (l *progressLog) all() []*mcp.ProgressNotificationParams {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*mcp.ProgressNotificationParams(nil), l.got...)
}

// drain returns once the clients of s have handled every notification s
// sent them so far. A client handles notifications one at a time in the
// order they came, and a request only after them; a tool's result is a
// response, which skips that queue, so the client can hold the result
// before its handlers saw the notifications sent ahead of it. A ping from
// the server goes through the queue: when its answer is back, everything
// before it was handled.
func drain(t *testing.T, s *mcp.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for ss := range s.Sessions() {
		if err := ss.Ping(ctx, nil); err != nil {
			t.Fatalf("ping the client: %v", err)
		}
	}
}

// A client that sends a progressToken with execute_sql hears of the running
// job while the call waits for it, on both protocol eras; a call without a
// token hears nothing.
func TestProgressNotificationsWhileQueryRuns(t *testing.T) {
	for _, version := range []string{"2025-06-18", ""} {
		t.Run("protocol="+version, func(t *testing.T) {
			fake := &runningBigQuery{done: make(chan struct{})}
			srv := httptest.NewServer(fake)
			t.Cleanup(srv.Close)
			cfg := Defaults()
			cfg.Project, cfg.Endpoint, cfg.Auth = "p", srv.URL, auth.None
			cfg.AllowWrites = true // no dry run: the fake answers only the query path
			b, err := Build(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			var log progressLog
			cs := connect(t, b.MCP, version, &mcp.ClientOptions{ProgressNotificationHandler: log.handler})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()

			// Without a token: the wait ends while the job runs, and
			// no notification is sent.
			plain := &mcp.CallToolParams{Name: "execute_sql", Arguments: map[string]any{"sql": "SELECT n FROM t", "waitSeconds": 1}}
			res, err := cs.CallTool(ctx, plain)
			if err != nil || res.IsError {
				t.Fatalf("execute_sql without token: %v %+v", err, res)
			}
			if text, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(text), `"jobComplete":false`) {
				t.Fatalf("execute_sql without token = %s, want jobComplete false while the job runs", text)
			}
			drain(t, b.MCP)
			if got := log.all(); len(got) != 0 {
				t.Fatalf("%d progress notifications for a call without a progressToken", len(got))
			}

			params := &mcp.CallToolParams{Name: "execute_sql", Arguments: map[string]any{"sql": "SELECT n FROM t", "waitSeconds": 10}}
			params.SetProgressToken("query-1")
			time.AfterFunc(1500*time.Millisecond, func() { close(fake.done) })
			res, err = cs.CallTool(ctx, params)
			if err != nil {
				t.Fatalf("execute_sql: %v", err)
			}
			if res.IsError {
				t.Fatalf("execute_sql failed: %+v", res.Content)
			}
			text, _ := json.Marshal(res.StructuredContent)
			if !strings.Contains(string(text), `"jobComplete":true`) || !strings.Contains(string(text), "42") {
				t.Errorf("result %s, want the finished job's row", text)
			}
			drain(t, b.MCP)
			got := log.all()
			if len(got) == 0 {
				t.Fatal("no notifications/progress reached the client that sent a progressToken")
			}
			for i, p := range got {
				if p.ProgressToken != "query-1" {
					t.Errorf("notification %d has token %v, want query-1 (a call without a token must get none)", i, p.ProgressToken)
				}
				if !strings.Contains(p.Message, runningJobID) || !strings.Contains(p.Message, "RUNNING") || !strings.Contains(p.Message, "4096 bytes") {
					t.Errorf("notification %d message %q, want the job ID, its state and bytes so far", i, p.Message)
				}
				if i > 0 && p.Progress <= got[i-1].Progress {
					t.Errorf("progress went from %v to %v; it must grow", got[i-1].Progress, p.Progress)
				}
			}
		})
	}
}
