package sqltext

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// readOnlyRejectCases must all be refused. keyword is the expected
// ReadOnlyViolation.Keyword; statements the expected statement count.
var readOnlyRejectCases = []struct {
	name       string
	sql        string
	keyword    string
	statements int
}{
	// DML.
	{"insert", "INSERT INTO ds.t (a) VALUES (1)", "INSERT", 1},
	{"update", "UPDATE ds.t SET a = 1 WHERE TRUE", "UPDATE", 1},
	{"delete", "DELETE FROM ds.t WHERE TRUE", "DELETE", 1},
	{"delete lower case", "delete ds.t where true", "DELETE", 1},
	{"merge", "MERGE ds.t T USING ds.s S ON T.id = S.id WHEN MATCHED THEN DELETE", "MERGE", 1},
	{"truncate", "TRUNCATE TABLE ds.t", "TRUNCATE", 1},

	// DDL, DCL, export and load.
	{"create table", "CREATE TABLE ds.t (a INT64)", "CREATE", 1},
	{"create or replace view", "CREATE OR REPLACE VIEW ds.v AS SELECT 1 AS a", "CREATE", 1},
	{"temp function before a write", "CREATE TEMP FUNCTION f(x INT64) AS (x + 1); DELETE FROM t WHERE f(1) = 2", "DELETE", 2},
	{"temp function and two queries", "CREATE TEMP FUNCTION f(x INT64) AS (x + 1); SELECT f(1); SELECT 2", "", 3},
	{"temp table before a query", "CREATE TEMP TABLE x AS SELECT 1 AS n; SELECT * FROM x", "CREATE", 2},
	{"with export data", "WITH x AS (SELECT 1) EXPORT DATA OPTIONS (uri = 'gs://b/*') AS SELECT * FROM x", "EXPORT", 1},
	{"export data in parentheses", "(SELECT 1) |> EXPORT DATA OPTIONS (uri = 'gs://b/*')", "EXPORT", 1},
	{"create table as select", "CREATE TABLE ds.t AS SELECT * FROM ds.s", "CREATE", 1},
	{"drop table", "DROP TABLE ds.t", "DROP", 1},
	{"alter table", "ALTER TABLE ds.t ADD COLUMN b STRING", "ALTER", 1},
	{"export data", "EXPORT DATA OPTIONS(uri='gs://bucket/*.csv', format='CSV', overwrite=true) AS SELECT * FROM ds.t", "EXPORT", 1},
	{"load data", "LOAD DATA INTO ds.t FROM FILES(format='CSV', uris=['gs://bucket/x.csv'])", "LOAD", 1},
	{"grant", "GRANT `roles/bigquery.dataViewer` ON TABLE ds.t TO 'user:a@example.com'", "GRANT", 1},
	{"revoke", "REVOKE `roles/bigquery.dataViewer` ON TABLE ds.t FROM 'user:a@example.com'", "REVOKE", 1},

	// Procedures and scripting.
	{"call", "CALL ds.proc()", "CALL", 1},
	{"declare and set", "DECLARE x INT64; SET x = 1", "DECLARE", 2},
	{"set system variable", "SET @@dataset_id = 'x'", "SET", 1},
	{"begin end block", "BEGIN SELECT 1; END", "BEGIN", 2},
	{"begin transaction", "BEGIN TRANSACTION", "BEGIN", 1},
	{"execute immediate", "EXECUTE IMMEDIATE 'DELETE FROM ds.t WHERE TRUE'", "EXECUTE", 1},
	{"assert", "ASSERT (SELECT COUNT(*) FROM ds.t) > 0 AS 'table is empty'", "ASSERT", 1},
	{"label", "outer_loop: LOOP SELECT 1; END LOOP", "OUTER_LOOP", 2},

	// Comments that try to hide the real statement.
	{"block comment before delete", "/* SELECT */ DELETE FROM t", "DELETE", 1},
	{"dash comment before delete", "-- SELECT\nDELETE FROM t", "DELETE", 1},
	{"pound comment before drop", "# SELECT\nDROP TABLE t", "DROP", 1},
	{"dash comment ended by CR", "SELECT 1 --\r; DROP TABLE t", "DROP", 2},
	{"pound comment ended by CR", "SELECT 1 # x\rDELETE FROM t", "DELETE", 1},

	// Scripts, even all-SELECT ones.
	{"select then delete", "SELECT 1; DELETE FROM t", "DELETE", 2},
	{"semicolon in comment", "SELECT 1 /* ; */; DROP TABLE x", "DROP", 2},
	{"two selects", "SELECT 1; -- ok\n SELECT 2", "", 2},
	{"string then drop", "SELECT 'a;b'; DROP TABLE t", "DROP", 2},
	{"triple quoted then drop", "SELECT '''a\n;''' ; DROP TABLE t", "DROP", 2},
	{"raw string then drop", `SELECT r'\d+'; DROP TABLE t`, "DROP", 2},
	{"empty string then drop", "SELECT ''; DROP TABLE t", "DROP", 2},
	{"quoted identifier then drop", "SELECT * FROM `p.d.t`; DROP TABLE t", "DROP", 2},

	// Writes disguised as queries.
	{"with delete", "WITH x AS (SELECT 1) DELETE FROM t WHERE TRUE", "DELETE", 1},
	{"with insert", "WITH x AS (SELECT 1 AS a) INSERT INTO t SELECT a FROM x", "INSERT", 1},
	{"with update", "with x as (select 1) update t set a = 1 where true", "UPDATE", 1},
	{"with merge", "WITH x AS (SELECT 1) MERGE t USING x ON FALSE WHEN NOT MATCHED THEN INSERT ROW", "MERGE", 1},
	{"parenthesised with delete", "(WITH x AS (SELECT 1) DELETE FROM t WHERE TRUE)", "DELETE", 1},
	{"parenthesised delete", "(DELETE FROM t WHERE TRUE)", "DELETE", 1},
	{"pipe export data", "SELECT * FROM t |> EXPORT DATA OPTIONS(uri='gs://bucket/*.csv', format='CSV')", "EXPORT", 1},
	{"pipe create table", "SELECT * FROM t |> CREATE TABLE ds.copy", "CREATE", 1},
	{"pipe insert", "SELECT * FROM t |> WHERE a > 1 |> INSERT INTO ds.copy", "INSERT", 1},
	{"pipe fork export", "SELECT * FROM t |> FORK ( |> EXPORT DATA OPTIONS(uri='gs://b/*') )", "EXPORT", 1},
	// A documented false positive: an unquoted column named like a DML
	// keyword at the top level of a query must be backtick-quoted.
	{"unquoted alias update", "SELECT 1 AS update", "UPDATE", 1},

	// Not queries at all, or not SELECT/WITH queries.
	{"number", "1", "", 1},
	{"string literal", "'SELECT'", "", 1},
	{"values", "VALUES (1)", "VALUES", 1},
	{"leading junk", "; ; DELETE FROM t;", "DELETE", 1},

	// Empty or incomplete SQL.
	{"empty", "", "", 0},
	{"whitespace", " \n\t ", "", 0},
	{"only comments", "-- a\n# b\n/* c */ ;", "", 0},
	{"unterminated single quote", "'unterminated", "", 1},
	{"unterminated block comment", "/* unterminated", "", 0},
	{"unterminated block comment after select", "SELECT 1 /* ; DROP TABLE t", "", 1},
	{"unterminated double quote", `SELECT "abc`, "", 1},
	{"unterminated triple quote", "SELECT '''abc''", "", 1},
	{"unterminated triple double quote", `SELECT """abc"" ; DROP TABLE t`, "", 1},
	{"unterminated quoted identifier", "SELECT * FROM `p.d.t", "", 1},
	{"newline in quoted identifier", "SELECT * FROM `p.d\n.t`", "", 1},
	{"newline in string", "SELECT 'a\nb'", "", 1},
	{"CR in string", "SELECT 'a\rb'", "", 1},
	{"escape at end", `SELECT 'abc\`, "", 1},
	{"escaped closing quote", `SELECT 'abc\'`, "", 1},
	{"raw escaped closing quote", `SELECT r'abc\'`, "", 1},
	{"incomplete after statements", "SELECT 1; SELECT 'x", "", 2},
}

// readOnlyAcceptCases must all be accepted.
var readOnlyAcceptCases = []struct {
	name string
	sql  string
}{
	{"select", "SELECT 1"},
	{"lower case with semicolon", "select 1;"},
	{"mixed case", "SeLeCt 1"},
	{"leading comment", "  -- comment\n SELECT 1"},
	{"leading pound comment", "# comment\r\nSELECT 1"},
	{"with", "/* c */ WITH a AS (SELECT 1) SELECT * FROM a"},
	{"with recursive", "WITH RECURSIVE a AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM a WHERE n < 3) SELECT * FROM a"},
	{"parenthesised", "(SELECT 1)"},
	{"nested parentheses", "((SELECT 1))"},
	{"parenthesised union", "(SELECT 1) UNION ALL (SELECT 2)"},
	{"semicolon in string", "SELECT 'a;b' AS s"},
	{"keywords in double quoted string", `SELECT "DELETE FROM t; DROP TABLE x"`},
	{"triple quoted", "SELECT '''multi\nline ; DELETE'''"},
	{"triple quoted with quotes", `SELECT """a "quoted" ; "" word""" AS s`},
	{"triple quoted with apostrophe", "SELECT '''it's ; here'''"},
	{"raw string", `SELECT r'\d+;'`},
	{"raw string escaped quote", `SELECT r'\'; DROP TABLE t; --'`},
	{"raw triple quoted", "SELECT R'''a\\'''; DROP'''"},
	{"bytes", `SELECT b'\x00;', rb'\d;', BR"x;", Rb'''y;'''`},
	{"quoted identifier", "SELECT * FROM `proj.ds.t;x`"},
	{"quoted identifier with escape", "SELECT * FROM `a\\`;b`"},
	{"quoted keyword identifier", "SELECT `delete`, `update` FROM `insert`"},
	{"dml-like column names", "SELECT update_time, deleted FROM t"},
	{"dml keyword in string", "SELECT * FROM t WHERE x = 'DELETE'"},
	{"dml keyword as path and parameter", "SELECT t.update, t.delete FROM t WHERE x = @insert"},
	{"dml keyword in subquery", "SELECT (SELECT 1 AS merge_count), (SELECT 2 AS insert) FROM t"},
	{"dash comment hides rest", "SELECT 1 -- trailing ; DELETE"},
	{"pound comment hides rest", "SELECT 1 # trailing ; DELETE"},
	{"trailing block comment", "SELECT 1;   /* trailing comment */  "},
	{"trailing semicolons", "SELECT 1;;\n;"},
	{"semicolon after comment", "SELECT 1 -- c\r\n;"},
	{"escaped quote", `SELECT * FROM t WHERE s = 'it\'s; DROP'`},
	{"escaped double quote", `SELECT "\"; DROP TABLE t; --"`},
	{"escaped backslash", `SELECT '\\'`},
	{"comment markers in strings", `SELECT '--', "#", '/*'`},
	{"division and comment", "select 2/*;*/-1"},
	{"dash dash comment", "SELECT 1--1; DROP TABLE t"},
	{"unicode whitespace", "\u00a0SELECT 1;\u3000"},
	{"unicode identifier text", "SELECT 'héllo' AS `größe`"},
	{"pipe read-only operators", "SELECT * FROM t |> WHERE a > 1 |> DROP b |> SET c = 1 |> CALL tvf()"},
	{"system variable", "SELECT @@dataset_id"},
	{"no whitespace", "SELECT'x'"},
	{"pipe query from", "FROM t |> SELECT a"},
	{"graph query", "GRAPH sales.g MATCH (n) RETURN n.id"},
	{"temp functions and one query", "CREATE TEMP FUNCTION f(x INT64) AS (x + 1); CREATE OR REPLACE TEMPORARY AGGREGATE FUNCTION g(x INT64) AS (SUM(x)); SELECT f(1), g(n) FROM t"},
	{"column named export", "SELECT `export` AS data FROM t"},
}

func TestCheckReadOnlyRejects(t *testing.T) {
	for _, tc := range readOnlyRejectCases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckReadOnly(tc.sql)
			if err == nil {
				t.Fatalf("CheckReadOnly(%q) = nil, want a violation", tc.sql)
			}
			var v *ReadOnlyViolation
			if !errors.As(err, &v) {
				t.Fatalf("CheckReadOnly(%q) = %T, want *ReadOnlyViolation", tc.sql, err)
			}
			if v.Keyword != tc.keyword {
				t.Errorf("Keyword = %q, want %q (reason %q)", v.Keyword, tc.keyword, v.Reason)
			}
			if v.Statements != tc.statements {
				t.Errorf("Statements = %d, want %d (reason %q)", v.Statements, tc.statements, v.Reason)
			}
			if v.Reason == "" || !strings.Contains(err.Error(), v.Reason) {
				t.Errorf("Reason = %q, Error() = %q", v.Reason, err.Error())
			}
		})
	}
}

func TestCheckReadOnlyAccepts(t *testing.T) {
	for _, tc := range readOnlyAcceptCases {
		t.Run(tc.name, func(t *testing.T) {
			if err := CheckReadOnly(tc.sql); err != nil {
				t.Errorf("CheckReadOnly(%q) = %v, want nil", tc.sql, err)
			}
		})
	}
}

// TestCheckReadOnlyReasons pins the reason classes that agents see.
func TestCheckReadOnlyReasons(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{"DELETE FROM t", "DELETE statements modify data; the server is read-only"},
		{"SELECT 1; SELECT 2", "multi-statement scripts are not allowed in read-only mode"},
		{"SELECT 1; DROP TABLE t", "statement 2 is DROP"},
		{"", "no statement"},
		{"/* only a comment */", "no statement"},
		{"SELECT 'abc", "incomplete"},
		{"/* abc", "incomplete"},
		{"SELECT '''abc", "incomplete"},
		{"CREATE TABLE t (a INT64)", "DDL"},
		{"EXECUTE IMMEDIATE 'SELECT 1'", "dynamic SQL"},
		{"WITH a AS (SELECT 1) DELETE FROM t WHERE TRUE", "DELETE inside a query"},
		{"SELECT * FROM t |> EXPORT DATA OPTIONS()", "|> EXPORT"},
	} {
		err := CheckReadOnly(tc.sql)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckReadOnly(%q) = %v, want a reason containing %q", tc.sql, err, tc.want)
		}
	}
}

// TestCheckReadOnlyReasonIsAgentSafe checks that reasons describe the SQL
// without echoing it (table names, literals) back.
func TestCheckReadOnlyReasonIsAgentSafe(t *testing.T) {
	for _, sql := range []string{
		"DELETE FROM secret_ds.secret_table WHERE secret_col = 'secret_value'",
		"SELECT 'secret_value'; DROP TABLE secret_table",
		"SELECT 'secret_value",
		"WITH secret_cte AS (SELECT 1) DELETE FROM secret_table WHERE TRUE",
	} {
		err := CheckReadOnly(sql)
		if err == nil {
			t.Fatalf("CheckReadOnly(%q) = nil, want a violation", sql)
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("CheckReadOnly(%q) = %q, leaks SQL text", sql, err)
		}
	}
}

// The two helpers below expose the lexer's view of a whole text, so the
// tests and the fuzz target can check that the guard and the lexer agree.

// sqlLeadingKeyword returns the first keyword of the first statement
// (upper-case), skipping comments, whitespace and "(" — what the guard blames.
// It returns "" when the statement does not start with a keyword (a literal,
// a number, an operator, or nothing at all). Unterminated strings or comments
// are tolerated: whatever precedes them is still examined. The result is
// capped at maxKeywordLen bytes so that a huge identifier cannot bloat logs.
func sqlLeadingKeyword(sql string) string {
	toks, _ := Lex(sql)
	stmts := Split(toks)
	if len(stmts) == 0 {
		return ""
	}
	kw, _ := LeadingKeyword(stmts[0])
	return kw
}

// sqlStatements splits GoogleSQL text into statements on ';' outside
// strings, quoted identifiers and comments; empty statements (only
// whitespace/comments) are dropped.
//
// Each statement is returned as the source text from its first token to its
// last, so comments before the first token or after the last one are not
// included (a trailing "-- comment" would otherwise swallow a ';' added by a
// caller that joins statements again). When the text ends inside an
// unterminated string, quoted identifier or comment, the rest of the input is
// treated as part of the current statement (or, for a comment, dropped).
func sqlStatements(sql string) []string {
	toks, _ := Lex(sql)
	stmts := Split(toks)
	out := make([]string, 0, len(stmts))
	for _, st := range stmts {
		out = append(out, sql[st[0].Start:st[len(st)-1].End])
	}
	return out
}

func TestLeadingKeyword(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{"SELECT 1", "SELECT"},
		{"  /* x */ ((select 1))", "SELECT"},
		{"-- a\n# b\n with x as (select 1) select 1", "WITH"},
		{"; ; delete from t", "DELETE"},
		{"set@@dataset_id = 'x'", "SET"},
		{"DELETE FROM t WHERE x = 'unterminated", "DELETE"},
		{"Create_Table_Thing", "CREATE_TABLE_THING"},
		{"", ""},
		{"/* only */ -- comments", ""},
		{"/* unterminated SELECT", ""},
		{"'SELECT'", ""},
		{"`SELECT`", ""},
		{"123 SELECT", ""},
		{"@x", ""},
		{strings.Repeat("a", 100), strings.Repeat("A", maxKeywordLen)},
	} {
		if got := sqlLeadingKeyword(tc.sql); got != tc.want {
			t.Errorf("sqlLeadingKeyword(%q) = %q, want %q", tc.sql, got, tc.want)
		}
	}
}

func TestSplitStatements(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{"", []string{}},
		{" ; ;\n-- only comments;\n/* ; */", []string{}},
		{"SELECT 1", []string{"SELECT 1"}},
		{"SELECT 1;", []string{"SELECT 1"}},
		{"SELECT 1; SELECT 2", []string{"SELECT 1", "SELECT 2"}},
		{"  ; ;SELECT 'a;b' -- x;\n ; /* ; */", []string{"SELECT 'a;b'"}},
		{"SELECT 1 /* ; */; DROP TABLE x", []string{"SELECT 1", "DROP TABLE x"}},
		{"SELECT /* keep ; me */ 1 ; SELECT 2 -- drop me", []string{"SELECT /* keep ; me */ 1", "SELECT 2"}},
		{"SELECT '''a;\nb''';SELECT r'\\';'", []string{"SELECT '''a;\nb'''", "SELECT r'\\';'"}},
		{"SELECT `a;b`;SELECT \"c;d\"", []string{"SELECT `a;b`", "SELECT \"c;d\""}},
		{"BEGIN\n  SELECT 1;\n  SELECT 2;\nEND;", []string{"BEGIN\n  SELECT 1", "SELECT 2", "END"}},
		{"SELECT 1; 'unterminated ; x", []string{"SELECT 1", "'unterminated ; x"}},
		{"SELECT 1; /* unterminated ; x", []string{"SELECT 1"}},
		{"SELECT 1 --\r; SELECT 2", []string{"SELECT 1", "SELECT 2"}},
		// A procedure's body is inside the procedure; what follows its
		// END is not.
		{"CREATE PROCEDURE d.p() BEGIN SELECT CASE WHEN TRUE THEN 1 END; IF TRUE THEN SELECT 2; END IF; BEGIN SELECT begin FROM t; END; END; DROP TABLE x",
			[]string{"CREATE PROCEDURE d.p() BEGIN SELECT CASE WHEN TRUE THEN 1 END; IF TRUE THEN SELECT 2; END IF; BEGIN SELECT begin FROM t; END; END", "DROP TABLE x"}},
		{"CREATE OR REPLACE PROCEDURE d.p() BEGIN BEGIN TRANSACTION; COMMIT TRANSACTION; END; SELECT 1",
			[]string{"CREATE OR REPLACE PROCEDURE d.p() BEGIN BEGIN TRANSACTION; COMMIT TRANSACTION; END", "SELECT 1"}},
	} {
		got := sqlStatements(tc.sql)
		if !slices.Equal(got, tc.want) || got == nil {
			t.Errorf("sqlStatements(%q) = %q, want %q", tc.sql, got, tc.want)
		}
	}
}

// FuzzCheckReadOnly checks that the guard never panics and that its three
// entry points agree with each other on arbitrary input.
func FuzzCheckReadOnly(f *testing.F) {
	for _, tc := range readOnlyRejectCases {
		f.Add(tc.sql)
	}
	for _, tc := range readOnlyAcceptCases {
		f.Add(tc.sql)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		err := CheckReadOnly(sql)
		stmts := sqlStatements(sql)
		kw := sqlLeadingKeyword(sql)

		// Each piece is a complete statement on its own: splitting it again
		// gives it back unchanged, and it leads with the same keyword.
		for i, s := range stmts {
			if again := sqlStatements(s); len(again) != 1 || again[0] != s {
				t.Fatalf("sqlStatements(%q)[%d] = %q re-splits into %q", sql, i, s, again)
			}
			if !strings.Contains(sql, s) {
				t.Fatalf("sqlStatements(%q)[%d] = %q is not part of the input", sql, i, s)
			}
		}
		if len(stmts) > 0 && sqlLeadingKeyword(stmts[0]) != kw {
			t.Fatalf("sqlLeadingKeyword(%q) = %q, but the first statement %q leads with %q", sql, kw, stmts[0], sqlLeadingKeyword(stmts[0]))
		}

		if err != nil {
			var v *ReadOnlyViolation
			if !errors.As(err, &v) {
				t.Fatalf("CheckReadOnly(%q) = %T, want *ReadOnlyViolation", sql, err)
			}
			if v.Reason == "" {
				t.Fatalf("CheckReadOnly(%q) has an empty Reason", sql)
			}
			if v.Statements != len(stmts) {
				t.Fatalf("CheckReadOnly(%q).Statements = %d, SplitStatements found %d", sql, v.Statements, len(stmts))
			}
			return
		}

		toks, _ := Lex(sql)
		if len(stmts) != 1 && !definesTempFunctions(Split(toks)[:len(stmts)-1]) {
			t.Fatalf("CheckReadOnly(%q) = nil, but SplitStatements found %d statements: %q", sql, len(stmts), stmts)
		}
		query := stmts[len(stmts)-1]
		switch kw := sqlLeadingKeyword(query); kw {
		case "SELECT", "WITH", "FROM", "GRAPH":
		default:
			t.Fatalf("CheckReadOnly(%q) = nil, but its query leads with %q", sql, kw)
		}
		if err := CheckReadOnly(query); err != nil {
			t.Fatalf("CheckReadOnly(%q) = nil, but its query %q fails: %v", sql, query, err)
		}
		// Whatever the input ends with (a line comment, say), a separator
		// on a new line must still be seen: one more statement after it
		// turns the text into a script.
		if err := CheckReadOnly(sql + "\n;"); err != nil {
			t.Fatalf("CheckReadOnly(%q) = nil, but with a trailing ';' it fails: %v", sql, err)
		}
		if err := CheckReadOnly(sql + "\n;SELECT 1"); err == nil {
			t.Fatalf("CheckReadOnly(%q) = nil, and still nil with a second statement appended", sql)
		}
	})
}

// definesTempFunctions is countedTempFunctions on statements as Split
// returns them: whether every one defines a temporary function whose body
// writes nothing.
func definesTempFunctions(stmts [][]Token) bool {
	var steps int
	for _, st := range stmts {
		if s, compact := fromTokens(st); !countedTempFunctions(s, compact, []span{{0, int32(len(compact))}}, &steps) {
			return false
		}
	}
	return true
}
