package sqltext

import (
	"hash/maphash"
	"slices"
	"strings"
)

// frame is one level of parentheses (the statement itself is the outermost).
// It is five bytes, with no pointer: "((((…" pushes as many frames as a
// text has bytes. What only some frames have is kept beside them, for those
// frames alone: their calls (reader.openCalls), range-variable scopes
// (reader.scopes), CASEs (reader.cases) and range variables
// (reader.decls).
type frame struct {
	// opener is the word before the '(' that opened the frame.
	opener opener
	// from is set while the frame is in a FROM list (or another list of
	// from-items: MERGE … USING, JOIN in pipe syntax).
	from bool
	// item is set where a from-item may start: right after FROM, JOIN, a
	// comma of a FROM list, or the '(' of a parenthesised join.
	item bool
	// fromItem is set on a frame that is itself a from-item (a subquery,
	// a parenthesised join, UNNEST or a table function's arguments): the
	// alias after its ')' is a range variable. It opens a scope of range
	// variables (reader.scopes).
	fromItem bool
	// call is set on the frame of a call's arguments whose function the
	// inventory knows (calls.go): the innermost of reader.openCalls.
	call bool
}

// openCases counts the CASE expressions open in one frame: their WHEN
// ends no FROM list.
type openCases struct{ frame, n int32 }

// opener is the word before a frame's '(', as far as the reader asks.
type opener uint8

const (
	// openerNone: no word (or the statement's own frame).
	openerNone opener = iota
	// openerWord: a word other than the ones below.
	openerWord
	openerExtract
	openerOptions
)

// openerOf returns the opener for the word w.
func openerOf(w string) opener {
	switch keywordOf(w) {
	case "EXTRACT":
		return openerExtract
	case "OPTIONS":
		return openerOptions
	}
	return openerWord
}

// rangeDecl is one frame's declaration of a range variable (an alias, or a
// table's last part when it has none).
type rangeDecl struct {
	// key is the name, lower-cased.
	key string
	// frame is the declaring frame's index in reader.frames.
	frame int32
	// prev is the index in reader.decls of the same name's declaration
	// before this one, by a frame below, or -1.
	prev int32
}

// reader reads one statement's tokens.
type reader struct {
	src  *source
	toks []token
	st   Statement
	// known is knownKinds[st.Kind].
	known bool
	// frames holds one frame per open parenthesis, the statement's own
	// first; sized is set once push has made room for them all.
	frames []frame
	sized  bool
	// itemParen is set when the next '(' opens a from-item's parentheses
	// (UNNEST( or a table function's).
	itemParen bool
	// pendingCall is the known call whose arguments the next '(' opens:
	// one more than its index in calls, or 0.
	pendingCall int32
	// calls are the known calls read so far, and openCalls the indices
	// in calls of the open frames' calls, innermost last.
	calls     []callState
	openCalls []int32
	// scopes are the indices of the open from-item frames, innermost
	// last: each opens a scope of range variables, which holds it and
	// the frames above it up to the next.
	scopes []int32
	// cases are the open frames' counts of open CASEs, for the frames
	// with any, innermost last.
	cases []openCases
	// exporting is set after EXPORT DATA or EXPORT MODEL: its uri
	// options are destinations.
	exporting bool
	ctes      map[string]bool
	// decls are the range variables the open frames declare, in the
	// order of the frames (a stack: a frame declares only while it is on
	// top), and latest is the index in decls of each name's last
	// declaration, once there are more than a few (lastDecl). A
	// from-item path that starts with a name some frame of its scope
	// declares (that frame, or one up to the nearest from-item frame
	// below it) is a correlated path (alias.array_column), not a table;
	// one declared in a closed subquery or CTE is not visible. isRange
	// asks latest once rather than walking down the frames.
	decls  []rangeDecl
	latest map[string]int32
	// lead is leadingWord(toks), which DML keywords compare with.
	lead int
	// parens is the last run of '(' startsQuery looked past.
	parens parenRun
	// seen holds the reasons in st.Unplaced.
	seen reasonSet
	// arena holds the parts of the paths read (readPath), and pathBuf
	// those of the function call read last (expressionPath).
	arena   *arena
	pathBuf []string
	// objs are the objects found, in text order: objects makes them
	// st.Objects once the statement is read, in one slice of the right
	// length, rather than growing it object by object (a slice of
	// Objects holds pointers, and growing one copies them).
	objs objectRecs
	// steps counts the iterations of the reader's loops (readStatement).
	steps int
}

func (r *reader) top() *frame { return &r.frames[len(r.frames)-1] }

// topCall returns the call whose arguments the innermost frame holds, or
// nil. The pointer is good until the next open.
func (r *reader) topCall() *callState {
	if !r.top().call {
		return nil
	}
	return &r.calls[r.openCalls[len(r.openCalls)-1]]
}

// topCases returns the number of CASEs open in the innermost frame.
func (r *reader) topCases() int32 {
	if n := len(r.cases); n > 0 && int(r.cases[n-1].frame) == len(r.frames)-1 {
		return r.cases[n-1].n
	}
	return 0
}

// addCase adds d (1 or -1) to the CASEs open in the innermost frame.
func (r *reader) addCase(d int32) {
	top := int32(len(r.frames) - 1)
	if n := len(r.cases); n > 0 && r.cases[n-1].frame == top {
		if r.cases[n-1].n += d; r.cases[n-1].n == 0 {
			r.cases = r.cases[:n-1]
		}
		return
	}
	r.cases = append(grow(r.cases), openCases{frame: top, n: d})
}

// fewDecls is how many declarations lastDecl searches before it keeps
// them in a map: most statements declare a few names, and a map each
// would cost more than the search.
const fewDecls = 8

// lastDecl returns the index in decls of key's last declaration, or -1.
func (r *reader) lastDecl(key string) int32 {
	if r.latest != nil {
		if d, ok := r.latest[key]; ok {
			return d
		}
		return -1
	}
	for d := len(r.decls) - 1; d >= 0; d-- {
		r.steps++
		if r.decls[d].key == key {
			return int32(d)
		}
	}
	return -1
}

// declare makes name a range variable of the current frame.
func (r *reader) declare(name string) {
	key := strings.ToLower(name)
	top := int32(len(r.frames) - 1)
	prev := r.lastDecl(key)
	if prev >= 0 && r.decls[prev].frame == top {
		return // the frame declares it already
	}
	if r.latest == nil && len(r.decls) == fewDecls {
		r.latest = make(map[string]int32, 2*fewDecls)
		for d, decl := range r.decls {
			r.steps++
			r.latest[decl.key] = int32(d)
		}
	}
	if r.latest != nil {
		r.latest[key] = int32(len(r.decls))
	}
	r.decls = append(grow(r.decls), rangeDecl{key: key, frame: top, prev: prev})
}

// forget drops the range variables the innermost frame declared (when it
// closes, or a set operation starts a new query in it): the last of
// decls.
func (r *reader) forget() {
	top := int32(len(r.frames) - 1)
	i := len(r.decls)
	for ; i > 0 && r.decls[i-1].frame == top; i-- {
		r.steps++
		if d := r.decls[i-1]; r.latest != nil && d.prev < 0 {
			delete(r.latest, d.key)
		} else if r.latest != nil {
			r.latest[d.key] = d.prev
		}
	}
	r.decls = r.decls[:i]
}

// push opens a frame; call is the known call whose arguments it holds
// (one more than its index in calls), or 0.
func (r *reader) push(f frame, call int32) {
	if f.fromItem {
		r.scopes = append(grow(r.scopes), int32(len(r.frames)))
	}
	if call > 0 {
		f.call = true
		r.openCalls = append(grow(r.openCalls), call-1)
	}
	if !r.sized {
		// Make room for the deepest nesting at once, as lex does for
		// the tokens: "((((…" would otherwise copy its frames as they
		// grow. (A ')' inside a hint closes no frame, so there may be
		// more frames than depth counts; grow doubles then.) A reader
		// used before may have the room already.
		r.sized = true
		if depth := r.depth(); cap(r.frames) < len(r.frames)+depth {
			r.frames = slices.Grow(r.frames, depth)
		}
	}
	r.frames = append(grow(r.frames), f)
}

// depth returns how deep the statement's parentheses nest.
func (r *reader) depth() int {
	depth, deepest := 0, 0
	for _, t := range r.toks {
		r.steps++
		switch {
		case t.isPunct('('):
			depth++
			deepest = max(deepest, depth)
		case t.isPunct(')') && depth > 0:
			depth--
		}
	}
	return deepest
}

// pop closes the innermost frame and returns it, with the call whose
// arguments it held, or nil (good until the next open).
func (r *reader) pop() (frame, *callState) {
	r.forget()
	closed := *r.top()
	var call *callState
	if closed.call {
		call = &r.calls[r.openCalls[len(r.openCalls)-1]]
		r.openCalls = r.openCalls[:len(r.openCalls)-1]
	}
	if closed.fromItem {
		r.scopes = r.scopes[:len(r.scopes)-1]
	}
	if r.topCases() > 0 {
		r.cases = r.cases[:len(r.cases)-1]
	}
	r.frames = r.frames[:len(r.frames)-1]
	return closed, call
}

// isRange reports whether name is a range variable visible here: one that
// this frame or an enclosing one declares, up to and including the
// nearest from-item frame. A subquery in a FROM list sees no range
// variable of the list around it (BigQuery has no LATERAL); an expression
// subquery sees its query's.
//
// It is one look-up, not a walk down the frames: a from-item path asks it,
// and a walk under n expression parentheses for each of n from-items would
// be quadratic (issue 28). The name's last declaration is by the
// innermost frame that declares it, and the frames of the scope are the
// innermost ones.
func (r *reader) isRange(name string) bool {
	r.steps++
	d := r.lastDecl(strings.ToLower(name))
	scope := int32(0)
	if len(r.scopes) > 0 {
		scope = r.scopes[len(r.scopes)-1]
	}
	return d >= 0 && r.decls[d].frame >= scope
}

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

// reasonSet is the set of a statement's reasons (st.Unplaced), for
// unplaced: a table of their indices by their hashes, open addressing. A
// map of the reasons would hash each of them again each time it grows, and
// hold pointers for the garbage collector to scan; a text can have as many
// reasons as it has calls.
type reasonSet struct {
	// table holds one more than the index of a reason, or 0, at the
	// reason's hash modulo its length (a power of two, at least twice
	// the number of reasons), or after it; hashes are the reasons'
	// hashes, by index.
	table  []int32
	hashes []uint64
}

var reasonSeed = maphash.MakeSeed()

// add adds reason, the n'th, to the set of reasons, which are list[:n],
// and reports whether it is new. It adds the table entries it looks at to
// *steps.
func (s *reasonSet) add(reason string, n int, list []string, steps *int) bool {
	h := maphash.String(reasonSeed, reason)
	if 2*(n+1) > len(s.table) {
		s.table = make([]int32, max(16, 2*len(s.table)))
		for i, h := range s.hashes[:n] {
			*steps++
			s.put(int32(i), h)
		}
	}
	mask := uint64(len(s.table) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		*steps++
		e := s.table[i]
		if e == 0 {
			break
		}
		if s.hashes[e-1] == h && list[e-1] == reason {
			return false
		}
	}
	s.put(int32(n), h)
	s.hashes = append(grow(s.hashes[:n]), h)
	return true
}

// put puts the index of a reason whose hash is h in the table.
func (s *reasonSet) put(index int32, h uint64) {
	mask := uint64(len(s.table) - 1)
	i := h & mask
	for s.table[i] != 0 {
		i = (i + 1) & mask
	}
	s.table[i] = index + 1
}

// isWord reports whether toks[i] is the word w, in any case.
func (r *reader) isWord(toks []token, i int, w string) bool { return r.src.isWord(toks[i], w) }

// afterPathDot reports whether the token at i follows a '.' or an '@': a
// path part or a parameter (@x, @@dataset_id), never a keyword.
func afterPathDot(toks []token, i int) bool {
	return i > 0 && (toks[i-1].isPunct('.') || toks[i-1].isPunct('@'))
}

// scan walks the tokens once, keeping a frame per parenthesis, and reads a
// path wherever GoogleSQL names an object.
func (r *reader) scan() {
	toks := r.toks
	for _, t := range toks {
		if !r.src.bad {
			break // no token of the text is bad
		}
		r.steps++
		if t.bad() {
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
		if t.kind() == Punct {
			i = r.punct(toks, i)
			continue
		}
		f := r.top()
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
		r.ctes[strings.ToLower(r.src.value(toks[i]))] = true
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
		return i + 1, true
	case "UNION", "INTERSECT", "EXCEPT":
		// A set operation: the next query has a scope of its own.
		f.from, f.item = false, false
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
		return r.object(toks, i+1, Routine, false), true
	case "INTO", "OVERWRITE":
		return r.object(toks, i+1, Table, true), true
	case "UPDATE", "DELETE", "INSERT", "MERGE":
		if i == r.lead {
			j := i + 1
			if j < len(toks) && (r.isWord(toks, j, "INTO") || r.isWord(toks, j, "FROM")) {
				j++
			}
			return r.object(toks, j, Table, true), true
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
	case "LIBRARY":
		if r.top().opener == openerOptions && i+1 < len(toks) && toks[i+1].isPunct('=') {
			r.st.External = append(r.st.External, "a JavaScript library is read from Cloud Storage, outside BigQuery's datasets")
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
	case "URI":
		if r.exporting && r.top().opener == openerOptions && i+1 < len(toks) && toks[i+1].isPunct('=') {
			return r.exportURI(toks, i+2), true
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

// object reads the path at i (after IF [NOT] EXISTS) as an object of kind
// and returns the index after it. A position with no path is left alone.
func (r *reader) object(toks []token, i int, kind ObjectKind, write bool) int {
	for i < len(toks) && (r.isWord(toks, i, "IF") || r.isWord(toks, i, "NOT") || r.isWord(toks, i, "EXISTS")) {
		r.steps++
		i++
	}
	if i < len(toks) && r.isReserved(toks[i]) {
		return i
	}
	path, next := r.readPath(toks, i)
	if len(path) == 0 {
		return i
	}
	r.add(kind, path, write)
	return next
}

// add records an object, or an INFORMATION_SCHEMA path: the path in the
// arena (a copy, when path is not the one allocated last).
func (r *reader) add(kind ObjectKind, path []string, write bool) {
	if hasInformationSchema(path) {
		r.st.InformationSchema = append(r.st.InformationSchema, r.arena.parts(r.arena.ref(path)))
		return
	}
	if len(path) == 1 && r.ctes[strings.ToLower(path[0])] {
		return
	}
	r.objs.add(objectRec{path: r.arena.ref(path), kind: kind, write: write})
}

// objectRec is an Object as the reader collects them, without a pointer:
// its path is in the arena.
type objectRec struct {
	path  pathRef
	kind  ObjectKind
	write bool
}

// objects returns r.objs as Objects, or nil for none.
func (r *reader) objects() []Object {
	if r.objs.n == 0 {
		return nil
	}
	objects := make([]Object, 0, r.objs.n)
	for _, c := range r.objs.chunks[:r.objs.used] {
		for _, o := range c {
			r.steps++
			objects = append(objects, Object{Kind: o.kind, Path: r.arena.parts(o.path), Write: o.write})
		}
	}
	return objects
}

// objectRecs is a list of objectRecs in chunks, which grows without
// copying and empties (reset) without freeing them.
type objectRecs struct {
	// chunks[:used] hold the records; n counts them.
	chunks [][]objectRec
	used   int
	n      int
}

func (l *objectRecs) add(o objectRec) {
	if l.used == 0 || len(l.chunks[l.used-1]) == cap(l.chunks[l.used-1]) {
		if l.used == len(l.chunks) {
			size := 8
			if l.used > 0 {
				size = min(2*cap(l.chunks[l.used-1]), 1024)
			}
			l.chunks = append(l.chunks, make([]objectRec, 0, size))
		}
		l.chunks[l.used] = l.chunks[l.used][:0]
		l.used++
	}
	l.chunks[l.used-1] = append(l.chunks[l.used-1], o)
	l.n++
}

// reset empties the list, keeping its chunks.
func (l *objectRecs) reset() { l.used, l.n = 0, 0 }

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
	if !(len(path) > 1 && r.isRange(path[0])) {
		// Not alias.array_column (an implicit UNNEST of a range
		// variable): a table.
		r.add(Table, path, false)
	}
	last := path[len(path)-1]
	if j := r.alias(toks, next); j > next {
		return j
	}
	r.declare(last)
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
		r.push(frame{opener: op, fromItem: startsItem || r.itemParen}, r.pendingCall)
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
		if f.from {
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
		// A pipe operator ends the FROM list it follows.
		f.from, f.item = false, false
		return i + 2
	default:
		f.item = false
		return i + 1
	}
}
