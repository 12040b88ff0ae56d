package clientauth

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
)

// serve runs a request through g in front of a handler that reports the
// caller it was given.
func serve(t *testing.T, g *Guard, header string) *httptest.ResponseRecorder {
	t.Helper()
	h := g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, auth.CallerFromTokenInfo(mcpauth.TokenInfoFromContext(r.Context())).Principal)
	}))
	req := httptest.NewRequest(http.MethodPost, "http://svc.example/mcp", nil)
	if header != "" {
		req.Header.Set("Authorization", header)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestTokenMode(t *testing.T) {
	g, err := New(context.Background(), Config{Auth: Token, Tokens: []string{"first-token-0123456789", "second-token-0123456789"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		header, wantBody string
		wantCode         int
	}{
		{"Bearer second-token-0123456789", "token:2", 200},
		{"bearer first-token-0123456789", "token:1", 200},
		{"", "", 401},
		{"Bearer second-token-012345678", "", 401},
		{"Bearer second-token-01234567890", "", 401},
		{"Basic second-token-0123456789", "", 401},
	} {
		rec := serve(t, g, tc.header)
		if rec.Code != tc.wantCode || (tc.wantCode == 200 && rec.Body.String() != tc.wantBody) {
			t.Errorf("%q: %d %q, want %d %q", tc.header, rec.Code, rec.Body, tc.wantCode, tc.wantBody)
		}
		if rec.Code == 401 {
			if rec.Header().Get("WWW-Authenticate") == "" {
				t.Errorf("%q: 401 without WWW-Authenticate", tc.header)
			}
			if strings.Contains(rec.Body.String(), "token-01") {
				t.Errorf("%q: the answer repeats the credential: %q", tc.header, rec.Body)
			}
		}
	}
}

// TestTokensFile: --client-tokens-file's tokens, one a line, are accepted
// beside --client-tokens'; a file that cannot be read stops the start.
func TestTokensFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte("file-token-0123456789\n\n  other-token-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := New(context.Background(), Config{Auth: Token, Tokens: []string{"flag-token-0123456789"}, TokensFile: file})
	if err != nil {
		t.Fatal(err)
	}
	for header, want := range map[string]string{
		"Bearer flag-token-0123456789":  "token:1",
		"Bearer file-token-0123456789":  "token:2",
		"Bearer other-token-0123456789": "token:3",
	} {
		if rec := serve(t, g, header); rec.Code != 200 || rec.Body.String() != want {
			t.Errorf("%q: %d %q, want 200 %q", header, rec.Code, rec.Body, want)
		}
	}
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := New(context.Background(), Config{Auth: Token, TokensFile: missing}); err == nil || !strings.Contains(err.Error(), "--client-tokens-file") {
		t.Errorf("a missing tokens file: %v", err)
	}
}

func TestConfigMistakesRefused(t *testing.T) {
	for name, cfg := range map[string]Config{
		"token without tokens":     {Auth: Token},
		"short token":              {Auth: Token, Tokens: []string{"short"}},
		"google without audience":  {Auth: Google, AllowedPrincipals: []string{"a@example.com"}},
		"google without allowlist": {Auth: Google, Audience: []string{"https://svc"}},
		"bad principal":            {Auth: OAuth, AllowedPrincipals: []string{"example.com"}},
		"unknown mode":             {Auth: "basic"},
	} {
		if _, err := New(context.Background(), cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestAllowlist(t *testing.T) {
	a, err := newAllowlist([]string{"Alice@Example.com", " domain:corp.example "})
	if err != nil {
		t.Fatal(err)
	}
	for email, want := range map[string]bool{
		"alice@example.com": true, "ALICE@example.com": true, "bob@example.com": false,
		"carol@corp.example": true, "carol@evil-corp.example": false, "corp.example": false,
	} {
		if a.allows(email) != want {
			t.Errorf("allows(%q) = %v", email, !want)
		}
	}
}

// signer is a local stand-in for Google's ID token signer: it signs RS256
// JWTs and serves its key as JWKS from Google's certs URL.
type signer struct {
	key *rsa.PrivateKey
}

func newSigner(t testing.TB) *signer {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return &signer{key: k}
}

func (s *signer) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.String() != "https://www.googleapis.com/oauth2/v3/certs" {
		return nil, fmt.Errorf("unexpected fetch of %s", r.URL)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	jwks, _ := json.Marshal(map[string]any{"keys": []map[string]string{{
		"kty": "RSA", "alg": "RS256", "use": "sig", "kid": "k1",
		"n": b64(s.key.N.Bytes()), "e": b64(big.NewInt(int64(s.key.E)).Bytes()),
	}}})
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(string(jwks))), Request: r}, nil
}

func (s *signer) token(t testing.TB, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	unsigned := enc(map[string]string{"alg": "RS256", "typ": "JWT", "kid": "k1"}) + "." + enc(claims)
	sum := sha256.Sum256([]byte(unsigned))
	sig, err := rsa.SignPKCS1v15(rand.Reader, s.key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return unsigned + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func TestGoogleMode(t *testing.T) {
	s := newSigner(t)
	g, err := New(context.Background(), Config{Auth: Google, Audience: []string{"https://svc.example"},
		AllowedPrincipals: []string{"alice@example.com", "domain:corp.example"}, HTTPClient: &http.Client{Transport: s}})
	if err != nil {
		t.Fatal(err)
	}
	claims := func(change func(map[string]any)) map[string]any {
		c := map[string]any{"iss": "https://accounts.google.com", "aud": "https://svc.example", "sub": "1",
			"email": "alice@example.com", "email_verified": true,
			"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
		if change != nil {
			change(c)
		}
		return c
	}
	for name, tc := range map[string]struct {
		claims   map[string]any
		wantCode int
		want     string
	}{
		"allowed e-mail":   {claims(nil), 200, "alice@example.com"},
		"allowed domain":   {claims(func(c map[string]any) { c["email"] = "bob@corp.example" }), 200, "bob@corp.example"},
		"short issuer":     {claims(func(c map[string]any) { c["iss"] = "accounts.google.com" }), 200, "alice@example.com"},
		"other issuer":     {claims(func(c map[string]any) { c["iss"] = "https://evil.example" }), 401, ""},
		"other audience":   {claims(func(c map[string]any) { c["aud"] = "https://other.example" }), 401, ""},
		"expired":          {claims(func(c map[string]any) { c["exp"] = time.Now().Add(-time.Hour).Unix() }), 401, ""},
		"not allowed":      {claims(func(c map[string]any) { c["email"] = "mallory@example.com" }), 401, ""},
		"unverified email": {claims(func(c map[string]any) { c["email_verified"] = false }), 401, ""},
		"no email":         {claims(func(c map[string]any) { delete(c, "email") }), 401, ""},
	} {
		rec := serve(t, g, "Bearer "+s.token(t, tc.claims))
		if rec.Code != tc.wantCode || (tc.wantCode == 200 && rec.Body.String() != tc.want) {
			t.Errorf("%s: %d %q, want %d %q", name, rec.Code, rec.Body, tc.wantCode, tc.want)
		}
	}
	// A token signed by another key.
	other := newSigner(t)
	if rec := serve(t, g, "Bearer "+other.token(t, claims(nil))); rec.Code != 401 {
		t.Errorf("foreign signature: %d", rec.Code)
	}
}

// fakeTokenInfo is Google's tokeninfo endpoint for a fixed set of tokens.
type fakeTokenInfo struct {
	calls  atomic.Int32
	tokens map[string]map[string]string
}

func (f *fakeTokenInfo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.calls.Add(1)
	if r.Method != http.MethodPost || r.URL.RawQuery != "" {
		http.Error(w, "want the token in a POST body", 400)
		return
	}
	info, ok := f.tokens[r.PostFormValue("access_token")]
	if !ok {
		w.WriteHeader(400)
		fmt.Fprint(w, `{"error_description":"Invalid Value"}`)
		return
	}
	json.NewEncoder(w).Encode(info)
}

func tokenInfoFor(email, scope string, exp time.Time) map[string]string {
	return map[string]string{"aud": "client-1.apps.googleusercontent.com", "azp": "client-1.apps.googleusercontent.com",
		"sub": "sub-" + email, "scope": scope, "exp": fmt.Sprint(exp.Unix()), "email": email, "email_verified": "true"}
}

func TestOAuthMode(t *testing.T) {
	hour := time.Now().Add(time.Hour)
	fake := &fakeTokenInfo{tokens: map[string]map[string]string{
		"ya29.alice":   tokenInfoFor("alice@example.com", auth.Scope, hour),
		"ya29.cloud":   tokenInfoFor("bob@example.com", "openid https://www.googleapis.com/auth/cloud-platform", hour),
		"ya29.noscope": tokenInfoFor("carol@example.com", "openid email", hour),
		"ya29.expired": tokenInfoFor("dave@example.com", auth.Scope, time.Now().Add(-time.Minute)),
	}}
	ts := httptest.NewServer(fake)
	defer ts.Close()
	g, err := New(context.Background(), Config{Auth: OAuth, OAuthTokenInfoURL: ts.URL, ResourceURL: "https://svc.example/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	rec := serve(t, g, "Bearer ya29.alice")
	if rec.Code != 200 || rec.Body.String() != "alice@example.com" {
		t.Fatalf("alice: %d %q", rec.Code, rec.Body)
	}
	serve(t, g, "Bearer ya29.alice")
	if n := fake.calls.Load(); n != 1 {
		t.Errorf("tokeninfo asked %d times for one token, want 1 (cached verdict)", n)
	}
	if rec := serve(t, g, "Bearer ya29.cloud"); rec.Code != 200 {
		t.Errorf("cloud-platform scope: %d %q", rec.Code, rec.Body)
	}
	rec = serve(t, g, "Bearer ya29.noscope")
	if rec.Code != 403 || !strings.Contains(rec.Header().Get("WWW-Authenticate"), `scope="`+auth.Scope+`"`) {
		t.Errorf("no BigQuery scope: %d %q", rec.Code, rec.Header())
	}
	for _, h := range []string{"", "Bearer ya29.expired", "Bearer ya29.unknown"} {
		rec := serve(t, g, h)
		want := `Bearer resource_metadata="https://svc.example/.well-known/oauth-protected-resource/mcp"`
		if rec.Code != 401 || !strings.HasPrefix(rec.Header().Get("WWW-Authenticate"), want) {
			t.Errorf("%q: %d %q", h, rec.Code, rec.Header().Get("WWW-Authenticate"))
		}
		if strings.Contains(rec.Body.String(), "ya29") {
			t.Errorf("%q: the answer repeats the token: %q", h, rec.Body)
		}
	}
	// The access token travels with the caller, for the BigQuery transport.
	var seen string
	hc, _, err := auth.HTTPClient(context.Background(), auth.Options{Auth: auth.User, Base: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		seen = r.Header.Get("Authorization")
		return &http.Response{StatusCode: 200, Body: http.NoBody, Request: r}, nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	h := g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := auth.WithCaller(r.Context(), auth.CallerFromTokenInfo(mcpauth.TokenInfoFromContext(r.Context())))
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://bigquery.googleapis.com/x", nil)
		resp, err := hc.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		resp.Body.Close()
	}))
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Authorization", "Bearer ya29.alice")
	h.ServeHTTP(httptest.NewRecorder(), req)
	if seen != "Bearer ya29.alice" {
		t.Errorf("BigQuery got Authorization %q, want the user's token", seen)
	}
}

func TestOAuthAudienceAndAllowlist(t *testing.T) {
	hour := time.Now().Add(time.Hour)
	fake := &fakeTokenInfo{tokens: map[string]map[string]string{
		"ya29.alice": tokenInfoFor("alice@example.com", auth.Scope, hour),
		"ya29.bob":   tokenInfoFor("bob@other.example", auth.Scope, hour),
	}}
	ts := httptest.NewServer(fake)
	defer ts.Close()
	g, err := New(context.Background(), Config{Auth: OAuth, OAuthTokenInfoURL: ts.URL, AllowedPrincipals: []string{"domain:example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	if rec := serve(t, g, "Bearer ya29.alice"); rec.Code != 200 {
		t.Errorf("alice: %d", rec.Code)
	}
	if rec := serve(t, g, "Bearer ya29.bob"); rec.Code != 401 {
		t.Errorf("bob outside the allowlist: %d", rec.Code)
	}
	g, _ = New(context.Background(), Config{Auth: OAuth, OAuthTokenInfoURL: ts.URL, Audience: []string{"another-client"}})
	if rec := serve(t, g, "Bearer ya29.alice"); rec.Code != 401 {
		t.Errorf("token of another OAuth client: %d", rec.Code)
	}
}

func TestOAuthTokenInfoDown(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
	ts.Close()
	g, _ := New(context.Background(), Config{Auth: OAuth, OAuthTokenInfoURL: ts.URL})
	rec := serve(t, g, "Bearer ya29.secret-token")
	if rec.Code != 500 || strings.Contains(rec.Body.String(), "secret-token") {
		t.Errorf("tokeninfo unreachable: %d %q", rec.Code, rec.Body)
	}
}

func TestProtectedResourceMetadata(t *testing.T) {
	g, _ := New(context.Background(), Config{Auth: OAuth})
	mux := http.NewServeMux()
	g.Register(mux)
	req := httptest.NewRequest(http.MethodGet, "http://svc.example/.well-known/oauth-protected-resource/mcp", nil)
	req.Header.Set("X-Forwarded-Proto", "https")
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	var md struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		Scopes               []string `json:"scopes_supported"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &md); err != nil {
		t.Fatalf("%d %q: %v", rec.Code, rec.Body, err)
	}
	if md.Resource != "https://svc.example/mcp" || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != GoogleIssuer ||
		len(md.Scopes) != 1 || md.Scopes[0] != auth.Scope {
		t.Errorf("metadata = %+v", md)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
