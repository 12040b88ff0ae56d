// Package sqltext reads GoogleSQL text the way BigQuery resolves it, for the
// checks that run before a statement is sent: the read-only guard
// (Text.ReadOnly) and the dataset allowlist (Statement.Objects). A call
// lexes its SQL once, with Parse, and every check reads the same Text.
//
// It is not a parser. It lexes the text once, exactly where BigQuery's lexer
// decides where a token ends, decodes every quoting and escape form so that
// names compare as BigQuery resolves them, and then finds every object path
// in every position where GoogleSQL names an object: from-items anywhere in
// a list, TABLE and MODEL arguments, qualified function and procedure calls,
// and the targets of DDL, DCL, LOAD DATA and table copies. What it cannot
// place it reports in Statement.Unplaced, so a caller that must account for
// every name can refuse the statement instead of guessing. The tests in
// integration_test check it against ZetaSQL, BigQuery's own parser.
package sqltext

import "sync"

// ObjectKind says what kind of object a path names.
type ObjectKind uint8

const (
	// Table is anything in table position: a table, view, materialized
	// view, snapshot, external table or wildcard table prefix.
	Table ObjectKind = iota + 1
	// Model is a BigQuery ML model (MODEL x, CREATE MODEL x).
	Model
	// Routine is a persistent function, table function or procedure.
	Routine
	// Dataset is a dataset (GoogleSQL's schema): CREATE SCHEMA x,
	// GRANT … ON SCHEMA x.
	Dataset
	// Graph is a property graph (GRAPH_TABLE(g …), GRAPH g,
	// GRAPH_EXPAND(g), CREATE PROPERTY GRAPH g). A graph query's node and
	// edge tables are not in the text (the caller must look them up); the
	// ones CREATE PROPERTY GRAPH builds on are, read as tables.
	Graph
	// Connection is a connection to a source outside BigQuery's datasets
	// (Cloud Storage, another database, a model endpoint): WITH
	// CONNECTION x, EXTERNAL_QUERY('x', …), connection_id => 'x',
	// OBJ.MAKE_REF(uri, 'x'). Its path is [project.]location.connection,
	// or [DEFAULT].
	Connection
	// KMSKey is a Cloud KMS key, which BigQuery asks to encrypt or
	// decrypt with the job's credentials in any project:
	// KEYS.KEYSET_CHAIN('gcp-kms://projects/p/…/cryptoKeys/k', …) and the
	// other functions of reachFunctions, OPTIONS (kms_key_name = '…').
	// Its path is [project location keyRing key].
	KMSKey
)

func (k ObjectKind) String() string {
	switch k {
	case Table:
		return "table"
	case Model:
		return "model"
	case Routine:
		return "routine"
	case Dataset:
		return "dataset"
	case Graph:
		return "property graph"
	case Connection:
		return "connection"
	case KMSKey:
		return "Cloud KMS key"
	}
	return "object"
}

// Object is one object a statement names.
type Object struct {
	Kind ObjectKind
	// Path holds the name's parts as BigQuery reads them: quoting removed,
	// escapes decoded, a quoted part holding dots split at them
	// (`p.d.t` and p.d.t are both [p d t]).
	Path []string
	// Write is set when the statement creates, changes, drops or grants on
	// the object rather than only reading it.
	Write bool
}

// Statement is what one statement of a text names.
type Statement struct {
	// Kind is the statement's leading keywords, upper-case: "SELECT" (also
	// for WITH and parenthesised queries), "INSERT", "UPDATE", "DELETE",
	// "MERGE", "TRUNCATE TABLE", "CREATE TABLE", "CREATE VIEW", "DROP
	// SCHEMA", "GRANT", "CALL", "LOAD DATA", "EXPORT DATA", …; the first
	// keyword alone for statements the reader does not know.
	Kind string
	// Objects are the objects the statement names, in text order. A path
	// of one part without a default dataset may be a CTE or alias; those
	// the reader recognises as such are left out.
	Objects []Object
	// InformationSchema are the paths that contain INFORMATION_SCHEMA (in
	// any spelling), wherever they appear.
	InformationSchema [][]string
	// External explains each way the statement reads or writes outside
	// BigQuery's datasets other than through a named connection: the
	// files of an external table, LOAD DATA's files. The connections it
	// names are among Objects.
	External []string
	// ExportURIs are the destinations EXPORT DATA or EXPORT MODEL write
	// to (their uri option), in any position (WITH … EXPORT DATA, a pipe's
	// |> EXPORT DATA).
	ExportURIs []string
	// Temporary is set on CREATE TEMP FUNCTION and the other statements
	// that make a temporary object.
	Temporary bool
	// TempFunctions counts the temporary functions defined before a query
	// in the same text: BigQuery runs them and the query as one query, and
	// Parse reads them as one Statement whose objects include those their
	// bodies name.
	TempFunctions int
	// Start and End are the byte offsets in the text of the statement's
	// first token and just past its last (of the temporary functions' and
	// the query's together when they are read as one), for a caller that
	// lines the statements up with another parser's.
	Start, End int
	// Unplaced explains what the reader could not account for: a statement
	// kind it does not know, an object position it cannot read, a
	// malformed escape. A caller that must know every name refuses the
	// statement when it is not empty.
	Unplaced []string
}

// Text is one lexed SQL text.
type Text struct {
	// Statements are the non-empty statements, split at ';'.
	Statements []Statement
	// Incomplete is non-empty, with an agent-safe reason, when the text
	// ends inside a literal, quoted identifier or comment, or is longer
	// than BigQuery accepts (more than 8 MiB: Lex).
	Incomplete string
	// parsed is set on a Text Parse made. readOnly is its read-only
	// guard's verdict (checkReadOnly) were it complete, and statements
	// the number of its statements: ReadOnly answers from them.
	parsed     bool
	readOnly   *ReadOnlyViolation
	statements int
	// sql is the text; src and toks are its significant tokens, in the
	// readers' form, lexed again the first time NumTokens or Token is
	// called (lexOnce). Parse's own are in a buffer the next text reuses
	// (parser).
	sql     string
	lexOnce sync.Once
	src     *source
	toks    []token
}

// tokens returns the text's source and tokens, lexing it the first time.
func (t *Text) tokens() (*source, []token) {
	t.lexOnce.Do(func() {
		var steps int
		t.src, t.toks, _ = lex(t.sql, &steps)
	})
	return t.src, t.toks
}

// NumTokens returns the number of the text's significant tokens (no
// whitespace or comments). The first call lexes the text again: Parse
// keeps no tokens.
func (t *Text) NumTokens() int {
	_, toks := t.tokens()
	return len(toks)
}

// Token returns the text's i'th significant token, 0 <= i < NumTokens().
// Its Text and Value are the SQL's, or the name lexing decoded.
func (t *Text) Token(i int) Token {
	s, toks := t.tokens()
	return s.token(toks[i])
}

// Parse lexes sql once and reads every statement in it, in time linear in
// len(sql) whatever sql holds (issue 28). It runs the read-only guard too,
// for Text.ReadOnly.
func Parse(sql string) *Text {
	var steps int
	return parse(sql, &steps)
}

// parse is Parse, adding to *steps the iterations of the lexer's, the
// reader's and the read-only guard's loops: TestReaderWorkIsLinear holds
// them to a small multiple of len(sql) on the inputs an attacker would
// choose, without a clock.
func parse(sql string, steps *int) *Text {
	p := parsers.Get().(*parser)
	defer p.release()
	s, toks, incomplete := p.lex(sql, steps)
	t := &Text{Incomplete: incomplete, parsed: true, sql: sql}
	stmts := p.split(s, toks, steps)
	if len(stmts) > 0 {
		t.Statements = make([]Statement, 0, len(stmts))
	}
	a := arena{readers: p.readers}
	for _, st := range stmts {
		span := st.of(toks)
		rs := readStatement(s, span, &a, steps)
		rs.Start, rs.End = int(span[0].start), int(span[len(span)-1].end())
		t.Statements = append(t.Statements, rs)
	}
	p.readers = a.readers
	t.Statements = withTempFunctions(t.Statements)
	if v := checkReadOnly(s, toks, stmts, "", steps); v != nil {
		t.readOnly = v.(*ReadOnlyViolation)
	}
	t.statements = len(stmts)
	return t
}
