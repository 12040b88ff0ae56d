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
	r.target, r.targetState = "", targetNone
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

// DML targets as BigQuery scopes them. A DELETE's target is a range
// variable of its WHERE (DELETE has no FROM list). An UPDATE's target is
// one of its SET and WHERE, subqueries included (the DML reference's
// UPDATE dataset.Inventory SET quantity = quantity + (SELECT quantity FROM
// dataset.NewArrivals WHERE Inventory.product = NewArrivals.product)),
// but not of its FROM list, whose items are joined to it and see no range
// variable of it (BigQuery has no LATERAL): the reader forgets it at the
// FROM and declares it again at the WHERE. A MERGE's target is one of its
// ON and WHEN clauses, not of its USING source: the reader declares it at
// the ON that ends the source. So a correlated path from the target
// (UPDATE sales.orders AS o SET amount = (SELECT SUM(i.price) FROM o.items
// AS i)) is read as BigQuery reads it, and a path from the target's name
// in FROM or USING is still read as a table.
const (
	targetNone uint8 = iota
	// targetDeclared: the target is declared in the statement's frame.
	targetDeclared
	// targetHidden: an UPDATE's FROM list forgot it; its WHERE declares
	// it again.
	targetHidden
	// targetPending: a MERGE's target, declared at the ON after USING.
	targetPending
)

// dmlTarget handles the range variable of a DELETE's, UPDATE's or MERGE's
// target, whose path ends before i: its alias ([AS] name), or the path's
// last part (none for a table quoted whole: one identifier to BigQuery,
// the strict side). It returns the index after the alias.
func (r *reader) dmlTarget(toks []token, i int, kw string) int {
	name, next := "", i
	j := i
	if j < len(toks) && r.isWord(toks, j, "AS") {
		j++
	}
	if k := j; k < len(toks) && (toks[k].kind() == QuotedIdent || toks[k].kind() == Word && !lookupKeyword(r.src.text(toks[k])).reserved && !lookupKeyword(r.src.text(toks[k])).notAlias) {
		name, next = r.src.value(toks[k]), k+1
	} else if !quotedDotsAt(r.src, toks[i-1]) {
		name = r.src.value(toks[i-1])
		if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
			name = name[dot+1:]
		}
	}
	if name == "" {
		return next
	}
	switch kw {
	case "DELETE":
		r.declare(name)
	case "UPDATE":
		r.declare(name)
		r.target, r.targetState = name, targetDeclared
	case "MERGE":
		r.target, r.targetState = name, targetPending
	}
	return next
}

// targetClause handles a clause keyword of the statement's own frame for
// the DML target's range variable (UPDATE's FROM and WHERE, MERGE's ON).
func (r *reader) targetClause(kw string) {
	if r.targetState == targetNone || len(r.frames) != 1 {
		return
	}
	switch {
	case kw == "FROM" && r.targetState == targetDeclared && r.st.Kind == "UPDATE":
		r.forget()
		r.targetState = targetHidden
	case kw == "WHERE" && r.targetState == targetHidden,
		kw == "ON" && r.targetState == targetPending:
		r.declare(r.target)
		r.targetState = targetDeclared
	}
}
