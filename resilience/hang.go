package resilience

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// A hung BigQuery must count against the circuit breaker. Nothing in the
// error tells it apart from a query that simply needed more time than its
// caller gave: both end with the caller's deadline. What differs is whether
// BigQuery was still owing an answer when the deadline came. So each attempt
// carries a watch in its context, and [Transport] marks it when a request was
// cut off by the attempt's context after BigQuery had let it wait longer
// than BigQuery itself holds a request by design.

// attemptWatch is what the transport saw during one attempt.
type attemptWatch struct {
	// hung is set when a request was still unanswered when the attempt's
	// context ended, beyond the time BigQuery may hold it.
	hung atomic.Bool
}

type watchKey struct{}

// watchAttempt returns ctx carrying a fresh watch for one attempt.
func watchAttempt(ctx context.Context) (context.Context, *attemptWatch) {
	w := &attemptWatch{}
	return context.WithValue(ctx, watchKey{}, w), w
}

// watchOf returns the attempt's watch, or nil for a request made outside
// [Executor.Do].
func watchOf(ctx context.Context) *attemptWatch {
	w, _ := ctx.Value(watchKey{}).(*attemptWatch)
	return w
}

// Hung reports whether the attempt ended while BigQuery left a request
// unanswered (nil-safe).
func (w *attemptWatch) Hung() bool { return w != nil && w.hung.Load() }

// defaultLongPoll is how long jobs.query and jobs.getQueryResults wait for a
// job to finish when the request sets no timeoutMs (BigQuery's default).
const defaultLongPoll = 10 * time.Second

// longPollGrace is added to a long poll's timeoutMs for the network and
// BigQuery's own bookkeeping around the wait.
const longPollGrace = time.Second

// maxLongPollBody bounds how much of a jobs.query body is read for its
// timeoutMs.
const maxLongPollBody = 1 << 20

// holdTime is how long BigQuery may keep req waiting while it is healthy:
// the long poll of jobs.query (POST …/queries) and jobs.getQueryResults
// (GET …/queries/{jobId}) waits up to timeoutMs for the job to finish.
// Every other call answers at once, so any wait at all is BigQuery's.
func holdTime(req *http.Request) time.Duration {
	segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	n := len(segs)
	switch {
	case req.Method == http.MethodPost && n >= 1 && segs[n-1] == "queries":
		return longPoll(bodyTimeoutMs(req))
	case req.Method == http.MethodGet && n >= 2 && segs[n-2] == "queries":
		ms, err := strconv.ParseInt(req.URL.Query().Get("timeoutMs"), 10, 64)
		if err != nil {
			ms = -1
		}
		return longPoll(ms)
	}
	return 0
}

// longPoll is the hold of a long poll whose timeoutMs is ms (-1: not set).
func longPoll(ms int64) time.Duration {
	d := defaultLongPoll
	if ms >= 0 {
		d = time.Duration(ms) * time.Millisecond
	}
	return d + longPollGrace
}

// bodyTimeoutMs reads timeoutMs from a jobs.query request body without
// consuming it; -1 when it is not set or cannot be read.
func bodyTimeoutMs(req *http.Request) int64 {
	if req.GetBody == nil {
		return -1
	}
	body, err := req.GetBody()
	if err != nil {
		return -1
	}
	defer body.Close()
	var q struct {
		TimeoutMs *int64 `json:"timeoutMs"`
	}
	if json.NewDecoder(io.LimitReader(body, maxLongPollBody)).Decode(&q) != nil || q.TimeoutMs == nil {
		return -1
	}
	return *q.TimeoutMs
}

// watchRequest prepares to record how req ends on its attempt's watch; the
// returned func is called with the round trip's error. A request cut off by
// the attempt's context after longer than BigQuery's hold time means
// BigQuery did not answer. It returns nil for a request outside an attempt.
// The hold time is worked out only for a request that was cut off: reading
// it means decoding a jobs.query body again, which every answered request
// (nearly all of them) would pay for nothing.
func watchRequest(req *http.Request) func(error) {
	w := watchOf(req.Context())
	if w == nil {
		return nil
	}
	start := time.Now()
	return func(err error) {
		if err != nil && req.Context().Err() != nil && time.Since(start) > holdTime(req) {
			w.hung.Store(true)
		}
	}
}

// watchedBody reports a response body that stalls until the attempt's
// context ends: BigQuery sent the headers and then stopped answering.
type watchedBody struct {
	io.ReadCloser
	done func(error)
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		b.done(err)
	}
	return n, err
}
