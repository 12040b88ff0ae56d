package sqltext

import (
	"hash/maphash"
	"slices"
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
	// alias after its ')' is a range variable. But for UNNEST's, it opens
	// a scope of range variables (reader.scopes, opensScope).
	fromItem bool
	// call is set on the frame of a call's arguments whose function the
	// inventory knows (calls.go): the innermost of reader.openCalls.
	call bool
	// cte is set on a WITH entry's parentheses (WITH c AS (…), d AS
	// (…)): BigQuery resolves a CTE's query with no outer range
	// variables, even in a subquery, so it opens a scope.
	cte bool
	// args is set on a from-item call's arguments (a table-valued
	// function's, GRAPH_TABLE's): they are read seeing no range variable
	// outside them, as a CTE's query is (the strict side).
	args bool
}

// opensScope reports whether the frame opens a scope of range variables:
// a from-item's parentheses (a subquery, a parenthesised join, a table
// function's arguments: BigQuery has no LATERAL), but UNNEST's; and a
// CTE's.
func (f frame) opensScope() bool { return f.fromItem && f.opener != openerUnnest || f.cte }

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
	// openerUnnest: UNNEST(…), whose argument, an expression, sees the
	// range variables around it (a correlated array), so its from-item
	// frame opens no scope.
	openerUnnest
	// openerElements: a property graph's NODE TABLES (…) or EDGE TABLES
	// (…), whose every entry starts with the table it is built on
	// (elements, objects.go).
	openerElements
)

// openerOf returns the opener for the word w.
func openerOf(w string) opener {
	switch keywordOf(w) {
	case "EXTRACT":
		return openerExtract
	case "OPTIONS":
		return openerOptions
	case "UNNEST":
		return openerUnnest
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
	// scope is the index in reader.scopes of the innermost scope open
	// when it was declared, or -1.
	scope int32
}

// scopeFrame is a frame that opens a scope of range variables (a
// from-item's or a CTE's parentheses): its index in reader.frames, and
// owner, the frame of the query whose FROM list holds it (or 0 for a CTE,
// which sees no outer range variable). The range variables of the frames
// from owner up to it are hidden from it (BigQuery has no LATERAL); those
// below owner, of the queries an expression subquery correlates to, are
// not.
//
// isolated is the frame of the innermost CTE or from-item call at or below
// it (or 0): those see no range variable below them at all.
type scopeFrame struct{ at, owner, isolated int32 }

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
	// scopes are the open from-item and CTE frames, innermost last:
	// each opens a scope of range variables, which holds it and the
	// frames above it up to the next, and hides the range variables of
	// the FROM list that holds it (isRange).
	scopes []scopeFrame
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
	// queries are the open frames' queries, innermost last, and
	// selecting counts those in their select lists (scope.go).
	queries   []openQuery
	selecting int32
	// fromDecls and candidates are what the first scan notes for a
	// second (scope.go); pre is set in the second: the aliases to declare
	// at each query's SELECT.
	fromDecls  []fromDecl
	candidates []string
	pre        map[int32][]string
	// target is the name of an UPDATE's or MERGE's target's range
	// variable, and targetState where it is in scope (scope.go).
	target      string
	targetState uint8
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

// foldName returns name with its ASCII letters lower-cased, as BigQuery
// compares range variables' and CTEs' names: only ASCII letters fold, so
// strings.ToLower, which makes the Kelvin sign a k and a dotted capital I
// an i, would let the alias `\u212Api` hide the dataset kpi.
func foldName(name string) string {
	for i := 0; i < len(name); i++ {
		if c := name[i]; 'A' <= c && c <= 'Z' {
			b := []byte(name)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return name
}

// declare makes name a range variable of the current frame.
func (r *reader) declare(name string) {
	key := foldName(name)
	top := int32(len(r.frames) - 1)
	prev := r.lastDecl(key)
	if prev >= 0 && r.decls[prev].frame == top {
		return // the frame declares it already
	}
	r.noteFromDecl(key)
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
	r.decls = append(grow(r.decls), rangeDecl{key: key, frame: top, prev: prev, scope: int32(len(r.scopes) - 1)})
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
	if f.opensScope() {
		// The query whose FROM list holds the frame is the frame below
		// it, or, when that is a scope's frame too (a parenthesised join,
		// a table function's arguments, a subquery in a FROM subquery),
		// that frame's owner: the strict side for a subquery, whose own
		// FROM's range variables it then hides with its siblings'.
		at, owner, isolated := int32(len(r.frames)), int32(len(r.frames)-1), int32(0)
		n := len(r.scopes)
		if n > 0 {
			isolated = r.scopes[n-1].isolated
		}
		if f.cte || f.args {
			owner, isolated = 0, at
		} else if n > 0 && r.scopes[n-1].at == at-1 {
			owner = r.scopes[n-1].owner
		}
		r.scopes = append(grow(r.scopes), scopeFrame{at: at, owner: owner, isolated: isolated})
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
	r.endQuery()
	r.forget()
	closed := *r.top()
	var call *callState
	if closed.call {
		call = &r.calls[r.openCalls[len(r.openCalls)-1]]
		r.openCalls = r.openCalls[:len(r.openCalls)-1]
	}
	if closed.opensScope() {
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
// nearest from-item frame, or one that a query further out declares,
// which an expression subquery correlates to. A subquery in a FROM list
// sees no range variable of the list around it (BigQuery has no LATERAL),
// but does see those of the queries around that list's query: in SELECT
// (SELECT MAX(x) FROM (SELECT x FROM e.arr)) FROM t AS e, e.arr is the
// outer row's array, as BigQuery resolves it. A CTE sees none.
//
// It is one look-up, not a walk down the frames: a from-item path asks it,
// and a walk under n expression parentheses for each of n from-items would
// be quadratic (issue 28). The name's last declaration is by the
// innermost frame that declares it (an earlier one it hides is not
// looked at: the strict side), made while the scopes up to its own were
// open; the scopes opened since hide it when a CTE or a from-item call
// among them is above it, or when it lies from the owner of the first of
// them up (scopeFrame), since each later one's owner is at or above that
// first one's.
func (r *reader) isRange(name string) bool {
	r.steps++
	d := r.lastDecl(foldName(name))
	if d < 0 {
		return false
	}
	decl, n := r.decls[d], int32(len(r.scopes))
	if n > 0 && decl.frame < r.scopes[n-1].isolated {
		return false // below a CTE or a from-item call
	}
	if next := decl.scope + 1; next < n {
		// The owners of the scopes above next are at or above next's
		// (each is the frame below its scope, or its parent scope's
		// owner) but where a CTE or a call isolates, handled above.
		return decl.frame < r.scopes[next].owner
	}
	return true
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
