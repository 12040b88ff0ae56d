package query

import (
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
	"github.com/bigquery-mcp/bigquery-mcp/sqltext"
)

// A statement's kind is read once, from sqltext's reading of the text:
// the kind the job's record and the list of last jobs show, and the
// statement type execute_sql reports, which names only what it knows.
func TestStatementKindAndType(t *testing.T) {
	for _, c := range []struct {
		sql        string
		dml        bool
		kind, typ  string
		underWrite bool // runs under the write policy with --allow-writes
	}{
		{"SELECT 1", false, "SELECT", "SELECT", false},
		{"WITH a AS (SELECT 1 AS n) SELECT n FROM a", false, "SELECT", "SELECT", false},
		{"(SELECT 1)", false, "SELECT", "SELECT", false},
		{"INSERT INTO d.t (n) VALUES (1)", true, "INSERT", "INSERT", true},
		{"DELETE FROM d.t WHERE true", true, "DELETE", "DELETE", true},
		{"DELETE FROM d.t WHERE true", false, "DELETE", "", true},
		{"CREATE TABLE d.t (n INT64)", false, "CREATE", "", true},
		{"SELECT 1; SELECT 2", false, "SCRIPT", "", true},
	} {
		r := &request{sql: c.sql, text: sqltext.Parse(c.sql)}
		s := &Service{cfg: Config{Settings: Settings{AllowWrites: true}}}
		if got := statementKind(r.text); got != c.kind {
			t.Errorf("statementKind(%q) = %q, want %q", c.sql, got, c.kind)
		}
		if got := statementType(r, &job.Page{DML: c.dml}); got != c.typ {
			t.Errorf("statementType(%q, dml %v) = %q, want %q", c.sql, c.dml, got, c.typ)
		}
		if got := s.operation(r) == resilience.Write; got != c.underWrite {
			t.Errorf("operation(%q) = %s", c.sql, s.operation(r))
		}
	}
}
