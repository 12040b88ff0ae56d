package server

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
)

const runningJobID = "bqmcp_running_job"

// runningBigQuery serves a query job that runs until done is closed:
// jobs.query answers early with jobComplete false, getQueryResults long
// polls up to its timeoutMs, jobs.get says RUNNING with bytes read so far.
// The fake is in process (its Transport), so the test can run in a
// synctest bubble.
func runningBigQuery(t *testing.T, done <-chan struct{}) *bqfake.Fake {
	t.Helper()
	fake := bqfake.New(t, bqfake.InProcess())
	finished := func(r *bqfake.Request, wait time.Duration) bool {
		select {
		case <-done:
			return true
		case <-time.After(wait):
		case <-r.HTTP.Context().Done():
		}
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
	ref := &bq.JobReference{ProjectId: "p", JobId: runningJobID, Location: "US"}
	answer := func(r *bqfake.Request, wait time.Duration) (any, error) {
		if !finished(r, wait) {
			return &bq.QueryResponse{JobReference: ref}, nil
		}
		return &bq.QueryResponse{JobReference: ref, JobComplete: true, TotalRows: 1,
			Schema: &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "n", Type: "INTEGER"}}},
			Rows:   []*bq.TableRow{{F: []*bq.TableCell{{V: "42"}}}}}, nil
	}
	ours := func(r *bqfake.Request) bool { return r.JobID == runningJobID }
	fake.On(bqfake.JobsQuery).ReplyFunc(func(r *bqfake.Request) (any, error) { return answer(r, 100*time.Millisecond) })
	fake.On(bqfake.JobsGetQueryResults).When(ours).ReplyFunc(func(r *bqfake.Request) (any, error) {
		ms, _ := strconv.Atoi(r.Query.Get("timeoutMs"))
		return answer(r, time.Duration(ms)*time.Millisecond)
	})
	fake.On(bqfake.JobsGet).When(ours).ReplyFunc(func(*bqfake.Request) (any, error) {
		return &bq.Job{JobReference: ref, Status: &bq.JobStatus{State: "RUNNING"},
			Statistics: &bq.JobStatistics{CreationTime: time.Now().Add(-2 * time.Second).UnixMilli(), TotalBytesProcessed: 4096}}, nil
	})
	return fake
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
			synctest.Test(t, func(t *testing.T) {
				done := make(chan struct{})
				fake := runningBigQuery(t, done)
				cfg := Defaults()
				cfg.Project, cfg.Endpoint, cfg.Auth = "p", fake.URL, auth.None
				cfg.Transport = fake.Transport()
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
				time.AfterFunc(1500*time.Millisecond, func() { close(done) })
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
		})
	}
}
