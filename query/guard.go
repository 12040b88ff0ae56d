package query

import (
	"context"
	"errors"
	"fmt"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/sqltext"
)

// preflight runs every check a statement must pass before its job starts
// (the list in checks.go), at the cost of at most one dry run, and none
// when nothing needs one: the text's halves first, then the dry run's.
//
// BigQuery's statement type and tables are remembered (verdicts), so the
// same query asked again costs no dry run unless a budget, confirmation or
// the caller's check needs a fresh estimate: the remembered verdict then
// stands for the read-only and allowlist rules' second halves. The text's
// halves run on every call.
func (s *Service) preflight(ctx context.Context, r *request) error {
	for _, c := range s.rules {
		if c.text == nil {
			continue
		}
		if err := c.text(ctx, r, admitting); err != nil {
			return err
		}
	}
	v, known := s.verdicts.get(r)
	needDryRun := s.budgeted() || r.checkEstimate != nil ||
		(!s.cfg.AllowWrites && !known) ||
		(s.cfg.Datasets.Enabled() && !(known && v.datasetsAllowed))
	if !needDryRun {
		return s.checkStatementType(r, v.statementType)
	}
	plan, err := s.dryRun(ctx, r)
	if err != nil {
		return s.fail(ctx, err, r, job.Ref{})
	}
	r.plan = plan
	for _, c := range s.rules {
		if c.plan == nil {
			continue
		}
		if err := c.plan(ctx, r, plan, admitting); err != nil {
			return err
		}
	}
	return nil
}

// allAllowed reports whether BigQuery listed tables and every one of them
// is in an allowed dataset: then no authorized view was needed, and the
// verdict holds as long as the text does.
func allAllowed(s *Service, stats *dryRunResult) bool {
	if len(stats.ReferencedTables) == 0 {
		return false
	}
	for _, t := range stats.ReferencedTables {
		if !s.cfg.Datasets.Allows(t.ProjectID, t.DatasetID) {
			return false
		}
	}
	return true
}

// checkReadOnlyText is the lexical half of the read-only gate: anything
// but a single SELECT is refused without a round trip.
func (s *Service) checkReadOnlyText(ctx context.Context, r *request) error {
	err := r.text.ReadOnly()
	if err == nil {
		return nil
	}
	reason := err.Error()
	var v *sqltext.ReadOnlyViolation
	if errors.As(err, &v) {
		reason = v.Reason
		if v.Statements <= 1 && !writeKeywords[v.Keyword] {
			// Not a recognisable write: most likely a typo ("SELEC")
			// or unfinished SQL. BigQuery's syntax error (with line and
			// column) helps the agent more than "read-only"; a dry run
			// never executes anything.
			if _, derr := s.dryRun(ctx, r); derr != nil {
				return s.fail(ctx, derr, r, job.Ref{})
			}
		}
	}
	return readOnlyError(reason, r.sql)
}

// checkStatementType is BigQuery's half of the read-only gate.
func (s *Service) checkStatementType(r *request, st string) error {
	if s.cfg.AllowWrites || st == "" || st == "SELECT" {
		return nil
	}
	return readOnlyError(fmt.Sprintf("BigQuery reports a %s statement", st), r.sql)
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

// admit runs the checks before a job (preflight), notes whether the
// query's tables are allowed only through an authorized view (its job's
// record says so), and holds its bytes: preflight held the estimate when a
// budget needs one; a query it did not estimate holds nothing, but its job
// is charged the same way.
func (s *Service) admit(ctx context.Context, r *request) error {
	if err := s.preflight(ctx, r); err != nil {
		return err
	}
	if s.cfg.Datasets.Enabled() {
		v, ok := s.verdicts.get(r)
		r.throughView = !ok || !v.datasetsAllowed
	}
	return s.reserve(ctx, r, 0)
}
