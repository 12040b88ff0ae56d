package auth

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/oauth2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// countingSource hands out a new token each call.
type countingSource struct{ n atomic.Int32 }

func (c *countingSource) Token() (*oauth2.Token, error) {
	return &oauth2.Token{AccessToken: fmt.Sprintf("tok-%d", c.n.Add(1)), TokenType: "Bearer"}, nil
}

func TestUnauthorizedRefreshesTokenAndRetriesOnce(t *testing.T) {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		seen = append(seen, r.Header.Get("Authorization")+"|"+string(body))
		if r.Header.Get("Authorization") == "Bearer tok-1" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	src := &countingSource{}
	hc, _, err := HTTPClient(context.Background(), Options{Auth: ADC, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Post(srv.URL, "text/plain", strings.NewReader("payload"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || len(seen) != 2 || seen[1] != "Bearer tok-2|payload" {
		t.Fatalf("status %d, requests %v", resp.StatusCode, seen)
	}
	// The fresh token is cached: no third fetch.
	resp, err = hc.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if src.n.Load() != 2 {
		t.Errorf("token fetched %d times, want 2", src.n.Load())
	}
}

func TestPersistentUnauthorizedIsReturnedNotLooped(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	hc, _, _ := HTTPClient(context.Background(), Options{Auth: ADC, Source: &countingSource{}})
	resp, err := hc.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || calls.Load() != 2 {
		t.Errorf("status %d after %d calls, want 401 after exactly 2", resp.StatusCode, calls.Load())
	}
}

func TestMissingCredentialsBecomeAuthError(t *testing.T) {
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/key.json")
	hc, id, err := HTTPClient(context.Background(), Options{Auth: ADC})
	if err != nil {
		t.Fatal(err)
	}
	if id.Error == "" {
		t.Fatal("identity should report the missing credentials")
	}
	_, err = hc.Get("http://127.0.0.1:1/")
	e := bqerr.From(err)
	if e.Code != bqerr.AuthError || !strings.Contains(e.Hint, "gcloud auth application-default login") {
		t.Errorf("error = %+v", e)
	}
}

func TestNoneSendsNoCredentials(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			t.Error("credentials sent in none mode")
		}
	}))
	defer srv.Close()
	hc, id, _ := HTTPClient(context.Background(), Options{Auth: None})
	resp, err := hc.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if id.Mode != None {
		t.Errorf("mode = %s", id.Mode)
	}
}
