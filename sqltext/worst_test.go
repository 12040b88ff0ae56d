package sqltext

import (
	"fmt"
	"strings"
	"testing"
)

// worstShape is one shape of SQL an attacker can grow without bound, built
// to about size bytes: the shapes that made the reader quadratic before
// issue 28 (nesting, long lists and paths, many quotes, statements, pipe
// operators, CASEs and hints), and the ones each fix could miss.
type worstShape struct {
	name  string
	build func(size int) string
}

// nest builds prefix, k copies of open, middle, k copies of close and
// suffix, with k chosen so that the text is about size bytes long.
func nest(size int, prefix, open, middle, close, suffix string) string {
	k := max(1, (size-len(prefix)-len(middle)-len(suffix))/(len(open)+len(close)))
	return prefix + strings.Repeat(open, k) + middle + strings.Repeat(close, k) + suffix
}

var worstShapes = []worstShape{
	{"from-parens", func(n int) string { return nest(n, "SELECT * FROM ", "(", "t", ")", "") }},
	{"expr-parens", func(n int) string { return nest(n, "SELECT ", "(", "1", ")", " FROM t") }},
	{"leading-parens-keywords", func(n int) string {
		// A DML keyword or GRAPH inside a query asks where the
		// statement's leading word is, after all its parentheses.
		k := n / 19
		return strings.Repeat("(", k) + "SELECT " + strings.Repeat("insert, graph, ", k) + "1" + strings.Repeat(")", k)
	}},
	{"from-list", func(n int) string { return nest(n, "SELECT * FROM ", "d.t, ", "d.t", "", "") }},
	{"from-subqueries", func(n int) string { return nest(n, "SELECT * FROM ", "(SELECT * FROM ", "d.t", ") AS a", "") }},
	{"expr-subqueries", func(n int) string {
		return nest(n, "SELECT * FROM d.t WHERE x IN ", "(SELECT a FROM d.t AS a, a.arr WHERE x IN ", "(SELECT 1)", ")", "")
	}},
	{"parens-then-from-list", func(n int) string {
		// Every from-item path asks whether its first part is a range
		// variable, below all the expression parentheses around it.
		k := n / 6
		return "SELECT * FROM t WHERE x IN " + strings.Repeat("(", k) + "SELECT 1 FROM " +
			strings.Repeat("d.t, ", k) + "d.t" + strings.Repeat(")", k)
	}},
	{"dots", func(n int) string { return nest(n, "SELECT ", "a.", "b", "", " FROM t") }},
	{"from-dots", func(n int) string { return nest(n, "SELECT * FROM ", "a.", "t", "", "") }},
	{"hyphens", func(n int) string { return nest(n, "SELECT * FROM ", "a-", "b.t", "", "") }},
	{"quotes", func(n int) string {
		return nest(n, "SELECT ", `'it\'s', """x""", b'\x00', r"\d", `+"`a\\u0041b`.`c\\x2e`, ", "1", "", " FROM t")
	}},
	{"long-quotes", func(n int) string {
		// One literal and one quoted identifier, each half the text.
		return "SELECT '" + strings.Repeat(`\'`, n/4) + "' FROM `" + strings.Repeat(`\x41`, n/8) + "`"
	}},
	{"bad-escapes", func(n int) string { return nest(n, "SELECT ", "`\\q`, ", "1", "", "") }},
	{"statements", func(n int) string { return nest(n, "", "SELECT 1;", "", "", "") }},
	{"pipes", func(n int) string { return nest(n, "SELECT * FROM t ", "|> WHERE x > 1 ", "", "", "") }},
	{"case", func(n int) string { return nest(n, "SELECT ", "CASE WHEN a THEN ", "1", " END", " FROM t") }},
	{"hints", func(n int) string {
		return nest(n, "SELECT * FROM t", " JOIN @{join_method=HASH_JOIN} d.u ON true", "", "", "")
	}},
	{"unclosed-hint", func(n int) string { return nest(n, "SELECT * FROM t @{", "a ", "", "", "") }},
	{"comments", func(n int) string { return nest(n, "SELECT ", "1 /* c */ -- x\n, ", "1", "", "") }},
	{"unknown-functions", func(n int) string {
		// Each unknown function is a reason of its own in Unplaced.
		var b strings.Builder
		b.WriteString("SELECT ")
		for i := 0; b.Len() < n; i++ {
			fmt.Fprintf(&b, "ML.F%d(x), ", i)
		}
		b.WriteString("1")
		return b.String()
	}},
	{"connections", func(n int) string {
		return nest(n, "SELECT * FROM ", "EXTERNAL_QUERY('us.c', 'SELECT 1'), ", "d.t", "", "")
	}},
	{"export-uris", func(n int) string {
		return nest(n, "EXPORT DATA OPTIONS(", "uri='gs://b/x*', ", "format='CSV'", "", ") AS SELECT 1")
	}},
	// Reach-outs (reachout.go): keys in calls, options, and SET
	// statements of a procedure's body.
	{"kms-keys", func(n int) string {
		return nest(n, "SELECT ", "KEYS.KEYSET_CHAIN('gcp-kms://projects/p/locations/us/keyRings/r/cryptoKeys/k', b'x'), ", "1", "", "")
	}},
	{"kms-key-parts", func(n int) string {
		return nest(n, "SELECT KEYS.KEYSET_CHAIN('gcp-kms://", "a/", "b", "", "', b'x')")
	}},
	{"options", func(n int) string {
		return nest(n, "CREATE TABLE d.t (n INT64) OPTIONS (", "kms_key_name = 'projects/p/locations/us/keyRings/r/cryptoKeys/k', x = 'gs://b', ", "y = 1", "", ")")
	}},
	{"procedure-set", func(n int) string {
		return nest(n, "CREATE PROCEDURE d.p() BEGIN ", "SET (@@a, @@time_zone, x) = (1, 2, 3); ", "", "", "END")
	}},
	{"temp-functions", func(n int) string {
		return nest(n, "", "CREATE TEMP FUNCTION f(x INT64) AS (x + 1);", "SELECT 1", "", "")
	}},
	{"procedure", func(n int) string {
		return nest(n, "CREATE PROCEDURE d.p() BEGIN ", "SELECT * FROM d.t; ", "", "", "END")
	}},
	{"procedure-blocks", func(n int) string {
		return nest(n, "CREATE PROCEDURE d.p() BEGIN ", "BEGIN ", "SELECT 1;", " END;", " END")
	}},
	{"create-words", func(n int) string { return nest(n, "CREATE ", "OR ", "TABLE d.t AS SELECT 1", "", "") }},
	// A property graph's element lists: every entry's table is read.
	{"graph-elements", func(n int) string {
		return nest(n, "CREATE PROPERTY GRAPH d.g NODE TABLES (d.a KEY (id)) EDGE TABLES (", "d.e SOURCE KEY (x) REFERENCES a (id) DESTINATION KEY (y) REFERENCES a (id) LABEL L PROPERTIES (z AS w), ", "d.e", "", ")")
	}},
	{"graph-element-parens", func(n int) string {
		return nest(n, "CREATE PROPERTY GRAPH d.g NODE TABLES (", "d.a PROPERTIES (", "x", "), ", ")")
	}},
	// Correlated paths in select lists make the reader scan twice
	// (scope.go): each shape below does, and the second scan must stay
	// linear too.
	{"select-list-subqueries", func(n int) string {
		return nest(n, "SELECT ", "(SELECT (SELECT 1 FROM e.a, e.b, x.y) FROM e.c AS f) AS z, ", "1", "", " FROM d.t AS e")
	}},
	{"select-list-nesting", func(n int) string {
		return nest(n, "SELECT ", "(SELECT ", "1 FROM e.a, e.b", ") AS x FROM d.t AS e", " FROM d.t AS e")
	}},
	{"select-list-parens", func(n int) string {
		k := n / 4
		return "SELECT (SELECT 1 FROM e.a) FROM " + strings.Repeat("(", k) + "d.t" + strings.Repeat(")", k) + " AS e"
	}},
	{"pipe-aliases", func(n int) string {
		return nest(n, "FROM d.t AS a ", "|> JOIN d.u AS b ON TRUE |> AS c |> JOIN c.arr AS e |> SELECT * ", "", "", "")
	}},
	{"delete-where", func(n int) string {
		return nest(n, "DELETE d.t AS x WHERE ", "EXISTS (SELECT 1 FROM x.arr, UNNEST(ARRAY(SELECT 1 FROM x.b))) AND ", "TRUE", "", "")
	}},
	{"correlated-from-subqueries", func(n int) string {
		// A subquery in the FROM list of each expression subquery reads
		// a path of the outermost alias: one look-up each.
		return nest(n, "SELECT * FROM d.t AS e WHERE EXISTS ", "(SELECT 1 FROM (SELECT * FROM e.a, (SELECT * FROM e.b)) AS x WHERE EXISTS ",
			"(SELECT 1)", ")", "")
	}},
	{"update-target", func(n int) string {
		// The target is forgotten at the FROM and declared again at
		// the WHERE once, whatever the FROM list and subqueries hold.
		return nest(n, "UPDATE d.t AS x SET a = (SELECT 1 FROM x.arr) FROM ", "d.u AS y, (SELECT 1 FROM x.b WHERE EXISTS (SELECT 1 FROM y.c)), ",
			"d.v WHERE EXISTS (SELECT 1 FROM x.arr)", "", "")
	}},
	{"merge-target", func(n int) string {
		return nest(n, "MERGE d.t AS x USING d.u AS y ON ", "EXISTS (SELECT 1 FROM x.arr, y.b JOIN d.v ON TRUE) AND ", "TRUE",
			"", " WHEN MATCHED THEN DELETE")
	}},
	{"select-list-aliases", func(n int) string {
		return nest(n, "SELECT (SELECT 1 FROM a.x) FROM ", "d.t AS a, ", "d.t AS b", "", "")
	}},
}

// BenchmarkReadWorstShapes parses and guards 1 MB of each worst shape; its
// MB/s is the reader's throughput on the inputs an attacker would choose.
func BenchmarkReadWorstShapes(b *testing.B) {
	for _, s := range worstShapes {
		sql := s.build(1 << 20)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(sql)))
			for b.Loop() {
				_ = Parse(sql).ReadOnly()
			}
		})
	}
}

// work returns the steps Parse (with its read-only check) and
// CheckReadOnly take on sql: the iterations of every loop of the lexer,
// the reader and the read-only guard.
func work(sql string) int {
	var steps int
	_ = parse(sql, &steps).ReadOnly()
	_ = checkReadOnlySQL(sql, &steps)
	return steps
}

// TestReaderWorkIsLinear holds the reader to linear work by counting steps,
// not time (issue 28): on each worst shape, at 16 KB and at 256 KB, the
// steps per byte stay under a small constant and do not grow with the size.
// A rescan ahead or behind from each token would make the larger text's
// ratio some sixteen times the smaller one's, and even n log n work would
// show. (BenchmarkReadWorstShapes times 1 MB of each; the sizes here keep
// the race-detector run of make unit short.)
func TestReaderWorkIsLinear(t *testing.T) {
	// maxPerByte bounds the steps per byte of Parse (which runs the
	// read-only guard) and CheckReadOnly together; the worst shape,
	// one-byte tokens, takes about 8.5: each pass looks at each token a
	// few times.
	const maxPerByte = 12
	for _, s := range worstShapes {
		small, large := s.build(16<<10), s.build(256<<10)
		perByte := func(sql string) float64 { return float64(work(sql)) / float64(len(sql)) }
		ps, pl := perByte(small), perByte(large)
		t.Logf("%-26s %5.2f steps/byte at %7d bytes, %5.2f at %7d", s.name, ps, len(small), pl, len(large))
		if ps > maxPerByte || pl > maxPerByte {
			t.Errorf("%s: %.2f steps per byte at %d bytes and %.2f at %d, want at most %d", s.name, ps, len(small), pl, len(large), maxPerByte)
		}
		if pl > ps*1.05+0.05 {
			t.Errorf("%s: the steps per byte grow with the size: %.2f at %d bytes, %.2f at %d", s.name, ps, len(small), pl, len(large))
		}
	}
}

// TestLongestText holds lex to maxSQL: a text longer than BigQuery accepts
// and a token's length can hold is refused, as incomplete, before it is
// lexed; one of maxSQL bytes is read.
func TestLongestText(t *testing.T) {
	long := "SELECT 1" + strings.Repeat(" ", maxSQL-len("SELECT 1"))
	if text := Parse(long); text.Incomplete != "" || len(text.Statements) != 1 || text.ReadOnly() != nil {
		t.Errorf("a text of maxSQL bytes: Incomplete %q, %d statements, ReadOnly %v", text.Incomplete, len(text.Statements), text.ReadOnly())
	}
	long += " "
	text := Parse(long)
	if text.Incomplete == "" || len(text.Statements) != 0 || text.NumTokens() != 0 {
		t.Errorf("a text longer than maxSQL: Incomplete %q, %d statements, %d tokens", text.Incomplete, len(text.Statements), text.NumTokens())
	}
	if err := CheckReadOnly(long); err == nil || !strings.Contains(err.Error(), "longer than BigQuery accepts") {
		t.Errorf("CheckReadOnly of a text longer than maxSQL: %v", err)
	}
	if toks, incomplete := Lex(long); len(toks) != 0 || incomplete == "" {
		t.Errorf("Lex of a text longer than maxSQL: %d tokens, incomplete %q", len(toks), incomplete)
	}
}
