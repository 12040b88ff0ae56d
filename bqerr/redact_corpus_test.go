package bqerr

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"google.golang.org/api/googleapi"
)

// secretShapes each carry the marker "S3CRET" only inside a credential, in
// one of the shapes credentials take in BigQuery messages, token endpoint
// answers, HTTP dumps and form bodies.
var secretShapes = func() []string {
	var shapes []string
	for _, name := range []string{"client_secret", "password", "private_key_id", "private_key", "refresh_token", "access_token", "api_key", "db_password"} {
		shapes = append(shapes,
			fmt.Sprintf(`{"%s": "S3CRETv1", "user": "bob"}`, name),
			fmt.Sprintf(`{"%s":"S3CRETv1"}`, name),
			fmt.Sprintf(`{'%s': 'S3CRETv1', 'user': 'bob'}`, name), // a Python dict
			fmt.Sprintf(`%s=S3CRETv1&user=bob`, name),
			fmt.Sprintf(`%s: S3CRETv1, user: bob`, name),
			fmt.Sprintf(`%s%%3DS3CRETv1%%26user%%3Dbob`, name),               // URL-encoded form
			fmt.Sprintf(`%%7B%%22%s%%22%%3A%%20%%22S3CRETv1%%22%%7D`, name),  // URL-encoded JSON
			fmt.Sprintf(`%%22%s%%22%%3A%%22S3CRET%%2Fv1%%2Bx%%22%%2C`, name), // encoded value with / and +
		)
	}
	return append(shapes,
		`{"password": "correct horse S3CRET staple"}`,
		`{"password": "with \"quotes\" S3CRET inside"}`,
		`key=S3CRETv1`,
		`request failed: key=S3CRETv1 user=bob`,
		`x-api-key=S3CRETv1`,
		"X-Goog-Api-Key: S3CRETv1\r\nHost: bigquery.googleapis.com",
		"x-goog-api-key: S3CRET v1 with spaces",
		`{"X-Goog-Api-Key": "S3CRETv1", "Host": "bigquery.googleapis.com"}`,
		"Cookie: SID=S3CRETv1; HSID=S3CRETv2\nAccept: */*",
		"Set-Cookie: SID=S3CRETv1; Path=/; HttpOnly",
		`{"Set-Cookie": ["SID=S3CRETv1"]}`,
		"Authorization: Basic S3CRETdXNlcjpwYXNz",
		"Proxy-Authorization: Basic S3CRETdXNlcjpwYXNz",
		`{"Authorization": "Bearer S3CRETv1"}`,
		"Bearer S3CRETv1",
		"sent bearer S3CRETv1 upstream",
		"BEARER S3CRETv1",
		"Authorization=Bearer%20S3CRETv1",
		"-----BEGIN PRIVATE KEY-----\nS3CRET\n-----END PRIVATE KEY-----",
	)
}()

// wrappings are the ways a message reaches Redact: as is, quoted by %q
// (once or twice), inside JSON, inside a BigQuery error's Details or body,
// after a BigQuery message.
var wrappings = map[string]func(string) string{
	"raw":        func(s string) string { return s },
	"%q":         func(s string) string { return fmt.Sprintf("%q", s) },
	"%q twice":   func(s string) string { return fmt.Sprintf("%q", fmt.Sprintf("%q", s)) },
	"%q in text": func(s string) string { return fmt.Sprintf("reading credentials: %q: invalid", s) },
	"in JSON": func(s string) string {
		b, _ := json.Marshal(map[string]string{"message": s})
		return string(b)
	},
	"JSON in JSON": func(s string) string {
		inner, _ := json.Marshal(map[string]string{"message": s})
		b, _ := json.Marshal(map[string]string{"body": string(inner)})
		return string(b)
	},
	"googleapi Details": func(s string) string {
		return (&googleapi.Error{Code: 400, Message: "Invalid request", Details: []any{map[string]any{"@type": "type.googleapis.com/google.rpc.DebugInfo", "detail": s}}}).Error()
	},
	"googleapi body": func(s string) string {
		return (&googleapi.Error{Code: 502, Body: s}).Error()
	},
	"BigQuery message": func(s string) string { return "Invalid value at 'job.configuration': " + s + " (HTTP 400)" },
	"url.Error": func(s string) string {
		return (&url.Error{Op: "Post", URL: "https://oauth2.googleapis.com/token", Err: fmt.Errorf("response %s", s)}).Error()
	},
}

// TestRedactCorpus: no secret survives in any shape and any wrapping.
func TestRedactCorpus(t *testing.T) {
	for _, shape := range secretShapes {
		for how, wrap := range wrappings {
			in := wrap(shape)
			if out := Redact(in); strings.Contains(out, "S3CRET") {
				t.Errorf("%s of %q:\n in  %s\n out %s", how, shape, in, out)
			}
		}
	}
}

// TestRedactLeavesOrdinaryText: text that only looks like a credential
// reaches agents and logs unchanged, in any wrapping.
func TestRedactLeavesOrdinaryText(t *testing.T) {
	for _, s := range []string{
		"keyboard shortcuts",
		"monkey=3 rows",
		"turnkey=yes",
		"Syntax error: Unexpected token: FROM at [1:8]",
		"primary key: id",
		"the password policy requires 12 characters",
		"cookie jar is empty",
		`{"token_type": "Bearer", "expires_in": 3599}`,
		"Not found: Table my-project:sales.passwords was not found in location US",
		"Unrecognized name: password_hash at [2:3]",
		"the key column is amount",
	} {
		for how, wrap := range wrappings {
			in := wrap(s)
			if out := Redact(in); out != in {
				t.Errorf("%s of %q changed:\n in  %s\n out %s", how, s, in, out)
			}
		}
	}
}

// TestRedactKeepsQuoting: a redacted quoted value keeps its quotes at the
// same escaping, so the text around it still parses as it did.
func TestRedactKeepsQuoting(t *testing.T) {
	for in, want := range map[string]string{
		`{"password": "x y"}`:          `{"password": "[REDACTED]"}`,
		`{'password': 'x'}`:            `{'password': '[REDACTED]'}`,
		`"{\"password\": \"x\"}"`:      `"{\"password\": \"[REDACTED]\"}"`,
		`access_token%3Dabc%26x%3D1`:   `access_token%3D[REDACTED]%26x%3D1`,
		"Cookie: a=b\nnext":            "Cookie: [REDACTED]\nnext",
		`{"Cookie": "a=b", "n": 1}`:    `{"Cookie": "[REDACTED]", "n": 1}`,
		`key=abc then more`:            `key=[REDACTED] then more`,
		`"Authorization: Basic x\nok"`: `"Authorization: [REDACTED]\nok"`,
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%s) = %s, want %s", in, got, want)
		}
	}
	// The JSON stays valid JSON.
	b, _ := json.Marshal(map[string]string{"body": `{"client_secret": "x", "ok": true}`})
	if out := Redact(string(b)); !json.Valid([]byte(out)) {
		t.Errorf("Redact broke JSON: %s", out)
	}
}

// TestPlainTextHasNothingToRedact holds plain to the patterns: whatever it
// calls plain, the patterns leave as it is, over the corpus in every
// wrapping and over ordinary text; the case-blind words fold only to ASCII
// letters; and what the server logs at start is plain, so no pattern is
// compiled before the first answer.
func TestPlainTextHasNothingToRedact(t *testing.T) {
	var texts []string
	for _, shape := range secretShapes {
		for _, wrap := range wrappings {
			texts = append(texts, wrap(shape))
		}
	}
	texts = append(texts, "keyboard shortcuts", "BEARER", "Ya29", "a\tb", "goroutine", "x:y", "1//", "eyJ", "AIza")
	for _, s := range texts {
		if plain(s) && redact(s) != s {
			t.Errorf("plain(%q), but the patterns change it to %q", s, redact(s))
		}
	}
	for _, r := range "bearerya29" {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f >= utf8.RuneSelf {
				t.Errorf("%q folds to %q, which the ASCII comparison in plain misses", r, f)
			}
		}
	}
	for _, s := range []string{"starting", "stdio", "demo-project", "schema", "none", "dev", "stopped", "stdin closed", "europe-west1"} {
		if !plain(s) {
			t.Errorf("plain(%q) = false: a start that logs it compiles every pattern", s)
		}
	}
	for _, s := range []string{"Authorization: x", "BeArEr abc", "yA29.x", "a%3Db", "at\tx"} {
		if plain(s) {
			t.Errorf("plain(%q) = true", s)
		}
	}
}
