package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/auth/clientauth"
)

func TestUnauthenticatedHTTPOnlyOnLoopbackOrWhenAllowed(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		ok   bool
	}{
		{[]string{"http", "--addr", "127.0.0.1:8080"}, nil, true},
		{[]string{"http", "--addr", "[::1]:8080"}, nil, true},
		{[]string{"http", "--addr", "localhost:8080"}, nil, true},
		{[]string{"http"}, nil, false},
		{[]string{"http", "--addr", "0.0.0.0:8080"}, nil, false},
		{[]string{"http"}, map[string]string{"PORT": "8080"}, false},
		{[]string{"http", "--allow-unauthenticated"}, nil, true},
		{[]string{"http"}, map[string]string{"BIGQUERY_ALLOW_UNAUTHENTICATED": "true"}, true},
		{[]string{"http", "--client-auth", "token", "--client-tokens", "0123456789abcdef0"}, nil, true},
		{[]string{"stdio"}, nil, true},
	} {
		s, err := parseArgs(tc.args, env(tc.env))
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		err = s.checkHTTPAuth()
		if (err == nil) != tc.ok {
			t.Errorf("%v %v: err = %v", tc.args, tc.env, err)
		}
		if err != nil && !strings.Contains(err.Error(), "--client-auth") || err != nil && !strings.Contains(err.Error(), "--allow-unauthenticated") {
			t.Errorf("the refusal does not say what to set: %v", err)
		}
	}
}

func TestClientAuthFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens")
	os.WriteFile(file, []byte("from-file-token-0001\nfrom-file-token-0002\n"), 0o600)
	s, err := parseArgs([]string{"http", "--client-auth", "token", "--client-tokens", "a-token-0123456789, b-token-0123456789", "--client-tokens-file", file}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a-token-0123456789", "b-token-0123456789"}
	if s.client.Auth != clientauth.Token || !slices.Equal(s.client.Tokens, want) || s.client.TokensFile != file {
		t.Errorf("client auth %+v", s.client)
	}
	// The file's tokens are accepted too (clientauth.New reads it).
	g, err := clientauth.New(t.Context(), s.client)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{"b-token-0123456789", "from-file-token-0002"} {
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		w := httptest.NewRecorder()
		g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })).ServeHTTP(w, r)
		if w.Code != http.StatusNoContent {
			t.Errorf("token %q: status %d", tok, w.Code)
		}
	}
	s, err = parseArgs([]string{"http", "--project", "p"}, env(map[string]string{
		"BIGQUERY_CLIENT_AUTH": "oauth", "BIGQUERY_ALLOWED_PRINCIPALS": "a@example.com,domain:example.org", "BIGQUERY_ENDPOINT": "http://localhost:9050",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if s.Auth != auth.User || len(s.client.AllowedPrincipals) != 2 {
		t.Errorf("oauth: BigQuery auth %q, principals %v", s.Auth, s.client.AllowedPrincipals)
	}
	if _, err := parseArgs([]string{"http", "--client-auth", "oauth", "--auth", "adc"}, env(nil)); err == nil {
		t.Error("oauth with an explicit --auth: accepted")
	}
}

func TestHelpNeverPrintsClientTokens(t *testing.T) {
	s, err := parseArgs([]string{"help"}, env(map[string]string{"BIGQUERY_CLIENT_TOKENS": "very-secret-token-0123456789"}))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	s.usage(&b)
	if strings.Contains(b.String(), "very-secret") || !strings.Contains(b.String(), "set (from BIGQUERY_CLIENT_TOKENS)") {
		t.Errorf("help:\n%s", b.String())
	}
}
