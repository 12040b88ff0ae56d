package bqerr

import (
	"errors"
	"io"
	"testing"
)

// codes are every code, in the order docs/errors.md lists them: the
// reference (reference_doc_test.go) and the exhaustive tests go through
// it. A new code goes here too.
var codes = []Code{
	InvalidArgument, QueryError, SchemaError, NotFound, PermissionDenied,
	Unauthenticated, AuthError, ResourceExhausted, Unavailable, DeadlineExceeded, Internal,
}

// TestBuildersNeverMutateTheirReceiver holds the value contract: a builder
// returns a changed copy, and the receiver, which other callers may be
// holding, reads exactly as before.
func TestBuildersNeverMutateTheirReceiver(t *testing.T) {
	base := func() *Error {
		e := New(Unavailable, "BigQuery could not be reached").WithRetryAfter(5).WithCause(io.EOF)
		e.Details.Location = &Location{Line: 2, Column: 3}
		e.Details.Advice = []string{"filter on day"}
		return e
	}
	builders := map[string]func(*Error) *Error{
		"WithCause":      func(e *Error) *Error { return e.WithCause(errors.New("other")) },
		"WithHint":       func(e *Error) *Error { return e.WithHint("another hint") },
		"WithJobID":      func(e *Error) *Error { return e.WithJobID("job_1") },
		"WithQuery":      func(e *Error) *Error { return e.WithQuery("SELECT 1") },
		"WithRetryAfter": func(e *Error) *Error { return e.WithRetryAfter(60) },
		"WithRetryable":  func(e *Error) *Error { return e.WithRetryable(false) },
		"WithAttempts":   func(e *Error) *Error { return e.WithAttempts(4) },
		"WithAdvice":     func(e *Error) *Error { return e.WithAdvice([]string{"select fewer columns"}) },
	}
	for name, build := range builders {
		t.Run(name, func(t *testing.T) {
			recv := base()
			before, beforeCause := string(recv.JSON()), recv.Cause()
			got := build(recv)
			if got == recv {
				t.Fatal("builder returned its receiver")
			}
			if string(recv.JSON()) != before || recv.Cause() != beforeCause {
				t.Fatalf("receiver changed:\n got  %s (cause %v)\n want %s (cause %v)", recv.JSON(), recv.Cause(), before, beforeCause)
			}
			if string(got.JSON()) == before && got.Cause() == beforeCause {
				t.Fatalf("builder changed nothing: %s", got.JSON())
			}
			// The copy shares no pointer with the receiver: changing it
			// later cannot reach the original either.
			*got.RetryAfterSeconds = 99
			got.Details.Location.Line = 99
			if len(got.Details.Advice) > 0 {
				got.Details.Advice[0] = "changed"
			}
			if string(recv.JSON()) != before {
				t.Fatalf("copy aliases the receiver: %s", recv.JSON())
			}
		})
	}
}

func TestBuildersChain(t *testing.T) {
	e := New(QueryError, "bad SQL").WithJobID("j").WithQuery("SELEC 1").WithAttempts(2).WithHint("fix it")
	if e.Details.JobID != "j" || e.Details.Query != "SELEC 1" || e.Details.Attempts != 2 || e.Hint != "fix it" {
		t.Fatalf("chained builders lost a field: %s", e.JSON())
	}
	if got := New(Internal, "x").WithRetryAfter(0); *got.RetryAfterSeconds != 1 {
		t.Fatalf("WithRetryAfter(0) = %d, want at least 1", *got.RetryAfterSeconds)
	}
}
