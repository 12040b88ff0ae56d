package resilience

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"

	"google.golang.org/api/googleapi"
)

// Transport is the HTTP transport under the BigQuery client. It turns every
// request the client library would retry by itself (a 5xx, 408, 429, a
// transient reason such as rateLimitExceeded, or no response at all) into an
// error the library does not recognise as retryable, so the library gives up
// at once and [Executor.Do] decides. Without it, each of our attempts could
// hide an unbounded number of the library's (1 s → 32 s backoff, no cap).
//
// It also drops idle connections after repeated connection failures, so a
// retry does not reuse a connection a proxy or load balancer already broke.
type Transport struct {
	// Base carries the requests; nil means http.DefaultTransport.
	Base http.RoundTripper

	connFailures atomic.Int32
}

// AttemptError is a failed request, made final for the client library.
//
// The client library decides what to retry by searching error text
// ("connection reset") and by walking the chain with errors.Unwrap to a
// *googleapi.Error with a 5xx code or a transient reason. So the text
// deliberately names no cause, and AttemptError has no Unwrap method: the
// cause is reachable with errors.As and errors.Is (through the As and Is
// methods, which errors.Unwrap does not see) and with [AttemptError.Cause],
// for classification and logs, but never by the library's walk.
type AttemptError struct {
	Err error
	// Status is the HTTP status, 0 when there was no response.
	Status int
}

func (e *AttemptError) Error() string {
	if e.Status == 0 {
		return "bigquery-mcp: request got no response"
	}
	return fmt.Sprintf("bigquery-mcp: request failed with HTTP %d", e.Status)
}

// Cause returns the failure behind the attempt: the *googleapi.Error of
// the response, or the transport error when there was none.
func (e *AttemptError) Cause() error { return e.Err }

// As lets errors.As find the cause (a *googleapi.Error, a *net.OpError…).
func (e *AttemptError) As(target any) bool { return e.Err != nil && errors.As(e.Err, target) }

// Is lets errors.Is match the cause (syscall.ECONNRESET, io.EOF…).
func (e *AttemptError) Is(target error) bool { return e.Err != nil && errors.Is(e.Err, target) }

// maxErrorBody bounds how much of an error response is read to classify it.
const maxErrorBody = 1 << 20

// transientReasons are the BigQuery reasons the client library retries even
// on a 4xx (BigQuery sends rate limits as 403).
var transientReasons = map[string]bool{
	"rateLimitExceeded": true, "backendError": true, "jobRateLimitExceeded": true, "internalError": true,
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base()
	done := watchRequest(req)
	resp, err := base.RoundTrip(oneShot(req))
	if done != nil {
		done(err)
		if err == nil {
			resp.Body = &watchedBody{ReadCloser: resp.Body, done: done}
		}
	}
	if err != nil {
		if req.Context().Err() == nil && t.connFailures.Add(1) >= 2 {
			// The same connections keep failing: start the next attempt on
			// fresh ones.
			if c, ok := base.(interface{ CloseIdleConnections() }); ok {
				c.CloseIdleConnections()
			}
		}
		return nil, &AttemptError{Err: err}
	}
	t.connFailures.Store(0)
	if resp.StatusCode < 400 {
		return resp, nil
	}
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if readErr != nil {
		return nil, &AttemptError{Err: readErr, Status: resp.StatusCode}
	}
	gerr := googleapi.CheckResponse(resp)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if !clientWouldRetry(resp.StatusCode, gerr) {
		return resp, nil
	}
	return nil, &AttemptError{Err: gerr, Status: resp.StatusCode}
}

// oneShot stops net/http from silently sending a request again. It replays
// a bodiless GET on a fresh connection when a pooled one broke before any
// answer arrived, which would make one of our attempts two at the wire. A
// request with a body it cannot rewind is never replayed, so a GET gets an
// empty one-shot body (sent as no body at all: the transport sees it is
// empty before writing).
func oneShot(req *http.Request) *http.Request {
	if req.Body != nil && req.Body != http.NoBody {
		return req // POSTs are not replayed: not idempotent by method
	}
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(nil))
	r.GetBody = nil
	r.ContentLength = 0
	return r
}

func (t *Transport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return http.DefaultTransport
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the base.
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.base().(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func clientWouldRetry(status int, err error) bool {
	if status >= 500 || status == http.StatusTooManyRequests || status == http.StatusRequestTimeout {
		return true
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		for _, item := range ge.Errors {
			if transientReasons[item.Reason] {
				return true
			}
		}
	}
	return false
}
