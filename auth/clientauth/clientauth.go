// Package clientauth authenticates MCP clients of the http server: who may
// call the server at all, as opposed to package auth, which gives the
// server (or, in oauth mode, each user) credentials for BigQuery.
//
// Every mode answers a missing or wrong credential with 401 and a
// WWW-Authenticate header, and hands the verified caller to the tools
// through go-sdk's TokenInfo (see [auth.CallerFromTokenInfo]). No
// credential reaches a log or an error text.
package clientauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	mcpauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
)

// Mode is how clients authenticate.
type Mode string

const (
	// None lets every client in: for loopback addresses, or behind Cloud
	// Run's IAM invoker check.
	None Mode = "none"
	// Token accepts static bearer tokens.
	Token Mode = "token"
	// Google accepts Google-signed ID tokens of allowed principals.
	Google Mode = "google"
	// OAuth accepts a user's Google OAuth access token and uses it as that
	// user's BigQuery credential.
	OAuth Mode = "oauth"
)

// GoogleIssuer is the authorization server oauth mode names in its
// protected resource metadata.
const GoogleIssuer = "https://accounts.google.com"

// MetadataPath is where oauth mode serves its RFC 9728 metadata.
const MetadataPath = "/.well-known/oauth-protected-resource"

// Config configures client authentication. Each setting's field is named
// after its flag (--client-auth fills Auth of the Client settings,
// --client-tokens Tokens, --oauth-tokeninfo-url OAuthTokenInfoURL), and is
// what the flag says, unconverted: New reads the files and checks the rest.
type Config struct {
	// Auth (--client-auth) is the mode; empty: None.
	Auth Mode
	// Tokens (--client-tokens) are accepted bearer tokens (mode token).
	Tokens []string
	// TokensFile (--client-tokens-file) holds more of them, one a line,
	// read by New and added to Tokens.
	TokensFile string
	// Audience (--client-audience): in mode google the accepted ID token
	// audiences (required: Cloud Run's service URL); in mode oauth, when
	// set, the OAuth client IDs whose access tokens are accepted.
	Audience []string
	// AllowedPrincipals (--allowed-principals) are e-mails or
	// "domain:example.com" entries (required in mode google, optional in
	// mode oauth).
	AllowedPrincipals []string
	// ResourceURL (--resource-url) is the public URL of the MCP endpoint,
	// named in oauth mode's metadata; empty derives it from each request's
	// Host.
	ResourceURL string
	// OAuthTokenInfoURL (--oauth-tokeninfo-url) is Google's token
	// verification endpoint (mode oauth); empty means DefaultTokenInfoURL.
	// Tests point it at a fake.
	OAuthTokenInfoURL string
	// HTTPClient carries key fetches (google) and token verification
	// (oauth); nil means a client with a 10 s timeout.
	HTTPClient *http.Client
	// Log receives verification faults (never a credential); nil means
	// slog.Default().
	Log *slog.Logger
}

// Guard authenticates requests before they reach the MCP handler.
type Guard struct {
	mode        Mode
	verify      mcpauth.TokenVerifier
	scopes      []string
	resourceURL string
	log         *slog.Logger
}

// New checks cfg and builds its Guard.
func New(ctx context.Context, cfg Config) (*Guard, error) {
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	g := &Guard{mode: cfg.Auth, resourceURL: cfg.ResourceURL, log: cfg.Log}
	if g.log == nil {
		g.log = slog.Default()
	}
	allow, err := newAllowlist(cfg.AllowedPrincipals)
	if err != nil {
		return nil, err
	}
	// A tokens file that cannot be read stops the start in every mode, as
	// a mistake in any other setting does.
	tokens := cfg.Tokens
	if cfg.TokensFile != "" {
		data, err := os.ReadFile(cfg.TokensFile)
		if err != nil {
			return nil, fmt.Errorf("--client-tokens-file: %w", err)
		}
		tokens = append(slices.Clip(tokens), strings.Fields(string(data))...)
	}
	switch cfg.Auth {
	case None, "":
		g.mode = None
	case Token:
		if g.verify, err = tokenVerifier(tokens); err != nil {
			return nil, err
		}
	case Google:
		if len(cfg.Audience) == 0 {
			return nil, errors.New("client-auth google needs --client-audience: the audience the ID tokens are minted for (the Cloud Run service URL)")
		}
		if allow.empty() {
			return nil, errors.New("client-auth google needs --allowed-principals (e-mails or domain:example.com): any Google account can mint an ID token")
		}
		if g.verify, err = googleVerifier(ctx, hc, cfg.Audience, allow); err != nil {
			return nil, err
		}
	case OAuth:
		url := cfg.OAuthTokenInfoURL
		if url == "" {
			url = DefaultTokenInfoURL
		}
		g.verify = newOAuthVerifier(hc, url, cfg.Audience, allow).verify
		g.scopes = []string{auth.Scope}
	default:
		return nil, fmt.Errorf("unknown client-auth mode %q (want none, token, google or oauth)", cfg.Auth)
	}
	return g, nil
}

// Register adds the routes the mode serves besides MCP: oauth mode's
// protected resource metadata, at the root and (RFC 9728 §3.1) under the
// MCP path.
func (g *Guard) Register(mux *http.ServeMux) {
	if g.mode != OAuth {
		return
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mcpauth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource:               g.resource(r),
			AuthorizationServers:   []string{GoogleIssuer},
			ScopesSupported:        []string{auth.Scope},
			BearerMethodsSupported: []string{"header"},
			ResourceName:           "BigQuery MCP server",
		}).ServeHTTP(w, r)
	})
	mux.Handle(MetadataPath, h)
	mux.Handle(MetadataPath+"/mcp", h)
}

// Wrap returns next behind the guard.
func (g *Guard) Wrap(next http.Handler) http.Handler {
	if g.verify == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		opts := &mcpauth.RequireBearerTokenOptions{Scopes: g.scopes, AllowMissingExpiration: g.mode == Token, ClockSkew: 30 * time.Second}
		if g.mode == OAuth {
			opts.ResourceMetadataURL = g.metadataURL(r)
		}
		mcpauth.RequireBearerToken(g.safeVerify, opts)(next).ServeHTTP(&challenge{ResponseWriter: w}, r)
	})
}

// safeVerify runs the mode's verifier and turns a panic in it into a 401.
// Verification parses what anyone on the network sends, partly in
// libraries this server does not control; without this, net/http would
// recover the panic itself and drop the connection with no answer.
func (g *Guard) safeVerify(ctx context.Context, token string, r *http.Request) (ti *mcpauth.TokenInfo, err error) {
	defer func() {
		if p := recover(); p != nil {
			// Go stacks print a string argument as a pointer and length;
			// the panic value could quote the token, so it is cut out.
			msg := fmt.Sprint(p)
			if token != "" {
				msg = strings.ReplaceAll(msg, token, "[credential]")
			}
			g.log.ErrorContext(ctx, "client credential verification panicked; answered 401",
				"client_auth", string(g.mode), "panic", msg, "stack", string(debug.Stack()))
			ti, err = nil, invalid("the credential could not be verified")
		}
	}()
	return g.verify(ctx, token, r)
}

// resource is the MCP endpoint's public URL.
func (g *Guard) resource(r *http.Request) string {
	if g.resourceURL != "" {
		return g.resourceURL
	}
	return origin(r) + "/mcp"
}

func (g *Guard) metadataURL(r *http.Request) string {
	if g.resourceURL == "" {
		return origin(r) + MetadataPath + "/mcp"
	}
	scheme, rest, _ := strings.Cut(g.resourceURL, "://")
	host, path, _ := strings.Cut(rest, "/")
	if path != "" {
		path = "/" + path
	}
	return scheme + "://" + host + MetadataPath + path
}

// origin is the scheme and host clients reached: Cloud Run terminates TLS
// and says so in X-Forwarded-Proto.
func origin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// challenge makes every 401 carry WWW-Authenticate, as RFC 6750 asks,
// also in modes without resource metadata.
type challenge struct{ http.ResponseWriter }

func (c *challenge) WriteHeader(code int) {
	if code == http.StatusUnauthorized && c.Header().Get("WWW-Authenticate") == "" {
		c.Header().Set("WWW-Authenticate", `Bearer realm="bigquery-mcp"`)
	}
	c.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection (SSE flushes).
func (c *challenge) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// Flush passes SSE flushes through.
func (c *challenge) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// invalid is a verification failure the client sees: a 401 with msg,
// which never contains the credential.
func invalid(msg string) error { return fmt.Errorf("%w: %s", mcpauth.ErrInvalidToken, msg) }
