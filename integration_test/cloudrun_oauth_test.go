package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/schema"
	"github.com/bigquery-mcp/bigquery-mcp/server"
)

// users are the access tokens the fake tokeninfo endpoint knows.
var users = map[string]string{"ya29.alice-token": "alice@example.com", "ya29.bob-token": "bob@example.com"}

// fakeTokenInfo stands in for Google's tokeninfo endpoint.
func fakeTokenInfo(t *testing.T) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		email, ok := users[r.PostFormValue("access_token")]
		if !ok {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error_description":"Invalid Value"}`)
			return
		}
		json.NewEncoder(w).Encode(map[string]string{
			"aud": "client.apps.googleusercontent.com", "azp": "client.apps.googleusercontent.com", "sub": "sub-" + email,
			"scope": "openid https://www.googleapis.com/auth/bigquery", "exp": fmt.Sprint(time.Now().Add(time.Hour).Unix()),
			"email": email, "email_verified": "true",
		})
	}))
	t.Cleanup(s.Close)
	return s
}

// authRecorder is a proxy in front of the emulator that records which
// credential each BigQuery request carried.
type authRecorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // "Authorization|METHOD path"
}

func newAuthRecorder(t *testing.T) *authRecorder {
	u, _ := url.Parse(emu.URL)
	rp := httputil.NewSingleHostReverseProxy(u)
	a := &authRecorder{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.seen = append(a.seen, r.Header.Get("Authorization")+"|"+r.Method+" "+r.URL.Path)
		a.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(a.Close)
	return a
}

// count is how many requests whose path ends in suffix carried authz.
func (a *authRecorder) count(authz, suffix string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, s := range a.seen {
		h, req, _ := strings.Cut(s, "|")
		if h == authz && strings.HasSuffix(req, suffix) {
			n++
		}
	}
	return n
}

func (a *authRecorder) all() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.seen...)
}

// TestCloudRunOAuthUsersQueryAsThemselves: in oauth mode each user's own
// token reaches BigQuery, and one user's cached listing is never served to
// another.
func TestCloudRunOAuthUsersQueryAsThemselves(t *testing.T) {
	ti := fakeTokenInfo(t)
	rec := newAuthRecorder(t)
	args := []string{"--client-auth", "oauth", "--oauth-tokeninfo-url", ti.URL}
	a := startInstance(t, rec.URL, args...)
	b := startInstance(t, rec.URL, args...)
	lb := newRoundRobin(t, a, b)

	// Unauthenticated: 401 pointing at the protected resource metadata.
	code, challenge, _ := rawPost(t, lb.URL+"/mcp", "", initializeBody)
	if code != http.StatusUnauthorized || !strings.Contains(challenge, `resource_metadata="http://`) {
		t.Fatalf("no token: %d %q", code, challenge)
	}
	metaURL := challenge[strings.Index(challenge, `"`)+1:]
	metaURL = metaURL[:strings.Index(metaURL, `"`)]
	resp, err := http.Get(metaURL)
	if err != nil {
		t.Fatal(err)
	}
	var md struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		Scopes               []string `json:"scopes_supported"`
	}
	json.NewDecoder(resp.Body).Decode(&md)
	resp.Body.Close()
	if !strings.HasSuffix(md.Resource, "/mcp") || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != "https://accounts.google.com" ||
		len(md.Scopes) != 1 || md.Scopes[0] != "https://www.googleapis.com/auth/bigquery" {
		t.Errorf("metadata at %s: %+v", metaURL, md)
	}
	if code, _, _ := rawPost(t, lb.URL+"/mcp", "Bearer ya29.mallory-token", initializeBody); code != http.StatusUnauthorized {
		t.Errorf("unknown token: %d", code)
	}

	// Through the balancer, each user's calls reach BigQuery with their token.
	for token, email := range users {
		cs := httpSession(t, lb.URL+"/mcp", token, "2025-06-18")
		out := ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": "SELECT COUNT(*) AS n FROM shop.orders"})
		if out.RowCount != 1 {
			t.Errorf("%s: %+v", email, out)
		}
		h := ok[server.HealthReport](t, cs, "health", map[string]any{})
		if h.Auth.Principal != email || h.Auth.Mode != "user" {
			t.Errorf("%s: health names %+v", email, h.Auth)
		}
		if rec.count("Bearer "+token, "/queries")+rec.count("Bearer "+token, "/jobs") == 0 {
			t.Errorf("%s: no query reached BigQuery with the user's token: %v", email, rec.all())
		}
		// Resources and completion call BigQuery as the user too (they
		// failed with "no user credential" for everyone).
		res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "bigquery://demo-project/shop/orders"})
		if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, `"columns"`) {
			t.Errorf("%s: resources/read: %v %+v", email, err, res)
		}
		comp, err := cs.Complete(context.Background(), &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "bigquery://{project}/{dataset}/{table}"},
			Argument: mcp.CompleteParamsArgument{Name: "table", Value: "ord"},
			Context:  &mcp.CompleteContext{Arguments: map[string]string{"project": "demo-project", "dataset": "shop"}}})
		if err != nil || !slices.Contains(comp.Completion.Values, "orders") {
			t.Errorf("%s: completion: %v %+v", email, err, comp)
		}
		if rec.count("Bearer "+token, "/tables/orders") == 0 || rec.count("Bearer "+token, "/datasets/shop/tables") == 0 {
			t.Errorf("%s: the resource read or the completion did not reach BigQuery with the user's token: %v", email, rec.all())
		}
	}

	// One instance, so one cache: Alice's listing is cached for Alice only.
	alice := httpSession(t, "http://"+a.addr+"/mcp", "ya29.alice-token", "2025-06-18")
	bob := httpSession(t, "http://"+a.addr+"/mcp", "ya29.bob-token", "2025-06-18")
	const listing = "/projects/" + "demo-project" + "/datasets"
	before := rec.count("Bearer ya29.alice-token", listing)
	ok[schema.ListDatasetsOutput](t, alice, "list_datasets", map[string]any{})
	ok[schema.ListDatasetsOutput](t, alice, "list_datasets", map[string]any{})
	if n := rec.count("Bearer ya29.alice-token", listing) - before; n != 1 {
		t.Errorf("alice's two listings asked BigQuery %d times, want 1 (then cached)", n)
	}
	beforeBob := rec.count("Bearer ya29.bob-token", listing)
	ok[schema.ListDatasetsOutput](t, bob, "list_datasets", map[string]any{})
	if n := rec.count("Bearer ya29.bob-token", listing) - beforeBob; n != 1 {
		t.Errorf("bob's listing asked BigQuery %d times with his token, want 1: he must not get alice's cached answer", n)
	}

	for _, s := range rec.all() {
		h, req, _ := strings.Cut(s, "|")
		if h != "Bearer ya29.alice-token" && h != "Bearer ya29.bob-token" {
			t.Errorf("a BigQuery request without a user's token: %q %s", h, req)
		}
	}
	for _, in := range []*instance{a, b} {
		if strings.Contains(in.log.String(), "ya29.") {
			t.Errorf("a user's token reached the log of %s", in.addr)
		}
	}
}
