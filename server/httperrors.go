package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// capturedBody is how much of a request body JSONRPCErrors keeps to find
// the request's id: JSON-RPC requests that the SDK refuses are small.
const capturedBody = 64 << 10

// JSONRPCErrors wraps go-sdk's streamable HTTP handler so that a JSON-RPC
// request it refuses before dispatch (an unknown method, missing params:
// the SDK answers those with "400 text/plain" under protocols before
// 2026-07-28) gets a JSON-RPC error response with the request's id, as
// the specification asks: -32601 for a method the server does not handle,
// -32600 otherwise. Notifications and every other response pass unchanged.
func JSONRPCErrors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		tee := &teeBody{ReadCloser: r.Body}
		r.Body = tee
		rw := &rpcErrorWriter{ResponseWriter: w}
		next.ServeHTTP(rw, r)
		if !rw.intercepted {
			return
		}
		id, ok := requestID(tee.buf.Bytes())
		if !ok {
			// A notification, or a body we cannot read an id from:
			// answer as the SDK did.
			http.Error(w, rw.msg.String(), rw.code)
			return
		}
		msg := strings.TrimSpace(rw.msg.String())
		code := jsonrpc.CodeInvalidRequest
		if strings.Contains(msg, "not handled") {
			code = jsonrpc.CodeMethodNotFound
		}
		body, _ := json.Marshal(map[string]any{
			"jsonrpc": "2.0",
			"id":      id,
			"error":   map[string]any{"code": code, "message": msg},
		})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write(body)
	})
}

// requestID returns the id of a single JSON-RPC request; ok is false for
// notifications, batches and bodies that are not JSON.
func requestID(body []byte) (json.RawMessage, bool) {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" {
		return nil, false
	}
	return m.ID, true
}

// teeBody keeps the first capturedBody bytes the handler reads.
type teeBody struct {
	io.ReadCloser
	buf bytes.Buffer
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if room := capturedBody - t.buf.Len(); room > 0 {
		t.buf.Write(p[:min(n, room)])
	}
	return n, err
}

// rpcErrorWriter holds back a "400 text/plain" answer for JSONRPCErrors to
// rewrite, and passes everything else through.
type rpcErrorWriter struct {
	http.ResponseWriter
	intercepted bool
	code        int
	msg         bytes.Buffer
}

func (w *rpcErrorWriter) WriteHeader(code int) {
	if code == http.StatusBadRequest && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.intercepted, w.code = true, code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *rpcErrorWriter) Write(p []byte) (int, error) {
	if w.intercepted {
		return w.msg.Write(p)
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *rpcErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes SSE flushes through.
func (w *rpcErrorWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.intercepted {
		f.Flush()
	}
}
