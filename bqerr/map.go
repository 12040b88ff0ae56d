package bqerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"
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
// From never aliases: it returns a new *Error on every call, so the caller
// may change it without touching an error that someone else holds.
//
// Rules, first match wins: an *Error already in the chain is copied (with
// err as its cause when err wraps it, so the wrappers stay reachable);
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
		return e.copyFor(err)
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
var schemaRE = lazyRegexp(`(?i)schema`)

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
		if schemaRE().MatchString(msg) {
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
		return jobInternalError(msg, status, zetasql), true
	}
	return verdict{}, false
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
	if secs, ok := parseRetryAfter(f.header); ok {
		e = e.WithRetryAfter(secs)
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
var reasonRE = lazyRegexp(`^[A-Za-z0-9_.\-]{1,64}$`)

func safeReason(r string) string {
	if reasonRE().MatchString(r) {
		return r
	}
	return ""
}

// parseRetryAfter reads a Retry-After header (delay-seconds or HTTP-date). It
// reports false when there is none or it cannot be read: a wait is never
// invented.
func parseRetryAfter(h http.Header) (int, bool) {
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
