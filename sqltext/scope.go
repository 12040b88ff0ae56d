package sqltext

import "strings"

// Scopes of range variables as BigQuery has them: a query's FROM aliases
// are visible in its select list and in the subqueries of it, although the
// select list comes first in the text. The scan learns an alias only where
// its FROM declares it, so a correlated path in a subquery of the select
// list (the GA4 idiom SELECT (SELECT value.int_value FROM e.event_params
// WHERE …) FROM `p.analytics_1.events_*` AS e) is read as a table the first
// time.
//
// The scan is run again when that can have happened: the first scan
// records which aliases each query's FROM declares (r.fromDecls, by the
// index of the query's SELECT) and the from-item paths read as tables while
// a select list was open (r.candidates). When some candidate starts with a
// name some FROM declares, the second scan declares each query's FROM
// aliases at its SELECT, for its select list alone, and forgets them at its
// FROM, where the FROM declares them again in text order. So an alias is
// seen where BigQuery sees it and nowhere else: not by a CTE before the
// query, not by an earlier pipe operator, not by the query after a set
// operation, not by a subquery in a FROM list (BigQuery has no LATERAL),
// and not by the FROM that declares it. Both scans are linear; the second
// runs at most once.

// openQuery is a query whose SELECT one of the open frames has read.
type openQuery struct {
	// frame is the frame's index in reader.frames, and at the index of
	// the query's SELECT in the tokens.
	frame, at int32
	// selecting is set from the SELECT to the query's FROM: its select
	// list. predeclared is set when the second scan declared the FROM's
	// aliases at the SELECT.
	selecting, predeclared bool
}

// fromDecl is a range variable a query's FROM declares: the query's
// SELECT's index, and the name, lower-cased.
type fromDecl struct {
	at  int32
	key string
}

// topQuery returns the innermost frame's query, or nil. The pointer is
// good until the next query starts.
func (r *reader) topQuery() *openQuery {
	if n := len(r.queries); n > 0 && int(r.queries[n-1].frame) == len(r.frames)-1 {
		return &r.queries[n-1]
	}
	return nil
}

// startQuery handles the SELECT at i: unless a pipe operator precedes it
// (|> SELECT), it starts a query of the innermost frame, whose select list
// sees the aliases its FROM declares.
func (r *reader) startQuery(toks []token, i int) {
	if i > 0 && toks[i-1].isPunct('>') {
		return
	}
	r.endQuery()
	q := openQuery{frame: int32(len(r.frames) - 1), at: int32(i), selecting: true}
	r.selecting++
	if keys, ok := r.pre[q.at]; ok {
		for _, k := range keys {
			r.steps++
			r.declare(k)
		}
		q.predeclared = true
	}
	r.queries = append(grow(r.queries), q)
}

// fromStarts handles a FROM of the innermost frame that starts a FROM
// list: the end of its query's select list.
func (r *reader) fromStarts() {
	q := r.topQuery()
	if q == nil || !q.selecting {
		return
	}
	q.selecting = false
	r.selecting--
	if q.predeclared {
		q.predeclared = false
		r.forget() // the FROM declares them again, in text order
	}
}

// endQuery ends the innermost frame's query, if any: at a set operation,
// a pipe operator, a new SELECT, or the frame's ')'. A select list that
// ends without its FROM forgets what was declared for it.
func (r *reader) endQuery() {
	q := r.topQuery()
	if q == nil {
		return
	}
	if q.selecting {
		r.selecting--
		if q.predeclared {
			r.forget()
		}
	}
	r.queries = r.queries[:len(r.queries)-1]
}

// noteFromDecl records, in the first scan, that the innermost frame's
// query's FROM declares key.
func (r *reader) noteFromDecl(key string) {
	if r.pre != nil {
		return
	}
	if q := r.topQuery(); q != nil && !q.selecting {
		r.fromDecls = append(grow(r.fromDecls), fromDecl{at: q.at, key: key})
	}
}

// noteCandidate records, in the first scan, a from-item path read as a
// table while a select list was open: its first part may be an alias the
// select list's FROM declares later.
func (r *reader) noteCandidate(path []string) {
	if r.pre == nil && r.selecting > 0 && len(path) > 1 {
		r.candidates = append(grow(r.candidates), foldName(path[0]))
	}
}

// predeclarations returns, after the first scan, the aliases to declare at
// each query's SELECT in a second one, or nil when no candidate starts
// with any of them and the second scan would read the same.
func (r *reader) predeclarations() map[int32][]string {
	if len(r.candidates) == 0 || len(r.fromDecls) == 0 {
		return nil
	}
	declared := make(map[string]bool, len(r.fromDecls))
	for _, d := range r.fromDecls {
		r.steps++
		declared[d.key] = true
	}
	found := false
	for _, c := range r.candidates {
		r.steps++
		if declared[c] {
			found = true
			break
		}
	}
	if !found {
		return nil
	}
	pre := map[int32][]string{}
	for _, d := range r.fromDecls {
		r.steps++
		pre[d.at] = append(pre[d.at], d.key)
	}
	return pre
}

// rescan prepares the reader to scan its tokens again: what the scan found
// is dropped, but for the n reasons st.Unplaced held before it.
func (r *reader) rescan(pre map[int32][]string, n int) {
	r.pre = pre
	unplaced := r.st.Unplaced[:n]
	r.st.InformationSchema, r.st.External, r.st.ExportURIs = r.st.InformationSchema[:0], r.st.External[:0], r.st.ExportURIs[:0]
	r.st.Unplaced, r.seen = nil, reasonSet{}
	for _, u := range unplaced {
		r.unplaced(u)
	}
	r.itemParen, r.exporting, r.pendingCall, r.selecting = false, false, 0, 0
	r.frames = append(r.frames[:0], frame{})
	r.calls, r.openCalls, r.scopes, r.cases, r.decls, r.queries = r.calls[:0], r.openCalls[:0], r.scopes[:0], r.cases[:0], r.decls[:0], r.queries[:0]
	r.ctes, r.latest = nil, nil
	r.parens = parenRun{}
	r.objs.reset()
}

// pipeOperator handles the range variables at the pipe operator whose name
// is at i (after |>), and returns where to go on. The operators that keep
// their input's rows (WHERE, EXTEND, SET, DROP, RENAME, ORDER BY, LIMIT,
// TABLESAMPLE, WINDOW, ASSERT, the joins) keep its range variables; |> AS
// name makes name the only one; any other (SELECT, AGGREGATE, a set
// operation, CALL, PIVOT, …) makes a table with none, so that a from-item
// path after it that starts with an earlier alias is read as a table, as
// BigQuery reads it.
func (r *reader) pipeOperator(toks []token, i int) int {
	if i < len(toks) && toks[i].kind() == Word {
		switch keywordOf(r.src.text(toks[i])) {
		case "WHERE", "EXTEND", "SET", "DROP", "RENAME", "ORDER", "LIMIT", "TABLESAMPLE", "WINDOW", "ASSERT",
			"JOIN", "LEFT", "RIGHT", "FULL", "INNER", "CROSS":
			return i
		case "AS":
			r.forget()
			if n := i + 1; n < len(toks) && (toks[n].kind() == QuotedIdent || toks[n].kind() == Word && !r.isReserved(toks[n])) {
				r.declare(r.src.value(toks[n]))
				return n + 1
			}
			return i + 1
		}
	}
	r.forget()
	return i
}

// deleteAlias declares the range variable of a DELETE's target, whose
// path ends before i: its alias ([AS] name), or the path's last part.
// DELETE has no FROM list, so only its WHERE sees it, as in BigQuery.
// (UPDATE's and MERGE's targets are not declared: their FROM and USING
// items must not see them, and a correlated path from them is read as a
// table, the strict side.)
func (r *reader) deleteAlias(toks []token, i int) int {
	if next := r.alias(toks, i); next > i {
		return next
	}
	if quotedDotsAt(r.src, toks[i-1]) {
		return i
	}
	last := r.src.value(toks[i-1])
	if dot := strings.LastIndexByte(last, '.'); dot >= 0 {
		last = last[dot+1:]
	}
	r.declare(last)
	return i
}
