package bqerr

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/bigquery"
	"golang.org/x/oauth2"
	"google.golang.org/api/googleapi"
)

// maxMessageChars bounds a message taken from BigQuery: long enough for any
// real diagnosis, short enough not to flood an agent's context.
const maxMessageChars = 1000

// maxRetryAfter caps a Retry-After header, so a broken or hostile value
// cannot park an agent for ever.
const maxRetryAfter = 24 * 60 * 60

// now is the clock for HTTP-date Retry-After headers; tests replace it.
var now = time.Now

// From maps any failure to the *Error an agent receives. It is the one place
// where failures are classified, so every tool reports the same failure the
// same way. It returns nil for nil.
//
// Rules, first match wins: an *Error already in the chain is returned as is;
// then a BigQuery HTTP error (*googleapi.Error), a BigQuery job error
// (*bigquery.Error), a credentials failure, a context error, a TLS or
// endpoint misconfiguration, a network failure; anything else is INTERNAL
// with a generic message. The original error is kept as the cause for logs;
// every message shown to the agent has passed through [Redact].
func From(err error) *Error {
	if err == nil {
		return nil
	}
	if e, ok := As(err); ok && e != nil {
		return e
	}
	return classifyError(err).WithCause(err)
}

// classifyError applies From's rules after the *Error check.
func classifyError(err error) *Error {
	var ge *googleapi.Error
	if errors.As(err, &ge) && ge != nil {
		return fromGoogleAPI(ge)
	}
	if be := asBigQueryError(err, 0); be != nil {
		return fromBigQuery(be)
	}
	for _, mapper := range []func(error) *Error{fromAuth, fromContext, fromTLS, fromNetwork} {
		if e := mapper(err); e != nil {
			return e
		}
	}
	// Unknown errors may hold anything (paths, SQL, secrets), so their text
	// is never shown; the cause is logged instead.
	return build(Internal, false, "", "internal error",
		"An unexpected error happened inside this server; retrying unchanged is unlikely to help. Report it to the operator if it keeps happening.")
}

// build assembles an *Error whose message and hint are already agent-safe.
func build(code Code, retryable bool, reason, message, hint string) *Error {
	e := New(code, message)
	e.Retryable = retryable
	e.Hint = hint
	e.Details.Reason = reason
	e.Details.HelpURL = HelpURL(code, reason)
	return e
}

// ---- BigQuery ----

// verdict is how a BigQuery reason and HTTP status classify.
type verdict struct {
	code      Code
	retryable bool
	hint      string // "" means DefaultHint(code), or the SQL hint for QUERY_ERROR
	message   string // replaces BigQuery's message when set
}

// rateLimitReasons are the reasons BigQuery sends (often as HTTP 403) when
// the same request will succeed a little later.
func isRateLimit(reason string) bool {
	return reason == "rateLimitExceeded" || reason == "jobRateLimitExceeded"
}

// Hints shared by several reasons.
const (
	hintRetryLater   = "BigQuery is rate-limiting these requests; wait a little and retry."
	hintBytesBilled  = "Ask for fewer bytes: select fewer columns, filter on the partition column, or raise maximumBytesBilled within the server cap."
	hintBackendRetry = "BigQuery had a temporary problem; retry later."
)

// schemaRE recognises an "invalid" error that is about a schema, which the
// agent fixes differently from a bad argument.
var schemaRE = regexp.MustCompile(`(?i)schema`)

// classify maps a BigQuery reason, message and HTTP status (0 when there was
// no HTTP response, as for job errors) to a verdict. The reason decides
// first because it is more precise than the status: BigQuery sends
// rate limits as 403 and bytesBilledLimitExceeded as 500.
func classify(reason, msg string, status int, zetasql bool) verdict {
	v, ok := byReason(reason, msg, status, zetasql)
	if !ok {
		v = byStatus(status)
	}
	// A 4xx says the request as sent is wrong or not allowed now; only
	// timeouts and rate limits become right by waiting.
	if status >= 400 && status < 500 && status != http.StatusRequestTimeout &&
		status != http.StatusTooManyRequests && !isRateLimit(reason) {
		v.retryable = false
	}
	return v
}

// byReason classifies by BigQuery's error reason, see
// https://cloud.google.com/bigquery/docs/error-messages.
func byReason(reason, msg string, status int, zetasql bool) (verdict, bool) {
	switch reason {
	case "invalidQuery":
		return verdict{code: QueryError}, true
	case "invalid":
		if schemaRE.MatchString(msg) {
			return verdict{code: SchemaError}, true
		}
		return verdict{code: InvalidArgument}, true
	case "notFound":
		return verdict{code: NotFound}, true
	case "duplicate":
		return verdict{code: InvalidArgument, hint: "It already exists: pick another name or use the existing one."}, true
	case "resourceInUse":
		return verdict{code: InvalidArgument, hint: "The resource is in use (a dataset that still has tables, a job still running); wait for it or change the request."}, true
	case "invalidUser", "notImplemented":
		return verdict{code: InvalidArgument}, true
	case "accessDenied", "blocked":
		return verdict{code: PermissionDenied}, true
	case "billingNotEnabled":
		return verdict{code: PermissionDenied, hint: "Billing is not enabled for this project: ask the user to enable billing, or stay within the BigQuery sandbox's limits."}, true
	case "billingTierLimitExceeded":
		return verdict{code: ResourceExhausted, hint: "The query needs a higher billing tier: simplify it (fewer joins, less data) and run it again."}, true
	case "quotaExceeded":
		return verdict{code: ResourceExhausted, hint: "A BigQuery quota is used up: wait for it to reset or ask the user to raise it; retrying right away will not help."}, true
	case "rateLimitExceeded", "jobRateLimitExceeded":
		return verdict{code: ResourceExhausted, retryable: true, hint: hintRetryLater}, true
	case "bytesBilledLimitExceeded":
		return verdict{code: ResourceExhausted, hint: hintBytesBilled}, true
	case "responseTooLarge":
		return verdict{code: ResourceExhausted, hint: "The result is too large to return: add a LIMIT, select fewer columns, or aggregate."}, true
	case "resourcesExceeded":
		return verdict{code: ResourceExhausted, hint: "The query needs more resources than BigQuery allows: simplify it (fewer joins, ORDER BY only with LIMIT, aggregate earlier) and run it again."}, true
	case "backendError", "jobBackendError", "tableUnavailable":
		return verdict{code: Unavailable, retryable: true, hint: hintBackendRetry}, true
	case "internalError":
		return verdict{code: Internal, retryable: true, hint: hintBackendRetry}, true
	case "stopped":
		m := "the BigQuery job was cancelled before it finished"
		if msg != "" {
			m += ": " + msg
		}
		return verdict{code: DeadlineExceeded, message: m,
			hint: "The job was cancelled (by a user, a timeout or the server); run it again only if it is still needed."}, true
	case "timeout":
		return verdict{code: DeadlineExceeded, retryable: true}, true
	case "proxyAuthenticationRequired":
		return verdict{code: Unavailable, hint: "A proxy between this server and BigQuery requires authentication: ask the user to check the proxy settings."}, true
	case "jobInternalError":
		// The goccy/bigquery-emulator reports every SQL mistake as
		// jobInternalError with HTTP 400 and ZetaSQL's message, so a 4xx (or
		// a ZetaSQL payload, on the job-status path with no HTTP code) means
		// the query is wrong, not that BigQuery broke.
		if status >= 400 && status < 500 || status == 0 && (zetasql || emulatorSQLRE.MatchString(msg)) {
			if objectNotFound(msg) {
				return verdict{code: NotFound}, true
			}
			return verdict{code: QueryError}, true
		}
		return verdict{code: Internal, retryable: true, hint: hintBackendRetry}, true
	}
	return verdict{}, false
}

// emulatorSQLRE recognises the emulator's SQL failures on the job-status
// path, where it sends ZetaSQL's text without the location payload.
// Real BigQuery never words a jobInternalError like this.
var emulatorSQLRE = regexp.MustCompile(`failed to analyze|INVALID_ARGUMENT: |Syntax error|failed to convert|failed to parse`)

// notFoundRE and notObjectRE tell "Table not found: x" / "dataset d is not
// found" (the agent should look the name up) from "Function not found: f"
// (the SQL is wrong).
var (
	notFoundRE  = regexp.MustCompile(`(?i)\bnot found\b`)
	notObjectRE = regexp.MustCompile(`(?i)\b(function|column|field|name|signature|parameter|member) not found\b`)
)

func objectNotFound(msg string) bool {
	return notFoundRE.MatchString(msg) && !notObjectRE.MatchString(msg)
}

// byStatus classifies by HTTP status alone, for reasons this package does
// not know.
func byStatus(status int) verdict {
	switch {
	case status == http.StatusBadRequest, status == http.StatusConflict:
		return verdict{code: InvalidArgument}
	case status == http.StatusUnauthorized:
		return verdict{code: Unauthenticated}
	case status == http.StatusForbidden:
		return verdict{code: PermissionDenied}
	case status == http.StatusNotFound:
		return verdict{code: NotFound}
	case status == http.StatusRequestTimeout:
		return verdict{code: DeadlineExceeded, retryable: true}
	case status == http.StatusTooManyRequests:
		return verdict{code: ResourceExhausted, retryable: true, hint: hintRetryLater}
	case status == http.StatusBadGateway, status == http.StatusServiceUnavailable, status == http.StatusGatewayTimeout:
		return verdict{code: Unavailable, retryable: true}
	case status >= 400 && status < 500:
		return verdict{code: InvalidArgument}
	case status >= 500 && status < 600:
		return verdict{code: Internal, retryable: true}
	}
	// No status (a job error with an unknown reason) or a nonsensical one:
	// something failed, and nothing says that trying again would help.
	return verdict{code: Internal}
}

// bqFailure is what this package reads from either kind of BigQuery error.
type bqFailure struct {
	reason, message, field string
	status                 int
	header                 http.Header
}

// fromBQ builds the *Error for a BigQuery failure.
func fromBQ(f bqFailure) *Error {
	loc, msg, zetasql := parseSQLLocation(f.message)
	v := classify(f.reason, msg, f.status, zetasql)
	if v.message != "" {
		msg = v.message
	}
	// Bound the text before redacting it (the regexps are linear, but a
	// megabyte body still costs), then again to the agent-facing size.
	msg = Truncate(strings.TrimSpace(Redact(Truncate(msg, 16*maxMessageChars))), maxMessageChars)
	if msg == "" {
		msg = defaultMessage(v.code, f.status)
	}
	if field := Truncate(Redact(f.field), 200); field != "" {
		if loc == nil {
			loc = &Location{}
		}
		loc.Field = field
	}
	hint := v.hint
	if hint == "" {
		hint = DefaultHint(v.code)
		if v.code == QueryError {
			hint = sqlHint(loc)
		}
	}
	e := build(v.code, v.retryable, safeReason(f.reason), msg, hint)
	e.HTTPStatus = f.status
	e.Details.Location = loc
	if secs, ok := retryAfter(f.header); ok {
		e.WithRetryAfter(secs)
	}
	return e
}

// sqlHint points the agent at the exact place to fix.
func sqlHint(loc *Location) string {
	const tail = " and run it again; use dry_run_sql to check it without running it."
	switch {
	case loc != nil && loc.Line > 0 && loc.Column > 0:
		return fmt.Sprintf("Fix the SQL at line %d, column %d", loc.Line, loc.Column) + tail
	case loc != nil && loc.Line > 0:
		return fmt.Sprintf("Fix the SQL at line %d", loc.Line) + tail
	}
	return "Fix the SQL" + tail
}

// defaultMessage stands in when BigQuery gave no message (an HTML error page
// from a proxy, an empty body).
func defaultMessage(code Code, status int) string {
	var m string
	switch code {
	case InvalidArgument:
		m = "BigQuery rejected the request as invalid"
	case QueryError:
		m = "BigQuery rejected the query"
	case SchemaError:
		m = "the data does not match the schema"
	case NotFound:
		m = "the BigQuery resource was not found"
	case PermissionDenied:
		m = "access to the BigQuery resource was denied"
	case Unauthenticated:
		m = "BigQuery rejected the credentials"
	case ResourceExhausted:
		m = "a BigQuery quota or limit was reached"
	case Unavailable:
		m = "BigQuery is unavailable right now"
	case DeadlineExceeded:
		m = "BigQuery ran out of time"
	default:
		m = "BigQuery failed with an internal error"
	}
	if status > 0 {
		m += fmt.Sprintf(" (HTTP %d)", status)
	}
	return m
}

// reasonRE is what a BigQuery reason looks like; anything else is not shown.
var reasonRE = regexp.MustCompile(`^[A-Za-z0-9_.\-]{1,64}$`)

func safeReason(r string) string {
	if reasonRE.MatchString(r) {
		return r
	}
	return ""
}

// retryAfter reads a Retry-After header (delay-seconds or HTTP-date). It
// reports false when there is none or it cannot be read: a wait is never
// invented.
func retryAfter(h http.Header) (int, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 {
			return 0, false
		}
		return min(n, maxRetryAfter), true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	secs := math.Ceil(t.Sub(now()).Seconds())
	return int(max(0, min(secs, maxRetryAfter))), true
}

// fromGoogleAPI reads a BigQuery REST error. googleapi.ErrorItem has no
// location field, so the location (a parameter or field name) is read from
// the raw JSON body when there is one.
func fromGoogleAPI(ge *googleapi.Error) *Error {
	f := bqFailure{status: ge.Code, header: ge.Header, message: ge.Message}
	items := bodyErrors(ge.Body)
	if len(ge.Errors) > 0 {
		f.reason = ge.Errors[0].Reason
		if ge.Errors[0].Message != "" {
			f.message = ge.Errors[0].Message
		}
	} else if len(items) > 0 {
		f.reason = items[0].Reason
		if items[0].Message != "" {
			f.message = items[0].Message
		}
	}
	if len(items) > 0 && (f.reason == "" || items[0].Reason == f.reason) {
		f.field = items[0].Location
	}
	return fromBQ(f)
}

// maxBodyParse bounds how much of an error body is parsed for its location.
const maxBodyParse = 64 << 10

// bodyItem is one entry of error.errors in a Google API JSON error body.
type bodyItem struct {
	Reason   string `json:"reason"`
	Message  string `json:"message"`
	Location string `json:"location"`
}

func bodyErrors(body string) []bodyItem {
	if body == "" || len(body) > maxBodyParse {
		return nil
	}
	var b struct {
		Error struct {
			Errors []bodyItem `json:"errors"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &b) != nil {
		return nil
	}
	return b.Error.Errors
}

// fromBigQuery reads a job error (JobStatus.Err), which has no HTTP status.
func fromBigQuery(be *bigquery.Error) *Error {
	return fromBQ(bqFailure{reason: be.Reason, message: be.Message, field: be.Location})
}

// asBigQueryError finds a *bigquery.Error (or bigquery.Error value) in the
// chain, looking into a bigquery.MultiError, which does not unwrap.
func asBigQueryError(err error, depth int) *bigquery.Error {
	if err == nil || depth > 4 {
		return nil
	}
	var p *bigquery.Error
	if errors.As(err, &p) && p != nil {
		return p
	}
	var v bigquery.Error
	if errors.As(err, &v) {
		return &v
	}
	var m bigquery.MultiError
	if errors.As(err, &m) {
		for _, inner := range m {
			if be := asBigQueryError(inner, depth+1); be != nil {
				return be
			}
		}
	}
	return nil
}

// ---- credentials ----

// oauthCodeRE is what an RFC 6749 error code looks like (invalid_grant);
// only such a code is echoed, never the token endpoint's body.
var oauthCodeRE = regexp.MustCompile(`^[a-z_]{1,40}$`)

// fromAuth maps a failure to obtain credentials. The token endpoint's body
// may hold secrets, so it is never copied; only its status and RFC 6749
// error code are.
func fromAuth(err error) *Error {
	var status int
	var code string
	var re *oauth2.RetrieveError
	var ae *auth.Error
	switch {
	case errors.As(err, &re) && re != nil:
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		code = re.ErrorCode
	case errors.As(err, &ae) && ae != nil:
		if ae.Response != nil {
			status = ae.Response.StatusCode
		}
	default:
		s := errText(err)
		if !strings.Contains(s, "could not find default credentials") && !strings.Contains(s, "cannot fetch token") {
			return nil
		}
		return build(AuthError, false, "", "no Google credentials were found for BigQuery", DefaultHint(AuthError))
	}
	msg := "could not obtain Google credentials: the token service refused the request"
	switch {
	case oauthCodeRE.MatchString(code):
		msg += fmt.Sprintf(" (%s)", code)
	case status > 0:
		msg += fmt.Sprintf(" (HTTP %d)", status)
	}
	if status >= 500 {
		return build(AuthError, true, "", msg,
			"The Google token service failed; retry later. If it keeps failing, ask the user to run `gcloud auth application-default login` or to check GOOGLE_APPLICATION_CREDENTIALS and the service account.")
	}
	return build(AuthError, false, "", msg, DefaultHint(AuthError))
}

// ---- context ----

func fromContext(err error) *Error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return build(DeadlineExceeded, true, "", "the request ran out of time before it finished", DefaultHint(DeadlineExceeded))
	case errors.Is(err, context.Canceled):
		return build(DeadlineExceeded, false, "", "the request was cancelled before it finished",
			"The request was cancelled (by the client or a server shutdown); send it again only if it is still needed.")
	}
	return nil
}

// ---- TLS and endpoint misconfiguration ----

const hintEndpoint = "This is a configuration problem, not a passing one: ask the user to check the --endpoint flag (an https:// URL whose certificate this machine trusts). Retrying will not help."

// fromTLS maps failures that come from talking to the wrong endpoint the
// wrong way. They never heal by themselves, so they are not retryable even
// though the code is UNAVAILABLE.
func fromTLS(err error) *Error {
	var (
		unknownAuthority x509.UnknownAuthorityError
		hostname         x509.HostnameError
		invalid          x509.CertificateInvalidError
		systemRoots      x509.SystemRootsError
		verification     *tls.CertificateVerificationError
		recordHeader     tls.RecordHeaderError
	)
	msg := ""
	switch {
	case errors.As(err, &unknownAuthority), errors.As(err, &hostname), errors.As(err, &invalid),
		errors.As(err, &systemRoots), errors.As(err, &verification):
		msg = "the BigQuery endpoint's TLS certificate is not trusted"
	case errors.As(err, &recordHeader):
		msg = "the BigQuery endpoint does not speak TLS"
	default:
		s := errText(err)
		switch {
		case strings.Contains(s, "server gave HTTP response to HTTPS client"):
			msg = "the BigQuery endpoint does not speak TLS"
		case strings.Contains(s, "unsupported protocol scheme"):
			msg = "the BigQuery endpoint URL has an unsupported scheme"
		default:
			return nil
		}
	}
	return build(Unavailable, false, "", msg, hintEndpoint)
}

// ---- network ----

// fromNetwork maps failures where no response came back at all.
func fromNetwork(err error) *Error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return build(DeadlineExceeded, true, "", "BigQuery did not answer in time",
			"Retry later; if it keeps timing out, "+lowerFirst(DefaultHint(DeadlineExceeded)))
	}
	if !unreachable(err) {
		return nil
	}
	return build(Unavailable, true, "", "BigQuery could not be reached",
		"The network or BigQuery is having trouble; retry later. If it keeps failing, ask the user to check the network and the --endpoint flag.")
}

func unreachable(err error) bool {
	for _, errno := range []syscall.Errno{
		syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED,
		syscall.EPIPE, syscall.ENETUNREACH, syscall.EHOSTUNREACH,
	} {
		if errors.Is(err, errno) {
			return true
		}
	}
	var ue *url.Error
	if errors.As(err, &ue) && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
		return true
	}
	var dns *net.DNSError
	var op *net.OpError
	return errors.As(err, &dns) || errors.As(err, &op)
}

// ---- helpers ----

// errText is err.Error() for string matching, safe against the Error
// methods that panic on half-built values (oauth2.RetrieveError and
// auth.Error dereference a nil Response).
func errText(err error) (s string) {
	defer func() {
		if recover() != nil {
			s = ""
		}
	}()
	return err.Error()
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
