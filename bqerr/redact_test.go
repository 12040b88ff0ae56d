package bqerr

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{
			name: "query string of a URL",
			in:   "https://bigquery.googleapis.com/bigquery/v2/projects/p/jobs?alt=json&key=SECRET",
			want: "https://bigquery.googleapis.com/bigquery/v2/projects/p/jobs",
		},
		{
			name: "userinfo of a URL",
			in:   "https://user:pw@host/x",
			want: "https://host/x",
		},
		{
			name: "URL quoted by net/http",
			in:   `Post "https://x/upload?uploadType=multipart&key=SECRET#frag": dial tcp: connection refused`,
			want: `Post "https://x/upload": dial tcp: connection refused`,
		},
		{
			name: "relative query string",
			in:   "calling /bigquery/v2/projects/p/jobs?alt=json&key=SECRET failed",
			want: "calling /bigquery/v2/projects/p/jobs failed",
		},
		{
			name: "bearer token",
			in:   "sent Bearer ya29.a0AfH6SMB-x_y.z and failed",
			want: "sent Bearer [REDACTED] and failed",
		},
		{
			name: "authorization header",
			in:   "Authorization: Basic dXNlcjpwYXNz\nnext line",
			want: "Authorization: [REDACTED]\nnext line",
		},
		{
			name: "bare access token",
			in:   "token ya29.c.b0Aaekm1K-abc_def.ghi expired",
			want: "token [REDACTED] expired",
		},
		{
			name: "form-encoded secrets",
			in:   "grant_type=refresh_token&client_id=123&client_secret=SECRET&refresh_token=1//0gSECRETSECRET",
			want: "grant_type=refresh_token&client_id=123&client_secret=[REDACTED]&refresh_token=[REDACTED]",
		},
		{
			name: "access_token field",
			in:   `access_token=SECRET, expires_in=3599`,
			want: `access_token=[REDACTED], expires_in=3599`,
		},
		{
			name: "JSON token response",
			in:   `{"access_token": "SECRET", "token_type": "Bearer", "id_token":"eyJhbGciOi.eyJzdWIiOi.SECRET"}`,
			want: `{"access_token": "[REDACTED]", "token_type": "Bearer", "id_token":"[REDACTED]"}`,
		},
		{
			name: "service account key JSON",
			in:   `{"type": "service_account", "private_key_id": "abc123", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIESECRET\n-----END PRIVATE KEY-----\n", "client_email": "sa@p.iam.gserviceaccount.com"}`,
			want: `{"type": "service_account", "private_key_id": "[REDACTED]", "private_key": "[REDACTED]", "client_email": "sa@p.iam.gserviceaccount.com"}`,
		},
		{
			name: "PEM block",
			in:   "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIESECRET\n-----END RSA PRIVATE KEY-----\ndone",
			want: "key:\n[REDACTED PRIVATE KEY]\ndone",
		},
		{
			name: "unterminated PEM block",
			in:   "-----BEGIN PRIVATE KEY-----\nMIIESECRET",
			want: "[REDACTED PRIVATE KEY]",
		},
		{
			name: "API key",
			in:   "key AIzaSyA-SECRETSECRETSECRETSECRET1234 rejected",
			want: "key [REDACTED] rejected",
		},
		{
			name: "Go stack trace",
			in:   "panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:12 +0x1d\n",
			want: "panic: boom",
		},
		{
			name: "stack frames without a goroutine header",
			in:   "failed\nmain.run()\n\t/app/run.go:40 +0x2f",
			want: "failed\nmain.run()",
		},
		{
			name: "Java-style frames",
			in:   "Exception: boom\n\tat com.google.Foo.bar(Foo.java:12)",
			want: "Exception: boom",
		},
		// Things that are not secret survive untouched.
		{
			name: "BigQuery syntax error",
			in:   `Syntax error: Unexpected token: "x" at [1:8]`,
			want: `Syntax error: Unexpected token: "x" at [1:8]`,
		},
		{
			name: "BigQuery not found",
			in:   "Not found: Table my-project:my_dataset.my_table was not found in location US",
			want: "Not found: Table my-project:my_dataset.my_table was not found in location US",
		},
		{
			name: "documentation URL",
			in:   "see https://cloud.google.com/bigquery/docs/error-messages for details",
			want: "see https://cloud.google.com/bigquery/docs/error-messages for details",
		},
		{name: "empty", in: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Redact(tt.in); got != tt.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRedactInvalidUTF8(t *testing.T) {
	in := "\xff\xfe https://u:p@h/\xff?key=\xffSECRET ya29.\xff Bearer \xc3"
	got := Redact(in)
	for _, bad := range []string{"SECRET", "?key=", "ya29.", "u:p"} {
		if strings.Contains(got, bad) {
			t.Errorf("Redact(%q) = %q, still contains %q", in, got, bad)
		}
	}
}

// FuzzRedact checks that Redact never panics and that the secrets it is
// meant to remove never survive, whatever surrounds them.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"", "https://u:p@h/p?key=SECRET", "Bearer ya29.x", "?key?key==",
		"goroutine 1 [running]:", "-----BEGIN PRIVATE KEY-----", `"private_key": "x`,
		"ya2ya29.9.", "https://h/?a=b&key=c#d", "\xff?key=\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		inputs := []string{
			s,
			"x" + s + "y",
			s + "?key=SECRET",
			"https://h/p?key=SECRET" + s,
			s + " Bearer ya29." + s,
			"ya29." + s,
			s + "\ngoroutine 7 [running]:\n" + s,
			s + ` {"password": "S3CRET` + s,
			s + ` {\"client_secret\": \"S3CRET` + s,
			s + ` {'refresh_token': 'S3CRET` + s,
			s + " access_token=S3CRET" + s,
			s + " access_token%3DS3CRET" + s,
			s + "\nX-Goog-Api-Key: S3CRET" + s,
			s + "\nCookie: S3CRET" + s,
			s + " Bearer S3CRET" + s,
		}
		for _, in := range inputs {
			out := Redact(in) // must not panic
			if plain(in) && redact(in) != in {
				t.Fatalf("plain(%q), but the patterns change it to %q", in, redact(in))
			}
			if strings.Contains(in, "S3CRET") && !strings.Contains(s, "S3CRET") && strings.Contains(out, "S3CRET") {
				t.Fatalf("Redact(%q) = %q, keeps the secret", in, out)
			}
			for _, bad := range []string{"ya29.", "?key=", "goroutine "} {
				if strings.Contains(out, bad) {
					t.Fatalf("Redact(%q) = %q, contains %q", in, out, bad)
				}
			}
		}
	})
}
