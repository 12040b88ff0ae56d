package semantic

import (
	"slices"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/sqltext"
)

// FuzzFilter holds the filter reader to its promise: whatever a filter
// says, if it is accepted, the query it lands in reads only the table the
// compiler put there, stays one SELECT, and its parentheses cannot close
// the compiler's.
func FuzzFilter(f *testing.F) {
	for _, s := range []string{
		"{{ Dimension('customer__region') }} = 'EU'",
		"{{ TimeDimension('metric_time', 'day') }} >= '2026-01-01'",
		"{{ Entity('customer') }} IN (1, 2.5, .5)",
		"LOWER({{ Dimension('customer__region') }}) LIKE 'e%' OR NOT {{ Dimension('customer__tier') }} IS NULL",
		"{{ Dimension('customer__region') }} IN (SELECT x FROM `p.d.t`)",
		"1 = 1) UNION ALL (SELECT * FROM secrets.t",
		"'a' = 'b'; DROP TABLE x",
		"{{ Dimension('customer__region') }} = @p",
		"EXTRACT(YEAR FROM {{ TimeDimension('metric_time', 'day') }}) = 2026",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		flt, err := parseFilter(src)
		if err != nil {
			return
		}
		where, err := flt.render(func(name) (string, error) { return "x.col", nil })
		if err != nil {
			return
		}
		sql := "SELECT x.col FROM `p.d.t` AS x WHERE " + where
		text := sqltext.Parse(sql)
		if text.Incomplete != "" || len(text.Statements) != 1 || text.Statements[0].Kind != "SELECT" {
			t.Fatalf("filter %q makes %q, not one complete SELECT", src, sql)
		}
		st := text.Statements[0]
		for _, o := range st.Objects {
			if !slices.Equal(o.Path, []string{"p", "d", "t"}) {
				t.Fatalf("filter %q makes %q, which names %v", src, sql, o.Path)
			}
		}
		toks, _ := sqltext.Lex(where)
		depth := 0
		for i, tok := range toks {
			switch {
			case tok.IsPunct('('):
				depth++
			case tok.IsPunct(')'):
				depth--
			}
			if depth == 0 && i < len(toks)-1 {
				t.Fatalf("filter %q: %q closes the compiler's parenthesis before its end", src, where)
			}
		}
	})
}
