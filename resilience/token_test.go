package resilience

import (
	"context"
	"strings"
	"sync"
	"testing"

	"golang.org/x/oauth2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

type failingSource struct{ err error }

func (f failingSource) Token() (*oauth2.Token, error) { return nil, f.err }

// Token fetches that keep failing open a breaker of their own, and every
// word about it names credentials, not a project called "auth".
func TestTokenFetchesHaveTheirOwnBreaker(t *testing.T) {
	var (
		mu      sync.Mutex
		changed []string
	)
	e := newTestExecutor(t, testConfig(1), Hooks{BreakerChanged: func(scope string, _, to BreakerState) {
		mu.Lock()
		defer mu.Unlock()
		changed = append(changed, scope+" "+string(to))
	}})
	ts := e.TokenSource(failingSource{err: connReset()})
	for range e.cfg.Breaker.Failures {
		if _, err := ts.Token(); err == nil {
			t.Fatal("Token succeeded from a failing source")
		}
	}
	if got := e.BreakerStates()[CredentialsScope]; got != Open {
		t.Fatalf("credentials breaker %s after %d failed fetches, want open", got, e.cfg.Breaker.Failures)
	}
	mu.Lock()
	if want := []string{CredentialsScope + " open"}; strings.Join(changed, ",") != strings.Join(want, ",") {
		t.Errorf("BreakerChanged saw %q, want %q", changed, want)
	}
	mu.Unlock()

	_, err := ts.Token()
	if !IsBreakerOpen(err) {
		t.Fatalf("Token through an open breaker = %v, want its refusal", err)
	}
	msg := bqerr.From(err).Message
	if !strings.Contains(msg, "fetching BigQuery credentials") || strings.Contains(msg, "project") {
		t.Errorf("refusal says %q, want it to name fetching credentials and no project", msg)
	}

	// A project's calls are not refused for the credentials' sake.
	if err := e.Do(context.Background(), Query, "my-project", func(context.Context) error { return nil }); err != nil {
		t.Errorf("a project's call with the credentials breaker open: %v", err)
	}
}

func TestScopeCalls(t *testing.T) {
	for scope, want := range map[string]string{
		CredentialsScope: "fetching BigQuery credentials",
		"my-project":     "BigQuery project my-project",
	} {
		if got := ScopeCalls(scope); got != want {
			t.Errorf("ScopeCalls(%q) = %q, want %q", scope, got, want)
		}
	}
}
