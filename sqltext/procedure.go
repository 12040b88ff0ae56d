package sqltext

import (
	"slices"
)

// Statements that hold statements: a CREATE PROCEDURE's BEGIN … END body,
// and temporary functions that BigQuery runs together with the one query
// after them.

// blocks counts the blocks open in a procedure's body: BEGIN … END, and
// CASE … END, which closes with the same word. IF, LOOP, WHILE, FOR and
// REPEAT close with END IF, END LOOP, …, and are not counted at either end.
type blocks struct{ depth int }

// step counts the token at i.
func (b *blocks) step(s *source, toks []token, i int) {
	t := toks[i]
	if t.kind() != Word || afterPathDot(toks, i) {
		return
	}
	switch keywordOf(s.text(t)) {
	case "BEGIN":
		if !opensBlock(s, toks, i) {
			return
		}
		b.depth++
	case "CASE":
		b.depth++
	case "END":
		if i+1 < len(toks) {
			switch n := toks[i+1]; {
			case s.isWord(n, "IF"), s.isWord(n, "LOOP"), s.isWord(n, "WHILE"), s.isWord(n, "FOR"), s.isWord(n, "REPEAT"):
				return
			}
		}
		if b.depth > 0 {
			b.depth--
		}
	}
}

// opensBlock reports whether the BEGIN at i opens a block: where a
// statement starts (after ';', the procedure's parameters or OPTIONS, or a
// word that a block follows), and not BEGIN [TRANSACTION];.
func opensBlock(s *source, toks []token, i int) bool {
	if i+1 < len(toks) && (toks[i+1].isPunct(';') || s.isWord(toks[i+1], "TRANSACTION")) {
		return false
	}
	if i == 0 {
		return true
	}
	p := toks[i-1]
	if p.isPunct(';') || p.isPunct(')') {
		return true
	}
	for _, w := range [...]string{"BEGIN", "THEN", "ELSE", "DO", "LOOP", "REPEAT"} {
		if s.isWord(p, w) {
			return true
		}
	}
	return false
}

// createsProcedure reports whether the statement starting at toks is
// CREATE [OR REPLACE] [TEMP|TEMPORARY] PROCEDURE.
func createsProcedure(s *source, toks []token) bool {
	if len(toks) == 0 || !s.isWord(toks[0], "CREATE") {
		return false
	}
	for _, t := range toks[1:min(len(toks), 5)] {
		switch {
		case s.isWord(t, "PROCEDURE"):
			return true
		case s.isWord(t, "OR"), s.isWord(t, "REPLACE"), s.isWord(t, "TEMP"), s.isWord(t, "TEMPORARY"):
		default:
			return false
		}
	}
	return false
}

// temporary reports whether a CREATE statement makes a temporary object.
func temporary(s *source, toks []token) bool {
	if len(toks) == 0 || !s.isWord(toks[0], "CREATE") {
		return false
	}
	for _, t := range toks[1:min(len(toks), 4)] {
		if s.isWord(t, "TEMP") || s.isWord(t, "TEMPORARY") {
			return true
		}
	}
	return false
}

// procedureBody splits a CREATE PROCEDURE into its head (up to BEGIN) and
// the statements of its body (between BEGIN and the matching END). ok is
// false when it has no such body (a procedure in another language) or
// text follows the END.
func procedureBody(s *source, toks []token) (head, body []token, ok bool) {
	var b blocks
	begin := -1
	for i := range toks {
		b.step(s, toks, i)
		if begin < 0 {
			if b.depth == 1 && s.isWord(toks[i], "BEGIN") {
				begin = i
			} else if b.depth > 0 {
				return nil, nil, false // a CASE before the body
			}
			continue
		}
		if b.depth == 0 {
			if i != len(toks)-1 {
				return nil, nil, false
			}
			return toks[:begin], toks[begin+1 : i], true
		}
	}
	return nil, nil, false
}

// readBody reads a procedure's body: each of its statements as a
// statement of its own, whose objects, connections and exports are the
// procedure's. DECLARE and SET hold only expressions and are read as such;
// any other scripting statement (IF, LOOP, a nested BEGIN …) is a kind the
// reader does not know, and unplaced.
func (r *reader) readBody(body []token) {
	var steps int // the body's tokens were counted when the text was split
	for _, sp := range split(r.src, body, nil, &steps, true) {
		toks := sp.of(body)
		// Each statement is read into the buffers of the one before: its
		// Statement is only added to the procedure's.
		inner := r.arena.reader(r.src, toks)
		inner.st = Statement{InformationSchema: r.arena.body.InformationSchema[:0],
			External: r.arena.body.External[:0], ExportURIs: r.arena.body.ExportURIs[:0], Unplaced: r.arena.body.Unplaced[:0]}
		switch kind, _ := statementKind(r.src, toks); kind {
		case "DECLARE", "SET":
			inner.st.Kind = kind
			if kind == "SET" {
				inner.systemVariables()
			}
			inner.scan()
			inner.finish()
		case "CREATE PROCEDURE":
			r.arena.release(inner)
			r.unplaced("a procedure's body creates a procedure")
			continue
		case "CALL":
			// As at the top level: the procedure it calls runs statements
			// nobody read.
			inner.read()
			inner.unplaced("a procedure's body calls a procedure, which runs statements that cannot be checked before they run")
		default:
			inner.read()
		}
		r.steps += inner.steps
		st := inner.st
		for _, c := range inner.objs.chunks[:inner.objs.used] {
			for _, o := range c {
				r.steps++
				r.objs.add(o)
			}
		}
		r.arena.body = st
		r.arena.release(inner)
		r.st.InformationSchema = appendAll(r.st.InformationSchema, st.InformationSchema)
		r.st.External = appendAll(r.st.External, st.External)
		r.st.ExportURIs = appendAll(r.st.ExportURIs, st.ExportURIs)
		for _, u := range st.Unplaced {
			r.unplaced(u)
		}
	}
}

// harmlessVariables are the system variables a procedure's body may set:
// the others change what its names mean (@@dataset_id,
// @@dataset_project_id), where its jobs run or are billed (@@location,
// @@reservation) or how they are labelled (@@query_label).
var harmlessVariables = map[string]bool{"time_zone": true}

// systemVariables refuses a SET statement of a procedure's body that
// assigns a system variable other than harmlessVariables (SET
// @@dataset_id = …, SET (@@dataset_project_id, @@dataset_id) = (…)): the
// statements after it would name other objects than the ones read.
func (r *reader) systemVariables() {
	depth := 0
	for i, t := range r.toks {
		r.steps++
		switch {
		case t.isPunct('('):
			depth++
		case t.isPunct(')'):
			depth--
		case t.isPunct('=') && depth == 0:
			return // the assigned value: system variables there are read
		case t.isPunct('@') && i+1 < len(r.toks) && r.toks[i+1].isPunct('@'):
			name := ""
			if i+2 < len(r.toks) && r.toks[i+2].kind() == Word {
				name = foldName(r.src.text(r.toks[i+2]))
			}
			if !harmlessVariables[name] {
				r.unplaced("a procedure's body sets the system variable @@" + name + ", which changes what its statements name or where they run")
			}
		}
	}
}

// appendAll appends more to s, doubling s when it is full (grow).
func appendAll[S ~[]E, E any](s, more S) S {
	if len(s)+len(more) > cap(s) {
		s = slices.Grow(s, max(len(more), len(s), 4))
	}
	return append(s, more...)
}

// withTempFunctions reads temporary functions followed by one query as the
// one query BigQuery runs them as (statementType SELECT): the objects their
// bodies name are the query's, and their own names, which only the query
// sees, are not objects.
func withTempFunctions(stmts []Statement) []Statement {
	n := len(stmts)
	if n < 2 || stmts[n-1].Kind != "SELECT" {
		return stmts
	}
	for _, st := range stmts[:n-1] {
		if !isTempFunction(st) {
			return stmts
		}
	}
	q := Statement{Kind: "SELECT", TempFunctions: n - 1, Start: stmts[0].Start, End: stmts[n-1].End}
	seen := map[string]bool{}
	for _, st := range stmts {
		for _, o := range st.Objects {
			if st.Kind != "SELECT" && o.Write && o.Kind == Routine && len(o.Path) == 1 {
				continue // the temporary function's own name
			}
			q.Objects = append(grow(q.Objects), o)
		}
		q.InformationSchema = appendAll(q.InformationSchema, st.InformationSchema)
		q.External = appendAll(q.External, st.External)
		q.ExportURIs = appendAll(q.ExportURIs, st.ExportURIs)
		for _, u := range st.Unplaced {
			if !seen[u] {
				seen[u] = true
				q.Unplaced = append(q.Unplaced, u)
			}
		}
	}
	return []Statement{q}
}

func isTempFunction(st Statement) bool {
	return st.Temporary && (st.Kind == "CREATE FUNCTION" || st.Kind == "CREATE AGGREGATE FUNCTION")
}
