package server

import (
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestProtocolFaultsAreCodedJSONRPCErrors: faults the SDK lets through
// uncoded or unchecked reach the client as JSON-RPC errors with the code the
// spec names, and the session keeps serving.
func TestProtocolFaultsAreCodedJSONRPCErrors(t *testing.T) {
	c := newRawClient(t, New(Services{}, Config{}), func(t mcp.Transport) mcp.Transport { return t })
	c.initialize()
	for _, tc := range []struct {
		name   string
		method string
		params any
		code   int64
	}{
		{"second initialize", "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}}, jsonrpc.CodeInvalidRequest},
		{"unknown log level", "logging/setLevel", map[string]any{"level": "loud"}, jsonrpc.CodeInvalidParams},
	} {
		c.send(float64(7), tc.method, tc.params)
		resp, ok := c.next(5 * time.Second).(*jsonrpc.Response)
		if !ok || resp.Error == nil {
			t.Fatalf("%s: want an error response, got %#v", tc.name, resp)
		}
		var we *jsonrpc.Error
		if e, ok := resp.Error.(*jsonrpc.Error); ok {
			we = e
		}
		if we == nil || we.Code != tc.code {
			t.Errorf("%s: error %v, want code %d", tc.name, resp.Error, tc.code)
		}
		c.send(float64(8), "ping", map[string]any{})
		if r, ok := c.next(5 * time.Second).(*jsonrpc.Response); !ok || r.Error != nil {
			t.Fatalf("%s: ping afterwards: %#v", tc.name, r)
		}
	}
	// A valid level is still accepted.
	c.send(float64(9), "logging/setLevel", map[string]any{"level": "warning"})
	if r, ok := c.next(5 * time.Second).(*jsonrpc.Response); !ok || r.Error != nil {
		t.Fatalf("setLevel warning: %#v", r)
	}
}
