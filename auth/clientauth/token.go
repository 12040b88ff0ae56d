package clientauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"time"

	mcpauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
)

// minTokenLength keeps guessable tokens out of configuration.
const minTokenLength = 16

// tokenVerifier accepts the configured static tokens. Every comparison is
// of SHA-256 digests in constant time, and every token is compared, so
// neither a token's length nor which one matched shows in timing.
func tokenVerifier(tokens []string) (mcpauth.TokenVerifier, error) {
	if len(tokens) == 0 {
		return nil, errors.New("client-auth token needs --client-tokens or --client-tokens-file")
	}
	digests := make([][32]byte, len(tokens))
	for i, t := range tokens {
		if len(t) < minTokenLength {
			return nil, fmt.Errorf("client token %d is shorter than %d characters: use e.g. `openssl rand -hex 32`", i+1, minTokenLength)
		}
		digests[i] = sha256.Sum256([]byte(t))
	}
	return func(_ context.Context, token string, _ *http.Request) (*mcpauth.TokenInfo, error) {
		got := sha256.Sum256([]byte(token))
		match := -1
		for i := range digests {
			if subtle.ConstantTimeCompare(got[:], digests[i][:]) == 1 {
				match = i
			}
		}
		if match < 0 {
			return nil, invalid("unknown token")
		}
		return auth.Caller{Principal: fmt.Sprintf("token:%d", match+1)}.TokenInfo(time.Time{}, nil), nil
	}, nil
}
