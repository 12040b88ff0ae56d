package integration_test

import (
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
	"strings"
	"testing"
	"time"
)

// googleSigner stands in for Google's ID token signer: it signs RS256 JWTs
// and, as an http.RoundTripper, serves its public key as JWKS from the URL
// google.golang.org/api/idtoken fetches Google's keys from.
type googleSigner struct {
	key *rsa.PrivateKey
}

func newGoogleSigner(t *testing.T) *googleSigner {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return &googleSigner{key: k}
}

func (s *googleSigner) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.String() != "https://www.googleapis.com/oauth2/v3/certs" {
		return nil, fmt.Errorf("unexpected fetch of %s", r.URL)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	jwks, _ := json.Marshal(map[string]any{"keys": []map[string]string{{
		"kty": "RSA", "alg": "RS256", "use": "sig", "kid": "test-key",
		"n": b64(s.key.N.Bytes()), "e": b64(big.NewInt(int64(s.key.E)).Bytes()),
	}}})
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}, "Cache-Control": {"max-age=3600"}},
		Body: io.NopCloser(strings.NewReader(string(jwks))), Request: r}, nil
}

// idToken mints an ID token for email and audience; change edits claims.
func (s *googleSigner) idToken(t *testing.T, email, audience string, change func(map[string]any)) string {
	t.Helper()
	claims := map[string]any{"iss": "https://accounts.google.com", "aud": audience, "sub": "sub-" + email,
		"email": email, "email_verified": true, "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
	if change != nil {
		change(claims)
	}
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	unsigned := enc(map[string]string{"alg": "RS256", "typ": "JWT", "kid": "test-key"}) + "." + enc(claims)
	sum := sha256.Sum256([]byte(unsigned))
	sig, err := rsa.SignPKCS1v15(rand.Reader, s.key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return unsigned + "." + base64.RawURLEncoding.EncodeToString(sig)
}
