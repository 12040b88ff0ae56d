package bqerr_test

import (
	"context"
	"fmt"
	"net/http"

	"google.golang.org/api/googleapi"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// From turns whatever BigQuery, the network or a context returned into the
// one error an agent reads: a stable code, a message safe to show a model,
// whether a retry can help, and a hint.
func ExampleFrom() {
	// A 503 as the BigQuery client library returns it.
	err := &googleapi.Error{
		Code:    http.StatusServiceUnavailable,
		Message: "Error encountered during execution. Retrying may solve the problem.",
		Errors:  []googleapi.ErrorItem{{Reason: "backendError"}},
		Header:  http.Header{"Retry-After": {"30"}},
	}
	e := bqerr.From(err)
	fmt.Println(e.Code, e.Retryable, *e.RetryAfterSeconds)
	fmt.Println(e.Details.Reason)

	// A caller that gave up is not BigQuery's fault.
	fmt.Println(bqerr.From(context.Canceled).Code)
	// Output:
	// UNAVAILABLE true 30
	// backendError
	// DEADLINE_EXCEEDED
}

// The server's own refusals are built with New (or Invalid) and the With…
// methods, which return copies; the JSON form is what the agent receives.
func ExampleNew() {
	e := bqerr.New(bqerr.InvalidArgument, "table must be dataset.table or project.dataset.table").
		WithHint("Pass the table as sales.orders.")
	fmt.Println(e)
	fmt.Println(string(e.JSON()))
	// Output:
	// INVALID_ARGUMENT: table must be dataset.table or project.dataset.table
	// {"code":"INVALID_ARGUMENT","message":"table must be dataset.table or project.dataset.table","retryable":false,"hint":"Pass the table as sales.orders.","details":{"helpUrl":"https://cloud.google.com/bigquery/docs/error-messages"}}
}

// As finds the *Error in a wrapped chain, the way errors.As does.
func ExampleAs() {
	err := fmt.Errorf("listing tables: %w", bqerr.New(bqerr.NotFound, "dataset sales was not found"))
	if e, ok := bqerr.As(err); ok {
		fmt.Println(e.Code)
	}
	// Output: NOT_FOUND
}
