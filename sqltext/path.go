package sqltext

import "strings"

// readPath reads a dotted path at i: words (a project may be hyphenated:
// my-project.ds.t) and backtick-quoted parts, which may hold dots
// themselves. It returns the parts and the index after the path; no parts
// when toks[i] does not start one. The parts are the reader's to record
// (in r.arena, exactly as many as there are).
func (r *reader) readPath(toks []token, i int) ([]string, int) {
	// Most paths have a few parts: they are read once, into the room
	// left in the arena, and only a longer one is counted first.
	room := r.arena.room(4)
	n, _, next := r.pathAt(toks, i, true, room)
	if n <= len(room) {
		return r.arena.take(n), next
	}
	parts := r.arena.path(n)
	r.pathAt(toks, i, true, parts)
	return parts, next
}

// pathAt reads the path at i, where hyphens says whether a '-' joins
// touching words (in an expression it is a minus). It returns how many
// parts the path has, whether one of them is INFORMATION_SCHEMA, and the
// index after it; with parts nil it only counts them, and otherwise it
// puts them in parts, as many as it has room for. Counting first, the
// reader allocates only the paths it keeps, and exactly: "a.a.a.…" is one
// path of as many parts as its text has bytes, and most expression paths
// (columns) are not kept at all.
func (r *reader) pathAt(toks []token, i int, hyphens bool, parts []string) (n int, info bool, next int) {
	s := r.src
	put := func(part string) {
		if n < len(parts) {
			parts[n] = part
		}
		info = info || strings.EqualFold(part, "INFORMATION_SCHEMA")
		n++
	}
	for i < len(toks) {
		r.steps++
		t := toks[i]
		switch {
		case t.kind() == QuotedIdent:
			// BigQuery splits a quoted name at its dots
			// (`project.dataset.table`); a domain-scoped project
			// (`example.com:project.dataset.table`) keeps its domain.
			rest, done := s.value(t), false
			if n == 0 {
				rest, done = domainPart(rest, put)
			}
			for !done {
				r.steps++
				dot := strings.IndexByte(rest, '.')
				if dot < 0 {
					put(rest)
					break
				}
				put(rest[:dot])
				rest = rest[dot+1:]
			}
			i++
		case t.kind() == Word && (n > 0 || !isReserved(s.text(t)) && !isDigit(s.sql[t.start])):
			start := i
			i++
			// Hyphenated names are written unquoted too; the tokens
			// touch (no space) in that case, so the name is the source
			// from the first to the last.
			for hyphens && i+1 < len(toks) && toks[i].isPunct('-') && toks[i].start == toks[i-1].end() &&
				(toks[i+1].kind() == Word) && toks[i+1].start == toks[i].end() {
				r.steps++
				i += 2
			}
			put(s.sql[toks[start].start:toks[i-1].end()])
		default:
			return n, info, i
		}
		if i+1 < len(toks) && toks[i].isPunct('.') && (toks[i+1].kind() == Word || toks[i+1].kind() == QuotedIdent) {
			i++
			continue
		}
		return n, info, i
	}
	return n, info, i
}

// domainPart puts the first two parts of a path's first quoted name, v,
// as one when they are a domain-scoped project (example.com:project),
// and returns the rest of v to split and whether there is none.
func domainPart(v string, put func(string)) (rest string, done bool) {
	d0 := strings.IndexByte(v, '.')
	if d0 < 0 {
		return v, false
	}
	p1 := v[d0+1:]
	if d1 := strings.IndexByte(p1, '.'); d1 >= 0 {
		p1 = p1[:d1]
	}
	if strings.Contains(v[:d0], ":") || !strings.Contains(p1, ":") {
		return v, false
	}
	end := d0 + 1 + len(p1)
	put(v[:end])
	if end == len(v) {
		return "", true
	}
	return v[end+1:], false
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
// parentheses) rather than a parenthesised join. The answer is the same
// for each '(' of a run, and afterParens keeps it with the run.
func (r *reader) startsQuery(i int) bool {
	r.afterParens(i)
	return r.parens.query
}

// firstWord is leadingWord(r.toks).
func (r *reader) firstWord() int {
	if i := r.afterParens(0); i < len(r.toks) && r.toks[i].kind() == Word {
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
		for ; r.parens.end < len(r.toks) && r.toks[r.parens.end].isPunct('('); r.parens.end++ {
			r.steps++
		}
		r.parens.query = false
		if end := r.parens.end; end < len(r.toks) {
			s, t := r.src, r.toks[end]
			r.parens.query = s.isWord(t, "SELECT") || s.isWord(t, "WITH") || s.isWord(t, "FROM") || s.isWord(t, "TABLE")
		}
	}
	return r.parens.end
}

// parenRun is a run of '(' tokens, toks[start:end], and toks[end] is not
// '(' (or end is len(toks)); query is set when toks[end] starts a query.
// An empty run (the zero value) tells nothing.
type parenRun struct {
	start, end int
	query      bool
}

// leadingWord returns the index of the statement's first word after any
// opening parentheses, or -1.
func leadingWord(toks []token) int {
	for i, t := range toks {
		if t.isPunct('(') {
			continue
		}
		if t.kind() == Word {
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

// expressionPath handles the path at i outside any object position, and
// returns the index after it: a function call names a routine unless it
// is one of BigQuery's own; any other path is a column or field, except
// INFORMATION_SCHEMA in any position. A column's path is counted, not
// kept. ok is false when no path starts at i.
func (r *reader) expressionPath(toks []token, i int) (next int, ok bool) {
	// In an expression a '-' is a minus: a-ds.fn(1) calls ds.fn.
	n, info, next := r.pathAt(toks, i, false, nil)
	if n == 0 {
		return i, false
	}
	call := next < len(toks) && toks[next].isPunct('(')
	if !call && !info {
		return next, true
	}
	if !call {
		path := r.arena.path(n)
		r.pathAt(toks, i, false, path)
		r.st.InformationSchema = append(r.st.InformationSchema, path)
		return next, true
	}
	// A call's path is kept only when it names a routine (add copies
	// it): most calls are of BigQuery's own functions.
	if cap(r.pathBuf) < n {
		r.pathBuf = make([]string, 0, max(n, 2*cap(r.pathBuf)))
	}
	path := r.pathBuf[:n]
	r.pathAt(toks, i, false, path)
	r.call(path)
	clear(path)
	return next, true
}
