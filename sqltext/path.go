package sqltext

import "strings"

// readPath reads a dotted path at i: words (a project may be hyphenated:
// my-project.ds.t) and backtick-quoted parts, which may hold dots
// themselves. It returns the parts and the index after the path; no parts
// when toks[i] does not start one. It adds its work to *steps.
func readPath(toks []Token, i int, steps *int) ([]string, int) {
	return readPathHyphens(toks, i, true, steps)
}

// readExprPath reads a path in an expression, where '-' is a minus.
func readExprPath(toks []Token, i int, steps *int) ([]string, int) {
	return readPathHyphens(toks, i, false, steps)
}

func readPathHyphens(toks []Token, i int, hyphens bool, steps *int) ([]string, int) {
	var parts []string
	for i < len(toks) {
		*steps++
		t := toks[i]
		switch {
		case t.Kind == QuotedIdent:
			parts = append(grow(parts), splitQuoted(t.Value, len(parts) == 0)...)
			i++
		case t.Kind == Word && (len(parts) > 0 || !reserved[strings.ToUpper(t.Text)] && !isDigit(t.Text[0])):
			start := i
			i++
			// Hyphenated names are written unquoted too; the tokens
			// touch (no space) in that case.
			for hyphens && i+1 < len(toks) && toks[i].IsPunct('-') && toks[i].Start == toks[i-1].End &&
				(toks[i+1].Kind == Word) && toks[i+1].Start == toks[i].End {
				*steps++
				i += 2
			}
			parts = append(grow(parts), joinTexts(toks[start:i], steps))
		default:
			return parts, i
		}
		if i+1 < len(toks) && toks[i].IsPunct('.') && (toks[i+1].Kind == Word || toks[i+1].Kind == QuotedIdent) {
			i++
			continue
		}
		return parts, i
	}
	return parts, i
}

// joinTexts returns the tokens' texts run together: for the touching
// tokens of a hyphenated name, the name. It is built once, not by adding a
// part at a time, which would copy a name of n parts n times.
func joinTexts(toks []Token, steps *int) string {
	if len(toks) == 1 {
		return toks[0].Text
	}
	var b strings.Builder
	b.Grow(toks[len(toks)-1].End - toks[0].Start)
	for _, t := range toks {
		*steps++
		b.WriteString(t.Text)
	}
	return b.String()
}

// splitQuoted splits a quoted identifier's name at its dots, as BigQuery
// does for `project.dataset.table`. A domain-scoped project
// (`example.com:project.dataset.table`) keeps its domain.
func splitQuoted(v string, first bool) []string {
	parts := strings.Split(v, ".")
	if first && len(parts) > 1 && !strings.Contains(parts[0], ":") && strings.Contains(parts[1], ":") {
		parts = append([]string{parts[0] + "." + parts[1]}, parts[2:]...)
	}
	return parts
}

func hasInformationSchema(path []string) bool {
	for _, p := range path {
		if strings.EqualFold(p, "INFORMATION_SCHEMA") {
			return true
		}
	}
	return false
}

// startsQuery reports whether the tokens at i begin a query (a subquery in
// parentheses) rather than a parenthesised join.
func (r *reader) startsQuery(i int) bool {
	i = r.afterParens(i)
	toks := r.toks
	return i < len(toks) && (toks[i].IsWord("SELECT") || toks[i].IsWord("WITH") || toks[i].IsWord("FROM") || toks[i].IsWord("TABLE"))
}

// firstWord is leadingWord(r.toks).
func (r *reader) firstWord() int {
	if i := r.afterParens(0); i < len(r.toks) && r.toks[i].Kind == Word {
		return i
	}
	return -1
}

// afterParens returns the index of the first token at or after i that is
// not '(' (len(r.toks) if none).
//
// startsQuery asks it at every '(' that opens a from-item, so "FROM ((((…"
// asks it at each of a run of parentheses. It remembers the last run it
// looked past and answers from it, so that each token is looked at once,
// not once per '(' before it (issue 28).
func (r *reader) afterParens(i int) int {
	if run := r.parens; run.start == run.end || i < run.start || i > run.end {
		r.parens.start, r.parens.end = i, i
		for ; r.parens.end < len(r.toks) && r.toks[r.parens.end].IsPunct('('); r.parens.end++ {
			r.steps++
		}
	}
	return r.parens.end
}

// parenRun is a run of '(' tokens, toks[start:end], and toks[end] is not
// '(' (or end is len(toks)). An empty run (the zero value) tells nothing.
type parenRun struct{ start, end int }

// leadingWord returns the index of the statement's first word after any
// opening parentheses, or -1.
func leadingWord(toks []Token) int {
	for i, t := range toks {
		if t.IsPunct('(') {
			continue
		}
		if t.Kind == Word {
			return i
		}
		return -1
	}
	return -1
}

// reserved are GoogleSQL's reserved keywords: none of them can start an
// unquoted path.
var reserved = wordSet(`ALL AND ANY ARRAY AS ASC ASSERT_ROWS_MODIFIED AT BETWEEN BY CASE CAST COLLATE CONTAINS
	CREATE CROSS CUBE CURRENT DEFAULT DEFINE DESC DISTINCT ELSE END ENUM ESCAPE EXCEPT EXCLUDE EXISTS EXTRACT
	FALSE FETCH FOLLOWING FOR FROM FULL GROUP GROUPING GROUPS HASH HAVING IF IGNORE IN INNER INTERSECT INTERVAL
	INTO IS JOIN LATERAL LEFT LIKE LIMIT LOOKUP MERGE NATURAL NEW NO NOT NULL NULLS OF ON OR ORDER OUTER OVER
	PARTITION PRECEDING PROTO QUALIFY RANGE RECURSIVE RESPECT RIGHT ROLLUP ROWS SELECT SET SOME STRUCT
	TABLESAMPLE THEN TO TREAT TRUE UNBOUNDED UNION UNNEST USING WHEN WHERE WINDOW WITH WITHIN`)

// notAlias are unreserved keywords that may follow a from-item and are not
// its alias.
var notAlias = wordSet(`PIVOT UNPIVOT MATCH_RECOGNIZE OPTIONS CLUSTER SYSTEM_TIME WHERE`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// expressionPath handles a path outside any object position: a function
// call names a routine unless it is one of BigQuery's own; any other path
// is a column or field, except INFORMATION_SCHEMA in any position.
func (r *reader) expressionPath(path []string, toks []Token, next int) {
	if next < len(toks) && toks[next].IsPunct('(') {
		r.call(path)
		return
	}
	if hasInformationSchema(path) {
		r.st.InformationSchema = append(r.st.InformationSchema, path)
	}
}
