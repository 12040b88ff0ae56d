package bqerr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/googleapi"
)

// codeDoc documents one code: when it happens and a realistic failure that
// produces it, mapped by From itself so the examples cannot drift.
type codeDoc struct {
	code    Code
	when    string
	example func() *Error
}

func gapiErr(code int, reason, msg string, header http.Header) error {
	return &googleapi.Error{Code: code, Message: msg, Errors: []googleapi.ErrorItem{{Reason: reason, Message: msg}}, Header: header}
}

var codeDocs = []codeDoc{
	{InvalidArgument, "The request is wrong as sent: a bad name or parameter, a value of the wrong type, a limit above the server's, or a write statement on a read-only server. Fix the input; never retry unchanged.",
		func() *Error {
			return Invalid(`parameter "since" (DATE): want a date as YYYY-MM-DD, got "last week"`, "Give a value that matches the declared type; see the tool description for the value formats.")
		}},
	{QueryError, "BigQuery rejected the SQL (syntax, unknown column, type mismatch). `details.location` has the line and column when BigQuery gave them.",
		func() *Error {
			return From(gapiErr(400, "invalidQuery", "Unrecognized name: ammount; Did you mean amount? at [3:8]", nil)).WithJobID("bqmcp_4f1c…").WithQuery("SELECT customer_id,\n  SUM(amount)\n  FROM sales.orders WHERE ammount > 0")
		}},
	{SchemaError, "Data and schema disagree: a value that does not fit a column, a schema that cannot be read or changed as asked.",
		func() *Error {
			return From(gapiErr(400, "invalid", "Provided Schema does not match Table p:sales.orders. Field amount has changed type from NUMERIC to STRING", nil))
		}},
	{NotFound, "A project, dataset, table or job does not exist, or is not visible to the caller.",
		func() *Error {
			return From(gapiErr(404, "notFound", "Not found: Table my-project:sales.ordres was not found in location US", nil))
		}},
	{PermissionDenied, "The identity is known but lacks a role (for example bigquery.tables.getData or bigquery.jobs.create).",
		func() *Error {
			return From(gapiErr(403, "accessDenied", "Access Denied: Table my-project:hr.salaries: User does not have permission to query table my-project:hr.salaries.", nil))
		}},
	{Unauthenticated, "BigQuery rejected the credentials (HTTP 401), even after the server fetched a fresh token once.",
		func() *Error {
			return From(gapiErr(401, "authError", "Request had invalid authentication credentials.", nil))
		}},
	{AuthError, "The server could not obtain credentials at all: no Application Default Credentials, a key file that cannot be read, a refresh that failed.",
		func() *Error {
			return New(AuthError, "the server has no Google credentials").WithHint(DefaultHint(AuthError))
		}},
	{ResourceExhausted, "A quota, a rate limit or the bytes-billed cap was hit. Rate limits are retryable; quotas and the bytes cap are not.",
		func() *Error {
			return From(gapiErr(400, "bytesBilledLimitExceeded", "Query exceeded limit for bytes billed: 10737418240. 32212254720 or higher required.", nil)).WithJobID("bqmcp_9a0e…")
		}},
	{Unavailable, "BigQuery could not be reached or is unhealthy (HTTP 502/503, backendError, no response), Google's token service could not be reached to fetch credentials (DNS, a reset connection, a timeout), or one of the server's circuit breakers (the project's, or the one of token fetches) is open. `retryAfterSeconds` is set only when BigQuery sent Retry-After or the breaker knows when it will probe again.",
		func() *Error {
			return From(gapiErr(503, "backendError", "Error encountered during execution. Retrying may solve the problem.", http.Header{"Retry-After": {"30"}}))
		}},
	{DeadlineExceeded, "The operation ran out of time; a query job that was still running has been cancelled. Also used when the client cancelled the request.",
		func() *Error {
			return Newf(DeadlineExceeded, "the query did not finish within %s", "1m0s").WithJobID("bqmcp_77d2…").
				WithHint("The job bqmcp_77d2… was cancelled. Narrow the query (fewer columns, a partition filter, a LIMIT) or raise timeoutSeconds up to the server maximum.")
		}},
	{Internal, "A fault inside BigQuery (internalError, HTTP 500) or in this server (a recovered panic, an unknown error). BigQuery's are retryable; the server's are not.",
		func() *Error {
			return From(&bigquery.Error{Reason: "internalError", Message: "An internal error occurred and the request could not be completed."})
		}},
}

// reference renders docs/errors.md from the codes and the mapping itself;
// `make docs` writes it through TestErrorReferenceIsCurrent.
func reference() string {
	var b strings.Builder
	b.WriteString("# Errors\n\n<!-- Generated from package bqerr by `make docs`; do not edit by hand. -->\n\n")
	b.WriteString("Every tool failure is a tool result with `isError: true` whose text is one JSON object of this shape. ")
	b.WriteString("Protocol faults (an unknown tool, a malformed request) are JSON-RPC errors instead.\n\n")
	b.WriteString("| Field | Meaning |\n|---|---|\n")
	b.WriteString("| `code` | Stable class of the failure (below). |\n")
	b.WriteString("| `message` | What went wrong, safe to show a model: no tokens, credentials, URL query strings or stack traces. |\n")
	b.WriteString("| `retryable` | Whether sending the same request again may succeed. |\n")
	b.WriteString("| `retryAfterSeconds` | Only when BigQuery sent Retry-After or the circuit breaker knows when it probes again; never guessed. |\n")
	b.WriteString("| `hint` | What to do next. |\n")
	b.WriteString("| `details.reason` | BigQuery's error reason (`invalidQuery`, `notFound`, `rateLimitExceeded`, …). |\n")
	b.WriteString("| `details.location` | `line`/`column` of a SQL error; `field` for BigQuery's own location value. |\n")
	b.WriteString("| `details.helpUrl` | Documentation for this failure. |\n")
	b.WriteString("| `details.jobId` | The BigQuery job involved. |\n")
	b.WriteString("| `details.query` | The start of the SQL, at most 200 characters. |\n")
	b.WriteString("| `details.attempts` | How many attempts were made when the server retried. |\n")
	b.WriteString("| `details.advice` | On a query refused for what it would read (the bytes cap, a budget, a confirmation): changes that would read less, cheapest first, with their figures and where each came from. |\n\n")
	b.WriteString("Raw detail (BigQuery's full response, URLs, stacks) goes to the server's stderr log only.\n\n")
	b.WriteString("| Code | Retryable | When |\n|---|---|---|\n")
	for _, d := range codeDocs {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s |\n", d.code, strings.ToLower(string(d.code)), retryWord(d.code), d.when)
	}
	for _, d := range codeDocs {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n```json\n", d.code, d.when)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		enc.Encode(d.example())
		b.WriteString(buf.String())
		b.WriteString("```\n")
	}
	return b.String()
}

func retryWord(c Code) string {
	switch c {
	case Unavailable, Internal:
		return "usually"
	case DeadlineExceeded, ResourceExhausted:
		return "sometimes"
	}
	return "no"
}
