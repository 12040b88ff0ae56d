package integration_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
	"github.com/bigquery-mcp/bigquery-mcp/server"
)

// The emulator and the server binary are shared by every test: starting the
// emulator and building the binary are the slow parts.
var (
	emu       *emulator.Emulator
	serverBin string
)

// protocolVersions are the two protocol eras clients speak: what hosts use
// today, and the SDK's default.
var protocolVersions = []string{"2025-06-18", ""}

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	if path := os.Getenv(shopEmulatorEnv); path != "" {
		return serveShopEmulator(path)
	}
	ctx := context.Background()
	var err error
	emu, err = emulator.Start(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting emulator:", err)
		return 1
	}
	defer emu.Close()
	dir, err := os.MkdirTemp("", "bqmcp-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	serverBin = filepath.Join(dir, "bigquery-mcp")
	// Built from the main module as releases are (the Makefile's build
	// tags; packaging/release holds the release configs to them).
	build := exec.Command("go", "build", "-tags=grpcnotrace", "-o", serverBin, "./cmd/bigquery-mcp")
	build.Dir = ".."
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building server: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// recorder is an HTTP transport that records every request the server sends
// to BigQuery, so tests can assert what did (and did not) reach the wire.
type recorder struct {
	base   http.RoundTripper
	mu     sync.Mutex
	reqs   []string // "METHOD /path?query"
	bodies map[string]string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, req.Method+" "+req.URL.Path+"?"+req.URL.RawQuery)
	if r.bodies == nil {
		r.bodies = map[string]string{}
	}
	r.bodies[req.URL.Path] = string(body)
	r.mu.Unlock()
	return r.base.RoundTrip(req)
}

// lastBody is the body of the last request to a path ending in suffix.
func (r *recorder) lastBody(suffix string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for p, b := range r.bodies {
		if strings.HasSuffix(p, suffix) && !strings.Contains(b, `"dryRun":true`) {
			return b
		}
	}
	return ""
}

// withQuery reports whether a request to a path containing pathPart carried
// the query parameter param=value.
func (r *recorder) withQuery(pathPart, param, value string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.reqs {
		_, pq, _ := strings.Cut(s, " ")
		p, q, _ := strings.Cut(pq, "?")
		vals, _ := url.ParseQuery(q)
		if strings.Contains(p, pathPart) && vals.Get(param) == value {
			return true
		}
	}
	return false
}

func (r *recorder) count(method, pathSuffix string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, s := range r.reqs {
		m, p, _ := strings.Cut(s, " ")
		p, _, _ = strings.Cut(p, "?")
		if m == method && strings.HasSuffix(p, pathSuffix) {
			n++
		}
	}
	return n
}

// testConfig is the server configuration the in-memory tests use.
func testConfig() server.Config {
	cfg := server.Defaults()
	cfg.Project = emulator.Project
	cfg.Endpoint = emu.URL
	cfg.Auth = auth.None
	cfg.Version = "test"
	return cfg
}

// connect builds a server from cfg and connects an in-memory client.
func connect(t *testing.T, cfg server.Config, protocol string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	b, err := server.Build(ctx, cfg)
	if err != nil {
		t.Fatalf("building server: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	ct, st := mcp.NewInMemoryTransports()
	ss, err := b.MCP.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	t.Cleanup(func() { ss.Close() })
	return clientSession(t, ct, protocol)
}

func clientSession(t *testing.T, tr mcp.Transport, protocol string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "integration-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	if protocol != "" {
		if got := cs.InitializeResult().ProtocolVersion; got != protocol {
			t.Fatalf("negotiated protocol %q, want %q", got, protocol)
		}
	}
	return cs
}

// connectStdio starts the real binary against the emulator and connects
// over stdio, as Claude Code does.
func connectStdio(t *testing.T, protocol string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(serverBin, append([]string{"stdio", "--endpoint", emu.URL, "--project", emulator.Project}, args...)...)
	cmd.Stderr = &logBuffer{t: t}
	return clientSession(t, &mcp.CommandTransport{Command: cmd}, protocol)
}

// startStdio starts the real binary over stdio with args (those after
// "stdio") and connects as a host does, keeping the server's stdin open,
// so that only a signal, or the test's end, stops it.
func startStdio(t *testing.T, args ...string) (*exec.Cmd, *mcp.ClientSession) {
	t.Helper()
	cmd := exec.Command(serverBin, append([]string{"stdio"}, args...)...)
	cmd.Stderr = &logBuffer{t: t}
	stdin, stdout := startPiped(t, cmd)
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, clientSession(t, &mcp.IOTransport{Reader: stdout, Writer: stdin}, "2025-06-18")
}

// startPiped starts cmd with pipes to its stdin and from its stdout.
func startPiped(t *testing.T, cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdin, stdout
}

// logBuffer sends the server's stderr to the test log.
type logBuffer struct{ t *testing.T }

func (l *logBuffer) Write(p []byte) (int, error) {
	l.t.Logf("server: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", tool, err)
	}
	return res
}

// ok calls a tool that must succeed and decodes its structured result.
func ok[T any](t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) T {
	t.Helper()
	res := call(t, cs, tool, args)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", tool, args, text(res))
	}
	// Decode the text content: it is the exact JSON the server wrote (the
	// client re-encodes structured content as a map, losing key order).
	var out T
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil {
		t.Fatalf("%s: text content is not the result JSON: %v", tool, err)
	}
	// Structured content must carry the same value.
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var fromText, fromStructured any
	json.Unmarshal([]byte(text(res)), &fromText)
	if err := json.Unmarshal(b, &fromStructured); err != nil || !reflect.DeepEqual(fromText, fromStructured) {
		t.Fatalf("%s: structured content differs from the text content", tool)
	}
	return out
}

// fails calls a tool that must fail and returns the structured error.
func fails(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) bqerr.Error {
	t.Helper()
	res := call(t, cs, tool, args)
	if !res.IsError {
		t.Fatalf("%s(%v) succeeded, want an error: %s", tool, args, text(res))
	}
	var e bqerr.Error
	if err := json.Unmarshal([]byte(text(res)), &e); err != nil {
		t.Fatalf("%s: error content is not structured JSON: %v\n%s", tool, err, text(res))
	}
	if e.Code == "" || e.Message == "" || e.Details.HelpURL == "" {
		t.Errorf("%s: error lacks code, message or helpUrl: %s", tool, text(res))
	}
	assertSafe(t, text(res))
	return e
}

// assertSafe checks agent-facing text for things that must never reach a model.
func assertSafe(t *testing.T, s string) {
	t.Helper()
	for _, bad := range []string{"?alt=", "?key=", "access_token", "ya29.", "Bearer ", "goroutine ", ".go:", "prettyPrint"} {
		if strings.Contains(s, bad) {
			t.Errorf("agent-facing text contains %q: %s", bad, s)
		}
	}
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
