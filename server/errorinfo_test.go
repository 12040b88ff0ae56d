package server

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"google.golang.org/api/googleapi"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/observability"
)

func TestErrorType(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{bqerr.Invalid("m", "h"), "validation"},
		{bqerr.From(&googleapi.Error{Code: 500}), "*googleapi.Error"},
		{bqerr.New(bqerr.Internal, "m").WithCause(bqerr.New(bqerr.Unavailable, "inner")), "validation"},
		{fmt.Errorf("a: %w", context.Canceled), "context.Canceled"},
		{bqerr.From(context.DeadlineExceeded), "context.DeadlineExceeded"},
		{errors.Join(&googleapi.Error{Code: 500}, errors.New("x")), "*googleapi.Error"},
		{&url.Error{Op: "Get", URL: "u", Err: &os.PathError{Op: "open", Path: "p", Err: os.ErrNotExist}}, "*errors.errorString"},
		{nil, ""},
	} {
		if got := errorType(c.err); got != c.want {
			t.Errorf("errorType(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

// errorInfo hands observability bqerr's classification as plain values,
// with the raw cause redacted; nil stays nil (success).
func TestErrorInfo(t *testing.T) {
	if errorInfo(nil) != nil {
		t.Error("errorInfo(nil) is not nil")
	}
	const token = "ya29.a0errorinfosecret"
	e := bqerr.New(bqerr.QueryError, "Syntax error: Unexpected identifier").WithJobID("job_123").
		WithCause(fmt.Errorf("insert with Bearer %s: %w", token, &googleapi.Error{Code: 400, Message: "Syntax error"}))
	e.Details.Reason = "invalidQuery"
	e.Details.Attempts = 2
	e.HTTPStatus = 400
	got := errorInfo(fmt.Errorf("call: %w", e))
	want := observability.ErrorInfo{
		Code: "QUERY_ERROR", Message: "Syntax error: Unexpected identifier", Type: "*googleapi.Error",
		Reason: "invalidQuery", JobID: "job_123", Attempts: 2, HTTPStatus: 400,
	}
	cause := got.Cause
	got.Cause = ""
	if *got != want {
		t.Errorf("errorInfo = %+v, want %+v", *got, want)
	}
	if strings.Contains(cause, token) || !strings.Contains(cause, "Syntax error") {
		t.Errorf("cause = %q: want the raw cause, redacted", cause)
	}

	nf := errorInfo(&googleapi.Error{Code: 404, Message: "Not found: Table p:d.t", Errors: []googleapi.ErrorItem{{Reason: "notFound", Message: "Not found: Table p:d.t"}}})
	if nf.Code != "NOT_FOUND" || nf.Reason != "notFound" || nf.Type != "*googleapi.Error" || nf.Retryable {
		t.Errorf("404 = %+v", *nf)
	}
	if dl := errorInfo(fmt.Errorf("waiting: %w", context.DeadlineExceeded)); dl.Code != "DEADLINE_EXCEEDED" || !dl.Retryable || dl.Type != "context.DeadlineExceeded" {
		t.Errorf("deadline = %+v", *dl)
	}
}
