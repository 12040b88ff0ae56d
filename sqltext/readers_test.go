package sqltext

// The text-in, tokens-in forms of the readers that the package's tests and
// fuzz targets drive: production code reads a text once, through Parse, and
// asks its Text (ReadOnly, Statements); these read a string or Tokens
// again for each call.

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
	var steps int
	return checkReadOnlySQL(sql, &steps)
}

// checkReadOnlySQL is CheckReadOnly, adding its work to *steps.
func checkReadOnlySQL(sql string, steps *int) error {
	p := parsers.Get().(*parser)
	defer p.release()
	s, toks, incomplete := p.lex(sql, steps)
	return checkReadOnly(s, toks, p.split(s, toks, steps), incomplete, steps)
}

// LeadingKeyword returns the first word of a statement, upper-cased and
// capped, after any opening parentheses, together with the parenthesis depth
// it sits at. Words that start with a digit are numbers, not keywords.
func LeadingKeyword(st []Token) (kw string, depth int) {
	var steps int
	s, compact := fromTokens(st)
	return leadingKeyword(s, compact, &steps)
}
