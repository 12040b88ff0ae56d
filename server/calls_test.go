package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mcpauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

func TestShedFailsFastBeyondTheLimit(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 2)
	slow := Shed(1)("execute_sql", func(ctx context.Context, _ *mcp.CallToolRequest) (any, error) {
		entered <- struct{}{}
		<-release
		return "done", nil
	})
	first := make(chan struct{})
	go func() {
		defer close(first)
		slow(context.Background(), &mcp.CallToolRequest{})
	}()
	<-entered
	start := time.Now()
	_, err := slow(context.Background(), &mcp.CallToolRequest{})
	var e *bqerr.Error
	if !errors.As(err, &e) || e.Code != bqerr.Unavailable || !e.Retryable || !strings.Contains(e.Message, "busy") {
		t.Fatalf("second call: %v", err)
	}
	if time.Since(start) > 100*time.Millisecond {
		t.Errorf("the busy answer took %v: it must not queue", time.Since(start))
	}
	health := Shed(1)("health", func(context.Context, *mcp.CallToolRequest) (any, error) { return "ok", nil })
	if _, err := health(context.Background(), &mcp.CallToolRequest{}); err != nil {
		t.Errorf("health shed: %v", err)
	}
	close(release)
	<-first // its slot is free once it has returned
	if out, err := slow(context.Background(), &mcp.CallToolRequest{}); err != nil || out != "done" {
		t.Errorf("after the slot freed: %v %v", out, err)
	}
}

func TestIdentifyPutsTheCallerInContext(t *testing.T) {
	caller := auth.NewUserCaller("alice@example.com", "ya29.x", time.Now().Add(time.Hour))
	var got auth.Caller
	h := Identify()("list_datasets", func(ctx context.Context, _ *mcp.CallToolRequest) (any, error) {
		got = auth.CallerFrom(ctx)
		return nil, nil
	})
	h(context.Background(), &mcp.CallToolRequest{Extra: &mcp.RequestExtra{TokenInfo: caller.TokenInfo(time.Now().Add(time.Hour), nil)}})
	if got.Principal != "alice@example.com" || got.CredentialKey() != "user:alice@example.com" {
		t.Errorf("caller %+v", got)
	}
	got = auth.Caller{Principal: "stale"}
	h(context.Background(), &mcp.CallToolRequest{Extra: &mcp.RequestExtra{TokenInfo: &mcpauth.TokenInfo{}}})
	if got.Principal != "" {
		t.Errorf("without a verified caller: %+v", got)
	}
}

func TestJSONRPCErrorsAnswerRefusedRequests(t *testing.T) {
	sdk := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := make([]byte, 512)
		n, _ := r.Body.Read(body)
		switch {
		case strings.Contains(string(body[:n]), `"nope"`):
			http.Error(w, `JSON RPC not handled: "nope" unsupported`, http.StatusBadRequest)
		case strings.Contains(string(body[:n]), `"tools/call"`):
			http.Error(w, "missing params", http.StatusBadRequest)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
		}
	})
	h := JSONRPCErrors(sdk)
	for _, tc := range []struct{ body, wantCT, want string }{
		{`{"jsonrpc":"2.0","id":7,"method":"nope"}`, "application/json", `"code":-32601`},
		{`{"jsonrpc":"2.0","id":"a","method":"tools/call"}`, "application/json", `"code":-32600`},
		{`{"jsonrpc":"2.0","method":"nope"}`, "text/plain", "not handled"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "application/json", `"result":{}`},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(tc.body)))
		if !strings.HasPrefix(rec.Header().Get("Content-Type"), tc.wantCT) || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("%s: %d %s %q", tc.body, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
		if tc.wantCT == "application/json" && rec.Code != http.StatusOK {
			t.Errorf("%s: HTTP %d, want 200 with the JSON-RPC answer", tc.body, rec.Code)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"nope"}`)))
	if !strings.Contains(rec.Body.String(), `"id":7`) {
		t.Errorf("the error does not carry the request's id: %s", rec.Body)
	}
}

func TestSDKConnectionChatterIsDropped(t *testing.T) {
	var buf strings.Builder
	log := sdkLogger(slog.New(slog.NewTextHandler(&buf, nil)))
	log.Info("server session connected", "session_id", "")
	log.With("k", "v").Info("server connecting")
	log.Info("client log level set", "level", "debug")
	log.Warn("server session disconnected")
	if got := buf.String(); strings.Contains(got, "server connecting") || strings.Contains(got, "session connected") ||
		!strings.Contains(got, "client log level set") || !strings.Contains(got, "disconnected") {
		t.Errorf("logged:\n%s", got)
	}
}
