package query

import (
	"context"
	"errors"
	"fmt"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// checkReadOnly refuses anything but a single SELECT before any job runs:
// first by reading the SQL, then by asking BigQuery what the statement is.
// The lexical guard cannot be fooled by BigQuery and BigQuery's
// statementType cannot be fooled by clever text; each covers the other.
// BigQuery's answer is remembered (verdicts), so asking the same query again
// costs no dry run; the lexical guard still runs on every call.
func (s *Service) checkReadOnly(ctx context.Context, r *request) error {
	if err := CheckReadOnly(r.sql); err != nil {
		reason := err.Error()
		var v *ReadOnlyViolation
		if errors.As(err, &v) {
			reason = v.Reason
			if v.Statements <= 1 && !writeKeywords[v.Keyword] {
				// Not a recognisable write: most likely a typo ("SELEC")
				// or unfinished SQL. BigQuery's syntax error (with line and
				// column) helps the agent more than "read-only"; a dry run
				// never executes anything.
				if _, derr := s.dryRun(ctx, r); derr != nil {
					return s.fail(ctx, derr, r, "", "")
				}
			}
		}
		return readOnlyError(reason, r.sql)
	}
	st, known := s.verdicts.get(r)
	if !known {
		stats, err := s.dryRun(ctx, r)
		if err != nil {
			return s.fail(ctx, err, r, "", "")
		}
		st = stats.StatementType
		s.verdicts.add(r, st)
	}
	if st != "" && st != "SELECT" {
		return readOnlyError(fmt.Sprintf("BigQuery reports a %s statement", st), r.sql)
	}
	return nil
}

// writeKeywords start statements that are refused without a round trip.
var writeKeywords = map[string]bool{
	"INSERT": true, "UPDATE": true, "DELETE": true, "MERGE": true, "TRUNCATE": true, "CREATE": true, "DROP": true,
	"ALTER": true, "UNDROP": true, "EXPORT": true, "LOAD": true, "CALL": true, "DECLARE": true, "SET": true, "BEGIN": true,
	"EXECUTE": true, "GRANT": true, "REVOKE": true, "ASSERT": true, "COMMIT": true, "ROLLBACK": true, "RAISE": true,
}

func readOnlyError(reason, sql string) error {
	return bqerr.Invalid("execute_sql is read-only on this server: "+reason,
		"Only a single SELECT (or WITH … SELECT) can run. To change data, ask the user to restart the server with --allow-writes.").
		WithQuery(sql)
}
