package query

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// dry_run_sql answers wouldExecute from the same checks execute_sql
// admits a job by (checks.go): for each rule that concerns an estimate,
// the two tools agree, and the note says which rule and why.
func TestDryRunPredictsEachRuleAsExecuteAppliesIt(t *testing.T) {
	const sql = "SELECT * FROM sales.events" // 30 MiB
	for _, c := range []struct {
		name      string
		configure func(*Config)
		// would is dry_run_sql's wouldExecute; note what its note says.
		would bool
		note  string
		// disagrees reports whether execute_sql answered otherwise than
		// dry_run_sql predicted.
		disagrees func(error) bool
	}{
		{"no rule", func(*Config) {}, true, "", func(err error) bool { return err != nil }},
		{"bytes cap", func(c *Config) { c.MaxBytesBilled = 10 << 20 }, false, "server cap of 10485760",
			func(err error) bool {
				e := bqerr.From(err)
				return err == nil || e.Details.Reason != "bytesBilledLimitExceeded"
			}},
		{"budget", func(c *Config) {
			c.State = governance.NewMemory(governance.NewBudget(governance.Limits{MaxBytesPerDay: 20 << 20}), nil)
		}, false, "budget", func(err error) bool { return err == nil || bqerr.From(err).Code != bqerr.ResourceExhausted }},
		{"confirmation", func(c *Config) { c.ConfirmAboveBytes = 1 << 20 }, true, "will ask the user to confirm it first",
			func(err error) bool { var need *ConfirmationRequired; return !errors.As(err, &need) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newAdviceService(t, false, c.configure)
			out, err := s.DryRun(context.Background(), DryRunInput{SQL: sql})
			if err != nil {
				t.Fatal(err)
			}
			if out.WouldExecute != c.would || (c.note == "") != (out.Note == "") || !strings.Contains(out.Note, c.note) {
				t.Errorf("dry_run_sql: wouldExecute %v, note %q; want %v and a note with %q", out.WouldExecute, out.Note, c.would, c.note)
			}
			if _, err := s.Execute(context.Background(), ExecuteInput{SQL: sql}); c.disagrees(err) {
				t.Errorf("execute_sql = %v, not what dry_run_sql predicted", err)
			}
		})
	}
}
