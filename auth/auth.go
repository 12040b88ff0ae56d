// Package auth gives the BigQuery client its credentials.
//
// The server starts even when no credentials can be found: an MCP host shows
// a server that died at startup as a bare failure, while a server that is up
// can tell the agent, on its first call, exactly what is wrong (AUTH_ERROR
// with a hint to run `gcloud auth application-default login`).
package auth

import (
	"context"
	"errors"
	"net/http"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// Scope is the OAuth scope BigQuery calls need.
const Scope = "https://www.googleapis.com/auth/bigquery"

// Mode says how requests are authenticated.
type Mode string

const (
	// ADC uses Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS,
	// gcloud's user credentials, or the metadata server on Cloud Run).
	ADC Mode = "adc"
	// None sends no credentials: for the local emulator.
	None Mode = "none"
)

// Identity describes who the server acts as, without any secret.
type Identity struct {
	Mode Mode `json:"mode"`
	// Principal is the service account e-mail when the credentials name one.
	Principal string `json:"principal,omitempty"`
	// Error says why credentials are unusable, when they are.
	Error string `json:"error,omitempty"`

	source *cachingSource
}

// TokenExpiry is when the cached token expires; zero when there is none.
func (id Identity) TokenExpiry() time.Time {
	if id.source == nil {
		return time.Time{}
	}
	id.source.mu.Lock()
	defer id.source.mu.Unlock()
	if id.source.tok == nil {
		return time.Time{}
	}
	return id.source.tok.Expiry
}

// Options configure HTTPClient.
type Options struct {
	Mode Mode
	// Base carries the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// WrapTokenSource, when set, wraps the credentials' token source (the
	// resilience layer retries token fetches there).
	WrapTokenSource func(oauth2.TokenSource) oauth2.TokenSource
	// Source replaces Application Default Credentials (tests).
	Source oauth2.TokenSource
}

// HTTPClient returns an HTTP client that authenticates every request as
// opts.Mode says.
func HTTPClient(ctx context.Context, opts Options) (*http.Client, Identity, error) {
	base := opts.Base
	if base == nil {
		base = http.DefaultTransport
	}
	switch opts.Mode {
	case None:
		return &http.Client{Transport: base}, Identity{Mode: None}, nil
	case ADC, "":
	default:
		return nil, Identity{}, errors.New(`auth mode must be "adc" or "none"`)
	}
	id := Identity{Mode: ADC}
	ts := opts.Source
	if ts == nil {
		creds, err := google.FindDefaultCredentials(ctx, Scope)
		if err != nil {
			id.Error = "no application default credentials found"
			ts = failingSource{err: bqerr.New(bqerr.AuthError, "the server has no Google credentials").
				WithHint("Ask the user to run `gcloud auth application-default login`, or to set GOOGLE_APPLICATION_CREDENTIALS to a service account key file, and restart the server.").
				WithCause(err)}
		} else {
			ts = creds.TokenSource
			id.Principal = principal(creds.JSON)
		}
	}
	if opts.WrapTokenSource != nil {
		ts = opts.WrapTokenSource(ts)
	}
	src := newCachingSource(ts)
	id.source = src
	return &http.Client{Transport: &transport{source: src, base: base}}, id, nil
}

// failingSource reports why there are no credentials on every call.
type failingSource struct{ err error }

func (f failingSource) Token() (*oauth2.Token, error) { return nil, f.err }
