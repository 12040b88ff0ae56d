package main

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stateless HTTP keeps progress notifications: they travel on the POST's
// own SSE stream, under the protocol hosts speak today and the SDK's
// sessionless default alike.
func TestStatelessHTTPDeliversProgressUnderBothProtocols(t *testing.T) {
	s := serveTest(t, testLimits(), nil, func(m *mcp.Server) {
		mcp.AddTool(m, &mcp.Tool{Name: "slow", Description: "reports progress"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				for i := 1; i <= 3; i++ {
					req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Message: "running"})
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
	})
	for _, protocol := range []string{"2025-06-18", ""} {
		var got atomic.Int32
		heard := make(chan struct{}, 1) // a value after a notification arrives
		client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
			ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
				got.Add(1)
				select {
				case heard <- struct{}{}:
				default:
				}
			},
		})
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + s.addr + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
		if err != nil {
			t.Fatalf("protocol %q: %v", protocol, err)
		}
		params := &mcp.CallToolParams{Name: "slow"}
		params.SetProgressToken("p1")
		res, err := cs.CallTool(context.Background(), params)
		if err != nil || res.IsError {
			t.Fatalf("protocol %q: %v %+v", protocol, err, res)
		}
		// The client may handle notifications after the result returns.
		timeout := time.After(2 * time.Second)
	wait:
		for got.Load() < 3 {
			select {
			case <-heard:
			case <-timeout:
				break wait
			}
		}
		if got.Load() != 3 {
			t.Errorf("protocol %q: %d progress notifications reached the client, want 3", protocol, got.Load())
		}
		if sid := cs.ID(); sid != "" {
			t.Errorf("protocol %q: session id %q, want none (stateless)", protocol, sid)
		}
		cs.Close()
	}
}
