package bqfake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"syscall"
)

// InProcess makes the fake serve only through its Transport: no listener,
// no socket. Goroutines blocked on a socket never count as idle, so a
// test inside a testing/synctest bubble needs this for the bubble's fake
// clock to advance while requests wait (a hold, a long poll). Options and
// Client then send through the Transport; URL names no reachable host.
func InProcess() Option { return func(f *Fake) { f.inProcess = true } }

// Transport serves each request through the fake's handler in the
// caller's process, without a socket: the response comes back as soon as
// the handler sends its status, and its body streams as the handler
// writes it, so holds and stalls behave as over the network. A dropped
// or reset connection (Drop, Reset, ErrReset) is the error a client would
// get from the network. Used with or without InProcess.
func (f *Fake) Transport() http.RoundTripper { return roundTripper{f} }

type roundTripper struct{ f *Fake }

// inProcessHost is the host of an in-process fake's URL: reserved, so it
// never resolves should a request take the network by mistake.
const inProcessHost = "bqfake.invalid"

func (rt roundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	// The server's request: its context ends when the client gives up
	// or closes the body, or when the handler returns, as net/http's does.
	ctx, cancel := context.WithCancel(r.Context())
	sr := r.Clone(ctx)
	sr.RequestURI = r.URL.RequestURI()
	sr.RemoteAddr = "127.0.0.1:1"
	if sr.Body == nil {
		sr.Body = http.NoBody
	}
	pr, pw := io.Pipe()
	w := &pipeWriter{
		header: http.Header{}, body: pw, req: r,
		ready: make(chan *http.Response, 1), failed: make(chan error, 1),
	}
	// The client giving up fails a body read that waits on the handler.
	stop := context.AfterFunc(ctx, func() { _ = pw.CloseWithError(context.Cause(ctx)) })
	body := &pipeBody{PipeReader: pr, close: func() { stop(); cancel() }}
	w.respBody = body
	go func() {
		defer cancel()
		defer func() { _ = sr.Body.Close() }()
		http.HandlerFunc(rt.f.serve).ServeHTTP(w, sr)
		w.finish(ctx)
		// The body is whole: ending ctx now must not fail its last read.
		stop()
	}()
	select {
	case resp := <-w.ready:
		return resp, nil
	case err := <-w.failed:
		body.Close()
		return nil, err
	case <-r.Context().Done():
		body.Close()
		return nil, r.Context().Err()
	}
}

// pipeBody is the response body: closing it tells the handler the client
// has gone.
type pipeBody struct {
	*io.PipeReader
	once  sync.Once
	close func()
}

func (b *pipeBody) Close() error {
	b.once.Do(func() {
		_ = b.PipeReader.Close()
		b.close()
	})
	return nil
}

// pipeWriter is the handler's http.ResponseWriter: the status and header
// go to RoundTrip on the first write, the body through a pipe.
type pipeWriter struct {
	header   http.Header
	body     *io.PipeWriter
	respBody io.ReadCloser
	req      *http.Request
	ready    chan *http.Response
	failed   chan error

	sent, aborted bool
}

func (w *pipeWriter) Header() http.Header { return w.header }

func (w *pipeWriter) WriteHeader(status int) {
	if w.sent || w.aborted {
		return
	}
	w.sent = true
	w.ready <- &http.Response{
		Status:     fmt.Sprintf("%d %s", status, http.StatusText(status)),
		StatusCode: status,
		Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        w.header.Clone(),
		Body:          w.respBody,
		ContentLength: -1,
		Request:       w.req,
	}
}

func (w *pipeWriter) Write(p []byte) (int, error) {
	if w.aborted {
		return 0, http.ErrHijacked
	}
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

// Flush sends the status if not yet sent; the pipe holds nothing back.
func (w *pipeWriter) Flush() { w.WriteHeader(http.StatusOK) }

// finish ends the response once the handler returns: a body cut short by
// the client giving up ends with ctx's error, not as if whole.
func (w *pipeWriter) finish(ctx context.Context) {
	if w.aborted {
		return
	}
	w.WriteHeader(http.StatusOK)
	_ = w.body.CloseWithError(context.Cause(ctx))
}

// abort closes the "connection": before the status, RoundTrip fails as
// the network would; after it, the body read does.
func (w *pipeWriter) abort(reset bool) {
	if w.aborted {
		return
	}
	w.aborted = true
	err := error(io.EOF)
	if reset {
		err = &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	}
	if !w.sent {
		w.failed <- err
		return
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	_ = w.body.CloseWithError(err)
}
