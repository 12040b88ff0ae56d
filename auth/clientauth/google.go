package clientauth

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	mcpauth "github.com/modelcontextprotocol/go-sdk/auth"
	"google.golang.org/api/idtoken"
	"google.golang.org/api/option"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
)

// googleIssuers are the iss values of Google-signed ID tokens. idtoken
// does not check iss itself.
var googleIssuers = []string{"accounts.google.com", "https://accounts.google.com"}

// googleVerifier accepts Google-signed ID tokens (gcloud auth
// print-identity-token, service-to-service calls) for one of audiences,
// from a verified e-mail on the allowlist. Signing keys are fetched through
// hc and cached as Google's Cache-Control says.
func googleVerifier(ctx context.Context, hc *http.Client, audiences []string, allow allowlist) (mcpauth.TokenVerifier, error) {
	v, err := idtoken.NewValidator(ctx, option.WithHTTPClient(hc))
	if err != nil {
		return nil, fmt.Errorf("client-auth google: %w", err)
	}
	return func(ctx context.Context, token string, _ *http.Request) (*mcpauth.TokenInfo, error) {
		if err := checkIDTokenShape(token); err != nil {
			return nil, err
		}
		// The audience is checked below, against the whole list.
		p, err := v.Validate(ctx, token, "")
		if err != nil {
			return nil, invalid("not a valid Google ID token")
		}
		if !slices.Contains(googleIssuers, p.Issuer) {
			return nil, invalid("ID token not issued by Google")
		}
		if !slices.Contains(audiences, p.Audience) {
			return nil, invalid("ID token minted for another audience")
		}
		email, _ := p.Claims["email"].(string)
		verified, _ := p.Claims["email_verified"].(bool)
		if email == "" || !verified {
			return nil, invalid("ID token has no verified e-mail (mint it with --include-email)")
		}
		if !allow.allows(email) {
			return nil, invalid(email + " is not an allowed principal")
		}
		return auth.Caller{Principal: email}.TokenInfo(time.Unix(p.Expires, 0), nil), nil
	}, nil
}
