package auth

import (
	"net/http"
	"sync"

	"golang.org/x/oauth2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// cachingSource caches a token like oauth2.ReuseTokenSource, and can be told
// that its token stopped working before it expired (revoked, rotated key).
type cachingSource struct {
	src oauth2.TokenSource
	mu  sync.Mutex
	tok *oauth2.Token
}

func newCachingSource(src oauth2.TokenSource) *cachingSource { return &cachingSource{src: src} }

func (c *cachingSource) Token() (*oauth2.Token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok.Valid() {
		return c.tok, nil
	}
	t, err := c.src.Token()
	if err != nil {
		return nil, err
	}
	c.tok = t
	return t, nil
}

// invalidate drops tok if it is still the cached one.
func (c *cachingSource) invalidate(tok *oauth2.Token) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok == tok {
		c.tok = nil
	}
}

// transport authenticates requests. On a 401 it drops the cached token and
// sends the request once more with a fresh one: a token can die before its
// expiry, and one retry heals that without bothering the agent.
type transport struct {
	source *cachingSource
	base   http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := t.source.Token()
	if err != nil {
		// Mapped here, where it is known to be a token fetch: the
		// libraries' errors often say so only in text, if at all.
		return nil, bqerr.FromTokenFetch(err)
	}
	resp, err := t.send(req, tok)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		return resp, err
	}
	if req.Body != nil && req.GetBody == nil {
		return resp, nil // the body is spent and cannot be sent again
	}
	t.source.invalidate(tok)
	fresh, err := t.source.Token()
	if err != nil || fresh.AccessToken == tok.AccessToken {
		return resp, nil
	}
	retry := req.Clone(req.Context())
	if req.GetBody != nil {
		if retry.Body, err = req.GetBody(); err != nil {
			return resp, nil
		}
	}
	resp.Body.Close()
	return t.send(retry, fresh)
}

func (t *transport) send(req *http.Request, tok *oauth2.Token) (*http.Response, error) {
	r := req.Clone(req.Context())
	tok.SetAuthHeader(r)
	return t.base.RoundTrip(r)
}

// CloseIdleConnections lets idle connections be dropped through this layer.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// userTransport sends each request with the access token of the caller in
// the request's context. There is no fallback to the server's credentials:
// a request without a caller fails, so a user's call can never run as the
// server.
type userTransport struct{ base http.RoundTripper }

func (t *userTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c := CallerFrom(req.Context())
	if c.token == nil {
		return nil, bqerr.New(bqerr.AuthError, "this request carries no user credential to call BigQuery with").
			WithHint("The server sends each user's own Google token to BigQuery; reconnect the MCP client so it signs in again.")
	}
	r := req.Clone(req.Context())
	c.token.SetAuthHeader(r)
	return t.base.RoundTrip(r)
}

// CloseIdleConnections lets idle connections be dropped through this layer.
func (t *userTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
