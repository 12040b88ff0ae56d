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
	// User sends each request with the calling user's own access token,
	// taken from the request's context (see [WithCaller]); the server's
	// own credentials are never used. The http server's oauth client mode.
	User Mode = "user"
)

// Identity describes who the server acts as, without any secret.
type Identity struct {
	Mode Mode `json:"mode"`
	// Principal is the service account e-mail when the credentials name one
	// (the impersonated one when impersonating); in mode User, the caller.
	Principal string `json:"principal,omitempty"`
	// Via is the credential the server started from when it impersonates
	// Principal: "application default credentials" or a file's account.
	Via string `json:"via,omitempty"`
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

// Options configure HTTPClient. The settings are named after their flags
// (--auth, --credentials-file, --impersonate-service-account), as in
// server.Config.
type Options struct {
	// Auth (--auth) is how requests are authenticated.
	Auth Mode
	// Base carries the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// WrapTokenSource, when set, wraps the credentials' token source (the
	// resilience layer retries token fetches there).
	WrapTokenSource func(oauth2.TokenSource) oauth2.TokenSource
	// Source replaces Application Default Credentials (tests).
	Source oauth2.TokenSource
	// CredentialsFile, when set, is read instead of Application Default
	// Credentials: a service account key, user or external account file.
	CredentialsFile string
	// ImpersonateServiceAccount, when set, is the service account every
	// call acts as, through short-lived tokens minted with the base
	// credentials (which need roles/iam.serviceAccountTokenCreator on it).
	ImpersonateServiceAccount string
}

// HTTPClient returns an HTTP client that authenticates every request as
// opts.Auth says.
func HTTPClient(ctx context.Context, opts Options) (*http.Client, Identity, error) {
	base := opts.Base
	if base == nil {
		base = http.DefaultTransport
	}
	switch opts.Auth {
	case None:
		return &http.Client{Transport: base}, Identity{Mode: None}, nil
	case User:
		if opts.CredentialsFile != "" || opts.ImpersonateServiceAccount != "" {
			return nil, Identity{}, errors.New("auth mode user uses each caller's own token: credentials-file and impersonate-service-account do not apply")
		}
		return &http.Client{Transport: &userTransport{base: base}}, Identity{Mode: User}, nil
	case ADC, "":
	default:
		return nil, Identity{}, errors.New(`auth mode must be "adc", "none" or "user"`)
	}
	id := Identity{Mode: ADC}
	ts := opts.Source
	if ts == nil {
		var err error
		if ts, id, err = serverCredentials(ctx, opts); err != nil {
			return nil, Identity{}, err
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
