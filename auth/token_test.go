package auth

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// refreshSource is a real oauth2 token source that refreshes a user's
// token at tokenURL, as Application Default Credentials of a user do.
func refreshSource(tokenURL string) oauth2.TokenSource {
	cfg := &oauth2.Config{ClientID: "c", ClientSecret: "s", Endpoint: oauth2.Endpoint{TokenURL: tokenURL, AuthStyle: oauth2.AuthStyleInParams}}
	return cfg.TokenSource(context.Background(), &oauth2.Token{RefreshToken: "r"})
}

// resettingTokenEndpoint drops every connection without an answer.
func resettingTokenEndpoint(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		conn.Close()
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestTokenEndpointUnreachableIsUnavailable: a token fetch that gets no
// answer is UNAVAILABLE and retryable, like the same failure towards
// BigQuery, not an AUTH_ERROR or INTERNAL error.
func TestTokenEndpointUnreachableIsUnavailable(t *testing.T) {
	reset, _ := resettingTokenEndpoint(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close() // connection refused
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read the form first: the server notices a client that gave up
		// only once the request body is consumed.
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	t.Cleanup(func() { hang.CloseClientConnections(); hang.Close() })

	bigquery := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("a request reached BigQuery without a token")
	}))
	t.Cleanup(bigquery.Close)

	for name, src := range map[string]oauth2.TokenSource{
		"connection reset":   refreshSource(reset.URL),
		"connection refused": refreshSource(closed.URL),
		"unknown host":       refreshSource("http://token.invalid/token"),
		"timeout":            timeoutSource(hang.URL),
	} {
		t.Run(name, func(t *testing.T) {
			hc, _, err := HTTPClient(context.Background(), Options{Auth: ADC, Source: src})
			if err != nil {
				t.Fatal(err)
			}
			_, err = hc.Get(bigquery.URL + "/bigquery/v2/projects/p/datasets")
			e := bqerr.From(err)
			if e.Code != bqerr.Unavailable || !e.Retryable || !strings.Contains(e.Message, "token service") {
				t.Fatalf("error = %s, want UNAVAILABLE, retryable, naming the token service (cause %v)", e.JSON(), err)
			}
		})
	}
}

// timeoutSource fetches tokens with an HTTP client that gives up after a
// short while, as a token fetch stuck behind a dead network does.
func timeoutSource(tokenURL string) oauth2.TokenSource {
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Timeout: 50 * time.Millisecond})
	cfg := &oauth2.Config{ClientID: "c", Endpoint: oauth2.Endpoint{TokenURL: tokenURL, AuthStyle: oauth2.AuthStyleInParams}}
	return cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: "r"})
}

// TestTokenEndpointFailuresRetriedOnceUnderAuthPolicy: the resilience
// layer retries an unreachable token endpoint under its auth policy, and
// the BigQuery call that needed the token does not retry it again.
func TestTokenEndpointFailuresRetriedOnceUnderAuthPolicy(t *testing.T) {
	reset, fetches := resettingTokenEndpoint(t)
	cfg := resilience.Defaults()
	for op, p := range cfg.Retry {
		p.BaseDelay, p.MaxDelay = time.Millisecond, time.Millisecond
		cfg.Retry[op] = p
	}
	exec, err := resilience.NewExecutor(cfg, resilience.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	hc, _, err := HTTPClient(context.Background(), Options{Auth: ADC, Source: refreshSource(reset.URL), WrapTokenSource: exec.TokenSource})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	err = exec.Do(context.Background(), resilience.Query, "p", func(ctx context.Context) error {
		calls++
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:1/bigquery/v2/projects/p/datasets", nil)
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	})
	e := bqerr.From(err)
	if e.Code != bqerr.Unavailable || !e.Retryable {
		t.Fatalf("error = %s, want UNAVAILABLE and retryable", e.JSON())
	}
	if want := int32(cfg.Retry[resilience.Auth].Attempts); fetches.Load() != want || calls != 1 {
		t.Errorf("%d token fetches in %d calls, want %d in 1", fetches.Load(), calls, want)
	}
}
