package sqltext

import (
	"strings"
	"testing"
)

func describe(st Statement) string {
	var parts []string
	for _, o := range st.Objects {
		w := ""
		if o.Write {
			w = "!"
		}
		parts = append(parts, o.Kind.String()+w+":"+strings.Join(o.Path, "."))
	}
	for _, p := range st.InformationSchema {
		parts = append(parts, "is:"+strings.Join(p, "."))
	}
	for range st.External {
		parts = append(parts, "external")
	}
	for _, u := range st.ExportURIs {
		parts = append(parts, "export:"+u)
	}
	if len(st.Unplaced) > 0 {
		parts = append(parts, "UNPLACED")
	}
	return strings.TrimSpace(st.Kind + " " + strings.Join(parts, " "))
}

// TestObjectPositions reads one statement of every object position issue
// 17 lists, spelled the ways attackers spelled them, and names every object:
// kind, "!" for a write, decoded path.
func TestObjectPositions(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"SELECT * FROM (SELECT 1 AS x), `region-us`.`INFORMATION\\x5FSCHEMA`.JOBS", `SELECT is:region-us.INFORMATION_SCHEMA.JOBS`},
		{`SELECT * FROM ML.PREDICT(MODEL secret.m, TABLE sales.t)`, `SELECT model:secret.m table:sales.t`},
		{`SELECT secret.fn(x), SAFE.NET.HOST(u), sales.t.col FROM sales.t`, `SELECT routine:secret.fn table:sales.t`},
		{`DROP SCHEMA secret CASCADE`, `DROP SCHEMA dataset!:secret`},
		{`CREATE OR REPLACE TABLE sales.c CLONE secret.t`, `CREATE TABLE table!:sales.c table:secret.t`},
		{"GRANT `roles/bigquery.dataViewer` ON SCHEMA secret TO 'user:a@b.c'", `GRANT dataset!:secret`},
		{"REVOKE `roles/x` ON TABLE secret.t FROM 'user:a'", `REVOKE table!:secret.t`},
		{`LOAD DATA OVERWRITE secret.t FROM FILES(format='CSV', uris=['gs://x'])`, `LOAD DATA table!:secret.t external`},
		{`SELECT * FROM sales.a JOIN sales.b ON a.x = b.x, secret.t`, `SELECT table:sales.a table:sales.b table:secret.t`},
		{`SELECT * FROM sales.a AS a, a.items, UNNEST(a.arr) x, secret.t`, `SELECT table:sales.a table:secret.t`},
		{`WITH c AS (SELECT 1) SELECT * FROM c, c.x`, `SELECT`},
		{`SELECT EXTRACT(YEAR FROM d) FROM sales.t WHERE x IN (SELECT y FROM secret.u)`, `SELECT table:sales.t table:secret.u`},
		{`INSERT INTO sales.t (a, b) SELECT * FROM secret.u`, `INSERT table!:sales.t table:secret.u`},
		{`MERGE sales.t T USING secret.s S ON T.id = S.id WHEN MATCHED THEN UPDATE SET a = 1`, `MERGE table!:sales.t table:secret.s`},
		{`CALL secret.p()`, `CALL routine:secret.p`},
		{`CREATE TABLE FUNCTION sales.f(x INT64) AS SELECT * FROM secret.t`, `CREATE TABLE FUNCTION routine!:sales.f table:secret.t`},
		{"SELECT * FROM `proj.secret.t`, `example.com:proj.ds.t`", `SELECT table:proj.secret.t table:example.com:proj.ds.t`},
		{`FROM sales.t |> JOIN secret.u USING (id) |> WHERE x > 1`, `SELECT table:sales.t table:secret.u`},
		{`SELECT * FROM my-proj.secret.t`, `SELECT table:my-proj.secret.t`},
		{`CREATE SEARCH INDEX i ON secret.t(ALL COLUMNS)`, `CREATE SEARCH INDEX table!:secret.t`},
		{`EXECUTE IMMEDIATE 'SELECT 1'`, `EXECUTE UNPLACED`},
		{"SELECT * FROM `secre\\x74`.t, model.x", `SELECT table:secret.t table:model.x`},
		{`ALTER TABLE sales.t ADD FOREIGN KEY (a) REFERENCES secret.u(b) NOT ENFORCED`, `ALTER TABLE table!:sales.t table:secret.u`},
		{`SELECT * FROM ((sales.a JOIN secret.b USING (id)))`, `SELECT table:sales.a table:secret.b`},
		{`SELECT * FROM sales.t FOR SYSTEM_TIME AS OF CURRENT_TIMESTAMP() , secret.u`, `SELECT table:sales.t table:secret.u`},
		{`EXPORT DATA OPTIONS(uri='gs://x/*') AS SELECT * FROM secret.t`, `EXPORT DATA table:secret.t export:gs://x/*`},
		{`SELECT * FROM EXTERNAL_QUERY('c', 'SELECT 1')`, `SELECT connection:c`},
		{`SELECT * FROM sales.t PIVOT(SUM(x) FOR y IN ('a', 'b')), secret.u`, `SELECT table:sales.t table:secret.u`},
		{`SELECT * FROM sales.t TABLESAMPLE SYSTEM (10 PERCENT), secret.u`, `SELECT table:sales.t table:secret.u`},
		{`DELETE sales.t WHERE true`, `DELETE table!:sales.t`},
		{`UPDATE sales.t SET a = 1 FROM secret.u WHERE t.id = u.id`, `UPDATE table!:sales.t table:secret.u`},
		{`CREATE SCHEMA IF NOT EXISTS secret`, `CREATE SCHEMA dataset!:secret`},
		{`SELECT * FROM VECTOR_SEARCH(TABLE secret.t, 'e', TABLE sales.q)`, `SELECT table:secret.t table:sales.q`},
		{`SELECT ML.WEIGHTS(MODEL secret.m)`, `SELECT model:secret.m`},
		{"SELECT `secret`.fn(1)", `SELECT routine:secret.fn`},
		{"ALTER TABLE sales.a RENAME TO secret.t", "ALTER TABLE table!:sales.a table!:secret.t"},
		{"ALTER TABLE sales.a RENAME COLUMN x TO y", "ALTER TABLE table!:sales.a"},
		// Range variables have scopes: one declared in a closed subquery
		// or CTE, in the other side of a set operation, or hidden by an
		// explicit alias does not make a later path correlated.
		{"WITH c AS (SELECT * FROM ok.secret) SELECT * FROM secret.t", "SELECT table:ok.secret table:secret.t"},
		{"SELECT * FROM (SELECT * FROM ok.secret), secret.t", "SELECT table:ok.secret table:secret.t"},
		{"SELECT * FROM ok.a UNION ALL SELECT * FROM ok.secret, secret.t", "SELECT table:ok.a table:ok.secret"},
		{"SELECT * FROM ok.secret WHERE true UNION ALL SELECT * FROM secret.t", "SELECT table:ok.secret table:secret.t"},
		{"SELECT * FROM ok.secret AS s, secret.t", "SELECT table:ok.secret table:secret.t"},
		{"SELECT * FROM ok.o AS s, s.items", "SELECT table:ok.o"},
		{"SELECT * FROM (SELECT 1) AS x, x.arr, UNNEST(x.b) AS y, y.c", "SELECT"},
		// A float literal's dot is not a path's.
		{"SELECT 5. FROM secret.t", "SELECT table:secret.t"},
		{"SELECT 5.FROM secret.t, 1.5e-3, 2e5", "SELECT table:secret.t"},
		{"SELECT * FROM p.ds.2024", "SELECT table:p.ds.2024"},
		{"SELECT * FROM my-proj-123.secret.t AS x WHERE x.a > 0", "SELECT table:my-proj-123.secret.t"},
		{"SELECT * FROM ok.secret, (SELECT * FROM secret.t)", "SELECT table:ok.secret table:secret.t"},
		{"SELECT * FROM ok.t WHERE EXISTS (SELECT x FROM t.arr)", "SELECT table:ok.t"},
		// A select list sees its FROM's range variables (scope_test.go).
		{"SELECT (SELECT x FROM t.arr) FROM ok.t", "SELECT table:ok.t"},
		{"INSERT INTO ok.secret SELECT * FROM secret.t", "INSERT table!:ok.secret table:secret.t"},
		{"SELECT * FROM ok.a JOIN @{join_method = HASH_JOIN} secret.t ON TRUE", "SELECT table:ok.a table:secret.t"},
		{"SELECT x-secret.fn(1) FROM ok.a", "SELECT routine:secret.fn table:ok.a"},
		{"SELECT * FROM ok.a JOIN ok.b ON CASE WHEN a.x = 1 THEN TRUE ELSE FALSE END, secret.t", "SELECT table:ok.a table:ok.b table:secret.t"},
		{"MERGE ok.t USING ok.s ON TRUE WHEN MATCHED THEN DELETE", "MERGE table!:ok.t table:ok.s"},
		{"DROP ALL ROW ACCESS POLICIES ON secret.t", "DROP ALL ROW ACCESS POLICIES table!:secret.t"},
		// Issue 28's third round: property graphs in every position.
		{"SELECT * FROM GRAPH_TABLE(secret.g MATCH (a)-[e]->(b) COLUMNS (a.id))", "SELECT property graph:secret.g"},
		{"SELECT * FROM sales.t, GRAPH_TABLE(`p.secret.g` MATCH (n) COLUMNS (n.x)) AS g", "SELECT table:sales.t property graph:p.secret.g"},
		{"FROM sales.t |> JOIN GRAPH_TABLE(secret.g MATCH (n) COLUMNS (n.id AS id)) USING (id)", "SELECT table:sales.t property graph:secret.g"},
		{"SELECT (SELECT COUNT(*) FROM GRAPH_TABLE(sales.g MATCH (n) COLUMNS (n.id))) AS n", "SELECT property graph:sales.g"},
		{"INSERT INTO sales.t SELECT * FROM GRAPH_TABLE(secret.g MATCH (n) COLUMNS (n.id))", "INSERT table!:sales.t property graph:secret.g"},
		{"GRAPH secret.g MATCH (n) RETURN n.id", "GRAPH property graph:secret.g"},
		{"SELECT * FROM sales.t WHERE EXISTS (GRAPH secret.g MATCH (n) RETURN n.id)", "SELECT table:sales.t property graph:secret.g"},
		{"SELECT graph, t.graph FROM sales.t", "SELECT table:sales.t"},
		{"SELECT * FROM ML.PREDICT(MODEL sales.m, CONNECTION secret.c)", "SELECT model:sales.m connection:secret.c"},
		{"SELECT * FROM APPENDS(CONNECTION `p.us.c`, 'SELECT 1')", "SELECT connection:p.us.c"},
		{"SELECT connection FROM sales.t", "SELECT table:sales.t"},
		{"SELECT * FROM if(TRUE, 1, 2)", "SELECT UNPLACED"},
		{"CREATE TEMP FUNCTION f(x STRING) RETURNS STRING LANGUAGE js OPTIONS (library = ['gs://b/lib.js']) AS 'return x;'; SELECT f('a')", "SELECT external"},
		// A property graph's definition names the tables it is built on:
		// every element's table, and the node elements its edges
		// reference (an element's name, read as a table: the strict side).
		{"CREATE PROPERTY GRAPH sales.g NODE TABLES (secret.people KEY (id))", "CREATE PROPERTY GRAPH property graph!:sales.g table:secret.people"},
		{"CREATE OR REPLACE PROPERTY GRAPH IF NOT EXISTS `p.sales.g` NODE TABLES (sales.a AS Person KEY (id) LABEL Person PROPERTIES (name, UPPER(city) AS city), `p.secret.b` DEFAULT LABEL PROPERTIES ALL COLUMNS EXCEPT (ssn)) EDGE TABLES (sales.t KEY (id, to_id) SOURCE KEY (id) REFERENCES Person (id) DESTINATION KEY (to_id) REFERENCES b (id) LABEL Transfers, `secret`.e SOURCE KEY (x) REFERENCES Person DESTINATION KEY (y) REFERENCES Person NO PROPERTIES)",
			"CREATE PROPERTY GRAPH property graph!:p.sales.g table:sales.a table:p.secret.b table:sales.t table:Person table:b table:secret.e table:Person table:Person"},
		{"CREATE PROPERTY GRAPH sales.g NODE TABLES (a KEY (id)) EDGE TABLES (e SOURCE KEY (x) REFERENCES a DESTINATION KEY (y) REFERENCES a)", "CREATE PROPERTY GRAPH property graph!:sales.g table:a table:e table:a table:a"},
		{"CREATE PROPERTY GRAPH sales.g NODE TABLES (sales.a PROPERTIES ((SELECT MAX(x) FROM secret.t) AS m))", "CREATE PROPERTY GRAPH property graph!:sales.g table:sales.a table:secret.t"},
		{"CREATE PROPERTY GRAPH sales.g NODE TABLES ((SELECT * FROM sales.a) KEY (id))", "CREATE PROPERTY GRAPH property graph!:sales.g table:sales.a UNPLACED"},
		{"CREATE PROPERTY GRAPH sales.g NODE TABLES (sales.a, , sales.b)", "CREATE PROPERTY GRAPH property graph!:sales.g table:sales.a table:sales.b UNPLACED"},
		{"CREATE PROPERTY GRAPH sales.g NODE TABLES ()", "CREATE PROPERTY GRAPH property graph!:sales.g"},
		{"CREATE PROCEDURE sales.p() BEGIN CREATE PROPERTY GRAPH sales.g NODE TABLES (secret.people KEY (id)); END", "CREATE PROCEDURE routine!:sales.p property graph!:sales.g table:secret.people"},
		// NODE TABLES outside graph DDL is not a list of elements.
		{"SELECT node, tables FROM sales.t WHERE edge IN (tables)", "SELECT table:sales.t"},
		{"DROP PROPERTY GRAPH IF EXISTS sales.g", "DROP PROPERTY GRAPH property graph!:sales.g"},
		// Materialized view replicas and every other source clause.
		{"CREATE MATERIALIZED VIEW sales.x AS REPLICA OF secret.v", "CREATE MATERIALIZED VIEW table!:sales.x table:secret.v"},
		{"CREATE MATERIALIZED VIEW sales.x AS REPLICA OF `p.secret.v` OPTIONS (replication_interval_seconds = 600)", "CREATE MATERIALIZED VIEW table!:sales.x table:p.secret.v"},
		// Connections, in any spelling.
		{"SELECT OBJ.MAKE_REF('gs://b/x.jpg', 'us.conn') AS r", "SELECT connection:us.conn"},
		{"SELECT OBJ.MAKE_REF(uri, `p.us.conn`) FROM sales.t", "SELECT table:sales.t UNPLACED"}, // a column
		{"SELECT OBJ.MAKE_REF(uri, c) FROM sales.t", "SELECT table:sales.t UNPLACED"},
		{"SELECT OBJ.MAKE_REF(TO_JSON(STRUCT(uri, 'us.c' AS authorizer))) FROM sales.t", "SELECT table:sales.t UNPLACED"},
		{"SELECT OBJ.GET_ACCESS_URL(ref, 'r') FROM sales.t", "SELECT table:sales.t UNPLACED"},
		{"SELECT AI.GENERATE('hi', connection_id => 'us.conn', endpoint => 'gemini-2.5-flash')", "SELECT connection:us.conn"},
		{"SELECT AI.GENERATE('hi', connection_id => 'projects/p/locations/us/connections/c')", "SELECT connection:p.us.c"},
		{"SELECT AI.GENERATE('hi', endpoint => 'gemini-2.5-flash')", "SELECT UNPLACED"},
		{"SELECT AI.NEW_THING('hi')", "SELECT UNPLACED"},
		{"SELECT * FROM sales.t, NEW_TVF(1)", "SELECT table:sales.t UNPLACED"},
		{"SELECT * FROM ML.NEW_TVF(MODEL sales.m)", "SELECT model:sales.m UNPLACED"},
		{"SELECT * FROM EXTERNAL_QUERY(@conn, 'SELECT 1')", "SELECT UNPLACED"},
		{"SELECT * FROM EXTERNAL_QUERY(r'p.us.pg', '''SELECT 1''')", "SELECT connection:p.us.pg"},
		{"SELECT * FROM EXTERNAL_QUERY(\"eu.pg\", 'x') AS e, secret.t", "SELECT connection:eu.pg table:secret.t"},
		{"CREATE MODEL sales.m REMOTE WITH CONNECTION `p.us.c` OPTIONS (endpoint = 'gemini-2.0-flash')", "CREATE MODEL model!:sales.m connection:p.us.c"},
		{"CREATE MODEL sales.m REMOTE WITH CONNECTION DEFAULT OPTIONS (endpoint = 'x')", "CREATE MODEL model!:sales.m connection:DEFAULT"},
		{"CREATE EXTERNAL TABLE sales.e WITH CONNECTION us.c OPTIONS (format = 'CSV', uris = ['gs://b/x'])", "CREATE EXTERNAL TABLE table!:sales.e connection:us.c external"},
		// EXPORT DATA in every position, with its destinations.
		{"EXPORT DATA WITH CONNECTION us.c OPTIONS (uri = 'gs://b/x/*.csv', format = 'CSV') AS SELECT * FROM sales.t", "EXPORT DATA connection:us.c table:sales.t export:gs://b/x/*.csv"},
		{"SELECT * FROM sales.t |> EXPORT DATA OPTIONS (uri = 'gs://b/y/*', format = 'JSON')", "SELECT table:sales.t export:gs://b/y/*"},
		{"WITH x AS (SELECT 1) EXPORT DATA OPTIONS (format = 'CSV', URI = r'gs://b/z/*') AS SELECT * FROM x", "SELECT export:gs://b/z/*"},
		{"EXPORT DATA OPTIONS (uri = CONCAT('gs://', 'b/*')) AS SELECT 1", "EXPORT DATA UNPLACED"},
		{"EXPORT MODEL sales.m OPTIONS (uri = 'gs://b/m')", "EXPORT MODEL model!:sales.m export:gs://b/m"},
		// Temporary functions before one query are that query.
		{"CREATE TEMP FUNCTION f(x INT64) AS (x + 1); SELECT f(n) FROM sales.t", "SELECT table:sales.t"},
		{"CREATE TEMPORARY FUNCTION g() AS ((SELECT MAX(n) FROM secret.t)); CREATE TEMP FUNCTION h(s STRING) RETURNS STRING LANGUAGE js AS r'''return s;'''; SELECT g(), h('a')", "SELECT table:secret.t"},
		// A procedure is one statement; its body's objects are its own.
		{"CREATE PROCEDURE sales.p(x INT64) BEGIN DECLARE d DATE DEFAULT (SELECT MAX(d) FROM sales.t); INSERT INTO sales.u SELECT * FROM secret.t WHERE d > d; SELECT CASE WHEN x > 0 THEN 1 END; END",
			"CREATE PROCEDURE routine!:sales.p table:sales.t table!:sales.u table:secret.t"},
		{"CREATE OR REPLACE PROCEDURE sales.p() BEGIN IF TRUE THEN DELETE sales.t WHERE TRUE; END IF; END", "CREATE PROCEDURE routine!:sales.p UNPLACED"},
		{"CREATE PROCEDURE sales.p() BEGIN SELECT 1; END", "CREATE PROCEDURE routine!:sales.p"},
	} {
		p := Parse(c.sql)
		if len(p.Statements) != 1 {
			t.Errorf("%s: %d statements", c.sql, len(p.Statements))
			continue
		}
		if got := describe(p.Statements[0]); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.sql, got, c.want)
		}
	}
}

// FuzzParse: the reader never panics, and every part of every path it
// reports is one of the text's own identifiers, decoded (a path is never
// made up, only read).
func FuzzParse(f *testing.F) {
	for _, sql := range []string{
		"SELECT * FROM (SELECT 1), `region-us`.`INFORMATION\\x5FSCHEMA`.JOBS",
		"SELECT * FROM ML.PREDICT(MODEL secret.m, TABLE sales.t)",
		"CREATE OR REPLACE TABLE sales.c CLONE secret.t",
		"GRANT `roles/x` ON SCHEMA secret TO 'user:a'",
		"SELECT * FROM my-proj.secret.t, `example.com:p.d.t` JOIN x.y USING (id)",
	} {
		f.Add(sql)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		text := Parse(sql)
		words := map[string]bool{}
		for i := range text.NumTokens() {
			tok := text.Token(i)
			words[tok.Value] = true
			for _, p := range strings.Split(tok.Value, ".") {
				words[p] = true
			}
		}
		for _, st := range text.Statements {
			paths := append([][]string{}, st.InformationSchema...)
			for _, o := range st.Objects {
				paths = append(paths, o.Path)
			}
			for _, p := range paths {
				for _, part := range p {
					for _, w := range strings.Split(part, "-") {
						if !words[w] && !words[part] && !strings.Contains(part, ":") {
							t.Fatalf("path part %q of %q is not an identifier of the text", part, p)
						}
					}
				}
			}
		}
	})
}
