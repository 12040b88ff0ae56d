package sqltext

// Statements that hold statements: a CREATE PROCEDURE's BEGIN … END body,
// and temporary functions that BigQuery runs together with the one query
// after them.

// blocks counts the blocks open in a procedure's body: BEGIN … END, and
// CASE … END, which closes with the same word. IF, LOOP, WHILE, FOR and
// REPEAT close with END IF, END LOOP, …, and are not counted at either end.
type blocks struct{ depth int }

// step counts the token at i.
func (b *blocks) step(toks []Token, i int) {
	t := toks[i]
	if t.Kind != Word || i > 0 && (toks[i-1].IsPunct('.') || toks[i-1].IsPunct('@')) {
		return
	}
	switch {
	case t.IsWord("BEGIN") && opensBlock(toks, i), t.IsWord("CASE"):
		b.depth++
	case t.IsWord("END"):
		if i+1 < len(toks) {
			switch n := toks[i+1]; {
			case n.IsWord("IF"), n.IsWord("LOOP"), n.IsWord("WHILE"), n.IsWord("FOR"), n.IsWord("REPEAT"):
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
func opensBlock(toks []Token, i int) bool {
	if i+1 < len(toks) && (toks[i+1].IsPunct(';') || toks[i+1].IsWord("TRANSACTION")) {
		return false
	}
	if i == 0 {
		return true
	}
	p := toks[i-1]
	if p.IsPunct(';') || p.IsPunct(')') {
		return true
	}
	for _, w := range [...]string{"BEGIN", "THEN", "ELSE", "DO", "LOOP", "REPEAT"} {
		if p.IsWord(w) {
			return true
		}
	}
	return false
}

// createsProcedure reports whether the statement starting at toks is
// CREATE [OR REPLACE] [TEMP|TEMPORARY] PROCEDURE.
func createsProcedure(toks []Token) bool {
	if len(toks) == 0 || !toks[0].IsWord("CREATE") {
		return false
	}
	for _, t := range toks[1:min(len(toks), 5)] {
		switch {
		case t.IsWord("PROCEDURE"):
			return true
		case t.IsWord("OR"), t.IsWord("REPLACE"), t.IsWord("TEMP"), t.IsWord("TEMPORARY"):
		default:
			return false
		}
	}
	return false
}

// temporary reports whether a CREATE statement makes a temporary object.
func temporary(toks []Token) bool {
	if len(toks) == 0 || !toks[0].IsWord("CREATE") {
		return false
	}
	for _, t := range toks[1:min(len(toks), 4)] {
		if t.IsWord("TEMP") || t.IsWord("TEMPORARY") {
			return true
		}
	}
	return false
}

// procedureBody splits a CREATE PROCEDURE into its head (up to BEGIN) and
// the statements of its body (between BEGIN and the matching END). ok is
// false when it has no such body (a procedure in another language) or
// text follows the END.
func procedureBody(toks []Token) (head, body []Token, ok bool) {
	var b blocks
	begin := -1
	for i := range toks {
		b.step(toks, i)
		if begin < 0 {
			if b.depth == 1 && toks[i].IsWord("BEGIN") {
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

// splitBody cuts a block's statements at the semicolons outside its inner
// blocks.
func splitBody(toks []Token) [][]Token {
	var stmts [][]Token
	var b blocks
	start := 0
	for i, t := range toks {
		b.step(toks, i)
		if t.IsPunct(';') && b.depth == 0 {
			if i > start {
				stmts = append(stmts, toks[start:i])
			}
			start = i + 1
		}
	}
	if start < len(toks) {
		stmts = append(stmts, toks[start:])
	}
	return stmts
}

// readBody reads a procedure's body: each of its statements as a
// statement of its own, whose objects, connections and exports are the
// procedure's. DECLARE and SET hold only expressions and are read as such;
// any other scripting statement (IF, LOOP, a nested BEGIN …) is a kind the
// reader does not know, and unplaced.
func (r *reader) readBody(body []Token) {
	for _, toks := range splitBody(body) {
		var st Statement
		switch kind := statementKind(toks); kind {
		case "DECLARE", "SET":
			inner := newReader(toks)
			inner.st.Kind = kind
			inner.scan()
			inner.finish()
			st = inner.st
			r.steps += inner.steps
		case "CREATE PROCEDURE":
			r.unplaced("a procedure's body creates a procedure")
			continue
		default:
			st = readStatement(toks, &r.steps)
		}
		r.st.Objects = append(r.st.Objects, st.Objects...)
		r.st.InformationSchema = append(r.st.InformationSchema, st.InformationSchema...)
		r.st.External = append(r.st.External, st.External...)
		r.st.ExportURIs = append(r.st.ExportURIs, st.ExportURIs...)
		for _, u := range st.Unplaced {
			r.unplaced(u)
		}
	}
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
	q := Statement{Kind: "SELECT", TempFunctions: n - 1}
	seen := map[string]bool{}
	for _, st := range stmts {
		for _, o := range st.Objects {
			if st.Kind != "SELECT" && o.Write && o.Kind == Routine && len(o.Path) == 1 {
				continue // the temporary function's own name
			}
			q.Objects = append(q.Objects, o)
		}
		q.InformationSchema = append(q.InformationSchema, st.InformationSchema...)
		q.External = append(q.External, st.External...)
		q.ExportURIs = append(q.ExportURIs, st.ExportURIs...)
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
