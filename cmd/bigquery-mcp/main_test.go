package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The binary's stdio wiring answers a malformed line and keeps serving.
func TestStdioSurvivesMalformedLines(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), []string{"--endpoint", "http://127.0.0.1:1", "--project", "p"}, env(nil), inR, outW, &syncBuffer{})
		outW.Close()
	}()
	out := bufio.NewReader(outR)
	for _, step := range []struct{ send, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, `"id":1,"result"`},
		{`{"jsonrpc":"2.0","id":2,"method":"ping"`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`},
		{`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{`{"jsonrpc":"2.0","id":4,"method":"ping"}`, `{"jsonrpc":"2.0","id":4,"result":{}}`},
	} {
		fmt.Fprintln(inW, step.send)
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("after %s: %v", step.send, err)
		}
		if !strings.Contains(line, step.want) {
			t.Errorf("after %s: got %s, want %s", step.send, line, step.want)
		}
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
}

// A signal (ctx ending) cancels the running tool call and ends the session
// while the host still holds stdin open.
func TestStdioSignalCancelsTheRunningCall(t *testing.T) {
	started := make(chan struct{})
	var cancelled atomic.Bool
	m := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	mcp.AddTool(m, &mcp.Tool{Name: "wait", Description: "waits like a long query"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		close(started)
		select {
		case <-ctx.Done():
			cancelled.Store(true)
			return nil, nil, ctx.Err()
		case <-time.After(time.Minute):
			return nil, nil, nil
		}
	})
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	go io.Copy(io.Discard, outR)
	ctx, signal := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveStdio(ctx, m, inR, outW, slog.New(slog.DiscardHandler)) }()
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
	<-started
	begin := time.Now()
	signal()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serveStdio = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("still serving 5 s after the signal")
	}
	if !cancelled.Load() {
		t.Error("the running call was not cancelled")
	}
	if d := time.Since(begin); d > time.Second {
		t.Errorf("stopped %s after the signal", d)
	}
}
