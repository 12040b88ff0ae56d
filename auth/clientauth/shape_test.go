package clientauth

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mcpauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
)

// googleKeys serves a local RS256 signer's JWKS where idtoken fetches
// Google's service keys and an ES256 key's JWKS where it fetches Google's
// IAP keys, so tokens can carry the key ID of a key the validator knows.
type googleKeys struct {
	rsa *signer
	ec  *ecdsa.PrivateKey
}

const ecKeyID = "ec1"

func newGoogleKeys(t testing.TB) *googleKeys {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &googleKeys{rsa: newSigner(t), ec: k}
}

func (g *googleKeys) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.String() != "https://www.gstatic.com/iap/verify/public_key-jwk" {
		return g.rsa.RoundTrip(r)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	pub := g.ec.PublicKey
	jwks, _ := json.Marshal(map[string]any{"keys": []map[string]string{{
		"kty": "EC", "alg": "ES256", "use": "sig", "kid": ecKeyID, "crv": "P-256",
		"x": b64(pub.X.FillBytes(make([]byte, 32))), "y": b64(pub.Y.FillBytes(make([]byte, 32))),
	}}})
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}, "Cache-Control": {"max-age=3600"}},
		Body: io.NopCloser(bytes.NewReader(jwks)), Request: r}, nil
}

func aliceClaims() map[string]any {
	return map[string]any{"iss": "https://accounts.google.com", "aud": "https://svc.example", "sub": "1",
		"email": "alice@example.com", "email_verified": true,
		"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
}

func jwtPart(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

// es256Token signs claims with the ES256 key; sig, when set, replaces the
// signature (crafted tokens).
func (g *googleKeys) es256Token(t testing.TB, claims map[string]any, sig []byte) string {
	t.Helper()
	unsigned := jwtPart(map[string]string{"alg": "ES256", "typ": "JWT", "kid": ecKeyID}) + "." + jwtPart(claims)
	if sig == nil {
		sum := sha256.Sum256([]byte(unsigned))
		r, s, err := ecdsa.Sign(rand.Reader, g.ec, sum[:])
		if err != nil {
			t.Fatal(err)
		}
		sig = append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...)
	}
	return unsigned + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func newGoogleGuard(t testing.TB, keys *googleKeys, log *slog.Logger) *Guard {
	g, err := New(context.Background(), Config{Auth: Google, Audience: []string{"https://svc.example"},
		AllowedPrincipals: []string{"alice@example.com"}, HTTPClient: &http.Client{Transport: keys}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// post sends a request with token to the server at url; a dropped
// connection fails the test.
func post(t *testing.T, url, token string) (int, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header
}

// TestCraftedES256TokenIsRefused: an ES256 token under a known key ID with
// a 3-byte signature panicked google.golang.org/api/idtoken and the client
// got EOF. It now gets a 401 with a challenge, and the server goes on
// serving valid tokens of both algorithms.
func TestCraftedES256TokenIsRefused(t *testing.T) {
	keys := newGoogleKeys(t)
	var logs bytes.Buffer
	g := newGoogleGuard(t, keys, slog.New(slog.NewJSONHandler(&logs, nil)))
	ts := httptest.NewServer(g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, auth.CallerFromTokenInfo(mcpauth.TokenInfoFromContext(r.Context())).Principal)
	})))
	defer ts.Close()

	for name, sig := range map[string][]byte{
		"3-byte signature":  {1, 2, 3},
		"31-byte signature": bytes.Repeat([]byte{1}, 31),
		"63-byte signature": bytes.Repeat([]byte{1}, 63),
		"65-byte signature": bytes.Repeat([]byte{1}, 65),
	} {
		code, h := post(t, ts.URL, keys.es256Token(t, aliceClaims(), sig))
		if code != http.StatusUnauthorized || h.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: %d, WWW-Authenticate %q; want 401 with a challenge", name, code, h.Get("WWW-Authenticate"))
		}
	}
	if code, _ := post(t, ts.URL, keys.es256Token(t, aliceClaims(), nil)); code != http.StatusOK {
		t.Errorf("valid ES256 token after the crafted ones: %d", code)
	}
	if code, _ := post(t, ts.URL, keys.rsa.token(t, aliceClaims())); code != http.StatusOK {
		t.Errorf("valid RS256 token after the crafted ones: %d", code)
	}
	if strings.Contains(logs.String(), "panicked") {
		t.Errorf("the shape check let a crafted token reach the library: %s", logs.String())
	}
}

// TestMalformedTokensGet401: every shape the check refuses is a 401, in
// google and oauth mode alike, and oauth mode asks Google about none of them.
func TestMalformedTokensGet401(t *testing.T) {
	keys := newGoogleKeys(t)
	google := newGoogleGuard(t, keys, nil)
	fake := &fakeTokenInfo{}
	ti := httptest.NewServer(fake)
	defer ti.Close()
	oauth, err := New(context.Background(), Config{Auth: OAuth, OAuthTokenInfoURL: ti.URL})
	if err != nil {
		t.Fatal(err)
	}
	valid := keys.rsa.token(t, aliceClaims())
	parts := strings.Split(valid, ".")
	hdr := func(h map[string]any) string { return jwtPart(h) + "." + parts[1] + "." + parts[2] }
	for name, tok := range map[string]string{
		"two segments":       parts[0] + "." + parts[1],
		"four segments":      valid + ".x",
		"empty signature":    parts[0] + "." + parts[1] + ".",
		"padded segment":     parts[0] + "=." + parts[1] + "." + parts[2],
		"standard base64":    parts[0] + "." + parts[1] + "." + strings.ReplaceAll(parts[2], "_", "/") + "+",
		"header not JSON":    base64.RawURLEncoding.EncodeToString([]byte("nope")) + "." + parts[1] + "." + parts[2],
		"payload not object": parts[0] + "." + jwtPart([]int{1}) + "." + parts[2],
		"alg none":           hdr(map[string]any{"alg": "none", "kid": "k1"}),
		"alg HS256":          hdr(map[string]any{"alg": "HS256", "kid": "k1"}),
		"no kid":             hdr(map[string]any{"alg": "RS256"}),
		"kid not a string":   hdr(map[string]any{"alg": "RS256", "kid": 7}),
		"kid with quotes":    hdr(map[string]any{"alg": "RS256", "kid": `k1"`}),
		"kid too long":       hdr(map[string]any{"alg": "RS256", "kid": strings.Repeat("k", 200)}),
		"RS256 short sig":    parts[0] + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString(make([]byte, 255)),
		"ES256 sig under RS": hdr(map[string]any{"alg": "ES256", "kid": "k1"}),
		"too long":           parts[0] + "." + parts[1] + strings.Repeat("A", maxTokenBytes) + "." + parts[2],
	} {
		if rec := serve(t, google, "Bearer "+tok); rec.Code != http.StatusUnauthorized || rec.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("%s: %d %q", name, rec.Code, rec.Header().Get("WWW-Authenticate"))
		}
	}
	// Not even an opaque access token: refused in both modes.
	for name, tok := range map[string]string{
		"control character": "ya29.\x01",
		"quote":             `ya29."x"`,
		"only padding":      "==",
		"padding inside":    "ya29=.x",
		"non-ASCII":         "ya29.é",
		"too long":          strings.Repeat("a", maxTokenBytes+1),
	} {
		for mode, g := range map[string]*Guard{"google": google, "oauth": oauth} {
			if rec := serve(t, g, "Bearer "+tok); rec.Code != http.StatusUnauthorized || rec.Header().Get("WWW-Authenticate") == "" {
				t.Errorf("%s, %s mode: %d %q", name, mode, rec.Code, rec.Header().Get("WWW-Authenticate"))
			}
		}
	}
	if n := fake.calls.Load(); n != 0 {
		t.Errorf("tokeninfo asked %d times about malformed tokens", n)
	}
}

// TestVerifierPanicIs401: whatever panics inside a verifier, the client
// gets a 401 with a challenge, the log names the fault without the token,
// and the next request is served.
func TestVerifierPanicIs401(t *testing.T) {
	var logs bytes.Buffer
	g, err := New(context.Background(), Config{Auth: Token, Tokens: []string{"a-token-of-sixteen-chars"}, Log: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ok := g.verify
	g.verify = func(ctx context.Context, token string, r *http.Request) (*mcpauth.TokenInfo, error) {
		if strings.HasPrefix(token, "boom") {
			panic("cannot parse " + token)
		}
		return ok(ctx, token, r)
	}
	ts := httptest.NewServer(g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
	defer ts.Close()
	code, h := post(t, ts.URL, "boom-secret-value")
	if code != http.StatusUnauthorized || h.Get("WWW-Authenticate") == "" {
		t.Errorf("panicking verifier: %d %q, want 401 with a challenge", code, h.Get("WWW-Authenticate"))
	}
	if !strings.Contains(logs.String(), "panicked") || strings.Contains(logs.String(), "boom-secret-value") {
		t.Errorf("log: want the fault without the token, got %s", logs.String())
	}
	if code, _ := post(t, ts.URL, "a-token-of-sixteen-chars"); code != http.StatusOK {
		t.Errorf("request after the panic: %d", code)
	}
}

// FuzzGoogleVerify feeds arbitrary tokens to google mode's verifier,
// whose validator knows the local keys (seeded with valid and crafted
// tokens under them, so mutations reach signature checking): it never
// panics, and accepts nothing but alice's tokens signed by those keys.
//
//	go test -run '^$' -fuzz FuzzGoogleVerify ./auth/clientauth
func FuzzGoogleVerify(f *testing.F) {
	keys := newGoogleKeys(f)
	g := newGoogleGuard(f, keys, nil)
	f.Add(keys.rsa.token(f, aliceClaims()))
	f.Add(keys.es256Token(f, aliceClaims(), nil))
	f.Add(keys.es256Token(f, aliceClaims(), []byte{1, 2, 3}))
	f.Add("a.b.c")
	f.Fuzz(func(t *testing.T, token string) {
		ti, err := g.verify(context.Background(), token, nil)
		if err == nil && auth.CallerFromTokenInfo(ti).Principal != "alice@example.com" {
			t.Fatalf("accepted %q for %+v", token, ti)
		}
	})
}
