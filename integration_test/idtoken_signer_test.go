package integration_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
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
//
// It also serves an ES256 key (kid "test-ec-key") where idtoken fetches
// Google's IAP keys, so crafted tokens can name a key the validator knows.
type googleSigner struct {
	key *rsa.PrivateKey
	ec  *ecdsa.PrivateKey
}

func newGoogleSigner(t *testing.T) *googleSigner {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &googleSigner{key: k, ec: ec}
}

func (s *googleSigner) RoundTrip(r *http.Request) (*http.Response, error) {
	b64 := base64.RawURLEncoding.EncodeToString
	var key map[string]string
	switch r.URL.String() {
	case "https://www.googleapis.com/oauth2/v3/certs":
		key = map[string]string{"kty": "RSA", "alg": "RS256", "use": "sig", "kid": "test-key",
			"n": b64(s.key.N.Bytes()), "e": b64(big.NewInt(int64(s.key.E)).Bytes())}
	case "https://www.gstatic.com/iap/verify/public_key-jwk":
		key = map[string]string{"kty": "EC", "alg": "ES256", "use": "sig", "kid": "test-ec-key", "crv": "P-256",
			"x": b64(s.ec.X.FillBytes(make([]byte, 32))), "y": b64(s.ec.Y.FillBytes(make([]byte, 32)))}
	default:
		return nil, fmt.Errorf("unexpected fetch of %s", r.URL)
	}
	jwks, _ := json.Marshal(map[string]any{"keys": []map[string]string{key}})
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

// craftedES256 is an ID token for email under the ES256 key's ID whose
// signature is 3 bytes: google.golang.org/api/idtoken panicked on it.
func (s *googleSigner) craftedES256(email, audience string) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	claims := map[string]any{"iss": "https://accounts.google.com", "aud": audience, "sub": "sub-" + email,
		"email": email, "email_verified": true, "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
	return enc(map[string]string{"alg": "ES256", "typ": "JWT", "kid": "test-ec-key"}) + "." + enc(claims) + "." +
		base64.RawURLEncoding.EncodeToString([]byte{1, 2, 3})
}
