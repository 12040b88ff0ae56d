package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func testLimits() httpLimits {
	l := defaultHTTPLimits()
	l.read, l.idle = 300*time.Millisecond, 300*time.Millisecond
	l.drain, l.deliver, l.closeAll = 2*time.Second, 200*time.Millisecond, time.Second
	return l
}

// served is the binary's HTTP server on a free loopback port.
type served struct {
	addr string
	stop context.CancelFunc
	done chan error
	log  *syncBuffer
}

func serveTest(t *testing.T, limits httpLimits, origins []string, setup func(*mcp.Server)) *served {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	s := &served{stop: stop, done: make(chan error, 1), log: &syncBuffer{}}
	m := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	if setup != nil {
		setup(m)
	}
	bound := make(chan net.Addr, 1)
	h := &httpServer{addr: "127.0.0.1:0", limits: limits, allowedOrigins: origins,
		log: slog.New(slog.NewJSONHandler(s.log, nil)), listening: func(a net.Addr) { bound <- a }}
	go func() { s.done <- h.serve(ctx, m, func() bool { return true }) }()
	select {
	case a := <-bound:
		s.addr = a.String()
	case err := <-s.done:
		t.Fatalf("serve: %v", err)
	}
	t.Cleanup(func() {
		stop()
		<-s.done
	})
	return s
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func postInitialize(t *testing.T, addr string, header map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(initialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func TestSIGTERMCancelsToolCallsClosesStreamsAndExitsCleanly(t *testing.T) {
	started := make(chan struct{})
	var cancelled atomic.Bool
	// Room for a loaded machine to deliver the result and close the
	// streams: a server that never closed them would still wait out
	// closeAll and log "still open" below.
	limits := testLimits()
	limits.deliver, limits.closeAll = time.Second, 5*time.Second
	s := serveTest(t, limits, nil, func(m *mcp.Server) {
		mcp.AddTool(m, &mcp.Tool{Name: "wait", Description: "waits like a long query"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			close(started)
			select {
			case <-ctx.Done(): // the query service cancels the job here
				cancelled.Store(true)
				return nil, nil, fmt.Errorf("cancelled: %w", ctx.Err())
			case <-time.After(time.Minute):
				return nil, nil, errors.New("ran to the end")
			}
		})
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + s.addr + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	result := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait"})
		result <- res
	}()
	<-started
	begin := time.Now()
	s.stop() // what SIGTERM does in main
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("serve returned %v, want a clean stop", err)
		}
	case <-time.After(20 * time.Second):
		// The call it runs would hold it for a minute: stopping well
		// before proves the call was cancelled, with room for a loaded
		// machine.
		t.Fatalf("the server did not stop within 20s of SIGTERM")
	}
	s.done <- nil // for the cleanup
	t.Logf("stopped %s after SIGTERM", time.Since(begin))
	if !cancelled.Load() {
		t.Error("the running tool call was not cancelled")
	}
	if strings.Contains(s.log.String(), "still open") {
		t.Errorf("streams had to be dropped: %s", s.log.String())
	}
	select {
	case res := <-result:
		if res == nil || !res.IsError {
			t.Errorf("the cancelled call's result did not reach the client: %+v", res)
		}
	case <-time.After(5 * time.Second):
		t.Error("the client never heard back about its call")
	}
}

func TestTrickledBodyIsCut(t *testing.T) {
	s := serveTest(t, testLimits(), nil, nil)
	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", s.addr)
	go func() { // one byte every 100 ms: 100 s for the whole body
		for {
			time.Sleep(100 * time.Millisecond)
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
		}
	}()
	begin := time.Now()
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("the connection was held: %v", err)
	}
	// Either an error status (go-sdk answers a body it could not read
	// with 400) or a closed connection.
	if line != "" && !strings.HasPrefix(line, "HTTP/1.1 4") {
		t.Errorf("response %q", line)
	}
	if d := time.Since(begin); d > 2*time.Second {
		t.Errorf("a trickled body held the connection for %s", d)
	}
}

func TestIdleKeepAliveConnectionIsClosed(t *testing.T) {
	s := serveTest(t, testLimits(), nil, nil)
	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", s.addr)
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	io.Copy(io.Discard, resp.Body)
	begin := time.Now()
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.ReadByte(); !errors.Is(err, io.EOF) {
		t.Fatalf("idle connection: %v, want it closed", err)
	}
	if d := time.Since(begin); d > 2*time.Second {
		t.Errorf("idle connection closed after %s", d)
	}
}

// The read timeout must not cut a tool call that streams for longer.
func TestLongCallOutlivesTheReadTimeout(t *testing.T) {
	s := serveTest(t, testLimits(), nil, func(m *mcp.Server) {
		mcp.AddTool(m, &mcp.Tool{Name: "slow", Description: "a query that runs a while"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			for i := range 5 { // 5 × 200 ms against a 300 ms read timeout
				select {
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				case <-time.After(200 * time.Millisecond):
				}
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i)})
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "finished"}}}, nil, nil
		})
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + s.addr + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "slow"}
	params.SetProgressToken("p")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "finished" {
		t.Errorf("long call: %+v, %v", res, err)
	}
}

func TestCrossOriginRequestsAreRefused(t *testing.T) {
	s := serveTest(t, testLimits(), []string{"https://trusted.example"}, nil)
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no browser headers (agents, CLIs)", nil, http.StatusOK},
		{"same origin", map[string]string{"Origin": "http://" + s.addr, "Sec-Fetch-Site": "same-origin"}, http.StatusOK},
		{"foreign origin", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"cross-site fetch", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"trusted origin", map[string]string{"Origin": "https://trusted.example", "Sec-Fetch-Site": "cross-site"}, http.StatusOK},
	} {
		if got := postInitialize(t, s.addr, tc.header); got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestBadAllowedOriginIsAStartupError(t *testing.T) {
	h := &httpServer{limits: testLimits(), allowedOrigins: []string{"not a url"}, log: slog.New(slog.DiscardHandler)}
	if _, err := h.handler(mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil), nil); err == nil {
		t.Error("want an error")
	}
}

func TestOversizedHeadersAreRefused(t *testing.T) {
	s := serveTest(t, testLimits(), nil, nil)
	req, _ := http.NewRequest(http.MethodGet, "http://"+s.addr+"/healthz", nil)
	req.Header.Set("X-Big", strings.Repeat("a", 200<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("status %d", resp.StatusCode)
	}
}

// Every shutdown wait together stays inside Cloud Run's 10 s grace period,
// with a second to spare for the process itself.
func TestShutdownBudgetFitsCloudRunGrace(t *testing.T) {
	l := defaultHTTPLimits()
	if total := l.drain + l.deliver + l.closeAll + shutdownFlush; total > 9*time.Second {
		t.Errorf("worst-case shutdown %s", total)
	}
}
