package sqltext

import (
	"strings"
)

// readStatement reads the objects one statement names, and adds the
// iterations of the reader's loops to *steps: tests hold them to a small
// multiple of len(toks), so that no input makes the reader quadratic. The
// objects' paths are kept in a.
func readStatement(s *source, toks []token, a *arena, steps *int) Statement {
	r := a.reader(s, toks)
	r.read()
	r.st.Objects = r.objects()
	*steps += r.steps
	st := r.st
	a.release(r)
	return st
}

// read reads the reader's statement into r.st.
func (r *reader) read() {
	s, toks := r.src, r.toks
	r.st.Kind, r.known = statementKind(s, toks)
	r.st.Temporary = temporary(s, toks)
	if !r.known {
		r.unplaced("the statement kind " + r.st.Kind + " is not one this server can check")
	}
	if r.st.Kind == "CREATE PROCEDURE" {
		if head, body, ok := procedureBody(s, toks); ok {
			r.toks = head
			r.scan()
			r.readBody(body)
		} else {
			r.scan()
		}
	} else {
		r.scan()
	}
	r.finish()
	r.checkTarget()
}

// unplaced records reason once. A set, not a search of st.Unplaced: it
// may be called for every token (a malformed escape in each, an unknown
// function in each call).
func (r *reader) unplaced(reason string) {
	r.steps++
	if r.seen.add(reason, len(r.st.Unplaced), r.st.Unplaced, &r.steps) {
		r.st.Unplaced = append(grow(r.st.Unplaced), reason)
	}
}

// isWord reports whether toks[i] is the word w, in any case.
func (r *reader) isWord(toks []token, i int, w string) bool { return r.src.isWord(toks[i], w) }

// afterPathDot reports whether the token at i follows a '.' or an '@': a
// path part or a parameter (@x, @@dataset_id), never a keyword.
func afterPathDot(toks []token, i int) bool {
	return i > 0 && (toks[i-1].isPunct('.') || toks[i-1].isPunct('@'))
}

// scan reads a path wherever GoogleSQL names an object: it walks the
// tokens once, and a second time when a select list names a range variable
// its FROM declares later (scope.go).
func (r *reader) scan() {
	for _, t := range r.toks {
		if !r.src.bad {
			break // no token of the text is bad
		}
		r.steps++
		if t.bad() {
			r.unplaced("a quoted identifier holds an escape sequence BigQuery does not accept")
		}
	}
	n := len(r.st.Unplaced)
	r.walk()
	if pre := r.predeclarations(); pre != nil {
		r.rescan(pre, n)
		r.walk()
	}
}

// walk walks the tokens once, keeping a frame per parenthesis.
func (r *reader) walk() {
	toks := r.toks
	for i := 0; i < len(toks); {
		r.steps++
		if next, ok := r.callArgument(toks, i); ok {
			i = next
			continue
		}
		t := toks[i]
		f := r.top()
		if f.opener == openerElements && f.item {
			f.item = false
			i = r.element(toks, i)
			continue
		}
		if t.kind() == Punct {
			i = r.punct(toks, i)
			continue
		}
		if f.opener == openerOptions && (t.kind() == Word || t.kind() == QuotedIdent) {
			// An option's name: what it reaches is in reachout.go.
			if next, ok := r.option(toks, i); ok {
				i = next
				continue
			}
		}
		if t.kind() == Word && afterPathDot(toks, i) {
			// A path part or a parameter (@x, @@dataset_id), never a
			// keyword.
			i++
			continue
		}
		if t.kind() == Word {
			if next, ok := r.keyword(toks, i, f); ok {
				i = next
				continue
			}
		}
		if f.from && f.item {
			i = r.fromItem(toks, i)
			f.item = false
			continue
		}
		next, ok := r.expressionPath(toks, i)
		if !ok {
			next = i + 1
		}
		i = next
	}
}

// keyword handles a word that starts or changes an object position. It
// returns where to go on and whether it handled the word.
func (r *reader) keyword(toks []token, i int, f *frame) (int, bool) {
	// Only keywords start or change a position: kw is "" for any other
	// word.
	k := lookupKeyword(r.src.text(toks[i]))
	kw := k.word
	if i+1 < len(toks) && toks[i+1].isPunct('.') && !k.reserved {
		return 0, false // the first part of a path (model.t)
	}
	if next, ok := r.clause(toks, i, kw, f); ok {
		return next, true
	}
	if kw == "GRAPH_TABLE" && i+1 < len(toks) && toks[i+1].isPunct('(') {
		// GRAPH_TABLE(graph MATCH …): a from-item over a property graph,
		// whose first argument is the graph's name.
		if f.from && f.item {
			r.itemParen, f.item = true, false
		}
		r.object(toks, i+2, Graph, false)
		return i + 1, true
	}
	if next, ok := r.sourceClause(toks, i, kw); ok {
		return next, true
	}
	if next, ok := r.objectKeyword(toks, i, kw); ok {
		return next, true
	}
	if i+2 < len(toks) && r.isWord(toks, i+1, "AS") && toks[i+2].isPunct('(') && f.opener == openerNone && !f.from {
		// name AS ( … ): a CTE (WITH a AS (…), b AS (…)). It becomes a
		// range variable only where a FROM list names it.
		if r.ctes == nil {
			r.ctes = map[string]bool{}
		}
		r.ctes[foldName(r.src.value(toks[i]))] = true
	}
	return 0, false
}

// clause handles the keywords that open, end or pause a FROM list.
func (r *reader) clause(toks []token, i int, kw string, f *frame) (int, bool) {
	switch kw {
	case "FROM":
		if f.opener == openerExtract || i > 0 && r.isWord(toks, i-1, "DISTINCT") {
			return i + 1, true // EXTRACT(x FROM y), IS DISTINCT FROM
		}
		if r.st.Kind == "REVOKE" && i+1 < len(toks) && toks[i+1].kind() == String {
			return i + 1, true
		}
		if r.st.Kind == "LOAD DATA" && i+1 < len(toks) && r.isWord(toks, i+1, "FILES") {
			return i + 2, true // FROM FILES (options): no from-item
		}
		r.fromStarts()
		r.targetClause(kw)
		f.from, f.item = true, true
		return i + 1, true
	case "JOIN":
		f.from, f.item = true, true
		return i + 1, true
	case "USING":
		if r.st.Kind == "MERGE" && !f.from && r.objs.n > 0 {
			// MERGE target USING source: a from-item.
			f.from, f.item = true, true
			return i + 1, true
		}
		return 0, false
	case "ON":
		if r.onTarget() {
			return r.object(toks, i+1, Table, true), true
		}
		f.item = false // a join condition; the FROM list goes on after it
		r.targetClause(kw)
		return i + 1, true
	case "UNION", "INTERSECT", "EXCEPT":
		if kw == "EXCEPT" && i > 0 && toks[i-1].isPunct('*') && i+1 < len(toks) && toks[i+1].isPunct('(') {
			return i + 1, true // SELECT * EXCEPT (columns)
		}
		// A set operation: the next query has a scope of its own.
		f.from, f.item = false, false
		r.endQuery()
		r.forget()
		return i + 1, true
	case "CASE":
		r.addCase(1)
		return i + 1, true
	case "END":
		if r.topCases() > 0 {
			r.addCase(-1)
		}
		return i + 1, true
	case "WHEN":
		if r.topCases() > 0 {
			return i + 1, true // CASE … WHEN, inside a join condition too
		}
		f.from, f.item = false, false // MERGE … WHEN [NOT] MATCHED
		return i + 1, true
	case "WHERE", "GROUP", "HAVING", "QUALIFY", "WINDOW", "ORDER", "LIMIT", "SELECT", "SET", "VALUES", "OPTIONS":
		// A clause that ends a FROM list.
		f.from, f.item = false, false
		if kw == "SELECT" {
			r.startQuery(toks, i)
		}
		r.targetClause(kw)
		return i + 1, true
	case "RECURSIVE":
		return i + 1, true
	}
	return 0, false
}

// objectKeyword handles the keywords after which GoogleSQL names an object.
func (r *reader) objectKeyword(toks []token, i int, kw string) (int, bool) {
	switch kw {
	case "TABLE":
		if i+1 < len(toks) && r.isWord(toks, i+1, "FUNCTION") {
			return r.object(toks, i+2, Routine, r.isDDL()), true
		}
		return r.object(toks, i+1, Table, r.isDDL() || r.st.Kind == "TRUNCATE TABLE" || r.st.Kind == "GRANT" || r.st.Kind == "REVOKE"), true
	case "VIEW":
		return r.object(toks, i+1, Table, true), true
	case "MODEL":
		return r.object(toks, i+1, Model, r.isDDL() || strings.HasPrefix(r.st.Kind, "EXPORT")), true
	case "SCHEMA":
		return r.object(toks, i+1, Dataset, true), true
	case "FUNCTION", "PROCEDURE":
		return r.object(toks, i+1, Routine, true), true
	case "CALL":
		if i > 1 && toks[i-1].isPunct('>') && toks[i-2].isPunct('|') {
			return r.pipeCall(toks, i+1), true
		}
		return r.object(toks, i+1, Routine, false), true
	case "INTO", "OVERWRITE":
		return r.object(toks, i+1, Table, true), true
	case "UPDATE", "DELETE", "INSERT", "MERGE":
		if i == r.lead {
			j := i + 1
			if j < len(toks) && (r.isWord(toks, j, "INTO") || r.isWord(toks, j, "FROM")) {
				j++
			}
			next := r.object(toks, j, Table, true)
			if kw != "INSERT" && next > j {
				next = r.dmlTarget(toks, next, kw)
			}
			return next, true
		}
		return 0, false
	case "RENAME":
		if i+1 < len(toks) && r.isWord(toks, i+1, "TO") {
			// ALTER … RENAME TO name: BigQuery keeps the dataset, but a
			// qualified name is read, not guessed.
			return r.object(toks, i+2, Table, true), true
		}
		return 0, false
	case "GRAPH":
		if i > 0 && r.isWord(toks, i-1, "PROPERTY") {
			return r.object(toks, i+1, Graph, true), true // CREATE/DROP PROPERTY GRAPH g
		}
		// GRAPH g MATCH …, as a statement or wherever GoogleSQL takes a
		// graph query: a path after GRAPH is read as a graph.
		if next := r.object(toks, i+1, Graph, false); next > i+1 {
			return next, true
		}
		return 0, false
	case "CONNECTION":
		if i > 0 && r.isWord(toks, i-1, "WITH") {
			return r.connection(toks, i+1, true), true // [REMOTE] WITH CONNECTION x
		}
		if i+1 < len(toks) && (toks[i+1].kind() == QuotedIdent || toks[i+1].kind() == Word && !r.isReserved(toks[i+1])) {
			return r.connection(toks, i+1, true), true // a CONNECTION x argument
		}
		return 0, false
	case "CONNECTION_ID":
		if namedArgument(toks, i) {
			return r.connection(toks, i+3, false), true // connection_id => 'x'
		}
		return 0, false
	case "EXPORT":
		if i+1 < len(toks) && (r.isWord(toks, i+1, "DATA") || r.isWord(toks, i+1, "MODEL")) {
			r.exporting = true
		}
		return 0, false
	case "EXECUTE":
		r.unplaced("EXECUTE IMMEDIATE runs SQL that cannot be read before it runs")
		return 0, false
	}
	return 0, false
}

// isReserved reports whether t is a word that is one of GoogleSQL's
// reserved keywords.
func (r *reader) isReserved(t token) bool {
	return t.kind() == Word && isReserved(r.src.text(t))
}

// onTarget reports whether the ON at i names the table of a search or
// vector index or a row access policy (CREATE SEARCH INDEX i ON t, DROP ALL
// ROW ACCESS POLICIES ON t) rather than a join condition.
func (r *reader) onTarget() bool {
	k := r.st.Kind
	return strings.HasSuffix(k, " INDEX") || strings.HasSuffix(k, "ROW ACCESS POLICY") || strings.HasSuffix(k, "ROW ACCESS POLICIES")
}

func (r *reader) isDDL() bool {
	k := r.st.Kind
	return strings.HasPrefix(k, "CREATE ") || strings.HasPrefix(k, "DROP ") || strings.HasPrefix(k, "ALTER ") ||
		strings.HasPrefix(k, "UNDROP ") || k == "GRANT" || k == "REVOKE"
}

// fromItem reads the from-item starting at i: a table path, a table-valued
// function call, or a correlated path. Parentheses and UNNEST are left to
// the scan. It returns where to go on.
func (r *reader) fromItem(toks []token, i int) int {
	t := toks[i]
	if r.src.isWord(t, "UNNEST") {
		r.itemParen = true
		return i + 1
	}
	if t.kind() == Word && (r.isReserved(t) || r.src.isWord(t, "LATERAL")) {
		if i+1 < len(toks) && toks[i+1].isPunct('(') && !r.src.isWord(t, "LATERAL") {
			// FROM IF(…): a call of a keyword, whose arguments the
			// reader cannot read as a table function's.
			r.unplaced("the table-valued function " + keywordOf(r.src.text(t)) + " is not one this server can check")
		}
		return i + 1
	}
	path, next := r.readPath(toks, i)
	if len(path) == 0 {
		return i + 1
	}
	if next < len(toks) && toks[next].isPunct('(') {
		r.tableCall(path)
		r.itemParen = true
		return next
	}
	// A quoted name with dots (`secret.orders`) is one identifier for
	// BigQuery's name scope, which it looks up among the range variables
	// whole: it never names one, so it is a table even where its first
	// part is an alias. A path through INFORMATION_SCHEMA is read as the
	// view it spells whatever its first part (the strict side: a dataset
	// or project named like an alias is checked, not passed to a dry run).
	if quotedDotsAt(r.src, t) || hasInformationSchema(path) || !(len(path) > 1 && r.isRange(path[0])) {
		// Not alias.array_column (an implicit UNNEST of a range
		// variable): a table.
		r.add(Table, path, false)
		r.noteCandidate(path)
	}
	last := path[len(path)-1]
	if j := r.alias(toks, next); j > next {
		return j
	}
	if !quotedDotsAt(r.src, toks[next-1]) {
		r.declare(last)
	}
	return next
}

// pipeCall reads |> CALL f(…) at i: a table-valued function called on the
// pipe's input, read through the inventory as a from-item call is
// (|> CALL ML.PREDICT(MODEL m) is BigQuery's, ds.tvf(…) a persistent one).
func (r *reader) pipeCall(toks []token, i int) int {
	path, next := r.readPath(toks, i)
	if len(path) == 0 || next >= len(toks) || !toks[next].isPunct('(') {
		r.unplaced("a |> CALL names no table-valued function this server can read")
		return i
	}
	r.tableCall(path)
	r.itemParen = true
	return next
}

// alias declares the from-item alias at i ([AS] name), if any, and returns
// the index after it.
func (r *reader) alias(toks []token, i int) int {
	j := i
	if j < len(toks) && r.isWord(toks, j, "AS") {
		j++
	}
	if j >= len(toks) {
		return i
	}
	if k := lookupKeyword(r.src.text(toks[j])); toks[j].kind() == Word && !k.reserved && !k.notAlias || toks[j].kind() == QuotedIdent {
		r.declare(r.src.value(toks[j]))
		return j + 1
	}
	return i
}

// punct handles the punctuation at i and returns where to go on:
// parentheses open and close frames, a comma continues a FROM list, a hint
// is skipped whole, a pipe operator ends the FROM list.
func (r *reader) punct(toks []token, i int) int {
	t := toks[i]
	f := r.top()
	switch {
	case t.isPunct('('):
		op := openerNone
		if i > 0 && toks[i-1].kind() == Word {
			op = openerOf(r.src.text(toks[i-1]))
		}
		startsItem := f.from && f.item
		f.item = false
		if op == openerWord && r.elementList(toks, i) {
			op = openerElements
		}
		r.push(frame{opener: op, item: op == openerElements, fromItem: startsItem || r.itemParen, cte: r.withEntry(toks, i),
			args: r.itemParen && !startsItem}, r.pendingCall)
		if c := r.topCall(); c != nil {
			c.argStart = true
		}
		r.itemParen, r.pendingCall = false, 0
		if startsItem && !r.startsQuery(i+1) {
			// A parenthesised join: its first token starts a
			// from-item too.
			r.top().from, r.top().item = true, true
		}
		return i + 1
	case t.isPunct(')'):
		i++
		if len(r.frames) > 1 {
			closed, call := r.pop()
			r.endCall(call)
			if closed.fromItem {
				i = r.alias(toks, i)
			}
		}
		return i
	case t.isPunct(','):
		if f.from || f.opener == openerElements {
			f.item = true
		}
		if c := r.topCall(); c != nil {
			c.arg++
			c.argStart = true
		}
		return i + 1
	case t.isPunct('@') && i+1 < len(toks) && toks[i+1].isPunct('{'):
		// A hint (JOIN @{join_method=HASH_JOIN} t, t @{…}): skipped
		// whole, so a from-item after it is still expected.
		for i < len(toks) && !toks[i].isPunct('}') {
			r.steps++
			i++
		}
		return i + 1
	case t.isPunct('|') && i+1 < len(toks) && toks[i+1].isPunct('>'):
		// A pipe operator ends the FROM list it follows, and the query
		// whose select list an alias declared later would be seen in.
		f.from, f.item = false, false
		r.endQuery()
		return r.pipeOperator(toks, i+2)
	default:
		f.item = false
		return i + 1
	}
}

// quotedDotsAt reports whether t is a quoted name with dots
// (`sales.orders`): one identifier to BigQuery's name scope, so it is no
// range variable's name, and the implicit alias of a table it ends is not
// its last part (the reader declares none, the strict side: a path that
// starts with that part is read as a table).
func quotedDotsAt(s *source, t token) bool {
	return t.kind() == QuotedIdent && strings.IndexByte(s.value(t), '.') >= 0
}

// withEntry reports whether the '(' at i opens a WITH entry's query:
// WITH name AS (, RECURSIVE name AS ( or , name AS ( (a later entry; a
// WINDOW clause's later window reads the same, and the scope it then
// opens only hides outer range variables from it, the strict side).
func (r *reader) withEntry(toks []token, i int) bool {
	if i < 3 || !r.isWord(toks, i-1, "AS") || toks[i-2].kind() != Word && toks[i-2].kind() != QuotedIdent {
		return false
	}
	return toks[i-3].isPunct(',') || r.isWord(toks, i-3, "WITH") || r.isWord(toks, i-3, "RECURSIVE")
}
