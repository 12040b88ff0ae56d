package server

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/observability"
)

// connect serves s to an in-memory client speaking version ("" for the
// SDK's default) and returns the client session.
func connect(t *testing.T, s *mcp.Server, version string, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, copts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

var allLevels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// The MCP Inspector's first request, logging/setLevel, crashed the server:
// go-sdk logs `"level", <mcp.LoggingLevel>` through the server's logger.
// Every level is accepted, logged, and the session keeps serving.
func TestSetLevelEveryLevel(t *testing.T) {
	var logs syncBuffer
	log := observability.NewLogger(&logs, observability.LogOptions{Level: slog.LevelDebug, Redact: bqerr.Redact})
	cs := connect(t, New(Services{}, Config{Logger: log}), "2025-06-18", nil)
	ctx := context.Background()
	for _, l := range allLevels {
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: l}); err != nil {
			t.Errorf("setLevel %s: %v", l, err)
		}
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("tools/list after setLevel: %v", err)
	}
	var set []string
	for _, l := range parseLines(t, logs.String()) {
		if l["message"] == "client log level set" {
			set = append(set, l["level"].(string))
			if l["severity"] != "INFO" {
				t.Errorf("line %v: severity %v", l, l["severity"])
			}
		}
	}
	if strings.Join(set, ",") != "debug,info,notice,warning,error,critical,alert,emergency" {
		t.Errorf("levels logged: %v\n%s", set, logs.String())
	}
}

// panicOnLevel is a log handler that fails when the SDK reports a level
// change: a broken logger inside a method handler.
type panicOnLevel struct{ slog.Handler }

func (h panicOnLevel) Handle(ctx context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "log level") {
		panic("logger broke")
	}
	return h.Handler.Handle(ctx, r)
}

func (h panicOnLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return panicOnLevel{h.Handler.WithAttrs(as)}
}

// A panic inside any method handler (here the SDK's own logging/setLevel,
// through a logger that panics) is a JSON-RPC internal error for that
// request, and the session goes on.
func TestPanicInMethodHandlerIsInternalError(t *testing.T) {
	var logs syncBuffer
	log := slog.New(panicOnLevel{slog.NewJSONHandler(&logs, nil)})
	cs := connect(t, New(Services{}, Config{Logger: log}), "2025-06-18", nil)
	ctx := context.Background()
	err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError {
		t.Fatalf("setLevel through a panicking logger: %v, want code %d", err, jsonrpc.CodeInternalError)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("the session died: %v", err)
	}
}

// RecoverMethods catches a panic in any method, and logs the panic with
// the place it happened (no stack trace, no argument values).
func TestRecoverMethods(t *testing.T) {
	var logs syncBuffer
	log := observability.NewLogger(&logs, observability.LogOptions{Redact: bqerr.Redact})
	s := mcp.NewServer(&mcp.Implementation{Name: "probe"}, nil)
	s.AddReceivingMiddleware(RecoverMethods(log), func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" || method == "ping" {
				var m map[string]int
				m["boom"]++ // a real runtime panic
			}
			return next(ctx, method, req)
		}
	})
	for _, version := range []string{"2025-06-18", ""} {
		cs := connect(t, s, version, nil)
		ctx := context.Background()
		_, err := cs.ListTools(ctx, nil)
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError || strings.Contains(rpcErr.Message, "nil map") {
			t.Fatalf("%q: tools/list: %v", version, err)
		}
		if version != "" { // ping is gone from the new protocol
			if err := cs.Ping(ctx, nil); !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError {
				t.Errorf("%q: ping: %v", version, err)
			}
		}
	}
	lines := parseLines(t, logs.String())
	if len(lines) < 2 {
		t.Fatalf("log:\n%s", logs.String())
	}
	l := lines[0]
	at, _ := l["at"].(string)
	if l["severity"] != "ERROR" || l["method"] != "tools/list" || !strings.Contains(l["panic"].(string), "nil map") ||
		!strings.Contains(at, "server.TestRecoverMethods") || l["stack"] != nil {
		t.Errorf("panic line = %v", l)
	}
	if strings.Contains(logs.String(), "goroutine ") {
		t.Errorf("raw goroutine dump in the log:\n%s", logs.String())
	}
}
