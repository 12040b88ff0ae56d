package clientauth

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
)

// maxTokenBytes bounds a bearer token before any parsing. Google's ID
// tokens are about 1 KiB and its access tokens at most 2 KiB; anything far
// longer is not one of them and is not worth decoding.
const maxTokenBytes = 8 << 10

// maxKeyIDBytes bounds an ID token's kid: Google's are 40 hex digits.
const maxKeyIDBytes = 128

// es256SignatureBytes is a raw ES256 signature: r and s, 32 bytes each
// (RFC 7518 §3.4). idtoken slices the signature at 32 bytes without
// checking its length, so a shorter one panics inside the library.
const es256SignatureBytes = 64

// rsaSignatureBytes are the RS256 signature lengths of 2048-, 3072- and
// 4096-bit keys: an RS256 signature is exactly as long as its key's
// modulus. Google signs with 2048-bit keys; the library then checks the
// length against the key it finds.
var rsaSignatureBytes = []int{256, 384, 512}

// checkIDTokenShape refuses a token that is not a well-formed JWS of the
// kind Google signs ID tokens with, before google.golang.org/api/idtoken
// sees it: that library trusts the signature's length (a 3-byte ES256
// signature under a real Google key ID panics it), so it gets only tokens
// whose every segment decodes, whose header names RS256 or ES256 with a
// plausible key ID, and whose signature has that algorithm's length.
func checkIDTokenShape(token string) error {
	if len(token) > maxTokenBytes {
		return invalid("ID token too long")
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return invalid("not a JWT: want three base64url segments separated by dots")
	}
	var seg [3][]byte
	for i, p := range parts {
		b, err := base64.RawURLEncoding.DecodeString(p)
		if err != nil || len(b) == 0 {
			return invalid("not a JWT: a segment is not unpadded base64url")
		}
		seg[i] = b
	}
	var header struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	if err := json.Unmarshal(seg[0], &header); err != nil {
		return invalid("not a JWT: the header is not a JSON object")
	}
	if !validKeyID(header.Kid) {
		return invalid("ID token header names no usable key ID")
	}
	if !json.Valid(seg[1]) || seg[1][0] != '{' {
		return invalid("not a JWT: the payload is not a JSON object")
	}
	sig := len(seg[2])
	switch header.Alg {
	case "ES256":
		if sig != es256SignatureBytes {
			return invalid("ES256 signature has the wrong length")
		}
	case "RS256":
		if !slices.Contains(rsaSignatureBytes, sig) {
			return invalid("RS256 signature has the wrong length")
		}
	default:
		return invalid("ID token not signed with RS256 or ES256")
	}
	return nil
}

// validKeyID accepts the key IDs a JWKS could plausibly hold: short, and
// made of URL-safe characters only.
func validKeyID(kid string) bool {
	if kid == "" || len(kid) > maxKeyIDBytes {
		return false
	}
	for _, c := range []byte(kid) {
		if !isTokenChar(c) {
			return false
		}
	}
	return true
}

// checkAccessTokenShape refuses what cannot be a Google access token (an
// RFC 6750 b64token of bounded length) before it is sent to tokeninfo, so
// junk costs no round trip to Google.
func checkAccessTokenShape(token string) error {
	body := strings.TrimRight(token, "=")
	if body == "" || len(token) > maxTokenBytes {
		return invalid("not an access token")
	}
	for _, c := range []byte(body) {
		if !isTokenChar(c) && c != '+' && c != '/' {
			return invalid("not an access token")
		}
	}
	return nil
}

// isTokenChar is a letter, digit or one of -._~ (RFC 6750 b64token
// without + and /).
func isTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}
