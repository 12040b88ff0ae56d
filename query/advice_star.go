package query

import (
	"context"
	"fmt"
	"strings"
)

// starAdvice measures what SELECT * on a wide table would read with only
// some columns named, by one dry run (maxStarDryRuns) of the query with
// its * replaced, when that rewrite is safe:
//
//   - the text is one statement that starts SELECT * FROM (no DISTINCT,
//     no * EXCEPT, no star further in), and BigQuery says it reads one
//     table;
//   - the result has at least wideTableColumns columns;
//   - the columns put in the *'s place are those of the result the rest
//     of the query names (its filters, ordering), or the first column when
//     it names none: the least any column list reads. Only the select
//     list changes, so the rewrite reads the same tables.
//
// A rewrite BigQuery refuses (a set operation, a name the * hid from a
// join) gives no advice: no figure is ever guessed.
func (s *Service) starAdvice(ctx context.Context, r *request, plan *dryRunResult) (Advice, bool) {
	if len(r.text.Statements) != 1 || len(plan.ReferencedTables) != 1 || len(plan.Schema) < wideTableColumns || r.text.NumTokens() < 4 {
		return Advice{}, false
	}
	if !r.text.Token(0).IsWord("SELECT") || !r.text.Token(1).IsPunct('*') || !r.text.Token(2).IsWord("FROM") {
		return Advice{}, false
	}
	for i := 3; i < r.text.NumTokens(); i++ {
		if r.text.Token(i).IsPunct('*') && r.text.Token(i-1).IsPunct('.') {
			return Advice{}, false // t.* further in
		}
	}
	words := identifiers(r.text)
	var cols []string
	for _, f := range plan.Schema {
		if words[strings.ToLower(f.Name)] {
			cols = append(cols, f.Name)
		}
	}
	if len(cols) == 0 {
		cols = []string{plan.Schema[0].Name}
	}
	if len(cols) == len(plan.Schema) {
		return Advice{}, false
	}
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = quoteIdent(c)
	}
	star := r.text.Token(1)
	narrow := *r
	narrow.sql = r.sql[:star.Start] + strings.Join(quoted, ", ") + r.sql[star.End:]
	got, err := s.dryRun(ctx, &narrow)
	if err != nil || got.TotalBytesProcessed <= 0 || got.TotalBytesProcessed >= plan.TotalBytesProcessed*9/10 {
		return Advice{}, false
	}
	return Advice{
		Change:     fmt.Sprintf("SELECT * reads all %d columns; name only the ones you need (SELECT %s … reads the least)", len(plan.Schema), shortList(cols, 3)),
		ReadsBytes: measured(got.TotalBytesProcessed),
		Method:     methodDryRun,
	}, true
}

// shortList is the first n names, with "…" when there are more.
func shortList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + ", …"
}

// quoteIdent quotes a column name as GoogleSQL reads it back: backticks,
// with backslashes and backticks escaped.
func quoteIdent(name string) string {
	return "`" + strings.NewReplacer(`\`, `\\`, "`", "\\`").Replace(name) + "`"
}
