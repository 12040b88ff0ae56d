package integration_test

// The reference parser as the oracle for sqltext (issue 17): ZetaSQL, the
// parser BigQuery's GoogleSQL comes from, reads every statement of a corpus;
// every table, model, routine and dataset path its parse tree names must be
// one that sqltext names too, or sqltext must refuse the statement (put
// something in Statement.Unplaced). ZetaSQL's grammar in go-zetasql v0.5.5 is
// older than today's BigQuery, so what it cannot parse is counted, not
// failed.
//
// Run it alone with
//
//	CGO_ENABLED=1 CC=clang CXX=clang++ go test -count=1 -run TestSQLTextOracle .
//
// and fuzz it with
//
//	CGO_ENABLED=1 CC=clang CXX=clang++ go test -run '^$' -fuzz FuzzSQLTextOracle -fuzztime 5m -parallel 1 .
//
// (-parallel 1: go-zetasql never frees a parse's output, so every fuzz
// worker grows by a few kilobytes per input.)

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	zetasql "github.com/goccy/go-zetasql"
	"github.com/goccy/go-zetasql/ast"

	"github.com/bigquery-mcp/bigquery-mcp/sqltext"
)

// zetaName is one object path that ZetaSQL's parse tree names.
type zetaName struct {
	Kind sqltext.ObjectKind
	// Path is the name's parts: ZetaSQL's identifiers (quoting removed,
	// escapes decoded), each split at the dots a quoted identifier holds.
	Path  []string
	Write bool
	// Where says which parse-tree position named it (for messages).
	Where string
	// Offset is the byte offset of the path in the SQL text.
	Offset int
}

func (n zetaName) String() string {
	s := fmt.Sprintf("%s %s", n.Kind, strings.Join(quoteParts(n.Path), "."))
	if n.Write {
		s += " (write)"
	}
	return s + " at " + n.Where
}

func quoteParts(p []string) []string {
	q := make([]string, len(p))
	for i, s := range p {
		q[i] = "`" + strings.ReplaceAll(s, "`", "\\`") + "`"
	}
	return q
}

// builtinNamespaces are the first parts of BigQuery's built-in function
// names (NET.HOST, ML.PREDICT, SAFE.<any function>, BQ.<system procedure>…):
// a call through one of them names no routine of a dataset. Kept
// independently of sqltext's own list on purpose.
var builtinNamespaces = map[string]bool{
	"SAFE": true, "NET": true, "ML": true, "AI": true, "KEYS": true,
	"AEAD": true, "HLL_COUNT": true, "KLL_QUANTILES": true, "OBJ": true,
	"BQ": true, "VECTOR_INDEX": true,
}

var (
	zetaOptsOnce sync.Once
	zetaOpts     *zetasql.ParserOptions
)

func zetaParserOptions() *zetasql.ParserOptions {
	zetaOptsOnce.Do(func() {
		lang := zetasql.NewLanguageOptions()
		// Features still "in development" in this old ZetaSQL (QUALIFY,
		// FOR … IN, REPEAT, CASE statements, remote functions…) are
		// released in BigQuery.
		lang.EnableMaximumLanguageFeaturesForDevelopment()
		lang.SetSupportsAllStatementKinds()
		// BigQuery reserves QUALIFY; ZetaSQL leaves that to the product.
		_ = lang.EnableReservableKeyword("QUALIFY", true)
		zetaOpts = zetasql.NewParserOptions()
		zetaOpts.SetLanguageOptions(lang)
	})
	return zetaOpts
}

// zetaParse parses sql as a script and returns the number of top-level
// statements and every object path the parse tree names, in tree order.
func zetaParse(sql string) (int, []zetaName, error) {
	script, err := zetasql.ParseScript(sql, zetaParserOptions(), zetasql.ErrorMessageOneLine)
	if err != nil {
		return 0, nil, err
	}
	var top []ast.Node
	if s, ok := script.(*ast.ScriptBaseNode); ok {
		for _, st := range s.StatementList() {
			top = append(top, st)
		}
	} else {
		top = append(top, script)
	}
	var names []zetaName
	for _, st := range top {
		w := &zetaWalker{}
		w.push()
		w.walk(st, false)
		if w.slashPath {
			return 0, nil, errSlashPath
		}
		for _, n := range w.names {
			if n.keep() {
				names = append(names, n)
			}
		}
	}
	return len(top), names, nil
}

// keep drops the paths the oracle does not ask sqltext for: one-part names
// (CTEs, aliases, tables of the default dataset, which the server checks on
// its own) except datasets, and calls of built-in namespaced functions.
// (From-items that start with a range variable are left out by the walk.)
func (n zetaName) keep() bool {
	if len(n.Path) == 0 {
		return false
	}
	if len(n.Path) == 1 && n.Kind != sqltext.Dataset {
		return false
	}
	if n.Kind == sqltext.Routine && !n.Write && builtinNamespaces[strings.ToUpper(n.Path[0])] {
		return false
	}
	return true
}

// zetaWalker collects the names of one top-level statement.
//
// It keeps GoogleSQL's scopes of range variables, so that a from-item
// `x.y` is taken for a correlated path (an array field of the range
// variable x) only where x is visible: declared to its left in the same
// FROM clause, or in the FROM clause of an enclosing query (a correlated
// subquery), or as the target of the enclosing UPDATE, DELETE or MERGE. A
// range variable declared inside a subquery is not visible outside it, and
// a subquery in a FROM clause (or a table function's argument) does not see
// its sibling from-items: there x.y is the table y of dataset x, as in
// BigQuery. CTE names and script variables are not range variables.
type zetaWalker struct {
	names  []zetaName
	scopes []*rangeScope
	// slashPath is set when a path starts with '/'.
	slashPath bool
}

// errSlashPath stands for a parse that BigQuery would not make: ZetaSQL
// (with its development features, which BigQuery has released in other
// respects) reads Spanner's /slash/paths, which BigQuery rejects; turning
// that one feature off through go-zetasql's SetEnabledLanguageFeatures
// turns others off too.
var errSlashPath = errors.New("a path starts with '/' (a Spanner path BigQuery does not accept)")

type rangeScope struct {
	names map[string]bool
	// hidden is set while the walk is inside a FROM-clause subquery or
	// table function argument of the query that owns the scope.
	hidden bool
}

func (w *zetaWalker) push() { w.scopes = append(w.scopes, &rangeScope{names: map[string]bool{}}) }
func (w *zetaWalker) pop()  { w.scopes = w.scopes[:len(w.scopes)-1] }

func (w *zetaWalker) top() *rangeScope { return w.scopes[len(w.scopes)-1] }

func (w *zetaWalker) declare(name string) {
	w.top().names[strings.ToLower(name)] = true
}

func (w *zetaWalker) visible(name string) bool {
	for _, s := range w.scopes {
		if !s.hidden && s.names[strings.ToLower(name)] {
			return true
		}
	}
	return false
}

// hiding walks n's children with the current scope hidden.
func (w *zetaWalker) hiding(n ast.Node, nestedDML bool) {
	s := w.top()
	was := s.hidden
	s.hidden = true
	for i := 0; i < n.NumChildren(); i++ {
		w.walk(n.Child(i), nestedDML)
	}
	s.hidden = was
}

func (w *zetaWalker) alias(a *ast.AliasNode) {
	if a != nil {
		w.declare(a.Name())
	}
}

// rangeVariable declares the range variable of a from-item or DML target:
// its alias, or without one the path's last part.
func (w *zetaWalker) rangeVariable(p *ast.PathExpressionNode, a *ast.AliasNode) {
	if a != nil {
		w.declare(a.Name())
		return
	}
	if path := pathParts(p); len(path) > 0 {
		w.declare(path[len(path)-1])
		ids := p.Names()
		w.declare(ids[len(ids)-1].Name())
	}
}

func pathParts(p *ast.PathExpressionNode) []string {
	if p == nil {
		return nil
	}
	var path []string
	for i, id := range p.Names() {
		parts := strings.Split(id.Name(), ".")
		if i == 0 && len(parts) > 1 && !strings.Contains(parts[0], ":") && strings.Contains(parts[1], ":") {
			// A domain-scoped project: `example.com:project.dataset.table`.
			parts = append([]string{parts[0] + "." + parts[1]}, parts[2:]...)
		}
		path = append(path, parts...)
	}
	return path
}

func (w *zetaWalker) add(kind sqltext.ObjectKind, p *ast.PathExpressionNode, write bool, where string) {
	if p == nil {
		return
	}
	path := pathParts(p)
	off := -1
	if r := p.ParseLocationRange(); r != nil {
		off = r.Start().ByteOffset()
	}
	w.names = append(w.names, zetaName{Kind: kind, Path: path, Write: write, Where: where, Offset: off})
}

// objectKindOf maps the object-type word of GRANT, DESCRIBE and the like.
func objectKindOf(id *ast.IdentifierNode) sqltext.ObjectKind {
	if id == nil {
		return sqltext.Table
	}
	switch strings.ToUpper(id.Name()) {
	case "SCHEMA", "DATASET":
		return sqltext.Dataset
	case "MODEL":
		return sqltext.Model
	case "FUNCTION", "PROCEDURE", "ROUTINE", "TVF", "TABLE_FUNCTION":
		return sqltext.Routine
	}
	return sqltext.Table
}

func dropKind(k ast.SchemaObjectKind) sqltext.ObjectKind {
	switch k {
	case ast.TableKind, ast.ViewKind, ast.MaterializedViewKind, ast.ExternalTableKind, ast.SnapshotTableKind:
		return sqltext.Table
	case ast.SchemaKind:
		return sqltext.Dataset
	case ast.ModelKind:
		return sqltext.Model
	case ast.FunctionKind, ast.AggregateFunctionKind, ast.TableFunctionKind, ast.ProcedureKind:
		return sqltext.Routine
	}
	return 0
}

func asPath(n ast.Node) *ast.PathExpressionNode {
	p, _ := n.(*ast.PathExpressionNode)
	return p
}

// walk records the names n and its descendants hold. nestedDML is set under
// an UPDATE's SET item, where INSERT/UPDATE/DELETE target an array column,
// not a table.
func (w *zetaWalker) walk(n ast.Node, nestedDML bool) {
	if n == nil {
		return
	}
	switch n := n.(type) {
	case *ast.PathExpressionNode:
		if ids := n.Names(); len(ids) > 0 && strings.HasPrefix(ids[0].Name(), "/") {
			w.slashPath = true
		}

	// Queries.
	case *ast.SelectNode:
		// The FROM clause first: its range variables are visible in
		// the select list, WHERE and the rest.
		w.push()
		if fc := n.FromClause(); fc != nil {
			w.walk(fc, nestedDML)
		}
		for i := 0; i < n.NumChildren(); i++ {
			if c := n.Child(i); c != nil && c.Kind() != ast.FromClause {
				w.walk(c, nestedDML)
			}
		}
		w.pop()
		return
	case *ast.TablePathExpressionNode:
		if p := n.PathExpr(); p != nil {
			if path := pathParts(p); len(path) < 2 || !w.visible(path[0]) {
				w.add(sqltext.Table, p, false, "from-item")
			}
		}
		w.rangeVariable(n.PathExpr(), n.Alias())
	case *ast.TableSubqueryNode:
		w.hiding(n, nestedDML)
		w.alias(n.Alias())
		return
	case *ast.TVFNode:
		w.add(sqltext.Routine, n.Name(), false, "table function call")
		w.hiding(n, nestedDML)
		w.alias(n.Alias())
		return
	case *ast.TableClauseNode:
		w.add(sqltext.Table, n.TablePath(), false, "TABLE argument")
	case *ast.ModelClauseNode:
		w.add(sqltext.Model, n.ModelPath(), false, "MODEL argument")
	case *ast.FunctionCallNode:
		w.add(sqltext.Routine, n.Function(), false, "function call")
	case *ast.WithOffsetNode:
		w.alias(n.Alias())
	case *ast.UnnestExpressionWithOptAliasAndOffsetNode:
		w.alias(n.OptionalAlias())
	case *ast.PivotClauseNode:
		w.alias(n.OutputAlias())
	case *ast.UnpivotClauseNode:
		w.alias(n.OutputAlias())

	// DML.
	case *ast.InsertStatementNode:
		if !nestedDML {
			w.add(sqltext.Table, asPath(n.TargetPath()), true, "INSERT target")
		}
	case *ast.UpdateStatementNode:
		// UPDATE … FROM: the FROM items do not see the target (they
		// are joined with it, not correlated to it); SET and WHERE do.
		if !nestedDML {
			w.add(sqltext.Table, asPath(n.TargetPath()), true, "UPDATE target")
		}
		w.push()
		defer w.pop()
		if fc := n.FromClause(); fc != nil {
			w.push()
			w.walk(fc, nestedDML)
			from := w.top().names
			w.pop()
			maps.Copy(w.top().names, from)
		}
		w.rangeVariable(asPath(n.TargetPath()), n.Alias())
		for i := 0; i < n.NumChildren(); i++ {
			if c := n.Child(i); c != nil && c.Kind() != ast.FromClause {
				w.walk(c, nestedDML)
			}
		}
		return
	case *ast.DeleteStatementNode:
		w.push()
		defer w.pop()
		if !nestedDML {
			w.add(sqltext.Table, asPath(n.TargetPath()), true, "DELETE target")
		}
		w.rangeVariable(asPath(n.TargetPath()), n.Alias())
	case *ast.MergeStatementNode:
		// MERGE target USING source: the source does not see the
		// target; the ON condition and the WHEN clauses see both.
		w.add(sqltext.Table, n.TargetPath(), true, "MERGE target")
		w.push()
		defer w.pop()
		var source ast.Node
		if te := n.TableExpression(); te != nil {
			source = te
			w.push()
			w.walk(te, nestedDML)
			from := w.top().names
			w.pop()
			maps.Copy(w.top().names, from)
		}
		w.rangeVariable(n.TargetPath(), n.Alias())
		for i := 0; i < n.NumChildren(); i++ {
			if c := n.Child(i); c != nil && (source == nil || c.Kind() != source.Kind()) {
				w.walk(c, nestedDML)
			}
		}
		return
	case *ast.TrucateStatementNode:
		w.add(sqltext.Table, n.TargetPath(), true, "TRUNCATE target")
	case *ast.UpdateItemNode:
		for i := 0; i < n.NumChildren(); i++ {
			w.walk(n.Child(i), true)
		}
		return

	// DDL.
	case *ast.CreateTableStatementNode:
		w.add(sqltext.Table, n.Name(), true, "CREATE TABLE name")
		w.add(sqltext.Table, n.LikeTableName(), false, "CREATE TABLE … LIKE")
	case *ast.CreateExternalTableStatementNode:
		w.add(sqltext.Table, n.Name(), true, "CREATE EXTERNAL TABLE name")
		w.add(sqltext.Table, n.LikeTableName(), false, "CREATE EXTERNAL TABLE … LIKE")
	case *ast.AuxLoadDataStatementNode:
		w.add(sqltext.Table, n.Name(), true, "LOAD DATA target")
	case *ast.CreateSnapshotTableStatementNode:
		w.add(sqltext.Table, n.Name(), true, "CREATE SNAPSHOT TABLE name")
	case *ast.CloneDataSourceNode:
		w.add(sqltext.Table, n.PathExpr(), false, "CLONE source")
	case *ast.CopyDataSourceNode:
		w.add(sqltext.Table, n.PathExpr(), false, "COPY source")
	case *ast.CloneDataStatementNode:
		w.add(sqltext.Table, n.TargetPath(), true, "CLONE DATA target")
	case *ast.CreateViewStatementNode:
		w.add(sqltext.Table, n.Name(), true, "CREATE VIEW name")
	case *ast.CreateMaterializedViewStatementNode:
		w.add(sqltext.Table, n.Name(), true, "CREATE MATERIALIZED VIEW name")
	case *ast.CreateModelStatementNode:
		w.add(sqltext.Model, n.Name(), true, "CREATE MODEL name")
	case *ast.CreateFunctionStatementNode:
		if d := n.FunctionDeclaration(); d != nil {
			w.add(sqltext.Routine, d.Name(), true, "CREATE FUNCTION name")
		}
	case *ast.CreateTableFunctionStatementNode:
		if d := n.FunctionDeclaration(); d != nil {
			w.add(sqltext.Routine, d.Name(), true, "CREATE TABLE FUNCTION name")
		}
	case *ast.CreateProcedureStatementNode:
		w.add(sqltext.Routine, n.Name(), true, "CREATE PROCEDURE name")
	case *ast.CreateSchemaStatementNode:
		w.add(sqltext.Dataset, n.Name(), true, "CREATE SCHEMA name")
	case *ast.CreateRowAccessPolicyStatementNode:
		w.add(sqltext.Table, n.TargetPath(), true, "CREATE ROW ACCESS POLICY table")
	case *ast.CreateIndexStatementNode:
		w.add(sqltext.Table, n.TableName(), true, "CREATE INDEX table")
		w.push()
		defer w.pop()
		w.alias(n.OptionalTableAlias())
	case *ast.CreatePrivilegeRestrictionStatementNode:
		w.add(objectKindOf(n.ObjectType()), n.NamePath(), true, "CREATE PRIVILEGE RESTRICTION object")
	case *ast.DropPrivilegeRestrictionStatementNode:
		w.add(objectKindOf(n.ObjectType()), n.NamePath(), true, "DROP PRIVILEGE RESTRICTION object")
	case *ast.DropStatementNode:
		if k := dropKind(n.SchemaObjectKind()); k != 0 {
			w.add(k, n.Name(), true, "DROP "+k.String())
		}
	case *ast.DropFunctionStatementNode:
		w.add(sqltext.Routine, n.Name(), true, "DROP FUNCTION")
	case *ast.DropTableFunctionStatementNode:
		w.add(sqltext.Routine, n.Name(), true, "DROP TABLE FUNCTION")
	case *ast.DropMaterializedViewStatementNode:
		w.add(sqltext.Table, n.Name(), true, "DROP MATERIALIZED VIEW")
	case *ast.DropSnapshotTableStatementNode:
		w.add(sqltext.Table, n.Name(), true, "DROP SNAPSHOT TABLE")
	case *ast.DropSearchIndexStatementNode:
		w.add(sqltext.Table, n.TableName(), true, "DROP SEARCH INDEX table")
	case *ast.DropRowAccessPolicyStatementNode:
		w.add(sqltext.Table, n.TableName(), true, "DROP ROW ACCESS POLICY table")
	case *ast.DropAllRowAccessPoliciesStatementNode:
		w.add(sqltext.Table, n.TableName(), true, "DROP ALL ROW ACCESS POLICIES table")
	case *ast.AlterSchemaStatementNode:
		w.add(sqltext.Dataset, n.Path(), true, "ALTER SCHEMA")
	case *ast.AlterTableStatementNode:
		w.add(sqltext.Table, n.Path(), true, "ALTER TABLE")
	case *ast.AlterViewStatementNode:
		w.add(sqltext.Table, n.Path(), true, "ALTER VIEW")
	case *ast.AlterMaterializedViewStatementNode:
		w.add(sqltext.Table, n.Path(), true, "ALTER MATERIALIZED VIEW")
	case *ast.AlterRowAccessPolicyStatementNode:
		w.add(sqltext.Table, n.Path(), true, "ALTER ROW ACCESS POLICY table")
	case *ast.AlterAllRowAccessPoliciesStatementNode:
		w.add(sqltext.Table, n.TableNamePath(), true, "ALTER ALL ROW ACCESS POLICIES table")
	case *ast.AlterPrivilegeRestrictionStatementNode:
		w.add(objectKindOf(n.ObjectType()), n.Path(), true, "ALTER PRIVILEGE RESTRICTION object")
	case *ast.RenameToClauseNode:
		w.add(sqltext.Table, n.NewName(), true, "RENAME TO")
	case *ast.RenameStatementNode:
		if k := objectKindOf(n.Identifier()); k == sqltext.Table {
			w.add(k, n.OldName(), true, "RENAME old name")
			w.add(k, n.NewName(), true, "RENAME new name")
		}
	case *ast.ForeignKeyReferenceNode:
		w.add(sqltext.Table, n.TableName(), false, "REFERENCES")
	case *ast.DefineTableStatementNode:
		w.add(sqltext.Table, n.Name(), true, "DEFINE TABLE")

	// DCL, procedures, other statements naming objects.
	case *ast.GrantStatementNode:
		w.add(objectKindOf(n.TargetType()), n.TargetPath(), true, "GRANT target")
	case *ast.RevokeStatementNode:
		w.add(objectKindOf(n.TargetType()), n.TargetPath(), true, "REVOKE target")
	case *ast.CallStatementNode:
		w.add(sqltext.Routine, n.ProcedureName(), false, "CALL")
	case *ast.ExportModelStatementNode:
		w.add(sqltext.Model, n.ModelNamePath(), false, "EXPORT MODEL")
	case *ast.DescribeStatementNode:
		w.add(objectKindOf(n.OptionalIdentifier()), n.Name(), false, "DESCRIBE")
	case *ast.TableAndColumnInfoNode:
		w.add(sqltext.Table, n.TableName(), false, "ANALYZE table")
	}
	for i := 0; i < n.NumChildren(); i++ {
		w.walk(n.Child(i), nestedDML)
	}
}

// oracleResult is what the oracle found for one SQL text.
type oracleResult struct {
	parsed     bool
	parseErr   error
	zetaStmts  int
	names      []zetaName
	text       *sqltext.Text
	refused    int // reader statements with Unplaced
	checked    int // names compared with a reader statement that does not refuse
	excused    int // names in a statement the reader refuses
	incomplete bool
	problems   []string
}

// runOracle parses sql with both parsers and compares them.
func runOracle(sql string) oracleResult {
	return compareOracle(sql, nil)
}

// compareOracle is runOracle with a hook that may change the reader's
// answer before the comparison (the test of the oracle itself uses it).
func compareOracle(sql string, mutate func(*sqltext.Text)) oracleResult {
	var r oracleResult
	r.zetaStmts, r.names, r.parseErr = zetaParse(sql)
	if r.parseErr == nil && hasNULIdentifier(sql) {
		r.parseErr = errNULName
	}
	r.parsed = r.parseErr == nil
	r.text = sqltext.Parse(sql)
	if mutate != nil {
		mutate(r.text)
	}
	for _, st := range r.text.Statements {
		if len(st.Unplaced) > 0 {
			r.refused++
		}
	}
	if !r.parsed {
		return r
	}
	if r.text.Incomplete != "" {
		// The reader refuses the whole text (the server answers with
		// the reason); ZetaSQL still parsed it, which the summary shows.
		r.incomplete = true
		r.excused = len(r.names)
		return r
	}
	// Temporary functions and the query after them are one statement to
	// the reader (BigQuery runs them as one query): every name ZetaSQL
	// finds in any of them must be that statement's.
	merged := len(r.text.Statements) == 1 && r.text.Statements[0].TempFunctions > 0
	if r.zetaStmts > len(r.text.Statements) && !(merged && r.zetaStmts == r.text.Statements[0].TempFunctions+1) {
		r.problems = append(r.problems, fmt.Sprintf("ZetaSQL reads %d statements, the reader %d", r.zetaStmts, len(r.text.Statements)))
	}
	for _, n := range r.names {
		i := statementAt(r.text.Statements, n.Offset)
		if merged && i >= 0 {
			i = 0
		}
		if i < 0 || i >= len(r.text.Statements) {
			r.problems = append(r.problems, fmt.Sprintf("ZetaSQL names %s, at byte %d, outside every statement the reader sees", n, n.Offset))
			continue
		}
		st := r.text.Statements[i]
		if len(st.Unplaced) > 0 {
			r.excused++
			continue
		}
		r.checked++
		if why := covered(st, n); why != "" {
			r.problems = append(r.problems, fmt.Sprintf("ZetaSQL names %s; the reader's statement %d (%s) %s; it names %s", n, i+1, st.Kind, why, describeObjects(st)))
		}
	}
	return r
}

// errNULName stands for a parse whose names go-zetasql cannot report: it
// hands identifiers over as C strings, so `a\000b` comes back as "a".
var errNULName = errors.New("a quoted identifier holds a NUL, which go-zetasql's names cut off")

// hasNULIdentifier reports whether a quoted identifier of sql decodes to a
// name holding NUL (only as a filter for errNULName).
func hasNULIdentifier(sql string) bool {
	toks, _ := sqltext.Lex(sql)
	for _, t := range toks {
		if t.Kind == sqltext.QuotedIdent && strings.ContainsRune(t.Value, 0) {
			return true
		}
	}
	return false
}

// statementAt is the index of the reader's statement whose tokens span off.
func statementAt(stmts []sqltext.Statement, off int) int {
	for i, st := range stmts {
		if off >= st.Start && off < st.End {
			return i
		}
	}
	return -1
}

func samePath(a, b []string) bool {
	return slices.EqualFunc(a, b, strings.EqualFold)
}

func isInformationSchema(p []string) bool {
	return slices.ContainsFunc(p, func(s string) bool { return strings.EqualFold(s, "INFORMATION_SCHEMA") })
}

// covered says why st does not account for n, or "" when it does: an object
// of the same kind and path (parts compared case-insensitively), marked as a
// write when ZetaSQL's position writes; an INFORMATION_SCHEMA path among
// st.InformationSchema; or, stricter than asked, the dataset that holds n
// named as a Dataset object.
func covered(st sqltext.Statement, n zetaName) string {
	if isInformationSchema(n.Path) {
		for _, p := range st.InformationSchema {
			if samePath(p, n.Path) {
				return ""
			}
		}
	}
	var kinds []string
	for _, o := range st.Objects {
		if !samePath(o.Path, n.Path) {
			continue
		}
		if o.Kind != n.Kind {
			kinds = append(kinds, o.Kind.String())
			continue
		}
		if n.Write && !o.Write {
			return "names it but not as written"
		}
		return ""
	}
	for _, o := range st.Objects {
		if o.Kind == sqltext.Dataset && n.Kind != sqltext.Dataset && len(o.Path) < len(n.Path) &&
			samePath(o.Path, n.Path[:len(o.Path)]) && (o.Write || !n.Write) {
			return ""
		}
	}
	if len(kinds) > 0 {
		return "names it as a " + strings.Join(kinds, "/") + ", not a " + n.Kind.String()
	}
	return "does not name it"
}

func describeObjects(st sqltext.Statement) string {
	if len(st.Objects) == 0 && len(st.InformationSchema) == 0 {
		return "nothing"
	}
	var s []string
	for _, o := range st.Objects {
		d := o.Kind.String() + " " + strings.Join(quoteParts(o.Path), ".")
		if o.Write {
			d += " (write)"
		}
		s = append(s, d)
	}
	for _, p := range st.InformationSchema {
		s = append(s, "information schema "+strings.Join(quoteParts(p), "."))
	}
	return strings.Join(s, ", ")
}

// oracleEntry is one statement (or script) of the corpus.
type oracleEntry struct {
	name string
	sql  string
	// want, when set, is a name ZetaSQL must find in sql whenever it
	// parses it: it checks the oracle's own walk of the parse tree.
	want *zetaName
}

// loadOracleCorpus reads testdata/sqltext_corpus.sql: entries separated by
// blank lines; an entry of "--" lines only is a file comment.
func loadOracleCorpus(tb testing.TB) []oracleEntry {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "sqltext_corpus.sql"))
	if err != nil {
		tb.Fatal(err)
	}
	var entries []oracleEntry
	var cur []string
	line := 0
	flush := func() {
		defer func() { cur = nil }()
		if len(cur) == 0 {
			return
		}
		allComments := true
		for _, l := range cur {
			if !strings.HasPrefix(strings.TrimSpace(l), "--") {
				allComments = false
			}
		}
		if allComments {
			return
		}
		entries = append(entries, oracleEntry{
			name: fmt.Sprintf("sqltext_corpus.sql:%d", line-len(cur)),
			sql:  strings.Join(cur, "\n"),
		})
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			flush()
			continue
		}
		cur = append(cur, sc.Text())
	}
	line++
	flush()
	return entries
}

// A spelling is one way to write a path, with the parts BigQuery reads.
type spelling struct {
	sql  string
	path []string
}

var (
	tableSpellings = []spelling{
		{"secret.t", []string{"secret", "t"}},
		{"SECRET.T", []string{"SECRET", "T"}},
		{"`secret`.t", []string{"secret", "t"}},
		{"`secret.t`", []string{"secret", "t"}},
		{"`secret`.`t`", []string{"secret", "t"}},
		{"secret.`t`", []string{"secret", "t"}},
		{"my-proj.secret.t", []string{"my-proj", "secret", "t"}},
		{"proj-123.secret.t", []string{"proj-123", "secret", "t"}},
		{"`my-proj`.secret.t", []string{"my-proj", "secret", "t"}},
		{"`my-proj.secret.t`", []string{"my-proj", "secret", "t"}},
		{"`my-proj.secret`.t", []string{"my-proj", "secret", "t"}},
		{"`my-proj`.`secret.t`", []string{"my-proj", "secret", "t"}},
		{"`secr\\x65t`.t", []string{"secret", "t"}},
		{"`secr\\u0065t`.t", []string{"secret", "t"}},
		{"`secr\\145t`.t", []string{"secret", "t"}},
		{"`secret`.`\\x74`", []string{"secret", "t"}},
		{"`my-proj`.`secr\\x65t`.`t`", []string{"my-proj", "secret", "t"}},
		{"secret.`t\\x5Fx`", []string{"secret", "t_x"}},
		{"`sec\\`ret`.t", []string{"sec`ret", "t"}},
		{"secret /* c */ . /* c */ t", []string{"secret", "t"}},
		{"secret\n.t", []string{"secret", "t"}},
		{"`secret.t_*`", []string{"secret", "t_*"}},
		{"`my-proj`.secret.`t_2024*`", []string{"my-proj", "secret", "t_2024*"}},
	}
	informationSchemaSpellings = []spelling{
		{"secret.INFORMATION_SCHEMA.TABLES", []string{"secret", "INFORMATION_SCHEMA", "TABLES"}},
		{"secret.information_schema.columns", []string{"secret", "information_schema", "columns"}},
		{"`secret`.`INFORMATION\\u005FSCHEMA`.`COLUMNS`", []string{"secret", "INFORMATION_SCHEMA", "COLUMNS"}},
		{"`region-us`.INFORMATION_SCHEMA.JOBS", []string{"region-us", "INFORMATION_SCHEMA", "JOBS"}},
		{"region-us.INFORMATION_SCHEMA.JOBS", []string{"region-us", "INFORMATION_SCHEMA", "JOBS"}},
		{"`region-us.INFORMATION_SCHEMA.JOBS_BY_PROJECT`", []string{"region-us", "INFORMATION_SCHEMA", "JOBS_BY_PROJECT"}},
		{"`region-us`.`INFORMATION\\x5FSCHEMA`.JOBS", []string{"region-us", "INFORMATION_SCHEMA", "JOBS"}},
		{"`region-us`.`INFORMATION\\137SCHEMA`.JOBS", []string{"region-us", "INFORMATION_SCHEMA", "JOBS"}},
		{"my-proj.`region-eu`.INFORMATION_SCHEMA.JOBS", []string{"my-proj", "region-eu", "INFORMATION_SCHEMA", "JOBS"}},
		{"`my-proj.secret.INFORMATION_SCHEMA.COLUMN_FIELD_PATHS`", []string{"my-proj", "secret", "INFORMATION_SCHEMA", "COLUMN_FIELD_PATHS"}},
		{"INFORMATION_SCHEMA.SCHEMATA", []string{"INFORMATION_SCHEMA", "SCHEMATA"}},
		{"`INFORMATION\\x5FSCHEMA`.SCHEMATA", []string{"INFORMATION_SCHEMA", "SCHEMATA"}},
	}
	routineSpellings = []spelling{
		{"secret.fn", []string{"secret", "fn"}},
		{"SECRET.FN", []string{"SECRET", "FN"}},
		{"`secret.fn`", []string{"secret", "fn"}},
		{"`secret`.fn", []string{"secret", "fn"}},
		{"`secret`.`fn`", []string{"secret", "fn"}},
		{"`my-proj`.secret.fn", []string{"my-proj", "secret", "fn"}},
		{"`my-proj.secret.fn`", []string{"my-proj", "secret", "fn"}},
		{"`secr\\x65t`.fn", []string{"secret", "fn"}},
		{"`secret`.`f\\u006E`", []string{"secret", "fn"}},
		{"secret /* c */ . fn", []string{"secret", "fn"}},
	}
	modelSpellings = []spelling{
		{"secret.m", []string{"secret", "m"}},
		{"SECRET.M", []string{"SECRET", "M"}},
		{"`secret.m`", []string{"secret", "m"}},
		{"`secret`.`m`", []string{"secret", "m"}},
		{"`my-proj`.secret.m", []string{"my-proj", "secret", "m"}},
		{"`my-proj.secret.m`", []string{"my-proj", "secret", "m"}},
		{"my-proj.secret.m", []string{"my-proj", "secret", "m"}},
		{"`secr\\x65t`.m", []string{"secret", "m"}},
	}
	datasetSpellings = []spelling{
		{"secret", []string{"secret"}},
		{"SECRET", []string{"SECRET"}},
		{"`secret`", []string{"secret"}},
		{"`secr\\x65t`", []string{"secret"}},
		{"`secr\\u0065t`", []string{"secret"}},
		{"my-proj.secret", []string{"my-proj", "secret"}},
		{"`my-proj`.secret", []string{"my-proj", "secret"}},
		{"`my-proj.secret`", []string{"my-proj", "secret"}},
		{"`my-proj`.`secr\\145t`", []string{"my-proj", "secret"}},
	}
)

// A shape is a statement with one object position, {X}.
type shape struct {
	sql   string
	write bool
}

var (
	// readTableShapes put a table in every position a query reads one.
	readTableShapes = []shape{
		{"SELECT * FROM {X}", false},
		{"SELECT * FROM {X} AS x", false},
		{"SELECT * FROM {X} x WHERE x.a = 1", false},
		{"SELECT * FROM (SELECT 1 AS a), {X}", false},
		{"SELECT * FROM (SELECT 1 AS a) AS s, {X}", false},
		{"SELECT * FROM ok.a JOIN {X} USING (id)", false},
		{"SELECT * FROM ok.a JOIN ok.b USING (id), {X}", false},
		{"SELECT * FROM ok.a JOIN ok.b USING (id) JOIN {X} USING (id)", false},
		{"SELECT * FROM ok.a LEFT OUTER JOIN {X} AS b ON a.x = b.x", false},
		{"SELECT * FROM ok.a RIGHT JOIN {X} ON TRUE", false},
		{"SELECT * FROM ok.a FULL JOIN {X} b USING (x)", false},
		{"SELECT * FROM ok.a CROSS JOIN {X}", false},
		{"SELECT * FROM ok.a INNER JOIN {X} ON TRUE JOIN ok.c USING (x)", false},
		{"SELECT * FROM ok.a, ok.b, {X}", false},
		{"SELECT * FROM UNNEST([1, 2]) AS n, {X}", false},
		{"SELECT * FROM UNNEST([1, 2]) n WITH OFFSET o CROSS JOIN {X}", false},
		{"SELECT * FROM ok.a, UNNEST(a.arr) AS e, {X}", false},
		{"SELECT * FROM ok.a LEFT JOIN UNNEST(a.arr) e ON TRUE, {X}", false},
		{"SELECT * FROM (ok.a JOIN {X} USING (id))", false},
		{"SELECT * FROM ((SELECT 1 AS id) s JOIN {X} USING (id))", false},
		{"SELECT * FROM (ok.a CROSS JOIN ok.b), {X}", false},
		{"SELECT * FROM {X} FOR SYSTEM_TIME AS OF TIMESTAMP '2024-01-01'", false},
		{"SELECT * FROM ok.a, {X} FOR SYSTEM_TIME AS OF CURRENT_TIMESTAMP()", false},
		{"SELECT * FROM {X} TABLESAMPLE SYSTEM (10 PERCENT)", false},
		{"SELECT * FROM ok.a TABLESAMPLE SYSTEM (1 PERCENT), {X}", false},
		{"SELECT * FROM {X} PIVOT (SUM(a) FOR b IN ('x', 'y'))", false},
		{"SELECT * FROM ok.a PIVOT (SUM(a) FOR b IN ('x')) AS p, {X}", false},
		{"SELECT * FROM {X} UNPIVOT (v FOR k IN (a, b))", false},
		{"SELECT * FROM ok.a UNPIVOT (v FOR k IN (a, b)) u JOIN {X} USING (id)", false},
		{"SELECT * FROM ok.a WHERE id IN (SELECT id FROM {X})", false},
		{"SELECT (SELECT COUNT(*) FROM {X}) AS n", false},
		{"SELECT * FROM ok.a WHERE EXISTS (SELECT 1 FROM {X})", false},
		{"SELECT ARRAY(SELECT x FROM {X})", false},
		{"SELECT * FROM ok.a WHERE x = (SELECT MAX(x) FROM {X})", false},
		{"SELECT a, (SELECT AS STRUCT * FROM {X} LIMIT 1) FROM ok.a", false},
		{"SELECT x FROM ok.a GROUP BY x HAVING COUNT(*) > (SELECT COUNT(*) FROM {X})", false},
		{"WITH c AS (SELECT * FROM {X}) SELECT * FROM c", false},
		{"WITH c AS (SELECT 1 AS x) SELECT * FROM c, {X}", false},
		{"WITH RECURSIVE c AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM c WHERE n < 3) SELECT * FROM c, {X}", false},
		{"SELECT 1 UNION ALL SELECT 2 FROM {X}", false},
		{"(SELECT * FROM ok.a) UNION DISTINCT (SELECT * FROM {X})", false},
		{"SELECT * FROM ok.a EXCEPT DISTINCT SELECT * FROM {X}", false},
		{"SELECT * FROM ok.a INTERSECT DISTINCT SELECT * FROM {X}", false},
		{"SELECT * FROM ok.a /* c */ , /* c */ {X}", false},
		{"SELECT * FROM ok.a -- c\n, {X}", false},
		{"SELECT * FROM ok.a # c\nJOIN {X} USING (x)", false},
		{"SELECT * FROM ok.a -- c\r, {X}", false},
		{"/* c */ SELECT * FROM {X} -- c", false},
		{"SELECT 'x;y', \"--\", '''/*''' FROM {X}", false},
		{"SELECT 1; SELECT * FROM {X}", false},
		{"INSERT INTO ok.a SELECT * FROM {X}", false},
		{"UPDATE ok.a SET x = b.x FROM {X} b WHERE a.id = b.id", false},
		{"DELETE FROM ok.a WHERE x IN (SELECT x FROM {X})", false},
		{"MERGE ok.a T USING {X} S ON T.id = S.id WHEN MATCHED THEN DELETE", false},
		{"MERGE ok.a T USING (SELECT * FROM {X}) S ON T.id = S.id WHEN MATCHED THEN DELETE", false},
		{"CREATE TABLE ok.n AS SELECT * FROM {X}", false},
		{"CREATE TABLE ok.n LIKE {X}", false},
		{"CREATE TABLE ok.n COPY {X}", false},
		{"CREATE TABLE ok.n CLONE {X}", false},
		{"CREATE SNAPSHOT TABLE ok.n CLONE {X}", false},
		{"CREATE VIEW ok.v AS SELECT * FROM {X}", false},
		{"CREATE MATERIALIZED VIEW ok.v AS SELECT COUNT(*) AS n FROM {X}", false},
		{"CREATE TABLE ok.n (x INT64, FOREIGN KEY (x) REFERENCES {X}(y) NOT ENFORCED)", false},
		{"ALTER TABLE ok.a ADD FOREIGN KEY (x) REFERENCES {X}(y) NOT ENFORCED", false},
		{"EXPORT DATA OPTIONS (uri = 'gs://b/*.csv', format = 'CSV') AS SELECT * FROM {X}", false},
		{"SELECT * FROM ML.PREDICT(MODEL ok.m, TABLE {X})", false},
		{"SELECT * FROM ML.PREDICT(MODEL ok.m, (SELECT * FROM {X}))", false},
		{"SELECT * FROM ML.EVALUATE(MODEL ok.m, TABLE {X})", false},
		{"SELECT * FROM VECTOR_SEARCH(TABLE {X}, 'emb', (SELECT [1.0] AS emb))", false},
		{"SELECT * FROM APPENDS(TABLE {X}, NULL, NULL)", false},
		{"SELECT * FROM ok.tvf(TABLE {X})", false},
		{"CALL ok.p((SELECT COUNT(*) FROM {X}))", false},
		{"DECLARE n INT64 DEFAULT (SELECT COUNT(*) FROM {X})", false},
		{"BEGIN SELECT * FROM {X}; END", false},
		{"IF EXISTS (SELECT 1 FROM {X}) THEN SELECT 1; END IF", false},
		{"FOR r IN (SELECT * FROM {X}) DO SELECT r.a; END FOR", false},
		{"ASSERT (SELECT COUNT(*) FROM {X}) > 0", false},
		{"SELECT * FROM {X} |> WHERE TRUE", false},
		{"FROM {X} |> SELECT a", false},
	}
	// writeTableShapes put a table where a statement changes it.
	writeTableShapes = []shape{
		{"INSERT INTO {X} (a) VALUES (1)", true},
		{"INSERT {X} SELECT 1", true},
		{"DELETE FROM {X} WHERE TRUE", true},
		{"DELETE {X} WHERE TRUE", true},
		{"UPDATE {X} SET a = 1 WHERE TRUE", true},
		{"UPDATE {X} AS t SET a = 1 WHERE TRUE", true},
		{"MERGE {X} T USING ok.a S ON T.id = S.id WHEN MATCHED THEN DELETE", true},
		{"MERGE INTO {X} USING ok.a ON FALSE WHEN NOT MATCHED THEN INSERT ROW", true},
		{"TRUNCATE TABLE {X}", true},
		{"CREATE TABLE {X} (a INT64)", true},
		{"CREATE OR REPLACE TABLE {X} AS SELECT 1 AS a", true},
		{"CREATE TABLE IF NOT EXISTS {X} LIKE ok.a", true},
		{"CREATE TABLE {X} CLONE ok.a", true},
		{"CREATE SNAPSHOT TABLE {X} CLONE ok.a", true},
		{"CREATE EXTERNAL TABLE {X} OPTIONS (format = 'CSV', uris = ['gs://b/x'])", true},
		{"CREATE VIEW {X} AS SELECT 1 AS a", true},
		{"CREATE OR REPLACE VIEW {X} AS SELECT * FROM ok.a", true},
		{"CREATE MATERIALIZED VIEW {X} AS SELECT COUNT(*) AS n FROM ok.a", true},
		{"DROP TABLE {X}", true},
		{"DROP TABLE IF EXISTS {X}", true},
		{"DROP VIEW {X}", true},
		{"DROP MATERIALIZED VIEW {X}", true},
		{"DROP SNAPSHOT TABLE {X}", true},
		{"DROP EXTERNAL TABLE {X}", true},
		{"ALTER TABLE {X} SET OPTIONS (description = 'x')", true},
		{"ALTER TABLE {X} ADD COLUMN c INT64", true},
		{"ALTER TABLE IF EXISTS {X} DROP COLUMN c", true},
		{"ALTER TABLE {X} RENAME TO n", true},
		{"ALTER VIEW {X} SET OPTIONS (description = 'x')", true},
		{"ALTER MATERIALIZED VIEW {X} SET OPTIONS (enable_refresh = false)", true},
		{"LOAD DATA INTO {X} FROM FILES (format = 'CSV', uris = ['gs://b/x.csv'])", true},
		{"LOAD DATA OVERWRITE {X} FROM FILES (format = 'CSV', uris = ['gs://b/x.csv'])", true},
		{"GRANT `roles/bigquery.dataViewer` ON TABLE {X} TO 'user:a@example.com'", true},
		{"REVOKE `roles/bigquery.dataViewer` ON VIEW {X} FROM 'user:a@example.com'", true},
		{"CREATE ROW ACCESS POLICY f ON {X} GRANT TO ('user:a@example.com') FILTER USING (TRUE)", true},
		{"DROP ROW ACCESS POLICY f ON {X}", true},
		{"DROP ALL ROW ACCESS POLICIES ON {X}", true},
		{"CREATE SEARCH INDEX i ON {X}(ALL COLUMNS)", true},
		{"DROP SEARCH INDEX i ON {X}", true},
		{"BEGIN TRANSACTION; DELETE {X} WHERE TRUE; COMMIT TRANSACTION", true},
		{"IF TRUE THEN DROP TABLE {X}; END IF", true},
		{"CREATE PROCEDURE ok.p() BEGIN INSERT INTO {X} VALUES (1); END", true},
	}
	routineShapes = []shape{
		{"SELECT {X}(1)", false},
		{"SELECT {X}(x) FROM ok.a", false},
		{"SELECT * FROM ok.a WHERE {X}(x) > 0", false},
		{"SELECT x FROM ok.a GROUP BY x HAVING {X}(COUNT(*)) > 1", false},
		{"SELECT x FROM ok.a ORDER BY {X}(x)", false},
		{"SELECT {X}(x) OVER (PARTITION BY y) FROM ok.a", false},
		{"SELECT ARRAY_AGG({X}(x)) FROM ok.a", false},
		{"SELECT ok.g({X}(1))", false},
		{"SELECT CASE WHEN {X}(1) THEN 1 END", false},
		{"SELECT IF({X}(1), 1, 2)", false},
		{"WITH c AS (SELECT {X}(1) AS v) SELECT * FROM c", false},
		{"SELECT (SELECT {X}(x) FROM ok.a LIMIT 1)", false},
		{"SELECT * FROM ok.a WHERE x IN UNNEST({X}(1))", false},
		{"SELECT * FROM {X}(1)", false},
		{"SELECT * FROM {X}(TABLE ok.a)", false},
		{"SELECT * FROM (SELECT 1), {X}(2)", false},
		{"SELECT * FROM ok.a JOIN {X}(2) AS f ON TRUE", false},
		{"CALL {X}()", false},
		{"CALL {X}(1, 'x')", false},
		{"UPDATE ok.a SET x = {X}(x) WHERE TRUE", false},
		{"INSERT INTO ok.a (x) VALUES ({X}(1))", false},
		{"DECLARE v INT64 DEFAULT {X}(1)", false},
		{"DECLARE v INT64; SET v = {X}(1)", false},
		{"CREATE TEMP FUNCTION f(x INT64) AS ({X}(x))", false},
		{"CREATE VIEW ok.v AS SELECT {X}(1) AS y", false},
		{"ASSERT {X}(1) AS 'm'", false},
		{"CREATE FUNCTION {X}(x INT64) AS (x + 1)", true},
		{"CREATE OR REPLACE FUNCTION {X}(x INT64) RETURNS INT64 LANGUAGE js AS 'return x;'", true},
		{"CREATE AGGREGATE FUNCTION {X}(x INT64) AS (SUM(x))", true},
		{"CREATE TABLE FUNCTION {X}(n INT64) AS SELECT n", true},
		{"CREATE PROCEDURE {X}() BEGIN SELECT 1; END", true},
		{"DROP FUNCTION {X}", true},
		{"DROP FUNCTION IF EXISTS {X}", true},
		{"DROP TABLE FUNCTION {X}", true},
		{"DROP PROCEDURE {X}", true},
	}
	modelShapes = []shape{
		{"SELECT * FROM ML.PREDICT(MODEL {X}, TABLE ok.a)", false},
		{"SELECT * FROM ML.PREDICT(MODEL {X}, (SELECT 1 AS x))", false},
		{"SELECT * FROM ML.PREDICT(MODEL {X}, (SELECT 1 AS x), STRUCT(0.5 AS threshold))", false},
		{"SELECT * FROM ML.WEIGHTS(MODEL {X})", false},
		{"SELECT * FROM ML.FEATURE_INFO(MODEL {X})", false},
		{"SELECT * FROM ML.EVALUATE(MODEL {X})", false},
		{"SELECT * FROM ML.EVALUATE(MODEL {X}, TABLE ok.a)", false},
		{"SELECT * FROM ML.TRAINING_INFO(MODEL {X})", false},
		{"SELECT * FROM ML.FORECAST(MODEL {X}, STRUCT(7 AS horizon))", false},
		{"SELECT * FROM ML.EXPLAIN_PREDICT(MODEL {X}, TABLE ok.a, STRUCT(3 AS top_k_features))", false},
		{"SELECT * FROM ML.GENERATE_TEXT(MODEL {X}, (SELECT 'hi' AS prompt))", false},
		{"SELECT * FROM ML.GENERATE_EMBEDDING(MODEL {X}, TABLE ok.a)", false},
		{"SELECT * FROM AI.GENERATE_TABLE(MODEL {X}, (SELECT 'x' AS prompt), STRUCT('a STRING' AS output_schema))", false},
		{"SELECT * FROM ok.a, ML.PREDICT(MODEL {X}, TABLE ok.b)", false},
		{"SELECT * FROM (SELECT 1), ML.WEIGHTS(MODEL {X})", false},
		{"SELECT (SELECT COUNT(*) FROM ML.WEIGHTS(MODEL {X}))", false},
		{"WITH p AS (SELECT * FROM ML.PREDICT(MODEL {X}, TABLE ok.a)) SELECT * FROM p", false},
		{"SELECT * FROM ML.PREDICT(MODEL {X}, TABLE ok.a) AS p JOIN ok.b USING (id)", false},
		{"EXPORT MODEL {X} OPTIONS (uri = 'gs://b/m')", false},
		{"CREATE MODEL {X} OPTIONS (model_type = 'linear_reg') AS SELECT 1 AS label", true},
		{"CREATE OR REPLACE MODEL {X} OPTIONS (model_type = 'kmeans') AS SELECT x FROM ok.a", true},
		{"DROP MODEL {X}", true},
		{"DROP MODEL IF EXISTS {X}", true},
		{"ALTER MODEL {X} SET OPTIONS (description = 'x')", true},
	}
	datasetShapes = []shape{
		{"CREATE SCHEMA {X}", true},
		{"CREATE SCHEMA IF NOT EXISTS {X} OPTIONS (location = 'US')", true},
		{"CREATE SCHEMA {X} DEFAULT COLLATE 'und:ci'", true},
		{"DROP SCHEMA {X}", true},
		{"DROP SCHEMA IF EXISTS {X} CASCADE", true},
		{"DROP SCHEMA {X} RESTRICT", true},
		{"ALTER SCHEMA {X} SET OPTIONS (description = 'x')", true},
		{"ALTER SCHEMA IF EXISTS {X} SET DEFAULT COLLATE 'und:ci'", true},
		{"GRANT `roles/bigquery.dataViewer` ON SCHEMA {X} TO 'user:a@example.com'", true},
		{"REVOKE `roles/bigquery.dataEditor` ON SCHEMA {X} FROM 'group:g@example.com'", true},
		{"UNDROP SCHEMA {X}", true},
		{"SELECT 1; DROP SCHEMA {X} CASCADE", true},
	}
)

// scopeShapes declare a range variable {R} named like the first part of the
// path {X} where it is not visible from {X} (in a CTE, another subquery,
// behind an explicit alias, as a DML or DDL target, as a TABLE argument):
// {X} is a table there, not a correlated path.
var scopeShapes = []shape{
	{"WITH c AS (SELECT * FROM ok.{R}) SELECT * FROM {X}", false},
	{"WITH c AS (SELECT 1 FROM ok.{R} AS {R}) SELECT * FROM c, {X}", false},
	{"SELECT (SELECT 1 FROM ok.{R}), * FROM {X}", false},
	{"SELECT (SELECT 1 FROM ok.a AS {R}) FROM {X}", false},
	{"SELECT * FROM (SELECT * FROM ok.{R}), {X}", false},
	{"SELECT * FROM (SELECT * FROM ok.a AS {R}) AS s JOIN {X} ON TRUE", false},
	{"SELECT * FROM ok.{R}, (SELECT * FROM {X})", false},
	{"SELECT * FROM ok.a AS {R} JOIN (SELECT * FROM {X}) USING (id)", false},
	{"SELECT * FROM ok.{R} AS x, {X}", false},
	{"SELECT * FROM ok.{R} x JOIN {X} ON TRUE", false},
	{"SELECT * FROM ok.a WHERE x IN (SELECT x FROM ok.{R}) UNION ALL SELECT * FROM {X}", false},
	{"SELECT * FROM ok.{R} UNION ALL SELECT * FROM {X}", false},
	{"SELECT * FROM {X}, ok.{R}", false},
	{"INSERT INTO ok.{R} SELECT * FROM {X}", false},
	{"CREATE TABLE ok.{R} AS SELECT * FROM {X}", false},
	{"CREATE OR REPLACE VIEW ok.{R} AS SELECT * FROM {X}", false},
	{"SELECT * FROM ok.tvf(TABLE ok.{R}), {X}", false},
	{"SELECT * FROM ML.PREDICT(MODEL ok.m, TABLE ok.{R}), {X}", false},
	{"SELECT * FROM ok.{R}, ok.tvf((SELECT * FROM {X}))", false},
	{"MERGE ok.{R} USING {X} ON TRUE WHEN MATCHED THEN DELETE", false},
	{"UPDATE ok.{R} SET x = 1 FROM {X} WHERE TRUE", false},
}

// quoteIdent quotes a name as a GoogleSQL identifier.
func quoteIdent(s string) string {
	return "`" + strings.NewReplacer("\\", "\\\\", "`", "\\`").Replace(s) + "`"
}

// generatedOracleCorpus combines every shape with every spelling of its kind.
func generatedOracleCorpus() []oracleEntry {
	var out []oracleEntry
	gen := func(group string, kind sqltext.ObjectKind, shapes []shape, spellings []spelling) {
		for i, sh := range shapes {
			for j, sp := range spellings {
				sql := strings.ReplaceAll(sh.sql, "{X}", sp.sql)
				out = append(out, oracleEntry{
					name: fmt.Sprintf("generated %s shape %d spelling %d", group, i, j),
					sql:  sql,
					want: &zetaName{Kind: kind, Path: sp.path, Write: sh.write},
				})
			}
		}
	}
	gen("table read", sqltext.Table, readTableShapes, tableSpellings)
	gen("table write", sqltext.Table, writeTableShapes, tableSpellings)
	gen("information schema", sqltext.Table, readTableShapes, informationSchemaSpellings)
	gen("routine", sqltext.Routine, routineShapes, routineSpellings)
	gen("model", sqltext.Model, modelShapes, modelSpellings)
	gen("dataset", sqltext.Dataset, datasetShapes, datasetSpellings)
	for i, sh := range scopeShapes {
		for j, sp := range append(slices.Clip(tableSpellings), informationSchemaSpellings...) {
			sql := strings.ReplaceAll(sh.sql, "{X}", sp.sql)
			sql = strings.ReplaceAll(sql, "{R}", quoteIdent(sp.path[0]))
			out = append(out, oracleEntry{
				name: fmt.Sprintf("generated scope shape %d spelling %d", i, j),
				sql:  sql,
				want: &zetaName{Kind: sqltext.Table, Path: sp.path},
			})
		}
	}
	return out
}

func allOracleEntries(tb testing.TB) []oracleEntry {
	return append(loadOracleCorpus(tb), generatedOracleCorpus()...)
}

// wantFound reports whether ZetaSQL's names include want.
func wantFound(names []zetaName, want *zetaName) bool {
	for _, n := range names {
		if n.Kind == want.Kind && samePath(n.Path, want.Path) && n.Write == want.Write {
			return true
		}
	}
	return false
}

func TestSQLTextOracle(t *testing.T) {
	entries := allOracleEntries(t)
	var (
		fileEntries, parsed, notParsed, refused, partlyRefused, incomplete, checked int
		namesTotal, namesChecked, namesExcused                                      int
		misses, oracleGaps, notParsedSamples, refusedSamples                        []string
	)
	for _, e := range entries {
		if e.want == nil {
			fileEntries++
		}
		r := runOracle(e.sql)
		if !r.parsed {
			notParsed++
			if len(notParsedSamples) < 40 {
				notParsedSamples = append(notParsedSamples, fmt.Sprintf("%s: %q: %v", e.name, e.sql, r.parseErr))
			}
			continue
		}
		parsed++
		if e.want != nil && !wantFound(r.names, e.want) {
			oracleGaps = append(oracleGaps, fmt.Sprintf("%s: %q: want %s among %v", e.name, e.sql, e.want, r.names))
		}
		namesTotal += len(r.names)
		namesChecked += r.checked
		namesExcused += r.excused
		switch {
		case r.incomplete:
			incomplete++
		case r.refused > 0 && r.refused == len(r.text.Statements):
			refused++
			if len(refusedSamples) < 60 {
				var why []string
				for _, st := range r.text.Statements {
					why = append(why, st.Unplaced...)
				}
				refusedSamples = append(refusedSamples, fmt.Sprintf("%s: %q: %s", e.name, e.sql, strings.Join(why, "; ")))
			}
		default:
			if r.refused > 0 {
				partlyRefused++
			}
			checked++
		}
		if len(r.problems) > 0 {
			misses = append(misses, fmt.Sprintf("%s: %q\n    %s", e.name, e.sql, strings.Join(r.problems, "\n    ")))
		}
	}
	t.Logf("sqltext oracle: %d statements (%d from testdata/sqltext_corpus.sql, %d generated); ZetaSQL parsed %d, could not parse %d; "+
		"of the parsed, the reader refused %d entirely and %d in part, called %d incomplete, and %d were checked; "+
		"ZetaSQL named %d paths: %d compared, %d in refused statements; %d entries with misses",
		len(entries), fileEntries, len(entries)-fileEntries, parsed, notParsed,
		refused, partlyRefused, incomplete, checked, namesTotal, namesChecked, namesExcused, len(misses))
	if testing.Verbose() {
		for _, s := range notParsedSamples {
			t.Logf("not parsed by ZetaSQL: %s", s)
		}
		for _, s := range refusedSamples {
			t.Logf("parsed by ZetaSQL, refused by the reader: %s", s)
		}
	}
	if len(oracleGaps) > 0 {
		t.Errorf("the oracle's walk of ZetaSQL's tree missed the generated name in %d statements (a bug in this test):\n%s",
			len(oracleGaps), strings.Join(limitLines(oracleGaps, 30), "\n"))
	}
	if len(misses) > 0 {
		t.Errorf("sqltext missed names that ZetaSQL's parse tree holds, in %d statements it does not refuse:\n%s",
			len(misses), strings.Join(limitLines(misses, 60), "\n"))
	}
}

func limitLines(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(slices.Clip(s[:n]), fmt.Sprintf("… and %d more", len(s)-n))
}

// TestSQLTextOracleCatchesMisses proves the oracle fails when the reader
// misses a name: with every object and refusal taken out of the reader's
// answer, every statement in which ZetaSQL names a path must be reported.
func TestSQLTextOracleCatchesMisses(t *testing.T) {
	forget := func(text *sqltext.Text) {
		for i := range text.Statements {
			text.Statements[i].Objects = nil
			text.Statements[i].InformationSchema = nil
			text.Statements[i].Unplaced = nil
		}
		text.Incomplete = ""
	}
	withNames := 0
	for _, e := range allOracleEntries(t) {
		r := compareOracle(e.sql, forget)
		if !r.parsed || len(r.names) == 0 {
			continue
		}
		withNames++
		if len(r.problems) < len(r.names) {
			t.Errorf("%s: %q: ZetaSQL names %v, but with the reader's objects removed the oracle reported only %v",
				e.name, e.sql, r.names, r.problems)
		}
	}
	if withNames < 500 {
		t.Errorf("only %d statements of the corpus have names ZetaSQL parses; the oracle checks too little", withNames)
	}
	// A reader that names the path with another kind, or as read where
	// ZetaSQL's position writes, is reported too.
	const sql = "DROP TABLE secret.t"
	r := compareOracle(sql, func(text *sqltext.Text) {
		st := text.Statements[0] // where it stands is kept
		text.Statements[0] = sqltext.Statement{Kind: "DROP TABLE", Start: st.Start, End: st.End, Objects: []sqltext.Object{{Kind: sqltext.Model, Path: []string{"secret", "t"}, Write: true}}}
	})
	if len(r.problems) != 1 || !strings.Contains(r.problems[0], "as a model, not a table") {
		t.Errorf("kind mismatch: problems %q", r.problems)
	}
	r = compareOracle(sql, func(text *sqltext.Text) {
		st := text.Statements[0] // where it stands is kept
		text.Statements[0] = sqltext.Statement{Kind: "DROP TABLE", Start: st.Start, End: st.End, Objects: []sqltext.Object{{Kind: sqltext.Table, Path: []string{"SECRET", "T"}}}}
	})
	if len(r.problems) != 1 || !strings.Contains(r.problems[0], "not as written") {
		t.Errorf("write missed: problems %q", r.problems)
	}
	r = compareOracle(sql, func(text *sqltext.Text) {
		st := text.Statements[0] // where it stands is kept
		text.Statements[0] = sqltext.Statement{Kind: "DROP TABLE", Start: st.Start, End: st.End, Objects: []sqltext.Object{{Kind: sqltext.Table, Path: []string{"SECRET", "T"}, Write: true}}}
	})
	if len(r.problems) != 0 {
		t.Errorf("a reader naming the table (in another case) is reported: %q", r.problems)
	}
}

// FuzzSQLTextOracle runs the oracle on mutations of the corpus. It is
// seeded with testdata/sqltext_corpus.sql and, of the generated statements,
// one per shape and one per spelling (all of them would make the baseline
// take minutes). Seeds on which the oracle fails now are left out: they are
// TestSQLTextOracle's to report, and one failing seed would end the fuzzing
// before it starts.
func FuzzSQLTextOracle(f *testing.F) {
	seen := map[string]bool{}
	seeds, failing := 0, 0
	for _, e := range allOracleEntries(f) {
		group, _, _ := strings.Cut(e.name, " spelling ")
		spell := ""
		if i := strings.LastIndex(e.name, " spelling "); i >= 0 {
			spell = e.name[:strings.Index(e.name, " shape ")+1] + e.name[i:]
		}
		if e.want != nil && seen[group] && seen[spell] {
			continue
		}
		seen[group], seen[spell] = true, true
		if r := runOracle(e.sql); len(r.problems) > 0 {
			failing++
			continue
		}
		seeds++
		f.Add(e.sql)
	}
	f.Logf("%d seeds; %d corpus statements left out because the oracle fails on them now", seeds, failing)
	f.Fuzz(func(t *testing.T, sql string) {
		// ZetaSQL reads a C string: a NUL would end the text for it but
		// not for the reader. Long inputs only slow the search down.
		if strings.IndexByte(sql, 0) >= 0 || len(sql) > 2000 {
			t.Skip()
		}
		r := runOracle(sql)
		if len(r.problems) > 0 {
			t.Errorf("sqltext misses names ZetaSQL's parse tree holds in %q:\n    %s", sql, strings.Join(r.problems, "\n    "))
		}
	})
}
