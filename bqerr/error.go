// Package bqerr defines the one error type that every failure of the server is
// turned into before it reaches an agent.
//
// An agent can only correct itself when a failure tells it what went wrong in
// a stable, machine-readable way and what to try next. So every failure, from
// BigQuery, the network, the context, authentication or our own validation,
// is mapped by [From] into an [*Error] with a stable [Code], a message that is
// safe to show a model, whether a retry can succeed, and a hint. The raw cause
// (which may hold URLs, tokens or stack detail) stays reachable through
// [errors.Unwrap] for the server's own logs and is never serialised.
package bqerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Code is a stable, machine-readable error class. Agents and operators may
// switch on it; values never change meaning once released.
type Code string

// The codes, in rough order of how often an agent meets them.
const (
	// InvalidArgument: the request itself is wrong (bad name, bad parameter,
	// a write statement on a read-only server). Fix the input; never retry as is.
	InvalidArgument Code = "INVALID_ARGUMENT"
	// QueryError: BigQuery rejected the SQL (syntax, unknown column, type
	// mismatch). Details carry the line and column when BigQuery gave them.
	QueryError Code = "QUERY_ERROR"
	// SchemaError: data and schema disagree (a value that does not fit a
	// column, a schema that cannot be read or changed as asked).
	SchemaError Code = "SCHEMA_ERROR"
	// NotFound: a project, dataset, table or job does not exist (or is not
	// visible to the caller).
	NotFound Code = "NOT_FOUND"
	// PermissionDenied: the identity is known but lacks access.
	PermissionDenied Code = "PERMISSION_DENIED"
	// Unauthenticated: BigQuery rejected the credentials (HTTP 401).
	Unauthenticated Code = "UNAUTHENTICATED"
	// AuthError: the server could not obtain credentials at all (no
	// application default credentials, a refresh that failed).
	AuthError Code = "AUTH_ERROR"
	// ResourceExhausted: a quota, rate limit or bytes-billed cap was hit.
	ResourceExhausted Code = "RESOURCE_EXHAUSTED"
	// Unavailable: BigQuery could not be reached or is unhealthy right now.
	Unavailable Code = "UNAVAILABLE"
	// DeadlineExceeded: the operation ran out of time (and its job, if any,
	// was asked to stop).
	DeadlineExceeded Code = "DEADLINE_EXCEEDED"
	// Internal: a fault inside BigQuery or this server that the caller can do
	// nothing about except report it or retry later.
	Internal Code = "INTERNAL"
)

// Error is the structured failure an agent receives. Its JSON form is the
// agent-facing contract documented in docs/errors.md.
type Error struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	// Retryable says whether the same request may succeed if sent again
	// unchanged (after RetryAfterSeconds, when set).
	Retryable bool `json:"retryable"`
	// RetryAfterSeconds is set only when BigQuery (a Retry-After header) or the
	// server itself (an open circuit breaker) really knows when to come back.
	// It is never guessed.
	RetryAfterSeconds *int `json:"retryAfterSeconds,omitempty"`
	// Hint tells the agent what to do next.
	Hint    string  `json:"hint,omitempty"`
	Details Details `json:"details"`

	// HTTPStatus is BigQuery's HTTP status, when there was a response. It
	// drives classification and logging, and is not part of the contract.
	HTTPStatus int `json:"-"`
	// cause is the raw error, for the server's logs only.
	cause error
}

// Details carries what BigQuery said, for agents that want the specifics.
type Details struct {
	// Reason is BigQuery's error reason (invalidQuery, notFound,
	// rateLimitExceeded, …) when BigQuery gave one.
	Reason string `json:"reason,omitempty"`
	// Location is where the problem is: a line and column in the SQL, and/or
	// BigQuery's own location field (a parameter or field name).
	Location *Location `json:"location,omitempty"`
	// HelpURL points at documentation about this failure.
	HelpURL string `json:"helpUrl,omitempty"`
	// JobID names the BigQuery job involved, so the agent can inspect or
	// cancel it.
	JobID string `json:"jobId,omitempty"`
	// Query is the start of the SQL that failed, at most MaxQueryChars long.
	Query string `json:"query,omitempty"`
	// Attempts is how many times the operation was tried before giving up
	// (set by the resilience layer when it retried).
	Attempts int `json:"attempts,omitempty"`
	// Advice is set on a query refused because of what it would read (the
	// bytes cap, a budget, a confirmation): short lines, cheapest first,
	// each a change that would read less and what it would read, with where
	// the figure came from.
	Advice []string `json:"advice,omitempty"`
}

// Location is a position in the SQL text (1-based) and/or BigQuery's location
// field verbatim.
type Location struct {
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	Field  string `json:"field,omitempty"`
}

// MaxQueryChars bounds how much SQL is echoed back in Details.Query.
const MaxQueryChars = 200

// New returns an error with the given code and agent-safe message. Whether it
// is retryable follows from the code (see [DefaultRetryable]).
func New(code Code, message string) *Error {
	return &Error{Code: code, Message: message, Retryable: DefaultRetryable(code), Details: Details{HelpURL: HelpURL(code, "")}}
}

// Newf is [New] with formatting. The arguments must be agent-safe.
func Newf(code Code, format string, args ...any) *Error {
	return New(code, fmt.Sprintf(format, args...))
}

// Invalid is shorthand for an INVALID_ARGUMENT error with a hint.
func Invalid(message, hint string) *Error {
	return New(InvalidArgument, message).WithHint(hint)
}

// Error implements error: "CODE: message".
func (e *Error) Error() string {
	if e == nil {
		return "<nil>"
	}
	return string(e.Code) + ": " + e.Message
}

// Unwrap returns the raw cause, for logs and errors.Is/As. It is nil-safe,
// like Error, because errors.Is/As walk into a typed nil *Error in a chain.
func (e *Error) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.cause
}

// Cause returns the raw cause (possibly nil).
func (e *Error) Cause() error { return e.Unwrap() }

// An *Error is a value: once built it is never changed. Several calls may
// hand back the same error (a cached failure, a sentinel), so a builder that
// changed its receiver would change their answers too. Every With* method
// therefore returns a modified copy and leaves its receiver alone; use the
// result (e = e.WithHint(...)).

// clone returns a copy of e that shares nothing mutable with it.
func (e *Error) clone() *Error {
	c := *e
	if e.RetryAfterSeconds != nil {
		s := *e.RetryAfterSeconds
		c.RetryAfterSeconds = &s
	}
	if e.Details.Location != nil {
		l := *e.Details.Location
		c.Details.Location = &l
	}
	c.Details.Advice = slices.Clone(e.Details.Advice)
	return &c
}

// copyFor returns the copy of e, found in err's chain, that From hands out.
// When err wraps e, the copy's cause is err itself, so what the wrappers add
// (context for the logs, markers such as "already retried") stays reachable
// with errors.As and errors.Is.
func (e *Error) copyFor(err error) *Error {
	c := e.clone()
	if err != error(e) {
		c.cause = err
	}
	return c
}

// WithCause returns a copy of e that records err as the raw error behind it.
// The cause is logged, never shown.
func (e *Error) WithCause(err error) *Error { c := e.clone(); c.cause = err; return c }

// WithHint returns a copy of e that tells the agent what to do next.
func (e *Error) WithHint(hint string) *Error { c := e.clone(); c.Hint = hint; return c }

// WithJobID returns a copy of e that names the BigQuery job involved.
func (e *Error) WithJobID(id string) *Error { c := e.clone(); c.Details.JobID = id; return c }

// WithQuery returns a copy of e that carries the start of the SQL involved,
// cut to MaxQueryChars.
func (e *Error) WithQuery(sql string) *Error {
	c := e.clone()
	c.Details.Query = Truncate(sql, MaxQueryChars)
	return c
}

// WithRetryAfter returns a copy of e that records a known wait (at least one
// second) before a retry may succeed.
func (e *Error) WithRetryAfter(seconds int) *Error {
	if seconds < 1 {
		seconds = 1
	}
	c := e.clone()
	c.RetryAfterSeconds = &seconds
	return c
}

// WithRetryable returns a copy of e that says whether sending the request
// again unchanged may succeed.
func (e *Error) WithRetryable(retryable bool) *Error {
	c := e.clone()
	c.Retryable = retryable
	return c
}

// WithAdvice returns a copy of e that carries cost advice (Details.Advice).
func (e *Error) WithAdvice(lines []string) *Error {
	c := e.clone()
	c.Details.Advice = slices.Clone(lines)
	return c
}

// WithAttempts returns a copy of e that records how many attempts were made.
func (e *Error) WithAttempts(n int) *Error { c := e.clone(); c.Details.Attempts = n; return c }

// JSON returns the agent-facing JSON form. SQL in it (a query's start,
// advice's filters) keeps its < > & as they are: escaped they read worse
// and take six bytes each of the agent's context.
func (e *Error) JSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil { // cannot happen: every field is a plain value
		return []byte(`{"code":"INTERNAL","message":"error could not be encoded","retryable":false,"details":{}}`)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// DefaultRetryable says whether errors of a code are worth retrying unchanged
// when nothing more specific is known.
func DefaultRetryable(code Code) bool {
	switch code {
	case Unavailable, DeadlineExceeded, Internal:
		return true
	}
	return false
}

// As returns err as an *Error when it is (or wraps) one.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// Truncate cuts s to at most n runes, marking the cut with "…". A bound
// below one yields "" rather than a slice panic.
func Truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
