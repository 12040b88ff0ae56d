package bqerr

import (
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/observability"
)

// Every code has its log severity (observability.LevelFor, by the code the
// server hands it: string(Code)): credentials and permissions CRITICAL,
// INTERNAL ERROR, the rest WARNING. A new code fails here until it is
// decided.
func TestSeverityOfEveryCode(t *testing.T) {
	want := map[Code]string{
		Unauthenticated: "CRITICAL", PermissionDenied: "CRITICAL", AuthError: "CRITICAL",
		Internal:        "ERROR",
		InvalidArgument: "WARNING", NotFound: "WARNING", QueryError: "WARNING", SchemaError: "WARNING",
		Unavailable: "WARNING", DeadlineExceeded: "WARNING", ResourceExhausted: "WARNING",
	}
	if len(want) != len(codes) {
		t.Fatalf("test covers %d codes, bqerr has %d", len(want), len(codes))
	}
	for _, code := range codes {
		if got := observability.Severity(observability.LevelFor(string(code))); got != want[code] {
			t.Errorf("%s logged as %s, want %s", code, got, want[code])
		}
	}
}
