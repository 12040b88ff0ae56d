package main

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// requestKeyHeader is stamped by the HTTP edge on every request it hands to
// go-sdk, so a method handler can find the HTTP request it arrived on. Any
// value a client sends is overwritten.
const requestKeyHeader = "X-Bigquery-Mcp-Request"

// errClientGone is the cause of a call cancelled because its HTTP request
// ended before the answer was written.
var errClientGone = errors.New("the client closed the request")

// httpRequests ties each MCP call served over stateless HTTP to the HTTP
// request that carries it. In stateless mode the answer can only travel back
// on that request, so when the client goes away (a cancelled call aborts its
// POST; a notifications/cancelled on a new POST reaches no session), the
// call is cancelled too, and the query service cancels its BigQuery job.
// go-sdk does this itself only for the 2026-07-28 protocol
// (StreamableHTTPOptions.PropagateRequestCancellation).
type httpRequests struct {
	next   atomic.Uint64
	active sync.Map // key → the HTTP request's context
}

// wrap registers each request's context under a fresh key for as long as
// it is served.
func (h *httpRequests) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := strconv.FormatUint(h.next.Add(1), 36)
		r = r.Clone(r.Context())
		r.Header.Set(requestKeyHeader, key)
		h.active.Store(key, r.Context())
		defer h.active.Delete(key)
		next.ServeHTTP(w, r)
	})
}

// middleware cancels a call when the HTTP request it came on ends.
func (h *httpRequests) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		extra := req.GetExtra()
		if extra == nil || extra.Header == nil {
			return next(ctx, method, req)
		}
		v, ok := h.active.Load(extra.Header.Get(requestKeyHeader))
		if !ok {
			return next(ctx, method, req)
		}
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(v.(context.Context), func() { cancel(errClientGone) })
		defer stop()
		return next(ctx, method, req)
	}
}
