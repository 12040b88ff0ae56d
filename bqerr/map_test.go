package bqerr

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/bigquery"
	"golang.org/x/oauth2"
	"google.golang.org/api/googleapi"
)

// emulatorSyntaxError is what goccy/bigquery-emulator sends for "SELEC 1".
const emulatorSyntaxError = `Syntax error: Unexpected identifier "SELEC" [type.googleapis.com/zetasql.ErrorLocation='\x08\x01\x10\x08']`

// forbidden must never reach an agent.
var forbidden = []string{"SECRET", "?key=", "ya29.", "goroutine"}

// gapi builds a real *googleapi.Error as the REST transport returns it.
// googleapi.ErrorItem has no Location field, so a location travels in the
// JSON body, as it does on the wire.
func gapi(code int, reason, msg, location string, header http.Header) *googleapi.Error {
	item := map[string]string{"reason": reason, "message": msg, "domain": "global"}
	if location != "" {
		item["location"] = location
		item["locationType"] = "parameter"
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"code": code, "message": msg, "errors": []any{item},
	}})
	return &googleapi.Error{
		Code:    code,
		Message: msg,
		Body:    string(body),
		Header:  header,
		Errors:  []googleapi.ErrorItem{{Reason: reason, Message: msg}},
	}
}

// urlErr wraps err the way net/http does, with a secret in the URL.
func urlErr(err error) *url.Error {
	return &url.Error{Op: "Post", URL: "https://x/?key=SECRET", Err: err}
}

// timeoutError is a net.Error that timed out.
type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout SECRET" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

func intp(n int) *int { return &n }

// tokenURLErr is a failed request to Google's OAuth token endpoint.
func tokenURLErr(err error) *url.Error {
	return &url.Error{Op: "Post", URL: "https://oauth2.googleapis.com/token", Err: err}
}

func dnsFailure() error {
	return &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "oauth2.googleapis.com", IsNotFound: true}}
}

func connResetErr() error {
	return &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
}

func connRefused() error {
	return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
}

func TestFrom(t *testing.T) {
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	defer func(old func() time.Time) { now = old }(now)
	now = func() time.Time { return fixed }

	tests := []struct {
		name      string
		err       error
		code      Code
		retryable bool
		after     *int // RetryAfterSeconds; nil means must be nil
		reason    string
		status    int
		line, col int
		field     string
		msgHas    string // substring of Message
		hintHas   string // substring of Hint
		helpURL   string // exact Details.HelpURL, when checked
	}{
		// BigQuery query errors.
		{
			name: "invalidQuery with location",
			err:  gapi(400, "invalidQuery", `Syntax error: Expected end of input but got identifier "x" at [3:15]`, "query", nil),
			code: QueryError, reason: "invalidQuery", status: 400, line: 3, col: 15, field: "query",
			msgHas: "Expected end of input", hintHas: "line 3, column 15", helpURL: querySyntaxURL,
		},
		{
			name: "emulator syntax error",
			err:  gapi(400, "jobInternalError", emulatorSyntaxError, "", nil),
			code: QueryError, reason: "jobInternalError", status: 400, line: 1, col: 8,
			msgHas: `Unexpected identifier "SELEC"`, hintHas: "dry_run_sql",
		},
		{
			name: "emulator table not found",
			err:  gapi(400, "jobInternalError", `INVALID_ARGUMENT: Table not found: foo [type.googleapis.com/zetasql.ErrorLocation='\x08\x01\x10\x0f']`, "", nil),
			code: NotFound, reason: "jobInternalError", status: 400, line: 1, col: 15, msgHas: "Table not found: foo",
		},
		{
			name: "emulator dataset not found without payload",
			err:  gapi(400, "jobInternalError", "dataset missing is not found in project p", "", nil),
			code: NotFound, reason: "jobInternalError", status: 400,
		},
		{
			name: "emulator function not found is a query error",
			err:  gapi(400, "jobInternalError", `Function not found: FOO [type.googleapis.com/zetasql.ErrorLocation='\x08\x02\x10\x03']`, "", nil),
			code: QueryError, reason: "jobInternalError", status: 400, line: 2, col: 3,
		},
		{
			name: "jobInternalError from BigQuery is internal",
			err:  gapi(500, "jobInternalError", "An internal error occurred", "", nil),
			code: Internal, retryable: true, reason: "jobInternalError", status: 500,
		},

		// Other BigQuery reasons.
		{
			name: "invalid about schema",
			err:  gapi(400, "invalid", "Provided Schema does not match Table p:d.t. Field x has changed type", "", nil),
			code: SchemaError, reason: "invalid", status: 400,
		},
		{
			name: "invalid", err: gapi(400, "invalid", "Invalid table ID", "tableId", nil),
			code: InvalidArgument, reason: "invalid", status: 400, field: "tableId",
		},
		{
			name: "notFound", err: gapi(404, "notFound", "Not found: Table p:d.t was not found in location US", "", nil),
			code: NotFound, reason: "notFound", status: 404, msgHas: "Not found: Table",
		},
		{
			name: "duplicate", err: gapi(409, "duplicate", "Already Exists: Table p:d.t", "", nil),
			code: InvalidArgument, reason: "duplicate", status: 409,
		},
		{
			name: "accessDenied", err: gapi(403, "accessDenied", "Access Denied: Table p:d.t: User does not have permission", "", nil),
			code: PermissionDenied, reason: "accessDenied", status: 403, hintHas: "roles/bigquery", helpURL: accessControlURL,
		},
		{
			name: "billingNotEnabled", err: gapi(403, "billingNotEnabled", "Billing has not been enabled for this project.", "", nil),
			code: PermissionDenied, reason: "billingNotEnabled", status: 403,
		},
		{
			name: "billingTierLimitExceeded", err: gapi(400, "billingTierLimitExceeded", "Query exceeded limit for resources", "", nil),
			code: ResourceExhausted, reason: "billingTierLimitExceeded", status: 400,
		},
		{
			name: "quotaExceeded", err: gapi(403, "quotaExceeded", "Quota exceeded: Your project exceeded quota for free query bytes scanned.", "", nil),
			code: ResourceExhausted, reason: "quotaExceeded", status: 403, helpURL: quotasURL,
		},
		{
			name: "rateLimitExceeded as 403 with Retry-After",
			err:  gapi(403, "rateLimitExceeded", "Exceeded rate limits: too many api requests per user per method", "", http.Header{"Retry-After": {"7"}}),
			code: ResourceExhausted, retryable: true, after: intp(7), reason: "rateLimitExceeded", status: 403, hintHas: "retry",
		},
		{
			name: "jobRateLimitExceeded",
			err:  gapi(400, "jobRateLimitExceeded", "Exceeded rate limits: too many table update operations", "", nil),
			code: ResourceExhausted, retryable: true, reason: "jobRateLimitExceeded", status: 400,
		},
		{
			name: "bytesBilledLimitExceeded as 500 is not retryable",
			err:  gapi(500, "bytesBilledLimitExceeded", "Query exceeded limit for bytes billed: 1000000. 2000000 or higher required.", "", nil),
			code: ResourceExhausted, reason: "bytesBilledLimitExceeded", status: 500, hintHas: "maximumBytesBilled",
		},
		{
			name: "responseTooLarge", err: gapi(403, "responseTooLarge", "Response too large to return.", "", nil),
			code: ResourceExhausted, reason: "responseTooLarge", status: 403,
		},
		{
			name: "resourcesExceeded", err: gapi(400, "resourcesExceeded", "Resources exceeded during query execution", "", nil),
			code: ResourceExhausted, reason: "resourcesExceeded", status: 400,
		},
		{
			name: "backendError", err: gapi(503, "backendError", "Error encountered during execution. Retrying may solve the problem.", "", nil),
			code: Unavailable, retryable: true, reason: "backendError", status: 503,
		},
		{
			name: "backendError as 400 is not retryable", err: gapi(400, "backendError", "odd", "", nil),
			code: Unavailable, reason: "backendError", status: 400,
		},
		{
			name: "internalError", err: gapi(500, "internalError", "An internal error occurred and the request could not be completed.", "", nil),
			code: Internal, retryable: true, reason: "internalError", status: 500,
		},
		{
			name: "timeout", err: gapi(500, "timeout", "Operation timed out", "", nil),
			code: DeadlineExceeded, retryable: true, reason: "timeout", status: 500,
		},
		{
			name: "notImplemented", err: gapi(501, "notImplemented", "Not implemented", "", nil),
			code: InvalidArgument, reason: "notImplemented", status: 501,
		},
		{
			name: "tableUnavailable", err: gapi(500, "tableUnavailable", "Table is temporarily unavailable", "", nil),
			code: Unavailable, retryable: true, reason: "tableUnavailable", status: 500,
		},

		// Unknown reasons fall back to the HTTP status.
		{name: "HTTP 400", err: gapi(400, "badRequest", "bad", "", nil), code: InvalidArgument, reason: "badRequest", status: 400},
		{name: "HTTP 401", err: gapi(401, "authError", "Request had invalid authentication credentials.", "", nil), code: Unauthenticated, reason: "authError", status: 401, helpURL: adcURL},
		{name: "HTTP 403", err: gapi(403, "forbidden", "no", "", nil), code: PermissionDenied, reason: "forbidden", status: 403},
		{name: "HTTP 404", err: gapi(404, "", "Not Found", "", nil), code: NotFound, status: 404},
		{name: "HTTP 408", err: gapi(408, "", "timeout", "", nil), code: DeadlineExceeded, retryable: true, status: 408},
		{name: "HTTP 409", err: gapi(409, "conflict", "conflict", "", nil), code: InvalidArgument, reason: "conflict", status: 409},
		{name: "HTTP 418", err: gapi(418, "", "teapot", "", nil), code: InvalidArgument, status: 418},
		{name: "HTTP 429", err: gapi(429, "", "slow down", "", http.Header{"Retry-After": {"30"}}), code: ResourceExhausted, retryable: true, after: intp(30), status: 429},
		{name: "HTTP 500", err: gapi(500, "", "oops", "", nil), code: Internal, retryable: true, status: 500},
		{name: "HTTP 502", err: gapi(502, "", "bad gateway", "", nil), code: Unavailable, retryable: true, status: 502},
		{name: "HTTP 503", err: gapi(503, "", "unavailable", "", nil), code: Unavailable, retryable: true, status: 503},
		{name: "HTTP 504", err: gapi(504, "", "gateway timeout", "", nil), code: Unavailable, retryable: true, status: 504},
		{name: "HTTP 599", err: gapi(599, "", "weird", "", nil), code: Internal, retryable: true, status: 599},
		{
			name: "HTML error page from a proxy",
			err:  &googleapi.Error{Code: 502, Body: "<html>SECRET ya29.SECRET</html>"},
			code: Unavailable, retryable: true, status: 502, msgHas: "HTTP 502",
		},
		{
			name: "Retry-After as HTTP date",
			err:  gapi(503, "backendError", "busy", "", http.Header{"Retry-After": {fixed.Add(90 * time.Second).Format(http.TimeFormat)}}),
			code: Unavailable, retryable: true, after: intp(90), reason: "backendError", status: 503,
		},
		{
			name: "unreadable Retry-After is ignored",
			err:  gapi(503, "backendError", "busy", "", http.Header{"Retry-After": {"soon"}}),
			code: Unavailable, retryable: true, reason: "backendError", status: 503,
		},
		{
			name: "googleapi error inside url.Error",
			err:  urlErr(gapi(404, "notFound", "Not found: Dataset p:d", "", nil)),
			code: NotFound, reason: "notFound", status: 404,
		},
		{
			name: "secrets in a BigQuery message are redacted",
			err: gapi(403, "accessDenied",
				"Access Denied: https://bigquery.googleapis.com/bigquery/v2/projects/p/jobs?alt=json&key=SECRET Authorization: Bearer ya29.SECRET", "", nil),
			code: PermissionDenied, reason: "accessDenied", status: 403,
			msgHas: "https://bigquery.googleapis.com/bigquery/v2/projects/p/jobs",
		},

		// Job errors.
		{
			name: "job invalidQuery",
			err:  fmt.Errorf("job failed: %w", &bigquery.Error{Reason: "invalidQuery", Message: "Unrecognized name: foo at [1:8]", Location: "query"}),
			code: QueryError, reason: "invalidQuery", line: 1, col: 8, field: "query", hintHas: "line 1, column 8",
		},
		{
			name: "job stopped",
			err:  &bigquery.Error{Reason: "stopped", Message: "Job execution was cancelled: User requested cancellation"},
			code: DeadlineExceeded, reason: "stopped", msgHas: "cancelled",
		},
		{
			name: "job timeout", err: &bigquery.Error{Reason: "timeout", Message: "Query exceeded the time limit"},
			code: DeadlineExceeded, retryable: true, reason: "timeout",
		},
		{
			name: "job jobInternalError without HTTP status",
			err:  &bigquery.Error{Reason: "jobInternalError", Message: "An internal error occurred"},
			code: Internal, retryable: true, reason: "jobInternalError",
		},
		{
			name: "emulator job status with ZetaSQL payload",
			err:  &bigquery.Error{Reason: "jobInternalError", Message: emulatorSyntaxError},
			code: QueryError, reason: "jobInternalError", line: 1, col: 8,
		},
		{
			name: "job error as a value inside MultiError",
			// Wrapped: a MultiError is a slice and cannot be compared with ==.
			err:  fmt.Errorf("rows: %w", bigquery.MultiError{bigquery.Error{Reason: "notFound", Message: "Not found: Table p:d.t"}}),
			code: NotFound, reason: "notFound",
		},
		{
			name: "job error with an unknown reason",
			err:  &bigquery.Error{Reason: "somethingNew", Message: "a new failure"},
			code: Internal, reason: "somethingNew", msgHas: "a new failure",
		},

		// Credentials.
		{
			name: "oauth2 invalid_grant",
			err: fmt.Errorf("token: %w", &oauth2.RetrieveError{
				Response:         &http.Response{StatusCode: 400},
				Body:             []byte(`{"error":"invalid_grant","access_token":"ya29.SECRET"}`),
				ErrorCode:        "invalid_grant",
				ErrorDescription: "SECRET",
			}),
			code: AuthError, msgHas: "invalid_grant", hintHas: "gcloud auth application-default login", helpURL: adcURL,
		},
		{
			name: "oauth2 token service 503",
			err:  &oauth2.RetrieveError{Response: &http.Response{StatusCode: 503}, Body: []byte("SECRET")},
			code: AuthError, retryable: true, msgHas: "HTTP 503",
		},
		{
			name: "oauth2 error without response",
			err:  &oauth2.RetrieveError{},
			code: AuthError,
		},
		{
			name: "cloud auth error",
			err:  &auth.Error{Response: &http.Response{StatusCode: 401}, Body: []byte(`{"access_token":"ya29.SECRET"}`)},
			code: AuthError, msgHas: "HTTP 401",
		},
		// Token fetches that got no answer, in every shape the credential
		// libraries deliver them: UNAVAILABLE and retryable.
		{name: "token URL DNS failure", err: tokenURLErr(dnsFailure()), code: Unavailable, retryable: true, msgHas: "token service could not be reached", hintHas: "retry later"},
		{name: "token URL reset", err: tokenURLErr(connResetErr()), code: Unavailable, retryable: true, msgHas: "token service"},
		{name: "token URL timeout", err: tokenURLErr(timeoutError{}), code: Unavailable, retryable: true, msgHas: "token service"},
		{name: "token URL context deadline", err: tokenURLErr(context.DeadlineExceeded), code: Unavailable, retryable: true, msgHas: "token service"},
		{name: "metadata server unreachable", err: &url.Error{Op: "Get", URL: "http://169.254.169.254/computeMetadata/v1/instance/service-accounts/default/token", Err: connRefused()}, code: Unavailable, retryable: true, msgHas: "token service"},
		{name: "oauth2 %v DNS", err: fmt.Errorf("oauth2: cannot fetch token: %v", tokenURLErr(dnsFailure())), code: Unavailable, retryable: true, msgHas: "token service"},
		{name: "oauth2 %v reset", err: fmt.Errorf("oauth2: cannot fetch token: %v", tokenURLErr(connResetErr())), code: Unavailable, retryable: true, msgHas: "token service"},
		{name: "oauth2 %v timeout", err: fmt.Errorf("oauth2: cannot fetch token: %v", fmt.Errorf(`Post "https://oauth2.googleapis.com/token": net/http: TLS handshake timeout`)), code: Unavailable, retryable: true, msgHas: "token service"},
		{name: "oauth2 %v body cut", err: fmt.Errorf("oauth2: cannot fetch token: %v", io.ErrUnexpectedEOF), code: Unavailable, retryable: true, msgHas: "token service"},
		{name: "cloud auth %w DNS", err: fmt.Errorf("auth: cannot fetch token: %w", tokenURLErr(dnsFailure())), code: Unavailable, retryable: true, msgHas: "token service"},
		{name: "cloud auth compute %w timeout", err: fmt.Errorf("credentials: cannot fetch token: %w", tokenURLErr(timeoutError{})), code: Unavailable, retryable: true, msgHas: "token service"},
		{name: "cloud auth.Error wrapping reset", err: &auth.Error{Err: tokenURLErr(connResetErr())}, code: Unavailable, retryable: true, msgHas: "token service"},
		{
			// The BigQuery request failed because its token could not be
			// fetched: the http.Client wraps the token source's error.
			name: "token failure inside a BigQuery request",
			err:  &url.Error{Op: "Post", URL: "https://bigquery.googleapis.com/bigquery/v2/projects/p/jobs?key=SECRET", Err: fmt.Errorf("oauth2: cannot fetch token: %v", tokenURLErr(dnsFailure()))},
			code: Unavailable, retryable: true, msgHas: "token service",
		},
		{
			// Not a network failure: the credentials are the problem.
			name: "oauth2 %v bad token JSON",
			err:  fmt.Errorf("oauth2: cannot fetch token: %v", errors.New("invalid character 'x' looking for beginning of value")),
			code: AuthError, hintHas: "gcloud auth application-default login",
		},
		{
			name: "metadata server has no token",
			err:  errors.New(`metadata: GCE metadata "instance/service-accounts/default/token?scopes=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fbigquery" not defined`),
			code: AuthError, hintHas: "GOOGLE_APPLICATION_CREDENTIALS",
		},
		{
			name: "no default credentials",
			err:  errors.New("google: could not find default credentials. See https://cloud.google.com/docs/authentication/external/set-up-adc for more information"),
			code: AuthError, hintHas: "GOOGLE_APPLICATION_CREDENTIALS",
		},

		// Context.
		{
			name: "deadline", err: fmt.Errorf("query: %w", context.DeadlineExceeded),
			code: DeadlineExceeded, retryable: true, hintHas: "timeoutSeconds",
		},
		{
			name: "deadline inside url.Error", err: urlErr(context.DeadlineExceeded),
			code: DeadlineExceeded, retryable: true,
		},
		{
			name: "cancelled", err: fmt.Errorf("query: %w", context.Canceled),
			code: DeadlineExceeded, msgHas: "the request was cancelled before it finished",
		},

		// TLS and endpoint misconfiguration.
		{
			name: "unknown authority", err: urlErr(x509.UnknownAuthorityError{}),
			code: Unavailable, hintHas: "--endpoint",
		},
		{
			name: "hostname mismatch", err: urlErr(x509.HostnameError{Certificate: &x509.Certificate{}, Host: "x"}),
			code: Unavailable, hintHas: "--endpoint",
		},
		{
			name: "certificate invalid", err: urlErr(x509.CertificateInvalidError{Reason: x509.Expired}),
			code: Unavailable, hintHas: "--endpoint",
		},
		{
			name: "verification error", err: urlErr(&tls.CertificateVerificationError{Err: errors.New("SECRET")}),
			code: Unavailable, hintHas: "--endpoint",
		},
		{
			name: "record header", err: urlErr(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}),
			code: Unavailable, hintHas: "--endpoint",
		},
		{
			name: "HTTP to HTTPS", err: urlErr(errors.New("http: server gave HTTP response to HTTPS client")),
			code: Unavailable, hintHas: "--endpoint",
		},
		{
			name: "bad scheme", err: urlErr(errors.New(`unsupported protocol scheme "ftp"`)),
			code: Unavailable, msgHas: "scheme", hintHas: "--endpoint",
		},

		// Network without a response.
		{
			name: "connection refused",
			err:  urlErr(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}),
			code: Unavailable, retryable: true, msgHas: "BigQuery could not be reached",
		},
		{
			name: "connection reset",
			err:  urlErr(&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}),
			code: Unavailable, retryable: true,
		},
		{name: "EOF inside url.Error", err: urlErr(io.EOF), code: Unavailable, retryable: true},
		{name: "unexpected EOF inside url.Error", err: urlErr(io.ErrUnexpectedEOF), code: Unavailable, retryable: true},
		{
			name: "DNS not found",
			err:  urlErr(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "bigquery.example", IsNotFound: true}}),
			code: Unavailable, retryable: true,
		},
		{
			name: "timeout", err: urlErr(timeoutError{}),
			code: DeadlineExceeded, retryable: true, msgHas: "BigQuery did not answer in time",
		},
		{
			name: "read deadline", err: &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded},
			code: DeadlineExceeded, retryable: true,
		},
		{
			name: "DNS timeout", err: &net.DNSError{Err: "i/o timeout", Name: "x", IsTimeout: true},
			code: DeadlineExceeded, retryable: true,
		},

		// Everything else.
		{name: "bare EOF is not a network failure", err: io.EOF, code: Internal, msgHas: "internal error"},
		{
			name: "unknown error text is never shown",
			err:  errors.New("panic: SECRET ya29.SECRET\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:12 +0x1d"),
			code: Internal, msgHas: "internal error",
		},
		{name: "typed nil *Error in the chain", err: fmt.Errorf("x: %w", (*Error)(nil)), code: Internal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := From(tt.err)
			if got == nil {
				t.Fatal("From returned nil")
			}
			if got.Code != tt.code {
				t.Errorf("Code = %s, want %s (message %q)", got.Code, tt.code, got.Message)
			}
			if got.Retryable != tt.retryable {
				t.Errorf("Retryable = %v, want %v", got.Retryable, tt.retryable)
			}
			switch {
			case tt.after == nil && got.RetryAfterSeconds != nil:
				t.Errorf("RetryAfterSeconds = %d, want nil", *got.RetryAfterSeconds)
			case tt.after != nil && (got.RetryAfterSeconds == nil || *got.RetryAfterSeconds != *tt.after):
				t.Errorf("RetryAfterSeconds = %v, want %d", got.RetryAfterSeconds, *tt.after)
			}
			if got.Details.Reason != tt.reason {
				t.Errorf("Reason = %q, want %q", got.Details.Reason, tt.reason)
			}
			if got.HTTPStatus != tt.status {
				t.Errorf("HTTPStatus = %d, want %d", got.HTTPStatus, tt.status)
			}
			var line, col int
			var field string
			if l := got.Details.Location; l != nil {
				line, col, field = l.Line, l.Column, l.Field
			}
			if line != tt.line || col != tt.col || field != tt.field {
				t.Errorf("Location = %d:%d %q, want %d:%d %q", line, col, field, tt.line, tt.col, tt.field)
			}
			if !strings.Contains(got.Message, tt.msgHas) {
				t.Errorf("Message = %q, want it to contain %q", got.Message, tt.msgHas)
			}
			if !strings.Contains(got.Hint, tt.hintHas) {
				t.Errorf("Hint = %q, want it to contain %q", got.Hint, tt.hintHas)
			}
			if tt.helpURL != "" && got.Details.HelpURL != tt.helpURL {
				t.Errorf("HelpURL = %q, want %q", got.Details.HelpURL, tt.helpURL)
			}
			checkAgentSafe(t, got)
			if got.Cause() != tt.err {
				t.Errorf("Cause() = %v, want the original error", got.Cause())
			}
		})
	}
}

// checkAgentSafe asserts the invariants every From result must keep.
func checkAgentSafe(t *testing.T, e *Error) {
	t.Helper()
	if e.Message == "" || e.Hint == "" || e.Details.HelpURL == "" {
		t.Errorf("empty Message, Hint or HelpURL: %+v", e)
	}
	if e.Code == NotFound && !strings.Contains(e.Hint, "list_tables") {
		t.Errorf("NOT_FOUND hint %q does not mention list_tables", e.Hint)
	}
	if strings.Contains(e.Message, "type.googleapis.com") {
		t.Errorf("Message keeps the ZetaSQL payload: %q", e.Message)
	}
	js := e.JSON()
	if !json.Valid(js) {
		t.Errorf("JSON() is not valid JSON: %s", js)
	}
	for _, field := range []string{e.Message, e.Hint, string(js)} {
		for _, bad := range forbidden {
			if strings.Contains(field, bad) {
				t.Errorf("agent-facing text contains %q: %s", bad, field)
			}
		}
	}
}

func TestFromNil(t *testing.T) {
	if got := From(nil); got != nil {
		t.Fatalf("From(nil) = %v, want nil", got)
	}
}

func TestFromKeepsExistingError(t *testing.T) {
	orig := Invalid("bad table name", "Use project.dataset.table.").WithRetryAfter(3).WithCause(io.EOF)
	orig.Details.Location = &Location{Line: 1, Column: 2}
	for _, err := range []error{orig, fmt.Errorf("tool: %w", orig), urlErr(orig)} {
		got := From(err)
		if string(got.JSON()) != string(orig.JSON()) || !errors.Is(got, io.EOF) {
			t.Errorf("From(%v) = %s (cause %v), want the original %s", err, got.JSON(), got.Cause(), orig.JSON())
		}
		// The cause is the original's, or the chain that wrapped it, so a
		// wrapper's markers stay reachable.
		if want := error(io.EOF); err != error(orig) && got.Cause() != err || err == error(orig) && got.Cause() != want {
			t.Errorf("From(%v).Cause() = %v", err, got.Cause())
		}
		// From never aliases: the caller may change what it gets.
		if got == orig || got.RetryAfterSeconds == orig.RetryAfterSeconds || got.Details.Location == orig.Details.Location {
			t.Errorf("From(%v) shares memory with the error in the chain", err)
		}
	}
}

func TestFromCauseIsReachable(t *testing.T) {
	ge := gapi(404, "notFound", "Not found: Table p:d.t", "", nil)
	e := From(urlErr(ge))
	var got *googleapi.Error
	if !errors.As(e, &got) || got != ge {
		t.Fatalf("errors.As(From(err), *googleapi.Error) = %v, want the original", got)
	}
	if !errors.Is(From(fmt.Errorf("x: %w", context.Canceled)), context.Canceled) {
		t.Fatal("errors.Is(From(canceled), context.Canceled) = false")
	}
}

func TestEveryCodeHasHelpAndHint(t *testing.T) {
	for _, code := range codes {
		if HelpURL(code, "") == "" {
			t.Errorf("HelpURL(%s) is empty", code)
		}
		if DefaultHint(code) == "" {
			t.Errorf("DefaultHint(%s) is empty", code)
		}
		if e := New(code, "x"); e.Details.HelpURL == "" {
			t.Errorf("New(%s) has no HelpURL", code)
		}
	}
	if !strings.Contains(DefaultHint(NotFound), "list_tables") {
		t.Errorf("DefaultHint(NOT_FOUND) does not mention list_tables")
	}
}

func TestHelpURL(t *testing.T) {
	tests := []struct {
		code   Code
		reason string
		want   string
	}{
		{QueryError, "invalidQuery", querySyntaxURL},
		{AuthError, "", adcURL},
		{Unauthenticated, "authError", adcURL},
		{PermissionDenied, "accessDenied", accessControlURL},
		{ResourceExhausted, "rateLimitExceeded", quotasURL},
		{ResourceExhausted, "", quotasURL},
		{ResourceExhausted, "bytesBilledLimitExceeded", errorMessagesURL},
		{NotFound, "notFound", errorMessagesURL},
		{Internal, "", errorMessagesURL},
		{Code("SOMETHING_NEW"), "", errorMessagesURL},
	}
	for _, tt := range tests {
		if got := HelpURL(tt.code, tt.reason); got != tt.want {
			t.Errorf("HelpURL(%s, %q) = %q, want %q", tt.code, tt.reason, got, tt.want)
		}
	}
}

func TestParseSQLLocation(t *testing.T) {
	tests := []struct {
		name      string
		msg       string
		line, col int // 0, 0: no location
		cleaned   string
	}{
		{"emulator", emulatorSyntaxError, 1, 8, `Syntax error: Unexpected identifier "SELEC"`},
		{"BigQuery", `Unrecognized name: foo at [3:15]`, 3, 15, `Unrecognized name: foo at [3:15]`},
		{"ZetaSQL prose", `Syntax error: Unexpected end of statement [at 2:4]`, 2, 4, `Syntax error: Unexpected end of statement [at 2:4]`},
		{"BigQuery wins over payload", `bad at [3:15] [type.googleapis.com/zetasql.ErrorLocation='\x08\x01\x10\x01']`, 3, 15, `bad at [3:15]`},
		{"octal escapes", `bad [type.googleapis.com/zetasql.ErrorLocation='\010\003\020\017']`, 3, 15, "bad"},
		{"printable and named escapes", `bad [type.googleapis.com/zetasql.ErrorLocation='\x08\n\x10A']`, 10, 65, "bad"},
		{"multi-byte varint", `bad [type.googleapis.com/zetasql.ErrorLocation='\x08\x02\x10\xc8\x01']`, 2, 200, "bad"},
		{"raw bytes", "bad [type.googleapis.com/zetasql.ErrorLocation='\x08\x04\x10\x05']", 4, 5, "bad"},
		{"unknown fields skipped", `bad [type.googleapis.com/zetasql.ErrorLocation='\x1a\x03a\'b\x08\x05\x10\x03']`, 5, 3, "bad"},
		{"text after payload", `bad [type.googleapis.com/zetasql.ErrorLocation='\x08\x01\x10\x02'] then more`, 1, 2, "bad then more"},
		{"other payload stripped", `bad [type.googleapis.com/zetasql.InternalErrorLocation='\x08\x07']`, 0, 0, "bad"},
		{"truncated payload", `bad [type.googleapis.com/zetasql.ErrorLocation='\x08\x01\x1`, 1, 0, "bad"},
		{"no quote", `bad [type.googleapis.com/zetasql.ErrorLocation`, 0, 0, "bad"},
		{"garbage", `bad [type.googleapis.com/zetasql.ErrorLocation='\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff']`, 0, 0, "bad"},
		{"negative line", `bad [type.googleapis.com/zetasql.ErrorLocation='\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x10\x03']`, 0, 3, "bad"},
		{"no location", "Access Denied", 0, 0, "Access Denied"},
		{"empty", "", 0, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc, cleaned, _ := parseSQLLocation(tt.msg)
			var line, col int
			if loc != nil {
				line, col = loc.Line, loc.Column
			}
			if line != tt.line || col != tt.col {
				t.Errorf("location = %d:%d, want %d:%d", line, col, tt.line, tt.col)
			}
			if tt.line == 0 && tt.col == 0 && loc != nil {
				t.Errorf("location = %+v, want nil", loc)
			}
			if cleaned != tt.cleaned {
				t.Errorf("cleaned = %q, want %q", cleaned, tt.cleaned)
			}
		})
	}
}

func FuzzParseSQLLocation(f *testing.F) {
	f.Add(emulatorSyntaxError)
	f.Add(`x at [3:15]`)
	f.Add(`[type.googleapis.com/zetasql.ErrorLocation='\x08\x01\x10\xc8\x01\\\'\`)
	f.Fuzz(func(t *testing.T, msg string) {
		loc, cleaned, _ := parseSQLLocation(msg) // must not panic
		if loc != nil && (loc.Line < 0 || loc.Column < 0) {
			t.Errorf("negative location %+v", loc)
		}
		if len(cleaned) > len(msg) {
			t.Errorf("cleaned %q is longer than %q", cleaned, msg)
		}
	})
}

func TestEmulatorJobStatusErrorsAreQueryErrors(t *testing.T) {
	for msg, want := range map[string]Code{
		"failed to analyze: INVALID_ARGUMENT: Table not found: shop.no_such_table [at 1:15]":                 NotFound,
		"failed to analyze: INVALID_ARGUMENT: Cannot access field city on a value with type INT64 [at 1:11]": QueryError,
		"The job encountered an internal error during execution and was unable to complete successfully.":    Internal,
	} {
		e := From(&bigquery.Error{Reason: "jobInternalError", Message: msg})
		if e.Code != want || e.Retryable != (want == Internal) {
			t.Errorf("%q: code %s retryable %v, want %s", msg, e.Code, e.Retryable, want)
		}
	}
}

func TestFromTokenFetch(t *testing.T) {
	other := &url.Error{Op: "Post", URL: "http://127.0.0.1:8080/token", Err: connRefused()}
	for name, tc := range map[string]struct {
		err       error
		code      Code
		retryable bool
	}{
		// Any endpoint, once the caller knows it was a token fetch.
		"refused, unknown endpoint": {other, Unavailable, true},
		"timeout, unknown endpoint": {&url.Error{Op: "Post", URL: "http://127.0.0.1:8080/token", Err: timeoutError{}}, Unavailable, true},
		"token service 503":         {&oauth2.RetrieveError{Response: &http.Response{StatusCode: 503}}, AuthError, true},
		"invalid_grant":             {&oauth2.RetrieveError{Response: &http.Response{StatusCode: 400}, ErrorCode: "invalid_grant"}, AuthError, false},
		"unknown failure":           {errors.New("SECRET something odd"), AuthError, false},
		"already structured":        {Invalid("x", "y"), InvalidArgument, false},
	} {
		e := FromTokenFetch(tc.err)
		if e.Code != tc.code || e.Retryable != tc.retryable {
			t.Errorf("%s: %s retryable %v, want %s %v", name, e.Code, e.Retryable, tc.code, tc.retryable)
		}
		if _, structured := tc.err.(*Error); !structured && !errors.Is(e, tc.err) {
			t.Errorf("%s: the cause is not reachable", name)
		}
		checkAgentSafe(t, e)
	}
	if FromTokenFetch(nil) != nil {
		t.Error("FromTokenFetch(nil) != nil")
	}
	// Without that knowledge a refused connection is BigQuery's.
	if e := From(other); e.Code != Unavailable || strings.Contains(e.Message, "token") {
		t.Errorf("From(refused) = %s %q", e.Code, e.Message)
	}
}
