package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/impersonate"
	"google.golang.org/api/option"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// cloudPlatformScope is what impersonation's base credentials need to call
// the IAM Credentials API.
const cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// serverCredentials finds the server's own credentials: the file named in
// opts or Application Default Credentials, impersonating a service account
// when asked. Missing ADC is not an error (see the package doc); an
// unreadable file that the operator named is.
func serverCredentials(ctx context.Context, opts Options) (oauth2.TokenSource, Identity, error) {
	id := Identity{Mode: ADC}
	scope := Scope
	if opts.ImpersonateServiceAccount != "" {
		scope = cloudPlatformScope
	}
	var creds *google.Credentials
	var err error
	if opts.CredentialsFile != "" {
		creds, err = credentialsFile(ctx, opts.CredentialsFile, scope)
		if err != nil {
			return nil, Identity{}, err
		}
	} else if creds, err = google.FindDefaultCredentials(ctx, scope); err != nil {
		id.Error = "no application default credentials found"
		return failingSource{err: bqerr.New(bqerr.AuthError, "the server has no Google credentials").
			WithHint("Ask the user to run `gcloud auth application-default login`, or to set GOOGLE_APPLICATION_CREDENTIALS to a service account key file, and restart the server.").
			WithCause(err)}, id, nil
	}
	id.Principal = principal(creds.JSON)
	if opts.ImpersonateServiceAccount == "" {
		return creds.TokenSource, id, nil
	}
	id.Via = id.Principal
	if id.Via == "" {
		id.Via = "application default credentials"
		if opts.CredentialsFile != "" {
			id.Via = "credentials file"
		}
	}
	id.Principal = opts.ImpersonateServiceAccount
	ts, err := impersonate.CredentialsTokenSource(ctx, impersonate.CredentialsConfig{
		TargetPrincipal: opts.ImpersonateServiceAccount,
		Scopes:          []string{Scope},
	}, option.WithTokenSource(creds.TokenSource))
	if err != nil {
		return nil, Identity{}, fmt.Errorf("impersonating %s: %w", opts.ImpersonateServiceAccount, err)
	}
	return ts, id, nil
}

// credentialsFile reads a credentials file of a kind Google's libraries
// know, checking its type rather than trusting any JSON.
func credentialsFile(ctx context.Context, path, scope string) (*google.Credentials, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading credentials file: %w", err)
	}
	var f struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("credentials file %s is not JSON: %w", path, err)
	}
	switch t := google.CredentialsType(f.Type); t {
	case google.ServiceAccount, google.AuthorizedUser, google.ExternalAccount, google.ImpersonatedServiceAccount:
		creds, err := google.CredentialsFromJSONWithType(ctx, data, t, scope)
		if err != nil {
			return nil, fmt.Errorf("credentials file %s: %w", path, err)
		}
		return creds, nil
	default:
		return nil, fmt.Errorf("credentials file %s: unsupported type %q (want service_account, authorized_user, external_account or impersonated_service_account)", path, f.Type)
	}
}
