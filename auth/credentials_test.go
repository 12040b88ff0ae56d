package auth

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

func serviceAccountFile(t *testing.T, email string) string {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	b, _ := json.Marshal(map[string]string{
		"type": "service_account", "client_email": email, "private_key_id": "k1",
		"private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"token_uri":   "https://oauth2.googleapis.com/token", "project_id": "p",
	})
	path := filepath.Join(t.TempDir(), "key.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCredentialsFileNamesItsPrincipal(t *testing.T) {
	path := serviceAccountFile(t, "reader@p.iam.gserviceaccount.com")
	_, id, err := HTTPClient(context.Background(), Options{Auth: ADC, CredentialsFile: path})
	if err != nil || id.Principal != "reader@p.iam.gserviceaccount.com" || id.Via != "" || id.Error != "" {
		t.Errorf("identity %+v, %v", id, err)
	}
	_, id, err = HTTPClient(context.Background(), Options{Auth: ADC, CredentialsFile: path, ImpersonateServiceAccount: "bq@p.iam.gserviceaccount.com"})
	if err != nil || id.Principal != "bq@p.iam.gserviceaccount.com" || id.Via != "reader@p.iam.gserviceaccount.com" {
		t.Errorf("impersonating: identity %+v, %v", id, err)
	}
}

func TestCredentialsFileMistakesFailAtStartup(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"type":"something_else"}`), 0o600)
	for _, path := range []string{filepath.Join(dir, "missing.json"), bad} {
		if _, _, err := HTTPClient(context.Background(), Options{Auth: ADC, CredentialsFile: path}); err == nil {
			t.Errorf("%s: accepted", path)
		}
	}
	if _, _, err := HTTPClient(context.Background(), Options{Auth: User, CredentialsFile: bad}); err == nil {
		t.Error("user mode with a credentials file: accepted")
	}
}

func TestUserModeNeverFallsBackToServerCredentials(t *testing.T) {
	var sent int
	hc, id, err := HTTPClient(context.Background(), Options{Auth: User, Base: roundTrip(func(r *http.Request) (*http.Response, error) {
		sent++
		return &http.Response{StatusCode: 200, Body: http.NoBody, Request: r}, nil
	})})
	if err != nil || id.Mode != User {
		t.Fatal(id, err)
	}
	_, err = hc.Get("https://bigquery.googleapis.com/bigquery/v2/projects/p/datasets")
	var e *bqerr.Error
	if !errors.As(err, &e) || e.Code != bqerr.AuthError || sent != 0 {
		t.Errorf("without a caller: sent %d, err %v", sent, err)
	}
	c := NewUserCaller("alice@example.com", "ya29.secret", timeNowPlusHour())
	if s := c.String(); strings.Contains(s, "secret") || c.LogValue().String() != "alice@example.com" {
		t.Errorf("caller prints as %q", s)
	}
	if c.CredentialKey() != "user:alice@example.com" || (Caller{Principal: "token:1"}).CredentialKey() != "" {
		t.Errorf("credential keys %q %q", c.CredentialKey(), (Caller{Principal: "token:1"}).CredentialKey())
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func timeNowPlusHour() time.Time { return time.Now().Add(time.Hour) }
