package resilience

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
)

// ---- a fake BigQuery ----

// reply is one canned answer.
type reply struct {
	status     int
	reason     string
	retryAfter string
	reset      bool // drop the connection with a TCP reset instead
}

const datasetBody = `{"kind":"bigquery#dataset","id":"proj:x","datasetReference":{"projectId":"proj","datasetId":"x"},"location":"US","description":"fake"}`

// newFakeBQ is a BigQuery that knows dataset x of project proj and
// answers each request with respond(n), n counting from 1.
func newFakeBQ(t *testing.T, respond func(n int) reply) *bqfake.Fake {
	t.Helper()
	f := bqfake.New(t, bqfake.WithProject("proj"))
	f.On(bqfake.Any).ReplyFunc(func(r *bqfake.Request) (any, error) {
		if r.Route != bqfake.DatasetsGet || r.Dataset != "x" {
			t.Errorf("unexpected request %s", r)
		}
		rep := respond(r.N)
		switch {
		case rep.reset:
			return nil, bqfake.ErrReset
		case rep.status == 0 || rep.status == http.StatusOK:
			return json.RawMessage(datasetBody), nil
		}
		return nil, &bqfake.Error{Status: rep.status, Reason: rep.reason, Message: fmt.Sprintf("fake failure %d", rep.status), RetryAfter: rep.retryAfter}
	})
	return f
}

// newBQClient is a real BigQuery client talking to url through rt. With
// WithHTTPClient the client sends no credentials, so no auth is needed.
func newBQClient(t *testing.T, url string, rt http.RoundTripper) *bigquery.Client {
	t.Helper()
	hc := &http.Client{Transport: rt}
	c, err := bigquery.NewClient(context.Background(), "proj", option.WithHTTPClient(hc), option.WithEndpoint(url+"/"))
	if err != nil {
		t.Fatalf("bigquery.NewClient: %v", err)
	}
	t.Cleanup(func() {
		c.Close()
		hc.CloseIdleConnections()
	})
	return c
}

// freshTransport is a base transport of the test's own, so no connection
// outlives it.
func freshTransport(t *testing.T) *http.Transport {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// guardCtx bounds a call that, if the library retried by itself, would go
// on until its context ended.
func guardCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// ---- the Transport under a real client ----

func TestTransportMakesClientRetriesFinal(t *testing.T) {
	for _, tc := range []struct {
		name       string
		rep        reply
		code       bqerr.Code
		retryAfter int // 0: none
	}{
		{"503", reply{status: 503, retryAfter: "2"}, bqerr.Unavailable, 2},
		{"503 no Retry-After", reply{status: 503}, bqerr.Unavailable, 0},
		{"500 backendError", reply{status: 500, reason: "backendError"}, bqerr.Unavailable, 0},
		{"500 internalError", reply{status: 500, reason: "internalError", retryAfter: "3"}, bqerr.Internal, 3},
		{"502", reply{status: 502}, bqerr.Unavailable, 0},
		{"504", reply{status: 504}, bqerr.Unavailable, 0},
		{"403 rateLimitExceeded", reply{status: 403, reason: "rateLimitExceeded", retryAfter: "7"}, bqerr.ResourceExhausted, 7},
		{"400 jobRateLimitExceeded", reply{status: 400, reason: "jobRateLimitExceeded"}, bqerr.ResourceExhausted, 0},
		{"429", reply{status: 429, reason: "rateLimitExceeded", retryAfter: "30"}, bqerr.ResourceExhausted, 30},
		{"408", reply{status: 408}, bqerr.DeadlineExceeded, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeBQ(t, func(int) reply { return tc.rep })
			// Base nil: http.DefaultTransport, as in the brief's setup.
			client := newBQClient(t, srv.URL, &Transport{})
			_, err := client.Dataset("x").Metadata(guardCtx(t))
			if got := srv.Count(bqfake.Any); got != 1 {
				t.Fatalf("the server got %d requests, want exactly 1: the client library retried", got)
			}
			var ae *AttemptError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v (%T) is not an *AttemptError", err, err)
			}
			if ae.Status != tc.rep.status {
				t.Errorf("AttemptError.Status = %d, want %d", ae.Status, tc.rep.status)
			}
			var ge *googleapi.Error
			if !errors.As(err, &ge) || ge.Code != tc.rep.status {
				t.Fatalf("the *googleapi.Error is not reachable: %v", err)
			}
			be := mustCode(t, err, tc.code)
			if !be.Retryable {
				t.Error("not retryable")
			}
			if be.Details.Reason != tc.rep.reason {
				t.Errorf("Details.Reason = %q, want %q", be.Details.Reason, tc.rep.reason)
			}
			switch {
			case tc.retryAfter == 0 && be.RetryAfterSeconds != nil:
				t.Errorf("RetryAfterSeconds = %d, want none", *be.RetryAfterSeconds)
			case tc.retryAfter != 0 && (be.RetryAfterSeconds == nil || *be.RetryAfterSeconds != tc.retryAfter):
				t.Errorf("RetryAfterSeconds = %v, want %d", be.RetryAfterSeconds, tc.retryAfter)
			}
			if !Retryable(err) {
				t.Error("Retryable(err) = false: the executor would not retry it")
			}
		})
	}
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
}

// Without the Transport the client library retries a 503 by itself, with
// no attempt cap, until the context ends.
func TestWithoutTransportClientLibraryRetries(t *testing.T) {
	second := make(chan struct{})
	srv := newFakeBQ(t, func(n int) reply {
		if n == 2 {
			close(second)
		}
		return reply{status: 503}
	})
	client := newBQClient(t, srv.URL, freshTransport(t))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() {
		select {
		case <-second:
			cancel()
		case <-ctx.Done():
		}
	}()
	_, err := client.Dataset("x").Metadata(ctx)
	if err == nil {
		t.Fatal("Metadata succeeded against a failing server")
	}
	if got := srv.Count(bqfake.Any); got < 2 {
		t.Fatalf("the server got %d requests; the client library was expected to retry", got)
	}
}

func TestTransportPassesNonRetryableFailuresThrough(t *testing.T) {
	for _, tc := range []struct {
		rep  reply
		code bqerr.Code
	}{
		{reply{status: 404, reason: "notFound"}, bqerr.NotFound},
		{reply{status: 400, reason: "invalid"}, bqerr.InvalidArgument},
		{reply{status: 403, reason: "accessDenied"}, bqerr.PermissionDenied},
		{reply{status: 403, reason: "quotaExceeded"}, bqerr.ResourceExhausted},
		{reply{status: 401, reason: "authError"}, bqerr.Unauthenticated},
		{reply{status: 409, reason: "duplicate"}, bqerr.InvalidArgument},
	} {
		t.Run(fmt.Sprintf("%d %s", tc.rep.status, tc.rep.reason), func(t *testing.T) {
			srv := newFakeBQ(t, func(int) reply { return tc.rep })
			client := newBQClient(t, srv.URL, &Transport{Base: freshTransport(t)})
			_, err := client.Dataset("x").Metadata(guardCtx(t))
			if got := srv.Count(bqfake.Any); got != 1 {
				t.Fatalf("the server got %d requests, want 1", got)
			}
			var ae *AttemptError
			if errors.As(err, &ae) {
				t.Fatalf("a %d became an *AttemptError: %v", tc.rep.status, err)
			}
			var ge *googleapi.Error
			if !errors.As(err, &ge) {
				t.Fatalf("error %v (%T) is not a *googleapi.Error", err, err)
			}
			if ge.Code != tc.rep.status || len(ge.Errors) == 0 || ge.Errors[0].Reason != tc.rep.reason {
				t.Errorf("googleapi.Error code %d errors %v, want %d %s", ge.Code, ge.Errors, tc.rep.status, tc.rep.reason)
			}
			if !strings.Contains(ge.Message, "fake failure") {
				t.Errorf("the body did not reach the library intact: message %q", ge.Message)
			}
			be := mustCode(t, err, tc.code)
			if be.Retryable {
				t.Error("marked retryable")
			}
		})
	}
}

func TestTransportNoResponse(t *testing.T) {
	check := func(t *testing.T, err error) {
		t.Helper()
		var ae *AttemptError
		if !errors.As(err, &ae) {
			t.Fatalf("error %v (%T) is not an *AttemptError", err, err)
		}
		if ae.Status != 0 {
			t.Errorf("AttemptError.Status = %d, want 0", ae.Status)
		}
		be := mustCode(t, err, bqerr.Unavailable)
		if !be.Retryable || !Retryable(err) || !BackendFault(err) {
			t.Errorf("retryable %v, Retryable %v, BackendFault %v: want all true", be.Retryable, Retryable(err), BackendFault(err))
		}
		// The library searches error text for causes it retries: ours
		// must name none.
		if s := err.Error(); strings.Contains(s, "connection reset") || strings.Contains(s, "connection refused") {
			t.Errorf("error text %q names a cause the client library retries", s)
		}
	}
	t.Run("connection reset", func(t *testing.T) {
		srv := newFakeBQ(t, func(int) reply { return reply{reset: true} })
		client := newBQClient(t, srv.URL, &Transport{Base: freshTransport(t)})
		_, err := client.Dataset("x").Metadata(guardCtx(t))
		if got := srv.Count(bqfake.Any); got != 1 {
			t.Fatalf("the server got %d requests, want 1", got)
		}
		check(t, err)
	})
	t.Run("closed listener", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		client := newBQClient(t, url, &Transport{Base: freshTransport(t)})
		_, err := client.Dataset("x").Metadata(guardCtx(t))
		check(t, err)
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("the cause (connection refused) is not reachable: %v", err)
		}
	})
}

func TestTransportLeavesSuccessUntouched(t *testing.T) {
	srv := newFakeBQ(t, func(int) reply { return reply{status: 200} })
	client := newBQClient(t, srv.URL, &Transport{Base: freshTransport(t)})
	md, err := client.Dataset("x").Metadata(guardCtx(t))
	if err != nil {
		t.Fatalf("Metadata: %v", err)
	}
	if md.Location != "US" || md.Description != "fake" {
		t.Errorf("metadata = %+v", md)
	}
	if srv.Count(bqfake.Any) != 1 {
		t.Errorf("the server got %d requests, want 1", srv.Count(bqfake.Any))
	}
}

// ---- the Transport on its own ----

// stubRT answers every request with resp or err and counts idle-connection
// drops.
type stubRT struct {
	resp      func() *http.Response
	err       error
	closeIdle atomic.Int32
}

func (s *stubRT) RoundTrip(*http.Request) (*http.Response, error) {
	if s.err != nil {
		return nil, s.err
	}
	return s.resp(), nil
}

func (s *stubRT) CloseIdleConnections() { s.closeIdle.Add(1) }

func stubResponse(status int, body string, header http.Header) func() *http.Response {
	return func() *http.Response {
		if header == nil {
			header = http.Header{}
		}
		return &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body))}
	}
}

func newRequest(t *testing.T, ctx context.Context) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://bigquery.test/bigquery/v2/projects/p/datasets/x", nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestTransportRoundTripDirect(t *testing.T) {
	t.Run("success is the base's response", func(t *testing.T) {
		want := stubResponse(200, datasetBody, nil)()
		tr := &Transport{Base: &stubRT{resp: func() *http.Response { return want }}}
		got, err := tr.RoundTrip(newRequest(t, context.Background()))
		if err != nil || got != want {
			t.Fatalf("RoundTrip = %v, %v; want the base's response unchanged", got, err)
		}
		body, _ := io.ReadAll(got.Body)
		if string(body) != datasetBody {
			t.Errorf("body = %q", body)
		}
	})
	t.Run("3xx passes", func(t *testing.T) {
		tr := &Transport{Base: &stubRT{resp: stubResponse(304, "", nil)}}
		if resp, err := tr.RoundTrip(newRequest(t, context.Background())); err != nil || resp.StatusCode != 304 {
			t.Fatalf("RoundTrip = %v, %v", resp, err)
		}
	})
	t.Run("non-retryable body is re-readable", func(t *testing.T) {
		body := `{"error":{"code":404,"message":"Not found: Dataset p:x","errors":[{"reason":"notFound","message":"Not found: Dataset p:x"}]}}`
		tr := &Transport{Base: &stubRT{resp: stubResponse(404, body, nil)}}
		resp, err := tr.RoundTrip(newRequest(t, context.Background()))
		if err != nil {
			t.Fatalf("RoundTrip: %v", err)
		}
		got, _ := io.ReadAll(resp.Body)
		if string(got) != body {
			t.Errorf("body = %q, want %q", got, body)
		}
		if err := resp.Body.Close(); err != nil {
			t.Error(err)
		}
	})
	t.Run("retryable carries the googleapi error", func(t *testing.T) {
		body := `{"error":{"code":403,"message":"Exceeded rate limits","errors":[{"reason":"rateLimitExceeded","message":"Exceeded rate limits"}]}}`
		tr := &Transport{Base: &stubRT{resp: stubResponse(403, body, http.Header{"Retry-After": {"9"}})}}
		resp, err := tr.RoundTrip(newRequest(t, context.Background()))
		if resp != nil {
			t.Fatal("a response came back with the error")
		}
		var ae *AttemptError
		if !errors.As(err, &ae) || ae.Status != 403 {
			t.Fatalf("RoundTrip error = %v", err)
		}
		// The client library walks errors.Unwrap to a *googleapi.Error to
		// decide on its own retries: the walk must stop here.
		if errors.Unwrap(ae) != nil {
			t.Error("errors.Unwrap reaches the cause: the client library would retry it")
		}
		if ge, ok := ae.Cause().(*googleapi.Error); !ok || ge.Code != 403 {
			t.Errorf("Cause() = %v", ae.Cause())
		}
		if got := ae.Error(); got != "bigquery-mcp: request failed with HTTP 403" {
			t.Errorf("Error() = %q", got)
		}
		be := mustCode(t, err, bqerr.ResourceExhausted)
		if be.RetryAfterSeconds == nil || *be.RetryAfterSeconds != 9 || be.Details.Reason != "rateLimitExceeded" {
			t.Errorf("RetryAfterSeconds %v, reason %q", be.RetryAfterSeconds, be.Details.Reason)
		}
	})
	t.Run("HTML error page from a proxy", func(t *testing.T) {
		tr := &Transport{Base: &stubRT{resp: stubResponse(502, "<html>Bad Gateway</html>", nil)}}
		_, err := tr.RoundTrip(newRequest(t, context.Background()))
		be := mustCode(t, err, bqerr.Unavailable)
		if !be.Retryable {
			t.Error("a 502 page was not retryable")
		}
	})
}

func TestTransportDropsIdleConnectionsAfterRepeatedFailures(t *testing.T) {
	base := &stubRT{err: connReset()}
	tr := &Transport{Base: base}
	do := func(ctx context.Context) {
		if _, err := tr.RoundTrip(newRequest(t, ctx)); err == nil {
			t.Fatal("RoundTrip succeeded")
		}
	}
	do(context.Background())
	if n := base.closeIdle.Load(); n != 0 {
		t.Fatalf("idle connections dropped after one failure (%d)", n)
	}
	do(context.Background())
	if n := base.closeIdle.Load(); n != 1 {
		t.Fatalf("idle connections dropped %d times after two failures, want 1", n)
	}
	// A success resets the count.
	base.err = nil
	base.resp = stubResponse(200, "{}", nil)
	if resp, err := tr.RoundTrip(newRequest(t, context.Background())); err != nil || resp.StatusCode != 200 {
		t.Fatalf("RoundTrip = %v, %v", resp, err)
	}
	base.err = connReset()
	do(context.Background())
	if n := base.closeIdle.Load(); n != 1 {
		t.Fatalf("idle connections dropped after the first failure following a success (%d)", n)
	}
	// A caller's own cancellation is not the connection's fault.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	base.err = context.Canceled
	do(ctx)
	do(ctx)
	if n := base.closeIdle.Load(); n != 1 {
		t.Fatalf("cancelled requests dropped idle connections (%d)", n)
	}
	tr.CloseIdleConnections()
	if n := base.closeIdle.Load(); n != 2 {
		t.Fatalf("Transport.CloseIdleConnections did not reach the base (%d)", n)
	}
}

// ---- Executor + Transport + the real client ----

func TestExecutorWithTransportAndRealClient(t *testing.T) {
	run := func(t *testing.T, respond func(n int) reply) (int, error) {
		t.Helper()
		srv := newFakeBQ(t, respond)
		client := newBQClient(t, srv.URL, &Transport{Base: freshTransport(t)})
		e := newTestExecutor(t, testConfig(3), Hooks{})
		var md *bigquery.DatasetMetadata
		err := e.Do(guardCtx(t), Metadata, "proj", func(ctx context.Context) error {
			var err error
			md, err = client.Dataset("x").Metadata(ctx)
			return err
		})
		if err == nil && md.Location != "US" {
			t.Errorf("metadata = %+v", md)
		}
		return srv.Count(bqfake.Any), err
	}
	t.Run("two 503s then success", func(t *testing.T) {
		n, err := run(t, func(n int) reply {
			if n <= 2 {
				return reply{status: 503}
			}
			return reply{status: 200}
		})
		if err != nil {
			t.Fatalf("Do = %v", err)
		}
		if n != 3 {
			t.Fatalf("the server got %d requests, want exactly 3", n)
		}
	})
	t.Run("always 503", func(t *testing.T) {
		n, err := run(t, func(int) reply { return reply{status: 503, reason: "backendError"} })
		if n != 3 {
			t.Fatalf("the server got %d requests, want exactly 3", n)
		}
		be := mustCode(t, err, bqerr.Unavailable)
		if be.Details.Attempts != 3 || !be.Retryable || be.Details.Reason != "backendError" {
			t.Errorf("attempts %d retryable %v reason %q", be.Details.Attempts, be.Retryable, be.Details.Reason)
		}
		// The agent-facing JSON names the attempts.
		if !bytes.Contains(be.JSON(), []byte(`"attempts":3`)) {
			t.Errorf("JSON %s lacks the attempts", be.JSON())
		}
	})
	t.Run("always reset", func(t *testing.T) {
		n, err := run(t, func(int) reply { return reply{reset: true} })
		if n != 3 {
			t.Fatalf("the server got %d requests, want exactly 3", n)
		}
		mustCode(t, err, bqerr.Unavailable)
	})
	t.Run("404 once", func(t *testing.T) {
		n, err := run(t, func(int) reply { return reply{status: 404, reason: "notFound"} })
		if n != 1 {
			t.Fatalf("the server got %d requests, want 1", n)
		}
		mustCode(t, err, bqerr.NotFound)
	})
	t.Run("Retry-After beyond the cap", func(t *testing.T) {
		n, err := run(t, func(int) reply { return reply{status: 429, reason: "rateLimitExceeded", retryAfter: strconv.Itoa(120)} })
		if n != 1 {
			t.Fatalf("the server got %d requests, want 1", n)
		}
		be := mustCode(t, err, bqerr.ResourceExhausted)
		if be.RetryAfterSeconds == nil || *be.RetryAfterSeconds != 120 {
			t.Errorf("RetryAfterSeconds = %v, want 120", be.RetryAfterSeconds)
		}
	})
}

// A GET whose pooled connection breaks before any answer must not be sent a
// second time by net/http behind our back: one attempt, one request.
func TestTransportStopsNetHTTPReplayingGETs(t *testing.T) {
	srv := bqfake.New(t)
	// First request: fine, leaves a pooled connection; second: the
	// connection dies with no answer.
	srv.On(bqfake.Any).Times(1).Reply(json.RawMessage("{}"))
	srv.On(bqfake.Any).Drop()
	base := &http.Transport{}
	defer base.CloseIdleConnections()
	c := &http.Client{Transport: &Transport{Base: base}}
	for i := range 2 {
		resp, err := c.Get(srv.URL)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if i == 1 && err == nil {
			t.Fatal("second request should fail")
		}
	}
	if n := srv.Count(bqfake.Any); n != 2 {
		t.Errorf("server saw %d requests, want 2 (no silent replay)", n)
	}
}
