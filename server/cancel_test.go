package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawClient speaks JSON-RPC to a server over an in-memory connection, one
// message at a time, so a test sees exactly what the server writes.
type rawClient struct {
	t    *testing.T
	conn mcp.Connection
	msgs chan jsonrpc.Message
}

func newRawClient(t *testing.T, s *mcp.Server, wrap func(mcp.Transport) mcp.Transport) *rawClient {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, wrap(st), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := &rawClient{t: t, conn: conn, msgs: make(chan jsonrpc.Message, 16)}
	go func() {
		for {
			m, err := conn.Read(ctx)
			if err != nil {
				close(c.msgs)
				return
			}
			c.msgs <- m
		}
	}()
	t.Cleanup(func() { conn.Close() })
	return c
}

func (c *rawClient) send(id any, method string, params any) {
	c.t.Helper()
	b, err := json.Marshal(params)
	if err != nil {
		c.t.Fatal(err)
	}
	req := &jsonrpc.Request{Method: method, Params: b}
	if id != nil {
		if req.ID, err = jsonrpc.MakeID(id); err != nil {
			c.t.Fatal(err)
		}
	}
	if err := c.conn.Write(context.Background(), req); err != nil {
		c.t.Fatal(err)
	}
}

// next returns the next message from the server, or nil after wait.
func (c *rawClient) next(wait time.Duration) jsonrpc.Message {
	select {
	case m := <-c.msgs:
		return m
	case <-time.After(wait):
		return nil
	}
}

func (c *rawClient) initialize() {
	c.t.Helper()
	c.send(float64(0), "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"},
	})
	if r, ok := c.next(5 * time.Second).(*jsonrpc.Response); !ok || r.Error != nil {
		c.t.Fatalf("initialize: %v", r)
	}
	c.send(nil, "notifications/initialized", map[string]any{})
}

// settleTransport tells settled the ID of every response once the
// connection under it has taken it: written, or dropped by
// SuppressCancelled.
type settleTransport struct {
	mcp.Transport
	settled chan<- jsonrpc.ID
}

func (t settleTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return settleConn{c, t.settled}, nil
}

type settleConn struct {
	mcp.Connection
	settled chan<- jsonrpc.ID
}

func (c settleConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if r, ok := msg.(*jsonrpc.Response); ok {
		c.settled <- r.ID
	}
	return err
}

// waitSettled waits until the response to request id has been settled.
func waitSettled(t *testing.T, settled <-chan jsonrpc.ID, id float64) {
	t.Helper()
	want, err := jsonrpc.MakeID(id)
	if err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case got := <-settled:
			if got == want {
				return
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("the response to request %v was never settled", id)
		}
	}
}

// slowServer has one tool that runs until its context is cancelled and
// then fails (as a query whose job was cancelled does).
func slowServer(started chan<- struct{}, cancelled chan<- struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "probe"}, nil)
	s.AddTool(&mcp.Tool{Name: "slow", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			started <- struct{}{}
			<-ctx.Done()
			cancelled <- struct{}{}
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "cancelled"}}}, nil
		})
	return s
}

// After notifications/cancelled the handler's context ends (the job is
// cancelled) and no response is sent for that request; the next request is
// answered as usual. Without SuppressCancelled go-sdk sends the response:
// the test checks that too, so it notices when the SDK changes.
func TestCancelledRequestGetsNoResponse(t *testing.T) {
	for _, c := range []struct {
		name     string
		wrap     func(mcp.Transport) mcp.Transport
		response bool
	}{
		{"sdk alone", func(t mcp.Transport) mcp.Transport { return t }, true},
		{"SuppressCancelled", SuppressCancelled, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			started, cancelled := make(chan struct{}, 1), make(chan struct{}, 1)
			settled := make(chan jsonrpc.ID, 16)
			rc := newRawClient(t, slowServer(started, cancelled), func(tr mcp.Transport) mcp.Transport {
				return settleTransport{c.wrap(tr), settled}
			})
			rc.initialize()
			rc.send(float64(7), "tools/call", map[string]any{"name": "slow", "arguments": map[string]any{}})
			<-started
			rc.send(nil, "notifications/cancelled", map[string]any{"requestId": 7, "reason": "user pressed stop"})
			select {
			case <-cancelled:
			case <-time.After(5 * time.Second):
				t.Fatal("the handler's context was not cancelled")
			}
			// A later request, reusing the cancelled one's ID once it is
			// settled, is answered.
			waitSettled(t, settled, 7)
			rc.send(float64(7), "ping", map[string]any{})
			// Messages arrive in the order they were written: the
			// cancelled call's response, if it was sent, and then the
			// ping's, whose result is empty.
			var got []*jsonrpc.Response
			for len(got) == 0 || string(got[len(got)-1].Result) != "{}" {
				m := rc.next(5 * time.Second)
				if m == nil {
					t.Fatalf("no answer to the ping; responses so far: %+v", got)
				}
				if r, ok := m.(*jsonrpc.Response); ok {
					got = append(got, r)
				}
			}
			want := 1
			if c.response {
				want = 2
			}
			if len(got) != want {
				t.Fatalf("%d responses, want %d: %+v", len(got), want, got)
			}
			last := got[len(got)-1]
			var res map[string]any
			if last.Error != nil || json.Unmarshal(last.Result, &res) != nil || len(res) != 0 {
				t.Errorf("the ping's response = %+v (%s)", last, last.Result)
			}
			if c.response && !strings.Contains(string(got[0].Result), `"isError":true`) {
				t.Errorf("first response should be the cancelled call's result: %s", got[0].Result)
			}
		})
	}
}
