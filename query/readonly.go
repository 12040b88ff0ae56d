package query

// Lexical read-only guard.
//
// Read-only mode has two independent halves. The authoritative one asks
// BigQuery for a dry run and checks the statementType it reports; this file is
// the other half, a purely lexical check that runs before anything is sent.
// It must stand on its own: the local emulator reports every statement as a
// SELECT, and a defence in depth is only worth having if it does not lean on
// the layer it backs up.
//
// The check is deliberately small: tokenise GoogleSQL exactly as BigQuery's
// lexer does where it matters (strings, quoted identifiers, comments and the
// ';' separator), then look at the first keyword of the single statement. It
// is not a parser, so it errs towards rejection: anything it cannot classify
// as one SELECT or WITH query is refused with an explanation an agent can act
// on.

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
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

// CheckReadOnly returns nil when sql is exactly one statement that begins
// (after comments, whitespace and opening parentheses) with SELECT or WITH,
// and a *ReadOnlyViolation otherwise.
//
// A query is also refused when a data-modifying keyword (INSERT, UPDATE,
// DELETE, MERGE) appears at its top level, which catches "WITH … DELETE …",
// or when a pipe operator writes data ("|> EXPORT DATA", "|> INSERT",
// "|> CREATE TABLE"). Columns or parameters that happen to share a name with
// such a keyword must then be written `quoted` (t.update and @delete are fine).
func CheckReadOnly(sql string) error {
	toks, incomplete := lexSQL(sql)
	stmts := splitSQLTokens(toks)
	if incomplete != "" {
		return &ReadOnlyViolation{Reason: incomplete, Statements: len(stmts)}
	}
	switch len(stmts) {
	case 0:
		return &ReadOnlyViolation{
			Reason: "no statement found: the SQL is empty or contains only comments; send one SELECT or WITH query",
		}
	case 1:
		if kw, reason := checkQueryStatement(stmts[0]); reason != "" {
			return &ReadOnlyViolation{Keyword: kw, Reason: reason, Statements: 1}
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
		if kw, reason := checkQueryStatement(st); reason != "" {
			v.Keyword = kw
			if kw != "" {
				detail += fmt.Sprintf("; statement %d is %s", i+1, kw)
			}
			break
		}
	}
	v.Reason = "multi-statement scripts are not allowed in read-only mode (" + detail + "); send exactly one SELECT or WITH query"
	return v
}

// maxKeywordLen caps the keywords that are reported. Real statement keywords
// are short; anything longer is an identifier that only needs to be
// recognisable in a message.
const maxKeywordLen = 32

// checkQueryStatement reports whether one statement is a read-only query. It
// returns the keyword to blame and a reason, or reason == "" for a query.
func checkQueryStatement(st []sqlToken) (keyword, reason string) {
	kw, depth := leadingKeyword(st)
	if kw != "SELECT" && kw != "WITH" {
		return kw, statementReason(kw)
	}
	if w := writeInQuery(st, depth); w != "" {
		return w, fmt.Sprintf("%s inside a query modifies data; the server is read-only (quote identifiers named %s with backticks)",
			w, strings.ToLower(w))
	}
	if w := pipeWrite(st); w != "" {
		return w, fmt.Sprintf("the |> %s pipe operator writes data; the server is read-only", w)
	}
	return "", ""
}

// leadingKeyword returns the first word of a statement, upper-cased and
// capped, after any opening parentheses, together with the parenthesis depth
// it sits at. Words that start with a digit are numbers, not keywords.
func leadingKeyword(st []sqlToken) (kw string, depth int) {
	for _, t := range st {
		if t.isPunct('(') {
			depth++
			continue
		}
		if t.kind != tokWord || isDigit(t.text[0]) {
			return "", depth
		}
		w := t.text
		if len(w) > maxKeywordLen {
			w = w[:maxKeywordLen]
		}
		return strings.ToUpper(w), depth
	}
	return "", depth
}

// writeInQuery returns the first data-modifying keyword found at the top level
// of a query statement, or "". GoogleSQL has no query that contains such a
// keyword at its top level, so one there means the statement is not a query
// at all, e.g. "WITH x AS (SELECT 1) DELETE FROM t WHERE …". "Top level" is
// the depth of the leading keyword, so "(WITH … DELETE …)" is caught too;
// subqueries are deeper and may use such names freely.
//
// A word right after '.' or '@' is a path component or a query parameter
// (t.update, @delete); BigQuery's own lexer treats keywords there as plain
// identifiers, so they are skipped rather than rejected.
func writeInQuery(st []sqlToken, topDepth int) string {
	depth := 0
	for i, t := range st {
		switch {
		case t.isPunct('('):
			depth++
		case t.isPunct(')'):
			depth--
		case t.kind == tokWord && depth <= topDepth:
			if i > 0 && (st[i-1].isPunct('.') || st[i-1].isPunct('@')) {
				continue
			}
			for _, dml := range [...]string{"INSERT", "UPDATE", "DELETE", "MERGE"} {
				if strings.EqualFold(t.text, dml) {
					return dml
				}
			}
		}
	}
	return ""
}

// pipeWrite returns the operator name of the first pipe operator ("|>") that
// writes data, or "". GoogleSQL pipe syntax has terminal operators such as
// "|> EXPORT DATA", "|> INSERT INTO" and "|> CREATE TABLE" that turn a query
// into a write, and FORK/TEE can nest them inside parentheses, so every depth
// is checked. Read-only operators that share a name with a statement keyword
// ("|> DROP column", "|> SET", "|> CALL tvf()") are allowed.
func pipeWrite(st []sqlToken) string {
	for i := 0; i+2 < len(st); i++ {
		if !st[i].isPunct('|') || !st[i+1].isPunct('>') || st[i+2].kind != tokWord {
			continue
		}
		for _, op := range [...]string{"EXPORT", "INSERT", "CREATE", "UPDATE", "DELETE", "MERGE", "TRUNCATE", "LOAD"} {
			if strings.EqualFold(st[i+2].text, op) {
				return op
			}
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
	case "FROM":
		return "queries that start with FROM (pipe syntax) are not supported in read-only mode; start the query with SELECT, e.g. SELECT * FROM t |> WHERE …"
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

// splitSQLTokens groups tokens into statements separated by ';', dropping
// empty ones. Every returned group has at least one token.
func splitSQLTokens(toks []sqlToken) [][]sqlToken {
	var stmts [][]sqlToken
	start := 0
	for i, t := range toks {
		if t.isPunct(';') {
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

// sqlTokenKind classifies the few token shapes the guard cares about.
type sqlTokenKind uint8

const (
	// tokWord is an unquoted identifier, keyword or number: [A-Za-z0-9_]+.
	// String prefixes (r, b, rb, br) are words too: they do not change
	// where a literal ends, so they need no special case.
	tokWord sqlTokenKind = iota + 1
	// tokString is a string or bytes literal in any quoting, raw or not.
	tokString
	// tokQuotedIdent is a `backtick-quoted` identifier.
	tokQuotedIdent
	// tokPunct is any other single character (one UTF-8 sequence).
	tokPunct
)

// sqlToken is one significant token; text is a slice of the source from
// start to end.
type sqlToken struct {
	kind       sqlTokenKind
	start, end int
	text       string
}

func (t sqlToken) isPunct(c byte) bool {
	return t.kind == tokPunct && len(t.text) == 1 && t.text[0] == c
}

// lexSQL tokenises GoogleSQL, dropping whitespace and comments. It follows
// BigQuery's lexer (ZetaSQL's flex_tokenizer.l) on every rule that decides
// where a token ends:
//
//   - "--" and "#" comments run to the next '\n' or '\r'; "/* */" comments
//     do not nest.
//   - Single-line literals ('…' and "…") may not contain a raw newline;
//     triple-quoted literals may, and end at the first unescaped run of
//     three quotes.
//   - In every kind of literal and in `quoted identifiers`, a backslash and
//     the character after it are one unit, even in raw strings (BigQuery's
//     raw strings keep the backslash but the quote still does not close).
//
// SQL that ends inside a literal, identifier or comment, or a single-line
// literal broken by a newline, yields a non-empty agent-safe reason. BigQuery
// rejects such SQL too, and a guard that guessed where the construct ends could
// disagree with BigQuery about where the statement ends. The tokens read so far
// are still returned; an unterminated literal or identifier becomes a final
// token that runs to the end of the input.
func lexSQL(src string) (toks []sqlToken, incomplete string) {
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\b':
			i++
		case c == '#' || (c == '-' && strings.HasPrefix(src[i:], "--")):
			i = skipLineComment(src, i)
		case c == '/' && strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return toks, "the SQL is incomplete: a /* comment is not closed with */"
			}
			i += 2 + end + 2
		case c == '\'' || c == '"' || c == '`':
			end, reason := scanQuoted(src, i)
			kind := tokString
			if c == '`' {
				kind = tokQuotedIdent
			}
			if reason != "" {
				toks = append(toks, sqlToken{kind: kind, start: i, end: len(src), text: src[i:]})
				return toks, reason
			}
			toks = append(toks, sqlToken{kind: kind, start: i, end: end, text: src[i:end]})
			i = end
		case isWordByte(c):
			j := i + 1
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			toks = append(toks, sqlToken{kind: tokWord, start: i, end: j, text: src[i:j]})
			i = j
		case c >= utf8.RuneSelf:
			// Unicode whitespace (e.g. a no-break space pasted from a
			// document) separates tokens in BigQuery too; anything else
			// is a one-rune token that BigQuery will reject or use as it
			// likes, but never as a string or comment delimiter.
			r, n := utf8.DecodeRuneInString(src[i:])
			if !unicode.IsSpace(r) {
				toks = append(toks, sqlToken{kind: tokPunct, start: i, end: i + n, text: src[i : i+n]})
			}
			i += n
		default:
			toks = append(toks, sqlToken{kind: tokPunct, start: i, end: i + 1, text: src[i : i+1]})
			i++
		}
	}
	return toks, ""
}

// skipLineComment returns the offset of the line break that ends the comment
// starting at i, or len(src). Both '\n' and '\r' end it, as in BigQuery;
// ending it at '\r' alone matters, or "SELECT 1 --\r; DROP …" would hide a
// second statement from the guard but not from BigQuery.
func skipLineComment(src string, i int) int {
	if j := strings.IndexAny(src[i:], "\r\n"); j >= 0 {
		return i + j
	}
	return len(src)
}

// scanQuoted scans the string literal or quoted identifier whose opening quote
// is at src[i] and returns the offset just past its closing quote, or a
// non-empty reason when it is not terminated.
func scanQuoted(src string, i int) (end int, reason string) {
	q := src[i]
	if q != '`' && i+2 < len(src) && src[i+1] == q && src[i+2] == q {
		// Triple-quoted: newlines and lone quotes are content. BigQuery's
		// lexer picks this reading whenever three quotes open a literal,
		// since it is always the longer match.
		for j := i + 3; j < len(src); j++ {
			switch src[j] {
			case '\\':
				j++ // the escaped character never closes the literal
			case q:
				if j+2 < len(src) && src[j+1] == q && src[j+2] == q {
					return j + 3, ""
				}
			}
		}
		return 0, "the SQL is incomplete: a triple-quoted string is not closed"
	}
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case q:
			return j + 1, ""
		case '\n', '\r':
			if q == '`' {
				return 0, "the SQL is incomplete: a `quoted identifier` is not closed on its line"
			}
			return 0, "the SQL is incomplete: a quoted string is not closed on its line (use ''' or \"\"\" for multi-line strings)"
		}
	}
	if q == '`' {
		return 0, "the SQL is incomplete: a `quoted identifier` is not closed"
	}
	return 0, "the SQL is incomplete: a quoted string is not closed"
}

func isWordByte(c byte) bool {
	return c == '_' || isDigit(c) || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
