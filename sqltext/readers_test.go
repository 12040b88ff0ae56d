package sqltext

import (
	"strings"
	"testing"
)

// The text-in, tokens-in forms of the readers that the package's tests and
// fuzz targets drive: production code reads a text once, through Parse, and
// asks its Text (ReadOnly, Statements); these read a string or Tokens
// again for each call.

// CheckReadOnly returns nil when sql is exactly one statement that begins
// (after comments, whitespace and opening parentheses) with SELECT or WITH,
// and a *ReadOnlyViolation otherwise.
//
// A query is also refused when a data-modifying keyword (INSERT, UPDATE,
// DELETE, MERGE) appears at its top level, which catches "WITH … DELETE …",
// or when a pipe operator writes data ("|> EXPORT DATA", "|> INSERT",
// "|> CREATE TABLE"). Columns or parameters that happen to share a name with
// such a keyword must then be written `quoted` (t.update and @delete are fine).
func CheckReadOnly(sql string) error {
	var steps int
	return checkReadOnlySQL(sql, &steps)
}

// checkReadOnlySQL is CheckReadOnly, adding its work to *steps.
func checkReadOnlySQL(sql string, steps *int) error {
	p := parsers.Get().(*parser)
	defer p.release()
	s, toks, incomplete := p.lex(sql, steps)
	return checkReadOnly(s, toks, p.split(s, toks, steps), incomplete, steps)
}

// LeadingKeyword returns the first word of a statement, upper-cased and
// capped, after any opening parentheses, together with the parenthesis depth
// it sits at. Words that start with a digit are numbers, not keywords.
func LeadingKeyword(st []Token) (kw string, depth int) {
	var steps int
	s, compact := fromTokens(st)
	return leadingKeyword(s, compact, &steps)
}

// TestStatementOffsets: each Statement's Start and End are its first
// token's offset and its last token's end, as Split groups the tokens; the
// temporary functions read with their query as one span them all.
func TestStatementOffsets(t *testing.T) {
	for _, sql := range []string{
		"SELECT 1",
		"  SELECT a FROM t ;\n-- note\nINSERT INTO d.t VALUES (1);; DELETE FROM d.t WHERE TRUE ",
		"CREATE PROCEDURE d.p() BEGIN SELECT 1; SELECT 2; END; CALL d.p()",
	} {
		toks, _ := Lex(sql)
		groups := Split(toks)
		text := Parse(sql)
		if len(groups) != len(text.Statements) {
			t.Fatalf("%q: %d statements, Split finds %d", sql, len(text.Statements), len(groups))
		}
		for i, g := range groups {
			if st := text.Statements[i]; st.Start != g[0].Start || st.End != g[len(g)-1].End {
				t.Errorf("%q statement %d: [%d, %d), want [%d, %d)", sql, i, st.Start, st.End, g[0].Start, g[len(g)-1].End)
			}
		}
	}
	sql := "CREATE TEMP FUNCTION f(x INT64) AS (x + 1);\nSELECT f(n) FROM d.t"
	if sts := Parse(sql).Statements; len(sts) != 1 || sts[0].Start != 0 || sts[0].End != len(sql) {
		t.Errorf("temporary functions and their query: %+v, want one statement over [0, %d)", sts, len(sql))
	}
}

// Split groups tokens into statements separated by ';', dropping empty
// ones. Every returned group has at least one token. A CREATE PROCEDURE is
// one statement, with the semicolons of its BEGIN … END body inside it.
func Split(toks []Token) [][]Token {
	var steps int
	s, compact := fromTokens(toks)
	var stmts [][]Token
	for _, sp := range split(s, compact, nil, &steps, false) {
		stmts = append(stmts, toks[sp.start:sp.end])
	}
	return stmts
}

// fromTokens makes Tokens (Split's and LeadingKeyword's arguments) the
// readers' tokens, over a source of their texts, one space apart. Their
// kinds, texts and names are kept, not where they stood: only the readers
// that compare words and punctuation take them.
func fromTokens(toks []Token) (*source, []token) {
	var b strings.Builder
	s := &source{names: map[int32]string{}}
	out := make([]token, len(toks))
	for i, t := range toks {
		start := b.Len()
		b.WriteString(t.Text)
		if t.Kind == Punct {
			// A Token from Lex is one rune; of any other, only a
			// one-byte punctuation is compared.
			n, c := len(t.Text), byte(0)
			if n == 1 {
				c = t.Text[0]
			} else if n > 4 {
				n = 0
			}
			out[i] = newPunct(start, n, c)
		} else {
			out[i] = newToken(t.Kind, start, b.Len())
		}
		if t.BadEscape {
			out[i].meta |= flagBad
			s.bad = true
		}
		if t.Kind == QuotedIdent {
			out[i].meta |= flagNamed
			s.names[int32(start)] = t.Value
		}
		b.WriteByte(' ')
	}
	s.sql = b.String()
	return s, out
}
