package integration_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/auth/clientauth"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/server"
)

// TestCloudRunGoogleIDTokens serves the real server behind google client
// auth, with Google's keys served by a local signer (idtoken fetches them
// through the client it is given; the binary always asks Google, so this
// test assembles the HTTP edge in-process the way the binary does).
func TestCloudRunGoogleIDTokens(t *testing.T) {
	const audience = "https://bigquery-mcp-test.a.run.app"
	signer := newGoogleSigner(t)
	guard, err := clientauth.New(context.Background(), clientauth.Config{
		Auth: clientauth.Google, Audience: []string{audience},
		AllowedPrincipals: []string{"alice@example.com", "domain:corp.example"},
		HTTPClient:        &http.Client{Transport: signer},
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := server.Build(context.Background(), testConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return b.MCP }, &mcp.StreamableHTTPOptions{Stateless: true})
	srv := httptest.NewServer(guard.Wrap(server.JSONRPCErrors(h)))
	t.Cleanup(srv.Close)

	for _, protocol := range protocolVersions {
		for _, email := range []string{"alice@example.com", "bob@corp.example"} {
			cs := httpSession(t, srv.URL+"/mcp", signer.idToken(t, email, audience, nil), protocol)
			out := ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": "SELECT COUNT(*) AS n FROM shop.orders"})
			if out.RowCount != 1 {
				t.Errorf("%s: %+v", email, out)
			}
		}
	}
	for name, token := range map[string]string{
		"not allowed":      signer.idToken(t, "mallory@example.com", audience, nil),
		"other audience":   signer.idToken(t, "alice@example.com", "https://other.a.run.app", nil),
		"other issuer":     signer.idToken(t, "alice@example.com", audience, func(c map[string]any) { c["iss"] = "https://evil.example" }),
		"expired":          signer.idToken(t, "alice@example.com", audience, func(c map[string]any) { c["exp"] = int64(1) }),
		"other signer":     newGoogleSigner(t).idToken(t, "alice@example.com", audience, nil),
		"not a JWT at all": "ya29.an-access-token",
		// It panicked inside idtoken and the client got EOF.
		"3-byte ES256 signature under a known key ID": signer.craftedES256("alice@example.com", audience),
	} {
		code, challenge, _ := rawPost(t, srv.URL+"/mcp", "Bearer "+token, initializeBody)
		if code != http.StatusUnauthorized || challenge == "" {
			t.Errorf("%s: %d %q", name, code, challenge)
		}
	}
	// And the server goes on serving.
	cs := httpSession(t, srv.URL+"/mcp", signer.idToken(t, "alice@example.com", audience, nil), protocolVersions[0])
	if out := ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": "SELECT 1 AS n"}); out.RowCount != 1 {
		t.Errorf("after the refused tokens: %+v", out)
	}
}
