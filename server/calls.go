package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/semaphore"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// Identify puts the caller the HTTP edge authenticated into the call's
// context (see withCaller).
func Identify() Middleware {
	return func(_ string, next Handler) Handler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (any, error) {
			return next(withCaller(ctx, req), req)
		}
	}
}

// withCaller returns ctx carrying the caller the HTTP edge authenticated
// for req (go-sdk passes its TokenInfo with every request): per-identity
// caches key on it, and in oauth mode the BigQuery transport takes the
// user's token from it, so every handler that reaches BigQuery (tools,
// resources, completion) must call it. Requests without one (stdio,
// client-auth none) run as the server.
func withCaller(ctx context.Context, req mcp.Request) context.Context {
	if extra := req.GetExtra(); extra != nil {
		if c := auth.CallerFromTokenInfo(extra.TokenInfo); c.Principal != "" {
			return auth.WithCaller(ctx, c)
		}
	}
	return ctx
}

// Shed bounds the tool calls running at once to max (0: no bound). A call
// beyond it fails at once with a retryable UNAVAILABLE instead of queueing:
// on Cloud Run another instance, or the same one a moment later, can serve
// it, while a queue would only grow. health is never shed, so an operator
// can still ask a busy instance how it is.
func Shed(max int) Middleware {
	if max <= 0 {
		return func(_ string, next Handler) Handler { return next }
	}
	sem := semaphore.NewWeighted(int64(max))
	return func(tool string, next Handler) Handler {
		if tool == "health" {
			return next
		}
		return func(ctx context.Context, req *mcp.CallToolRequest) (any, error) {
			if !sem.TryAcquire(1) {
				return nil, bqerr.New(bqerr.Unavailable, "server busy: this instance is running as many tool calls as it allows").
					WithRetryable(true).
					WithHint("Retry in a few seconds; the server sheds load rather than queueing calls.")
			}
			defer sem.Release(1)
			return next(ctx, req)
		}
	}
}
