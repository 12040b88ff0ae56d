package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// newFakeBigQuery serves the REST calls of list_datasets and
// get_table_schema: dataset sales lists, and any table is missing, with a
// token in BigQuery's message.
func newFakeBigQuery(t *testing.T) *bqfake.Fake {
	t.Helper()
	fake := bqfake.New(t)
	fake.AddDataset("sales", "US")
	fake.On(bqfake.TablesGet).FailWith(bqfake.Errorf(http.StatusNotFound, "notFound", "Not found: Table p:sales.missing access_token=ya29.leakedtoken"))
	return fake
}

// buildFake builds the real server against fake BigQuery: one attempt per
// metadata call, a breaker that opens on the first backend failure, and a
// cache that is stale at once.
func buildFake(t *testing.T) (*Backend, *bqfake.Fake) {
	t.Helper()
	fake := newFakeBigQuery(t)
	cfg := Defaults()
	cfg.Project, cfg.Endpoint, cfg.Auth = "p", fake.URL, auth.None
	p := resilience.Policy{Attempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, Multiplier: 1}
	for _, op := range resilience.Operations() {
		cfg.Resilience.Retry[op] = p
	}
	cfg.Resilience.Breaker = resilience.Breaker{Failures: 1, Open: time.Hour, Successes: 1}
	cfg.Cache.TTL = time.Nanosecond
	b, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, fake
}

// messages collects the notifications/message a client receives.
type messages struct {
	mu   sync.Mutex
	got  []*mcp.LoggingMessageParams
	seen chan struct{}
}

func newMessages() *messages { return &messages{seen: make(chan struct{}, 100)} }

func (m *messages) handler(_ context.Context, req *mcp.LoggingMessageRequest) {
	m.mu.Lock()
	m.got = append(m.got, req.Params)
	m.mu.Unlock()
	m.seen <- struct{}{}
}

// waitFor waits until a message containing text arrived (or fails).
func (m *messages) waitFor(t *testing.T, text string) *mcp.LoggingMessageParams {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		m.mu.Lock()
		for _, p := range m.got {
			if b, _ := json.Marshal(p.Data); strings.Contains(string(b), text) {
				m.mu.Unlock()
				return p
			}
		}
		m.mu.Unlock()
		select {
		case <-m.seen:
		case <-deadline:
			t.Fatalf("no notification containing %q; got %s", text, m.dump())
			return nil
		}
	}
}

func (m *messages) dump() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, _ := json.Marshal(m.got)
	return string(b)
}

// The logging capability works under both protocols: once a client asked
// for a level, it hears of failed calls (by code), exhausted retries, stale
// metadata, an opened breaker and a refused call; redacted, and nothing
// below its level.
func TestClientLogging(t *testing.T) {
	for _, c := range []struct {
		name, version string
		modern        bool // 2026-07-28: the level travels in each request's _meta
	}{
		{"2025-06-18", "2025-06-18", false},
		{"default", "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, fake := buildFake(t)
			msgs := newMessages()
			cs := connect(t, b.MCP, c.version, &mcp.ClientOptions{LoggingMessageHandler: msgs.handler})
			ctx := context.Background()
			var meta mcp.Meta
			setLevel := func(level mcp.LoggingLevel) {
				if c.modern {
					meta = mcp.Meta{mcp.MetaKeyLogLevel: string(level)}
				} else if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: level}); err != nil {
					t.Fatal(err)
				}
			}
			call := func(tool string, args map[string]any) *mcp.CallToolResult {
				t.Helper()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Meta: meta, Name: tool, Arguments: args})
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				return res
			}

			// No level set: nothing is sent, even for a failure.
			call("get_table_schema", map[string]any{"table": "sales.missing"})
			// Above the level of a NOT_FOUND (warning): still nothing.
			setLevel("error")
			call("get_table_schema", map[string]any{"table": "sales.missing"})
			// Whether those two calls sent anything is checked at the end:
			// the client handles notifications in the order they were
			// sent, so by the time the last one arrived, any of theirs had
			// arrived too.

			setLevel("warning")
			if res := call("get_table_schema", map[string]any{"table": "sales.missing"}); !res.IsError {
				t.Fatal("a missing table succeeded")
			}
			m := msgs.waitFor(t, "get_table_schema failed with NOT_FOUND")
			if m.Level != "warning" || m.Logger != "bigquery-mcp" {
				t.Errorf("failure notification: level %q logger %q", m.Level, m.Logger)
			}
			if res := call("list_datasets", nil); res.IsError {
				t.Fatalf("list_datasets: %v", res.Content)
			}

			// BigQuery goes down: retries run out, stale metadata is
			// served, the breaker opens, the next call is refused.
			fake.On(bqfake.DatasetsList).FailWith(bqfake.Errorf(http.StatusServiceUnavailable, "backendError", "backend error"))
			if res := call("list_datasets", nil); res.IsError {
				t.Fatalf("stale list_datasets failed: %v", res.Content)
			}
			msgs.waitFor(t, "BigQuery failed 2 times in a row (UNAVAILABLE)")
			msgs.waitFor(t, "serving metadata cached")
			if !c.modern { // no request to carry a _meta level: sessions that set one hear it
				msgs.waitFor(t, "circuit breaker opened for BigQuery project p: calls fail at once")
			}
			before := fake.Count(bqfake.Any)
			if res := call("list_tables", map[string]any{"dataset": "sales"}); !res.IsError {
				t.Fatal("list_tables through an open breaker succeeded")
			}
			if fake.Count(bqfake.Any) != before {
				t.Error("the open breaker let a request through")
			}
			msgs.waitFor(t, "circuit breaker open for BigQuery project p: the call was refused without being sent")
			msgs.waitFor(t, "list_tables failed with UNAVAILABLE")

			all := msgs.dump()
			if n := strings.Count(all, "get_table_schema failed with NOT_FOUND"); n != 1 {
				t.Errorf("%d NOT_FOUND notifications, want 1 (none before the client listened at warning): %s", n, all)
			}
			for _, leak := range []string{"ya29.", "leakedtoken", "SELECT", "goroutine"} {
				if strings.Contains(all, leak) {
					t.Errorf("notification leaks %q: %s", leak, all)
				}
			}
			if !strings.Contains(all, "[REDACTED]") {
				t.Errorf("the token in BigQuery's message was not visibly redacted: %s", all)
			}
			var levels []string
			msgs.mu.Lock()
			for _, p := range msgs.got {
				levels = append(levels, string(p.Level))
			}
			msgs.mu.Unlock()
			for _, l := range levels {
				if l != "warning" {
					t.Errorf("a %s notification reached a client listening at warning: %s", l, all)
				}
			}
		})
	}
}
