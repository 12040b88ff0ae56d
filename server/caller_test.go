package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
	"github.com/bigquery-mcp/bigquery-mcp/schema"
)

// recordAuth remembers the Authorization header of every request it passes
// on.
type recordAuth struct {
	base http.RoundTripper
	mu   sync.Mutex
	seen []string
}

func (r *recordAuth) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.seen = append(r.seen, req.Header.Get("Authorization"))
	r.mu.Unlock()
	return r.base.RoundTrip(req)
}

func (r *recordAuth) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.seen
	r.seen = nil
	return s
}

// bearer adds a fixed Authorization header, as an MCP client signed in
// with OAuth does.
type bearer struct{ token string }

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(req)
}

// In oauth client-auth mode BigQuery is called with each user's own token
// and never the server's. resources/read and completion failed there with
// "this request carries no user credential" for every user, because only
// tool calls put the caller into the context.
func TestResourcesAndCompletionUseTheCallersToken(t *testing.T) {
	fake := shopBigQuery(t)
	rec := &recordAuth{base: http.DefaultTransport}
	hc, _, err := auth.HTTPClient(context.Background(), auth.Options{Auth: auth.User, Base: &resilience.Transport{Base: rec}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	client, rest := fake.Client(t, hc), fake.REST(t, hc)
	exec, err := resilience.NewExecutor(resilience.Defaults(), resilience.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	svc := schema.NewService(schema.Config{Client: client, REST: rest, Executor: exec, Cache: resilience.NewCache(resilience.CacheConfig{}), Identity: "test", Project: "p"})
	m := New(Services{Schema: svc}, Config{Logger: discardLogger()})

	// The HTTP edge as oauth mode sets it up: a verified access token
	// becomes a user caller carrying that token.
	verify := func(_ context.Context, token string, _ *http.Request) (*mcpauth.TokenInfo, error) {
		user, ok := strings.CutPrefix(token, "ya29.")
		if !ok {
			return nil, mcpauth.ErrInvalidToken
		}
		exp := time.Now().Add(time.Hour)
		return auth.NewUserCaller(user+"@example.com", token, exp).TokenInfo(exp, nil), nil
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return m }, &mcp.StreamableHTTPOptions{Stateless: true})
	srv := httptest.NewServer(mcpauth.RequireBearerToken(verify, nil)(h))
	defer srv.Close()

	for _, user := range []string{"alice", "bob"} {
		token := "ya29." + user
		cs, err := mcp.NewClient(&mcp.Implementation{Name: user}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()

		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "bigquery://p/sales_eu/orders"})
		if err != nil {
			t.Fatalf("%s: resources/read: %v", user, err)
		}
		if len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, `"email"`) {
			t.Errorf("%s: resources/read = %+v", user, res.Contents)
		}
		comp, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: schemaTemplate},
			Argument: mcp.CompleteParamsArgument{Name: "dataset", Value: "sa"}})
		if err != nil {
			t.Fatalf("%s: completion: %v", user, err)
		}
		if !slices.Contains(comp.Completion.Values, "sales_eu") {
			t.Errorf("%s: completion = %v, want sales_eu among them", user, comp.Completion.Values)
		}
		// Each user's reads reach BigQuery (no cache shared with the
		// previous user), all with that user's token.
		seen := rec.take()
		if len(seen) < 2 {
			t.Errorf("%s: %d BigQuery requests, want the table read and the listing", user, len(seen))
		}
		for _, got := range seen {
			if got != "Bearer "+token {
				t.Errorf("%s: BigQuery got Authorization %q, want %q", user, got, "Bearer "+token)
			}
		}
	}
}
