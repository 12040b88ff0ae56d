package auth

import (
	"context"
	"log/slog"
	"time"

	mcpauth "github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"
)

// Caller is the authenticated MCP client a request runs for. In the http
// server's oauth mode it also carries the client's own Google access token,
// which then becomes the BigQuery credential for that request (mode User).
type Caller struct {
	// Principal names the caller (an e-mail, "sub:…" or "token:…"); empty
	// when clients are not authenticated. Per-identity caches key on it.
	Principal string
	token     *oauth2.Token
}

// NewUserCaller is a caller whose verified access token is used against
// BigQuery on its behalf.
func NewUserCaller(principal, accessToken string, expiry time.Time) Caller {
	return Caller{Principal: principal, token: &oauth2.Token{AccessToken: accessToken, TokenType: "Bearer", Expiry: expiry}}
}

// LogValue keeps the token out of any log a Caller reaches.
func (c Caller) LogValue() slog.Value { return slog.StringValue(c.Principal) }

// String is the principal, never the token.
func (c Caller) String() string { return c.Principal }

type callerKey struct{}

// WithCaller returns ctx carrying c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller ctx carries; the zero Caller when none.
func CallerFrom(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}

// callerExtra is the TokenInfo.Extra key under which client verifiers hand
// the Caller to the server's tool middleware.
const callerExtra = "bigquery-mcp.caller"

// TokenInfo is what a client verifier returns for c: go-sdk's HTTP handler
// passes it to every tool call of the request (CallToolRequest.Extra).
func (c Caller) TokenInfo(expiry time.Time, scopes []string) *mcpauth.TokenInfo {
	return &mcpauth.TokenInfo{UserID: c.Principal, Expiration: expiry, Scopes: scopes, Extra: map[string]any{callerExtra: c}}
}

// CallerFromTokenInfo returns the Caller a client verifier stored in ti;
// the zero Caller when ti is nil or holds none.
func CallerFromTokenInfo(ti *mcpauth.TokenInfo) Caller {
	if ti == nil {
		return Caller{}
	}
	c, _ := ti.Extra[callerExtra].(Caller)
	return c
}

// CredentialKey names the BigQuery identity c's requests run as, for
// caches that must not be shared between identities: the principal of a
// user caller (mode User), "" for callers that run as the server.
func (c Caller) CredentialKey() string {
	if c.token == nil {
		return ""
	}
	return "user:" + c.Principal
}
