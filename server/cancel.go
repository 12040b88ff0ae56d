package server

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// methodCancelled is the client's notification that it no longer wants the
// answer to one of its requests.
const methodCancelled = "notifications/cancelled"

// SuppressCancelled wraps a stream transport (stdio, in-memory) so that a
// request the client cancelled gets no response, as the MCP spec requires
// ("receivers of a cancellation notification SHOULD NOT send a response
// for the cancelled request"). go-sdk v1.8.0 cancels the handler's context
// on notifications/cancelled (so the BigQuery job is cancelled) but still
// writes whatever the handler returns; this connection drops that write.
//
// Only responses to requests still in flight when the cancellation arrived
// are dropped: a client may reuse an ID once it has its answer, and a
// cancellation that loses the race with the response changes nothing.
//
// The wrapper hides the SDK connection's private session hook, which the
// stdio connection uses only to refuse JSON-RPC batches under 2025-06-18;
// the stdio package refuses batches before the SDK sees them.
func SuppressCancelled(t mcp.Transport) mcp.Transport { return &cancelTransport{t} }

type cancelTransport struct{ inner mcp.Transport }

func (t *cancelTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &cancelConn{Connection: c, inFlight: map[jsonrpc.ID]bool{}}, nil
}

type cancelConn struct {
	mcp.Connection
	mu sync.Mutex
	// inFlight holds the client's requests not yet answered; true once the
	// client cancelled one.
	inFlight map[jsonrpc.ID]bool
}

func (c *cancelConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	req, ok := msg.(*jsonrpc.Request)
	if err != nil || !ok {
		return msg, err
	}
	switch {
	case req.IsCall():
		c.mu.Lock()
		c.inFlight[req.ID] = false
		c.mu.Unlock()
	case req.Method == methodCancelled:
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) != nil {
			break
		}
		if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
			c.mu.Lock()
			if _, ok := c.inFlight[id]; ok {
				c.inFlight[id] = true
			}
			c.mu.Unlock()
		}
	}
	return msg, nil
}

func (c *cancelConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		cancelled := c.inFlight[resp.ID]
		delete(c.inFlight, resp.ID)
		c.mu.Unlock()
		if cancelled {
			return nil // as if sent: the client stopped listening for it
		}
	}
	return c.Connection.Write(ctx, msg)
}
