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
	// Graph is a property graph (GRAPH_TABLE(g …), GRAPH g, CREATE
	// PROPERTY GRAPH g). Its element tables are not in the text.
	Graph
	// Connection is a connection to a source outside BigQuery's datasets
	// (Cloud Storage, another database, a model endpoint): WITH
	// CONNECTION x, EXTERNAL_QUERY('x', …), connection_id => 'x',
	// OBJ.MAKE_REF(uri, 'x'). Its path is [project.]location.connection,
	// or [DEFAULT].
	Connection
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
	// Unplaced explains what the reader could not account for: a statement
	// kind it does not know, an object position it cannot read, a
	// malformed escape. A caller that must know every name refuses the
	// statement when it is not empty.
	Unplaced []string
}

// Text is one lexed SQL text.
type Text struct {
	// Tokens are the text's significant tokens (no whitespace or comments).
	Tokens []Token
	// Statements are the non-empty statements, split at ';'.
	Statements []Statement
	// Incomplete is non-empty, with an agent-safe reason, when the text
	// ends inside a literal, quoted identifier or comment.
	Incomplete string
}

// Parse lexes sql once and reads every statement in it, in time linear in
// len(sql) whatever sql holds (issue 28).
func Parse(sql string) *Text {
	var steps int
	return parse(sql, &steps)
}

// parse is Parse, adding to *steps the iterations of the lexer's and the
// reader's loops: TestReaderWorkIsLinear holds them to a small multiple of
// len(sql) on the inputs an attacker would choose, without a clock.
func parse(sql string, steps *int) *Text {
	toks, incomplete := lex(sql, steps)
	t := &Text{Tokens: toks, Incomplete: incomplete}
	for _, st := range split(toks, steps) {
		t.Statements = append(grow(t.Statements), readStatement(st, steps))
	}
	t.Statements = withTempFunctions(t.Statements)
	return t
}
