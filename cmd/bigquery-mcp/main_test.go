package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
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
