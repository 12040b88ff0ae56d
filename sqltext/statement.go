package sqltext

import (
	"slices"
	"strings"
)

// frame is one level of parentheses (the statement itself is the outermost).
type frame struct {
	// opener is the upper-cased word before the '(' that opened the frame.
	opener string
	// from is set while the frame is in a FROM list (or another list of
	// from-items: MERGE … USING, JOIN in pipe syntax).
	from bool
	// item is set where a from-item may start: right after FROM, JOIN, a
	// comma of a FROM list, or the '(' of a parenthesised join.
	item bool
	// cases counts the CASE expressions open in this frame: their WHEN
	// ends no FROM list.
	cases int
	// fromItem is set on a frame that is itself a from-item (a subquery,
	// a parenthesised join, UNNEST or a table function's arguments): the
	// alias after its ')' is a range variable.
	fromItem bool
	// call is set on the frame of a call's arguments whose function the
	// inventory knows (calls.go).
	call *callState
	// ranges are the range variables this frame's FROM lists declared
	// (aliases, or a table's last part when it has none), lower-cased.
	// A from-item path that starts with one visible here (this frame or
	// an enclosing one) is a correlated path (alias.array_column), not a
	// table; one declared in a closed subquery or CTE is not visible.
	// Only declare and forget change it, keeping reader.scopes in step.
	ranges map[string]bool
}

// reader reads one statement's tokens.
type reader struct {
	toks []Token
	st   Statement
	// frames holds one frame per open parenthesis, the statement's own
	// first.
	frames []frame
	// itemParen is set when the next '(' opens a from-item's parentheses
	// (UNNEST( or a table function's).
	itemParen bool
	// pendingCall is the known call whose arguments the next '(' opens.
	pendingCall *callState
	// exporting is set after EXPORT DATA or EXPORT MODEL: its uri
	// options are destinations.
	exporting bool
	ctes      map[string]bool
	// scopes are the open scopes of range variables: the statement's
	// (scopes[0], made by the first push or declare) and one per open
	// from-item frame, innermost last. A scope is the frames isRange
	// searches: its from-item frame and the frames above it up to the
	// next from-item. It counts, per name, how many of them declare it,
	// so that isRange looks once rather than down the frames.
	scopes []map[string]int
	// lead is leadingWord(toks), which DML keywords compare with.
	lead int
	// parens is the last run of '(' startsQuery looked past.
	parens parenRun
	// seen holds the reasons in st.Unplaced.
	seen map[string]bool
	// steps counts the iterations of the reader's loops (readStatement).
	steps int
}

func (r *reader) top() *frame { return &r.frames[len(r.frames)-1] }

// declare makes name a range variable of the current frame.
func (r *reader) declare(name string) {
	f := r.top()
	key := strings.ToLower(name)
	if f.ranges[key] {
		return
	}
	if f.ranges == nil {
		f.ranges = map[string]bool{}
	}
	f.ranges[key] = true
	if len(r.scopes) == 0 {
		r.scopes = append(r.scopes, nil)
	}
	s := &r.scopes[len(r.scopes)-1]
	if *s == nil {
		*s = map[string]int{}
	}
	(*s)[key]++
}

// forget drops the range variables the innermost frame, f, declared (when
// it closes, or a set operation starts a new query in it).
func (r *reader) forget(f *frame) {
	for key := range f.ranges {
		r.steps++
		r.scopes[len(r.scopes)-1][key]--
	}
	f.ranges = nil
}

// push opens a frame.
func (r *reader) push(f frame) {
	if f.fromItem {
		if len(r.scopes) == 0 {
			r.scopes = append(r.scopes, nil)
		}
		r.scopes = append(grow(r.scopes), nil)
	}
	if len(r.frames) == 1 && cap(r.frames) == 1 {
		// Make room for the deepest nesting at once, as lex does for
		// the tokens: "((((…" would otherwise copy its frames as they
		// grow. (A ')' inside a hint closes no frame, so there may be
		// more frames than depth counts; grow doubles then.)
		r.frames = slices.Grow(r.frames, r.depth())
	}
	r.frames = append(grow(r.frames), f)
}

// depth returns how deep the statement's parentheses nest.
func (r *reader) depth() int {
	depth, deepest := 0, 0
	for _, t := range r.toks {
		r.steps++
		switch {
		case t.IsPunct('('):
			depth++
			deepest = max(deepest, depth)
		case t.IsPunct(')') && depth > 0:
			depth--
		}
	}
	return deepest
}

// pop closes the innermost frame and returns it.
func (r *reader) pop() frame {
	f := r.top()
	if f.fromItem {
		r.scopes = r.scopes[:len(r.scopes)-1]
	} else {
		r.forget(f)
	}
	closed := *f
	r.frames = r.frames[:len(r.frames)-1]
	return closed
}

// isRange reports whether name is a range variable visible here: one that
// this frame or an enclosing one declares, up to and including the
// nearest from-item frame. A subquery in a FROM list sees no range
// variable of the list around it (BigQuery has no LATERAL); an expression
// subquery sees its query's.
//
// It is one look-up in the scope's counts, not a walk down the frames: a
// from-item path asks it, and a walk under n expression parentheses for
// each of n from-items would be quadratic (issue 28).
func (r *reader) isRange(name string) bool {
	r.steps++
	return len(r.scopes) > 0 && r.scopes[len(r.scopes)-1][strings.ToLower(name)] > 0
}

// readStatement reads the objects one statement names, and adds the
// iterations of the reader's loops to *steps: tests hold them to a small
// multiple of len(toks), so that no input makes the reader quadratic.
func readStatement(toks []Token, steps *int) Statement {
	r := newReader(toks)
	defer func() { *steps += r.steps }()
	r.st.Kind = statementKind(toks)
	r.st.Temporary = temporary(toks)
	if !knownKinds[r.st.Kind] {
		r.unplaced("the statement kind " + r.st.Kind + " is not one this server can check")
	}
	if r.st.Kind == "CREATE PROCEDURE" {
		if head, body, ok := procedureBody(toks); ok {
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
	return r.st
}

func newReader(toks []Token) *reader {
	r := &reader{toks: toks, frames: []frame{{}}, ctes: map[string]bool{}}
	r.lead = r.firstWord()
	return r
}

// unplaced records reason once. A set, not a search of st.Unplaced: it
// may be called for every token (a malformed escape in each).
func (r *reader) unplaced(reason string) {
	r.steps++
	if r.seen[reason] {
		return
	}
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	r.seen[reason] = true
	r.st.Unplaced = append(r.st.Unplaced, reason)
}

// scan walks the tokens once, keeping a frame per parenthesis, and reads a
// path wherever GoogleSQL names an object.
func (r *reader) scan() {
	toks := r.toks
	for _, t := range toks {
		r.steps++
		if t.BadEscape {
			r.unplaced("a quoted identifier holds an escape sequence BigQuery does not accept")
		}
	}
	for i := 0; i < len(toks); {
		r.steps++
		if next, ok := r.callArgument(toks, i); ok {
			i = next
			continue
		}
		t := toks[i]
		if t.Kind == Punct {
			i = r.punct(toks, i)
			continue
		}
		f := r.top()
		if t.Kind == Word && i > 0 && (toks[i-1].IsPunct('.') || toks[i-1].IsPunct('@')) {
			// A path part or a parameter (@x, @@dataset_id), never a
			// keyword.
			i++
			continue
		}
		if t.Kind == Word {
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
		// In an expression a '-' is a minus: a-ds.fn(1) calls ds.fn.
		path, next := readExprPath(toks, i, &r.steps)
		if len(path) == 0 {
			i++
			continue
		}
		r.expressionPath(path, toks, next)
		i = next
	}
}

// keyword handles a word that starts or changes an object position. It
// returns where to go on and whether it handled the word.
func (r *reader) keyword(toks []Token, i int, f *frame) (int, bool) {
	kw := strings.ToUpper(toks[i].Text)
	if i+1 < len(toks) && toks[i+1].IsPunct('.') && !reserved[kw] {
		return 0, false // the first part of a path (model.t)
	}
	if next, ok := r.clause(toks, i, kw, f); ok {
		return next, true
	}
	if kw == "GRAPH_TABLE" && i+1 < len(toks) && toks[i+1].IsPunct('(') {
		// GRAPH_TABLE(graph MATCH …): a from-item over a property graph,
		// whose first argument is the graph's name.
		if f.from && f.item {
			r.itemParen, f.item = true, false
		}
		r.object(toks, i+2, Graph, false)
		return i + 1, true
	}
	if next, ok := r.sourceClause(toks, i); ok {
		return next, true
	}
	if next, ok := r.objectKeyword(toks, i, kw); ok {
		return next, true
	}
	if i+2 < len(toks) && toks[i+1].IsWord("AS") && toks[i+2].IsPunct('(') && f.opener == "" && !f.from {
		// name AS ( … ): a CTE (WITH a AS (…), b AS (…)). It becomes a
		// range variable only where a FROM list names it.
		r.ctes[strings.ToLower(toks[i].Value)] = true
	}
	return 0, false
}

// clause handles the keywords that open, end or pause a FROM list.
func (r *reader) clause(toks []Token, i int, kw string, f *frame) (int, bool) {
	switch kw {
	case "FROM":
		prev := ""
		if i > 0 && toks[i-1].Kind == Word {
			prev = strings.ToUpper(toks[i-1].Text)
		}
		if f.opener == "EXTRACT" || prev == "DISTINCT" {
			return i + 1, true // EXTRACT(x FROM y), IS DISTINCT FROM
		}
		if r.st.Kind == "REVOKE" && i+1 < len(toks) && toks[i+1].Kind == String {
			return i + 1, true
		}
		if r.st.Kind == "LOAD DATA" && i+1 < len(toks) && toks[i+1].IsWord("FILES") {
			return i + 2, true // FROM FILES (options): no from-item
		}
		f.from, f.item = true, true
		return i + 1, true
	case "JOIN":
		f.from, f.item = true, true
		return i + 1, true
	case "USING":
		if r.st.Kind == "MERGE" && !f.from && len(r.st.Objects) > 0 {
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
		return i + 1, true
	case "UNION", "INTERSECT", "EXCEPT":
		// A set operation: the next query has a scope of its own.
		f.from, f.item = false, false
		r.forget(f)
		return i + 1, true
	case "CASE":
		f.cases++
		return i + 1, true
	case "END":
		if f.cases > 0 {
			f.cases--
		}
		return i + 1, true
	case "WHEN":
		if f.cases > 0 {
			return i + 1, true // CASE … WHEN, inside a join condition too
		}
		f.from, f.item = false, false // MERGE … WHEN [NOT] MATCHED
		return i + 1, true
	case "WHERE", "GROUP", "HAVING", "QUALIFY", "WINDOW", "ORDER", "LIMIT", "SELECT", "SET", "VALUES", "OPTIONS":
		// A clause that ends a FROM list.
		f.from, f.item = false, false
		return i + 1, true
	case "RECURSIVE":
		return i + 1, true
	}
	return 0, false
}

// objectKeyword handles the keywords after which GoogleSQL names an object.
func (r *reader) objectKeyword(toks []Token, i int, kw string) (int, bool) {
	switch kw {
	case "TABLE":
		if i+1 < len(toks) && toks[i+1].IsWord("FUNCTION") {
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
		return r.object(toks, i+1, Routine, false), true
	case "INTO", "OVERWRITE":
		return r.object(toks, i+1, Table, true), true
	case "UPDATE", "DELETE", "INSERT", "MERGE":
		if i == r.lead {
			j := i + 1
			if j < len(toks) && (toks[j].IsWord("INTO") || toks[j].IsWord("FROM")) {
				j++
			}
			return r.object(toks, j, Table, true), true
		}
		return 0, false
	case "RENAME":
		if i+1 < len(toks) && toks[i+1].IsWord("TO") {
			// ALTER … RENAME TO name: BigQuery keeps the dataset, but a
			// qualified name is read, not guessed.
			return r.object(toks, i+2, Table, true), true
		}
		return 0, false
	case "GRAPH":
		if i > 0 && toks[i-1].IsWord("PROPERTY") {
			return r.object(toks, i+1, Graph, true), true // CREATE/DROP PROPERTY GRAPH g
		}
		// GRAPH g MATCH …, as a statement or wherever GoogleSQL takes a
		// graph query: a path after GRAPH is read as a graph.
		if next := r.object(toks, i+1, Graph, false); next > i+1 {
			return next, true
		}
		return 0, false
	case "CONNECTION":
		if i > 0 && toks[i-1].IsWord("WITH") {
			return r.connection(toks, i+1, true), true // [REMOTE] WITH CONNECTION x
		}
		if i+1 < len(toks) && (toks[i+1].Kind == QuotedIdent || toks[i+1].Kind == Word && !reserved[strings.ToUpper(toks[i+1].Text)]) {
			return r.connection(toks, i+1, true), true // a CONNECTION x argument
		}
		return 0, false
	case "LIBRARY":
		if r.top().opener == "OPTIONS" && i+1 < len(toks) && toks[i+1].IsPunct('=') {
			r.st.External = append(r.st.External, "a JavaScript library is read from Cloud Storage, outside BigQuery's datasets")
		}
		return 0, false
	case "CONNECTION_ID":
		if namedArgument(toks, i) {
			return r.connection(toks, i+3, false), true // connection_id => 'x'
		}
		return 0, false
	case "EXPORT":
		if i+1 < len(toks) && (toks[i+1].IsWord("DATA") || toks[i+1].IsWord("MODEL")) {
			r.exporting = true
		}
		return 0, false
	case "URI":
		if r.exporting && r.top().opener == "OPTIONS" && i+1 < len(toks) && toks[i+1].IsPunct('=') {
			return r.exportURI(toks, i+2), true
		}
		return 0, false
	case "EXECUTE":
		r.unplaced("EXECUTE IMMEDIATE runs SQL that cannot be read before it runs")
		return 0, false
	}
	return 0, false
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

// object reads the path at i (after IF [NOT] EXISTS) as an object of kind
// and returns the index after it. A position with no path is left alone.
func (r *reader) object(toks []Token, i int, kind ObjectKind, write bool) int {
	for i < len(toks) && (toks[i].IsWord("IF") || toks[i].IsWord("NOT") || toks[i].IsWord("EXISTS")) {
		r.steps++
		i++
	}
	if i < len(toks) && toks[i].Kind == Word && reserved[strings.ToUpper(toks[i].Text)] {
		return i
	}
	path, next := readPath(toks, i, &r.steps)
	if len(path) == 0 {
		return i
	}
	r.add(Object{Kind: kind, Path: path, Write: write})
	return next
}

// add records an object, or an INFORMATION_SCHEMA path.
func (r *reader) add(o Object) {
	if hasInformationSchema(o.Path) {
		r.st.InformationSchema = append(r.st.InformationSchema, o.Path)
		return
	}
	if len(o.Path) == 1 && r.ctes[strings.ToLower(o.Path[0])] {
		return
	}
	r.st.Objects = append(grow(r.st.Objects), o)
}

// fromItem reads the from-item starting at i: a table path, a table-valued
// function call, or a correlated path. Parentheses and UNNEST are left to
// the scan. It returns where to go on.
func (r *reader) fromItem(toks []Token, i int) int {
	t := toks[i]
	if t.IsWord("UNNEST") {
		r.itemParen = true
		return i + 1
	}
	if t.Kind == Word && (reserved[strings.ToUpper(t.Text)] || t.IsWord("LATERAL")) {
		if i+1 < len(toks) && toks[i+1].IsPunct('(') && !t.IsWord("LATERAL") {
			// FROM IF(…): a call of a keyword, whose arguments the
			// reader cannot read as a table function's.
			r.unplaced("the table-valued function " + strings.ToUpper(t.Text) + " is not one this server can check")
		}
		return i + 1
	}
	path, next := readPath(toks, i, &r.steps)
	if len(path) == 0 {
		return i + 1
	}
	if next < len(toks) && toks[next].IsPunct('(') {
		r.tableCall(path)
		r.itemParen = true
		return next
	}
	if !(len(path) > 1 && r.isRange(path[0])) {
		// Not alias.array_column (an implicit UNNEST of a range
		// variable): a table.
		r.add(Object{Kind: Table, Path: path})
	}
	if j := r.alias(toks, next); j > next {
		return j
	}
	r.declare(path[len(path)-1])
	return next
}

// alias declares the from-item alias at i ([AS] name), if any, and returns
// the index after it.
func (r *reader) alias(toks []Token, i int) int {
	j := i
	if j < len(toks) && toks[j].IsWord("AS") {
		j++
	}
	if j < len(toks) && (toks[j].Kind == Word && !reserved[strings.ToUpper(toks[j].Text)] && !notAlias[strings.ToUpper(toks[j].Text)] || toks[j].Kind == QuotedIdent) {
		r.declare(toks[j].Value)
		return j + 1
	}
	return i
}

// punct handles the punctuation at i and returns where to go on:
// parentheses open and close frames, a comma continues a FROM list, a hint
// is skipped whole, a pipe operator ends the FROM list.
func (r *reader) punct(toks []Token, i int) int {
	t := toks[i]
	f := r.top()
	switch {
	case t.IsPunct('('):
		opener := ""
		if i > 0 && toks[i-1].Kind == Word {
			opener = strings.ToUpper(toks[i-1].Text)
		}
		startsItem := f.from && f.item
		f.item = false
		r.push(frame{opener: opener, fromItem: startsItem || r.itemParen, call: r.pendingCall})
		if r.pendingCall != nil {
			r.pendingCall.argStart = true
		}
		r.itemParen, r.pendingCall = false, nil
		if startsItem && !r.startsQuery(i+1) {
			// A parenthesised join: its first token starts a
			// from-item too.
			r.top().from, r.top().item = true, true
		}
		return i + 1
	case t.IsPunct(')'):
		i++
		if len(r.frames) > 1 {
			closed := r.pop()
			r.endCall(closed.call)
			if closed.fromItem {
				i = r.alias(toks, i)
			}
		}
		return i
	case t.IsPunct(','):
		if f.from {
			f.item = true
		}
		if f.call != nil {
			f.call.arg++
			f.call.argStart = true
		}
		return i + 1
	case t.IsPunct('@') && i+1 < len(toks) && toks[i+1].IsPunct('{'):
		// A hint (JOIN @{join_method=HASH_JOIN} t, t @{…}): skipped
		// whole, so a from-item after it is still expected.
		for i < len(toks) && !toks[i].IsPunct('}') {
			r.steps++
			i++
		}
		return i + 1
	case t.IsPunct('|') && i+1 < len(toks) && toks[i+1].IsPunct('>'):
		// A pipe operator ends the FROM list it follows.
		f.from, f.item = false, false
		return i + 2
	default:
		f.item = false
		return i + 1
	}
}
