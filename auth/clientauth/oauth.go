package clientauth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	mcpauth "github.com/modelcontextprotocol/go-sdk/auth"
	gocache "github.com/patrickmn/go-cache"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
)

// DefaultTokenInfoURL is Google's access token verification endpoint.
const DefaultTokenInfoURL = "https://oauth2.googleapis.com/tokeninfo"

// verdictTTL bounds how long a verified token is trusted without asking
// Google again: a revoked token keeps working at most this long.
const verdictTTL = time.Minute

// cloudPlatformScope also grants BigQuery access.
const cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// oauthVerifier verifies Google OAuth access tokens at the tokeninfo
// endpoint and caches verdicts briefly, keyed by the token's SHA-256 (the
// token itself is kept only inside the Caller of the request it came with).
type oauthVerifier struct {
	hc        *http.Client
	url       string
	audiences []string
	allow     allowlist
	verdicts  *gocache.Cache
}

func newOAuthVerifier(hc *http.Client, url string, audiences []string, allow allowlist) *oauthVerifier {
	return &oauthVerifier{hc: hc, url: url, audiences: audiences, allow: allow, verdicts: gocache.New(verdictTTL, verdictTTL)}
}

// verdict is what tokeninfo said about a token, without the token.
type verdict struct {
	principal string
	expiry    time.Time
	scopes    []string
}

func (o *oauthVerifier) verify(ctx context.Context, token string, _ *http.Request) (*mcpauth.TokenInfo, error) {
	if err := checkAccessTokenShape(token); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(token))
	key := hex.EncodeToString(sum[:])
	v, ok := o.verdicts.Get(key)
	if !ok {
		fresh, err := o.ask(ctx, token)
		if err != nil {
			return nil, err
		}
		ttl := min(verdictTTL, time.Until(fresh.expiry))
		o.verdicts.Set(key, fresh, ttl)
		v = fresh
	}
	vd := v.(verdict)
	return auth.NewUserCaller(vd.principal, token, vd.expiry).TokenInfo(vd.expiry, vd.scopes), nil
}

// tokenInfo is the tokeninfo endpoint's answer.
type tokenInfo struct {
	Audience      string `json:"aud"`
	AuthorizedFor string `json:"azp"`
	Subject       string `json:"sub"`
	Scope         string `json:"scope"`
	Expiry        string `json:"exp"`
	Email         string `json:"email"`
	EmailVerified string `json:"email_verified"`
	Error         string `json:"error_description"`
}

// ask sends the token in a POST body, never in a URL, so no error text
// (net/http quotes URLs in its errors) can carry it.
func (o *oauthVerifier) ask(ctx context.Context, token string) (verdict, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.url, strings.NewReader(url.Values{"access_token": {token}}.Encode()))
	if err != nil {
		return verdict{}, fmt.Errorf("token verification: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := o.hc.Do(req)
	if err != nil {
		return verdict{}, errors.New("token verification is unavailable: Google's tokeninfo endpoint could not be reached")
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return verdict{}, errors.New("token verification is unavailable: reading Google's answer failed")
	}
	switch {
	case resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusUnauthorized:
		return verdict{}, invalid("Google does not accept this access token (expired or revoked)")
	case resp.StatusCode != http.StatusOK:
		return verdict{}, fmt.Errorf("token verification is unavailable: Google's tokeninfo endpoint answered %d", resp.StatusCode)
	}
	var ti tokenInfo
	if err := json.Unmarshal(body, &ti); err != nil {
		return verdict{}, errors.New("token verification is unavailable: Google's answer is not JSON")
	}
	return o.judge(ti)
}

// judge turns a tokeninfo answer into a verdict by this server's rules.
func (o *oauthVerifier) judge(ti tokenInfo) (verdict, error) {
	exp, err := strconv.ParseInt(ti.Expiry, 10, 64)
	if err != nil || time.Unix(exp, 0).Before(time.Now()) {
		return verdict{}, invalid("access token expired")
	}
	if len(o.audiences) > 0 && !slices.Contains(o.audiences, ti.Audience) && !slices.Contains(o.audiences, ti.AuthorizedFor) {
		return verdict{}, invalid("access token issued to another OAuth client")
	}
	scopes := strings.Fields(ti.Scope)
	if slices.Contains(scopes, cloudPlatformScope) && !slices.Contains(scopes, auth.Scope) {
		scopes = append(scopes, auth.Scope) // cloud-platform covers BigQuery
	}
	principal := "sub:" + ti.Subject
	if ti.Email != "" && ti.EmailVerified == "true" {
		principal = ti.Email
	}
	if ti.Subject == "" {
		return verdict{}, invalid("access token names no user")
	}
	if !o.allow.empty() && (principal != ti.Email || !o.allow.allows(ti.Email)) {
		return verdict{}, invalid(principal + " is not an allowed principal")
	}
	return verdict{principal: principal, expiry: time.Unix(exp, 0), scopes: scopes}, nil
}
