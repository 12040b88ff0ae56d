package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// session is a real go-sdk server behind Transport, driven line by line the
// way an MCP host drives the binary's stdin and stdout.
type session struct {
	t     testing.TB
	in    *io.PipeWriter
	lines chan string
	done  chan error
	dead  bool // the server stopped reading or writing
}

func startSession(t testing.TB, tr *Transport) *session {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tr.Reader, tr.Writer = inR, outW
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	type args struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "echoes"}, func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	s := &session{t: t, in: inW, lines: make(chan string, 16), done: make(chan error, 1)}
	go func() {
		s.done <- srv.Run(context.Background(), tr)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-s.done:
			if err != nil && !errors.Is(err, io.EOF) {
				t.Errorf("server ended with %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("server did not stop after stdin closed")
		}
	})
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if got := s.next(); !strings.Contains(got, `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize: %s", got)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *session) send(line string) {
	s.t.Helper()
	written := make(chan error, 1)
	go func() {
		_, err := io.WriteString(s.in, line+"\n")
		written <- err
	}()
	select {
	case err := <-written:
		if err != nil {
			s.t.Fatalf("writing to the server: %v", err)
		}
	case <-time.After(10 * time.Second):
		s.dead = true
		s.t.Fatal("the server stopped reading its input")
	}
}

func (s *session) next() string {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.dead = true
			s.t.Fatal("the server closed stdout")
		}
		return l
	case <-time.After(10 * time.Second):
		s.dead = true
		s.t.Fatal("no reply within 10s")
	}
	return ""
}

// pingAfter sends a ping and returns every line written before its reply,
// proving the server still serves.
func (s *session) pingAfter() []string {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	var before []string
	for {
		l := s.next()
		if l == `{"jsonrpc":"2.0","id":"after","result":{}}` {
			return before
		}
		before = append(before, l)
	}
}

type wireReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

const (
	parseError     = -32700
	invalidRequest = -32600
	methodNotFound = -32601
)

func TestMalformedLinesAreAnsweredAndServingContinues(t *testing.T) {
	s := startSession(t, &Transport{})
	deep := strings.Repeat("[", 50000) + strings.Repeat("]", 50000)
	nested := func(n int) string {
		return `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}`
	}
	for _, tc := range []struct {
		name, line string
		code       int64  // 0: no reply expected
		id         string // the reply's id as JSON
	}{
		{"invalid JSON", `not json`, parseError, "null"},
		{"truncated JSON", `{"jsonrpc":"2.0","id":1,"method":"pi`, parseError, "null"},
		{"two values on one line", `{"jsonrpc":"2.0","id":1,"method":"ping"} {"a":1}`, parseError, "null"},
		{"raw NUL after the message", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\x00", parseError, "null"},
		{"raw NUL inside a string", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi\x00ng\"}", parseError, "null"},
		{"a number", `42`, invalidRequest, "null"},
		{"a string", `"ping"`, invalidRequest, "null"},
		{"null", `null`, invalidRequest, "null"},
		{"not JSON-RPC", `{"foo":"bar"}`, invalidRequest, "null"},
		{"no jsonrpc member", `{"id":1,"method":"ping"}`, invalidRequest, "1"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":"v1","method":"ping"}`, invalidRequest, `"v1"`},
		{"member names in capitals", `{"JSONRPC":"2.0","ID":1,"METHOD":"ping"}`, invalidRequest, "null"},
		{"object as id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, invalidRequest, "null"},
		{"array as id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, invalidRequest, "null"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, invalidRequest, "null"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, invalidRequest, "null"},
		{"id beyond int64", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`, invalidRequest, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, invalidRequest, "null"},
		{"empty batch", `[]`, invalidRequest, "null"},
		{"50000 levels unclosed", strings.Repeat("[", 50000), invalidRequest, "null"},
		{"50000 levels", deep, invalidRequest, "null"},
		{"50000 levels in params", nested(50000), invalidRequest, "5"},
		{"900 levels in params", nested(900), invalidRequest, "5"},
		{"10 MB line", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 10<<20) + `"}}`, invalidRequest, "1"},
		{"10 MB line, string id", `{"jsonrpc":"2.0","id":"call-9","method":"tools/call","params":{"x":"` + strings.Repeat("a", 10<<20) + `"}}`, invalidRequest, `"call-9"`},
		{"10 MB response", `{"jsonrpc":"2.0","id":1,"result":{"x":"` + strings.Repeat("a", 10<<20) + `"}}`, invalidRequest, "null"},
		{"10 MB line, id after the window", `{"jsonrpc":"2.0","method":"ping","params":{"x":"` + strings.Repeat("a", 10<<20) + `"},"id":1}`, invalidRequest, "null"},
		{"900 levels, id after them", `{"jsonrpc":"2.0","method":"ping","params":{"a":` + strings.Repeat("[", 900) + strings.Repeat("]", 900) + `},"id":5}`, invalidRequest, "null"},
		{"method a number", `{"jsonrpc":"2.0","id":3,"method":5}`, invalidRequest, "3"},
		{"method null", `{"jsonrpc":"2.0","id":3,"method":null}`, invalidRequest, "3"},
		{"params an array", `{"jsonrpc":"2.0","id":4,"method":"ping","params":[1,2]}`, invalidRequest, "4"},
		{"params a string", `{"jsonrpc":"2.0","id":"p","method":"ping","params":"x"}`, invalidRequest, `"p"`},
		{"request with a result", `{"jsonrpc":"2.0","id":6,"method":"ping","result":{}}`, invalidRequest, "6"},
		{"notification with a bad method", `{"jsonrpc":"2.0","method":1,"params":"bar"}`, invalidRequest, "null"},
		{"response without id", `{"jsonrpc":"2.0","result":{}}`, invalidRequest, "null"},
		{"response with result and error", `{"jsonrpc":"2.0","id":8,"result":{},"error":{"code":1,"message":"x"}}`, invalidRequest, "null"},
		{"response with a string error", `{"jsonrpc":"2.0","id":8,"error":"x"}`, invalidRequest, "null"},
		// Valid messages reach the SDK and get its usual treatment.
		{"empty line", ``, 0, ""},
		{"blank line", " \t\r", 0, ""},
		{"CRLF line end", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\r", 0, ""},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/nothing"}`, 0, ""},
		{"response nobody asked for", `{"jsonrpc":"2.0","id":99,"result":{}}`, 0, ""},
		{"unknown method", `{"jsonrpc":"2.0","id":7,"method":"no/such"}`, methodNotFound, "7"},
	} {
		if s.dead {
			t.Fatal("the server is gone")
		}
		t.Run(tc.name, func(t *testing.T) {
			s.t = t
			s.send(tc.line)
			before := s.pingAfter()
			if tc.code == 0 {
				if len(before) != 0 {
					t.Errorf("want no reply, got %q", before)
				}
				return
			}
			if len(before) != 1 {
				t.Fatalf("want exactly one reply before the ping's, got %q", before)
			}
			var r wireReply
			if err := json.Unmarshal([]byte(before[0]), &r); err != nil {
				t.Fatalf("reply is not JSON: %q", before[0])
			}
			if r.JSONRPC != "2.0" || r.Error == nil || r.Error.Code != tc.code || r.Error.Message == "" {
				t.Errorf("reply = %s, want error code %d", before[0], tc.code)
			}
			if string(r.ID) != tc.id {
				t.Errorf("reply = %s, want id %s", before[0], tc.id)
			}
		})
	}
	s.t = t
	// And real work still gets done.
	s.send(`{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}`)
	if got := s.next(); !strings.Contains(got, `"id":"call"`) || !strings.Contains(got, "still here") {
		t.Errorf("tools/call after the bad lines: %s", got)
	}
}

func TestLimitsAreConfigurable(t *testing.T) {
	s := startSession(t, &Transport{MaxLineBytes: 1024, MaxDepth: 3})
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":[1]}}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":[[1]]}}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{},"x":"` + strings.Repeat("a", 950) + `"}}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 1000) + `"}}`, false},
	} {
		s.send(tc.line)
		got := s.next()
		if ok := got == `{"jsonrpc":"2.0","id":1,"result":{}}`; ok != tc.ok {
			t.Errorf("%.60s…: reply %s", tc.line, got)
		}
	}
}

func TestStdinClosingEndsTheSessionCleanly(t *testing.T) {
	s := startSession(t, &Transport{})
	s.in.Close()
	select {
	case err := <-s.done:
		if err != nil && !errors.Is(err, io.EOF) {
			t.Errorf("Run = %v", err)
		}
		s.done <- nil // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("the server kept running after stdin closed")
	}
}
