package main

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// calls ties every MCP request to the process's lifetime. go-sdk detaches
// request handlers from the context the server runs under, so without this
// a SIGTERM would wait for a running query to finish (up to its timeout)
// instead of cancelling it; cancelling a call's context is what makes the
// query service cancel its BigQuery job.
type calls struct {
	life     context.Context // ends on SIGTERM/SIGINT
	inFlight atomic.Int64
}

func newCalls(life context.Context) *calls { return &calls{life: life} }

// middleware cancels each request's context when the process's lifetime
// ends, and counts requests in flight for drain.
func (c *calls) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		c.inFlight.Add(1)
		defer c.inFlight.Add(-1)
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(c.life, func() { cancel(context.Cause(c.life)) })
		defer stop()
		return next(ctx, method, req)
	}
}

// drain waits until no request is in flight or the timeout passes, and
// reports whether everything finished.
func (c *calls) drain(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for c.inFlight.Load() > 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
