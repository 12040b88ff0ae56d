package sqltext

// The lexical half of the read-only gate.
//
// Read-only mode has two independent halves. The authoritative one asks
// BigQuery for a dry run and checks the statementType it reports; this file is
// the other half, a purely lexical check that runs before anything is sent.
// It must stand on its own: the local emulator reports every statement as a
// SELECT, and a defence in depth is only worth having if it does not lean on
// the layer it backs up.
//
// The check is deliberately small: on the lexer's tokens, look at the first
// keyword of the single statement. It is not a parser, so it errs towards
// rejection: anything it cannot classify as one SELECT or WITH query is
// refused with an explanation an agent can act on.

import (
	"fmt"
	"strings"
)

// ReadOnlyViolation explains why a SQL text is not a single read-only query.
// Its fields never echo the SQL itself beyond one keyword, so it is safe to
// hand back to an agent verbatim.
type ReadOnlyViolation struct {
	// Keyword is the offending leading keyword, upper-case, e.g. "DELETE",
	// "CREATE", "EXPORT"; "" when not applicable (empty or incomplete SQL,
	// or a script made only of queries).
	Keyword string
	// Reason is an agent-safe explanation, e.g. "DELETE statements modify
	// data; the server is read-only".
	Reason string
	// Statements is the number of non-empty statements found.
	Statements int
}

// Error implements error.
func (v *ReadOnlyViolation) Error() string {
	return "read-only check failed: " + v.Reason
}

// ReadOnly returns nil when the text is exactly one statement that begins
// (after comments, whitespace and opening parentheses) with SELECT or WITH,
// temporary functions allowed before it, and a *ReadOnlyViolation
// otherwise. A query is also refused when a data-modifying keyword (INSERT,
// UPDATE, DELETE, MERGE) appears at its top level, which catches "WITH …
// DELETE …", or when a pipe operator writes data ("|> EXPORT DATA",
// "|> INSERT", "|> CREATE TABLE"); columns or parameters that share a name
// with such a keyword must then be written `quoted`. Parse ran the check;
// ReadOnly answers from its verdict and Incomplete.
func (t *Text) ReadOnly() error {
	switch {
	case !t.parsed:
		// A Text not made by Parse has no statement.
		var steps int
		return checkReadOnly(nil, nil, nil, t.Incomplete, &steps)
	case t.Incomplete != "":
		return &ReadOnlyViolation{Reason: t.Incomplete, Statements: t.statements}
	case t.readOnly == nil:
		return nil
	}
	v := *t.readOnly
	return &v
}

// checkReadOnly is the check on lexed SQL, split into statements (Parse
// splits once, for the reader and the check). It adds to *steps one step
// per iteration of each of its loops, which tests hold to a small multiple
// of the SQL's length (TestReaderWorkIsLinear): every statement is looked
// at in a bounded number of passes.
func checkReadOnly(s *source, toks []token, stmts []span, incomplete string, steps *int) error {
	if incomplete != "" {
		return &ReadOnlyViolation{Reason: incomplete, Statements: len(stmts)}
	}
	switch len(stmts) {
	case 0:
		return &ReadOnlyViolation{
			Reason: "no statement found: the SQL is empty or contains only comments; send one SELECT or WITH query",
		}
	case 1:
		if kw, reason := checkQueryStatement(s, stmts[0].of(toks), steps); reason != "" {
			return &ReadOnlyViolation{Keyword: kw, Reason: reason, Statements: 1}
		}
		return nil
	}
	if last := stmts[len(stmts)-1].of(toks); countedTempFunctions(s, toks, stmts[:len(stmts)-1], steps) {
		// Temporary functions and the one query that uses them: BigQuery
		// runs them as one query.
		if kw, reason := checkQueryStatement(s, last, steps); reason != "" {
			return &ReadOnlyViolation{Keyword: kw, Reason: reason, Statements: len(stmts)}
		}
		return nil
	}
	// A script: refuse it even when every statement is a query, because
	// scripts can declare variables, loop and call procedures, and because
	// a dry run classifies a script only as a whole (statementType SCRIPT).
	// Name the first offending statement, if any, so the agent knows what to
	// drop.
	v := &ReadOnlyViolation{Statements: len(stmts)}
	detail := fmt.Sprintf("found %d statements", len(stmts))
	for i, st := range stmts {
		*steps++
		if countedTempFunctions(s, toks, stmts[i:i+1], steps) {
			continue
		}
		if kw, reason := checkQueryStatement(s, st.of(toks), steps); reason != "" {
			v.Keyword = kw
			if kw != "" {
				detail += fmt.Sprintf("; statement %d is %s", i+1, kw)
			}
			break
		}
	}
	v.Reason = "multi-statement scripts are not allowed in read-only mode (" + detail + "); send exactly one SELECT or WITH query " +
		"(temporary functions may come before it); put values in the query as literals or query parameters instead of DECLARE and SET"
	return v
}

// countedTempFunctions reports whether every statement of stmts defines a
// temporary function (CREATE [OR REPLACE] TEMP[ORARY] [AGGREGATE]
// FUNCTION) whose body writes nothing, adding its work to *steps.
func countedTempFunctions(s *source, toks []token, stmts []span, steps *int) bool {
	for _, sp := range stmts {
		*steps++
		st := sp.of(toks)
		i := 1
		if len(st) > 3 && s.isWord(st[1], "OR") && s.isWord(st[2], "REPLACE") {
			i = 3
		}
		if i+1 >= len(st) || !s.isWord(st[0], "CREATE") || !(s.isWord(st[i], "TEMP") || s.isWord(st[i], "TEMPORARY")) {
			return false
		}
		if i++; s.isWord(st[i], "AGGREGATE") {
			i++
		}
		if i >= len(st) || !s.isWord(st[i], "FUNCTION") || pipeWrite(s, st, steps) != "" || exportIn(s, st, steps) != "" {
			return false
		}
	}
	return true
}

// maxKeywordLen caps the keywords that are reported. Real statement keywords
// are short; anything longer is an identifier that only needs to be
// recognisable in a message.
const maxKeywordLen = 32

// checkQueryStatement reports whether one statement is a read-only query. It
// returns the keyword to blame and a reason, or reason == "" for a query.
func checkQueryStatement(s *source, st []token, steps *int) (keyword, reason string) {
	kw, depth := leadingKeyword(s, st, steps)
	switch kw {
	case "SELECT", "WITH", "FROM", "GRAPH":
		// A query: pipe syntax may start with FROM; GRAPH starts a graph
		// query.
	default:
		return kw, statementReason(kw)
	}
	dml, pipe, export := writesIn(s, st, depth, steps)
	if w := dml; w != "" {
		return w, fmt.Sprintf("%s inside a query modifies data; the server is read-only (quote identifiers named %s with backticks)",
			w, strings.ToLower(w))
	}
	if w := pipe; w != "" {
		return w, fmt.Sprintf("the |> %s pipe operator writes data; the server is read-only", w)
	}
	if w := export; w != "" {
		return "EXPORT", "EXPORT " + w + " writes outside BigQuery; the server is read-only"
	}
	return "", ""
}

// writesIn looks at a query statement once for the three ways it can
// write, and returns the first of each, or "":
//
//   - dml is the first data-modifying keyword at the top level.
//     GoogleSQL has no query that contains such a keyword at its top
//     level, so one there means the statement is not a query at all, e.g.
//     "WITH x AS (SELECT 1) DELETE FROM t WHERE …". "Top level" is the
//     depth of the leading keyword, topDepth, so "(WITH … DELETE …)" is
//     caught too; subqueries are deeper and may use such names freely.
//   - pipe is pipeWrite's.
//   - export is exportIn's.
//
// A word right after '.' or '@' is a path component or a query parameter
// (t.update, @delete); BigQuery's own lexer treats keywords there as plain
// identifiers, so they are skipped rather than rejected.
//
// It adds one step per token to *steps.
func writesIn(s *source, st []token, topDepth int, steps *int) (dml, pipe, export string) {
	depth := 0
	for i, t := range st {
		*steps++
		switch {
		case t.isPunct('('):
			depth++
		case t.isPunct(')'):
			depth--
		case t.isPunct('|'):
			if pipe == "" {
				pipe = pipeWriteAt(s, st, i)
			}
		case t.kind() == Word && !afterPathDot(st, i):
			if dml == "" && depth <= topDepth {
				dml = dmlWord(s, t)
			}
			if export == "" {
				export = exportAt(s, st, i)
			}
		}
	}
	return dml, pipe, export
}

// leadingKeyword is the first word of a statement, upper-cased and capped,
// after any opening parentheses, with the parenthesis depth it sits at
// (words that start with a digit are numbers, not keywords), adding one
// step per token it looks at.
func leadingKeyword(s *source, st []token, steps *int) (kw string, depth int) {
	for _, t := range st {
		*steps++
		if t.isPunct('(') {
			depth++
			continue
		}
		if t.kind() != Word || isDigit(s.sql[t.start]) {
			return "", depth
		}
		w := s.text(t)
		if len(w) > maxKeywordLen {
			w = w[:maxKeywordLen]
		}
		return upper(w), depth
	}
	return "", depth
}

// dmlWord returns the data-modifying keyword the word t is, or "".
func dmlWord(s *source, t token) string {
	for _, dml := range [...]string{"INSERT", "UPDATE", "DELETE", "MERGE"} {
		if s.isWord(t, dml) {
			return dml
		}
	}
	return ""
}

// exportIn returns DATA or MODEL when EXPORT DATA or EXPORT MODEL appears
// anywhere in the statement (WITH … EXPORT DATA, |> EXPORT DATA, inside
// parentheses), or "". A column named export is then written `export`.
// It adds one step per token to *steps.
func exportIn(s *source, st []token, steps *int) string {
	for i := 0; i+1 < len(st); i++ {
		*steps++
		if afterPathDot(st, i) {
			continue
		}
		if w := exportAt(s, st, i); w != "" {
			return w
		}
	}
	return ""
}

// exportAt returns DATA or MODEL when EXPORT DATA or EXPORT MODEL starts
// at i, or "".
func exportAt(s *source, st []token, i int) string {
	if i+1 < len(st) && s.isWord(st[i], "EXPORT") && (s.isWord(st[i+1], "DATA") || s.isWord(st[i+1], "MODEL")) {
		return upper(s.text(st[i+1]))
	}
	return ""
}

// pipeWrite returns the operator name of the first pipe operator ("|>") that
// writes data, or "". GoogleSQL pipe syntax has terminal operators such as
// "|> EXPORT DATA", "|> INSERT INTO" and "|> CREATE TABLE" that turn a query
// into a write, and FORK/TEE can nest them inside parentheses, so every depth
// is checked. Read-only operators that share a name with a statement keyword
// ("|> DROP column", "|> SET", "|> CALL tvf()") are allowed.
//
// It adds one step per token to *steps; the operators it compares with are
// a fixed list, one step.
func pipeWrite(s *source, st []token, steps *int) string {
	for i := 0; i+2 < len(st); i++ {
		*steps++
		if w := pipeWriteAt(s, st, i); w != "" {
			return w
		}
	}
	return ""
}

// pipeWriteAt returns the operator name when a pipe operator that writes
// data starts at i, or "".
func pipeWriteAt(s *source, st []token, i int) string {
	if i+2 >= len(st) || !st[i].isPunct('|') || !st[i+1].isPunct('>') || st[i+2].kind() != Word {
		return ""
	}
	for _, op := range [...]string{"EXPORT", "INSERT", "CREATE", "UPDATE", "DELETE", "MERGE", "TRUNCATE", "LOAD"} {
		if s.isWord(st[i+2], op) {
			return op
		}
	}
	return ""
}

// statementReason explains why a statement whose leading keyword is kw (not
// SELECT or WITH) is refused. The wording names the class of statement so an
// agent understands that rephrasing will not help.
func statementReason(kw string) string {
	switch kw {
	case "":
		return "the statement does not begin with SELECT or WITH; only a single read-only query is allowed in read-only mode"
	case "INSERT", "UPDATE", "DELETE", "MERGE", "TRUNCATE":
		return kw + " statements modify data; the server is read-only"
	case "CREATE", "ALTER", "DROP", "UNDROP", "RENAME", "REPLACE":
		return kw + " statements change datasets, tables, views, routines or other resources (DDL); the server is read-only"
	case "EXPORT":
		return "EXPORT statements write query results to external storage; the server is read-only"
	case "LOAD":
		return "LOAD statements write data into tables; the server is read-only"
	case "CALL":
		return "CALL runs a stored procedure, which can modify data; the server is read-only"
	case "GRANT", "REVOKE":
		return kw + " statements change access control; the server is read-only"
	case "EXECUTE":
		return "EXECUTE IMMEDIATE runs dynamic SQL that cannot be checked in advance; the server is read-only"
	case "BEGIN", "COMMIT", "ROLLBACK", "END":
		return kw + " belongs to transactions or script blocks, which are not allowed in read-only mode; send one SELECT or WITH query"
	case "DECLARE", "SET", "IF", "LOOP", "WHILE", "REPEAT", "FOR", "BREAK", "LEAVE",
		"CONTINUE", "ITERATE", "RETURN", "RAISE", "ASSERT":
		return kw + " is a scripting statement, which is not allowed in read-only mode; send one SELECT or WITH query"
	default:
		return kw + " statements are not allowed in read-only mode; send one SELECT or WITH query"
	}
}
