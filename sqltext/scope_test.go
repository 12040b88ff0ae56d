package sqltext

import "testing"

// TestScopes holds the reader to BigQuery's scopes of range variables
// (issue 35): a query's FROM aliases are seen in its select list and the
// subqueries of it, in QUALIFY, WINDOW and ORDER BY, and nowhere a
// from-item path that starts with them could be a table BigQuery reads
// instead.
func TestScopes(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		// The GA4 idioms: a correlated path in a subquery of the select
		// list, before the FROM that declares it.
		{"SELECT (SELECT value.int_value FROM UNNEST(e.event_params) WHERE key = 'ga_session_id') AS s FROM `p.analytics_1.events_*` AS e",
			"SELECT table:p.analytics_1.events_*"},
		{"SELECT (SELECT value.int_value FROM e.event_params WHERE key = 'ga_session_id') AS session_id FROM `p.analytics_1.events_*` AS e",
			"SELECT table:p.analytics_1.events_*"},
		{"SELECT user_pseudo_id, (SELECT value.string_value FROM e.event_params WHERE key = 'page_location') AS page, " +
			"ARRAY(SELECT AS STRUCT key FROM e.user_properties) AS props, COALESCE((SELECT MAX(p.value.int_value) FROM e.event_params AS p), 0) AS m " +
			"FROM analytics_1.events_20240101 e WHERE EXISTS (SELECT 1 FROM e.items)",
			"SELECT table:analytics_1.events_20240101"},
		// The implicit alias (the table's last part) is one too.
		{"SELECT (SELECT x FROM t.arr) FROM ok.t", "SELECT table:ok.t"},
		{"SELECT (SELECT x FROM T.arr) FROM ok.t", "SELECT table:ok.t"}, // aliases are case-blind
		// Two levels: the outer select list's alias, seen through the inner's.
		{"SELECT (SELECT (SELECT y FROM e.arr) FROM ok.u) FROM ok.t AS e", "SELECT table:ok.u table:ok.t"},
		{"SELECT (SELECT (SELECT y FROM u.arr) FROM ok.u) FROM ok.t AS e", "SELECT table:ok.u table:ok.t"},
		// In a CTE, in DML, in a view, in a FROM subquery, after WITH.
		{"WITH c AS (SELECT (SELECT x FROM e.a) AS x FROM ok.t AS e) SELECT * FROM c", "SELECT table:ok.t"},
		{"INSERT INTO ok.o SELECT (SELECT x FROM e.a) FROM ok.t AS e", "INSERT table!:ok.o table:ok.t"},
		{"CREATE VIEW ok.v AS SELECT (SELECT x FROM e.a) AS x FROM ok.t AS e", "CREATE VIEW table!:ok.v table:ok.t"},
		{"SELECT * FROM (SELECT (SELECT x FROM e.a) AS x FROM ok.t AS e)", "SELECT table:ok.t"},
		{"SELECT * EXCEPT (a), (SELECT x FROM e.a) FROM ok.t AS e", "SELECT table:ok.t"},
		{"SELECT e.* EXCEPT (a), (SELECT x FROM e.a) FROM ok.t AS e", "SELECT table:ok.t"},
		// QUALIFY, WINDOW, ORDER BY come after the FROM.
		{"SELECT * FROM ok.t AS e QUALIFY ROW_NUMBER() OVER (ORDER BY (SELECT MAX(x) FROM e.a)) = 1", "SELECT table:ok.t"},
		{"SELECT * FROM ok.t AS e ORDER BY (SELECT MAX(x) FROM e.a)", "SELECT table:ok.t"},
		{"SELECT SUM(n) OVER w FROM ok.t AS e WINDOW w AS (ORDER BY (SELECT MAX(x) FROM e.a))", "SELECT table:ok.t"},
		// What an alias must not hide. Another name.
		{"SELECT (SELECT * FROM secret.t) FROM sales.t AS x", "SELECT table:secret.t table:sales.t"},
		// A CTE before the query that declares it.
		{"WITH c AS (SELECT * FROM secret.t) SELECT * FROM c, ok.u AS secret", "SELECT table:secret.t table:ok.u"},
		{"WITH c AS (SELECT (SELECT 1 FROM secret.t) AS n) SELECT (SELECT 1 FROM secret.x) FROM c, ok.u AS secret",
			"SELECT table:secret.t table:ok.u"},
		// A query before a set operation, or after it.
		{"SELECT (SELECT 1 FROM secret.t) UNION ALL SELECT 1 FROM ok.u AS secret", "SELECT table:secret.t table:ok.u"},
		{"SELECT 1 FROM ok.u AS secret UNION ALL SELECT (SELECT 1 FROM secret.t)", "SELECT table:ok.u table:secret.t"},
		{"SELECT 1 FROM ok.u AS secret EXCEPT DISTINCT SELECT (SELECT 1 FROM secret.t) FROM ok.v AS w", "SELECT table:ok.u table:secret.t table:ok.v"},
		// A pipe operator before the join that declares it.
		{"FROM ok.t |> SELECT (SELECT 1 FROM secret.t) AS n |> JOIN ok.u AS secret ON TRUE", "SELECT table:ok.t table:secret.t table:ok.u"},
		{"SELECT (SELECT 1 FROM secret.t) AS n |> JOIN ok.u AS secret ON TRUE", "SELECT table:secret.t table:ok.u"},
		// The FROM list that declares it, and a subquery in it (no LATERAL).
		{"SELECT (SELECT 1 FROM e.a) FROM secret.t AS secret", "SELECT table:e.a table:secret.t"},
		{"SELECT (SELECT 1 FROM secret.x) FROM secret.t AS secret", "SELECT table:secret.t"},
		{"SELECT (SELECT 1 FROM secret.x) FROM (SELECT * FROM secret.y), ok.t AS secret", "SELECT table:secret.y table:ok.t"},
		{"SELECT (SELECT 1 FROM ok.a JOIN ok.b ON EXISTS (SELECT 1 FROM s.x) JOIN ok.c AS s) FROM ok.t", "SELECT table:ok.a table:ok.b table:s.x table:ok.c table:ok.t"},
		// A subquery in a FROM list of an expression subquery sees the
		// range variables of the queries around that subquery (the
		// correlation BigQuery resolves), never those of its own FROM
		// list nor of a FROM list around that.
		{"SELECT (SELECT COUNT(*) FROM (SELECT * FROM e.a)) FROM ok.t AS e", "SELECT table:ok.t"},
		{"SELECT (SELECT COUNT(*) FROM (SELECT * FROM (SELECT * FROM e.a))) FROM ok.t AS e", "SELECT table:ok.t"},
		{"SELECT * FROM ok.t AS e WHERE EXISTS (SELECT 1 FROM (SELECT * FROM e.a) AS i)", "SELECT table:ok.t"},
		{"SELECT * FROM ok.t AS e WHERE EXISTS (SELECT 1 FROM ok.u JOIN (SELECT * FROM e.a) ON TRUE)", "SELECT table:ok.t table:ok.u"},
		{"SELECT * FROM ok.t AS e WHERE EXISTS (SELECT 1 FROM ok.u AS s, (SELECT * FROM s.a))", "SELECT table:ok.t table:ok.u table:s.a"},
		{"SELECT * FROM ok.t AS e WHERE EXISTS (SELECT 1 FROM ok.u AS s, (SELECT * FROM (SELECT * FROM s.a)))", "SELECT table:ok.t table:ok.u table:s.a"},
		{"SELECT * FROM ok.t AS e WHERE EXISTS (SELECT 1 FROM (ok.u AS s JOIN (SELECT * FROM s.a) ON TRUE))", "SELECT table:ok.t table:ok.u table:s.a"},
		// A table function's arguments see none (the strict side).
		{"SELECT * FROM ok.t AS e WHERE EXISTS (SELECT 1 FROM ok.tvf((SELECT * FROM e.a)))", "SELECT table:ok.t routine:ok.tvf table:e.a"},
		{"SELECT * FROM ok.t AS e WHERE EXISTS (SELECT 1 FROM ok.tvf((SELECT * FROM (SELECT * FROM e.a))))", "SELECT table:ok.t routine:ok.tvf table:e.a"},
		{"SELECT (SELECT 1 FROM ML.PREDICT(MODEL ok.m, (SELECT * FROM e.a))) FROM ok.t AS e", "SELECT model:ok.m table:e.a table:ok.t"},
		{"SELECT * FROM ok.t AS e, (SELECT (SELECT 1 FROM (SELECT * FROM e.a)))", "SELECT table:ok.t table:e.a"},
		{"SELECT * FROM ok.t AS e WHERE EXISTS (WITH c AS (SELECT * FROM e.a) SELECT 1 FROM c)", "SELECT table:ok.t table:e.a table:c"},
		{"SELECT (SELECT 1 FROM (WITH c AS (SELECT * FROM e.a) SELECT 1 FROM c)) FROM ok.t AS e", "SELECT table:e.a table:c table:ok.t"},
		{"SELECT (SELECT 1 FROM (WITH c AS (SELECT * FROM (SELECT * FROM e.a)) SELECT 1 FROM c)) FROM ok.t AS e", "SELECT table:e.a table:c table:ok.t"},
		{"SELECT (SELECT 1 FROM ok.tvf((SELECT (SELECT 1 FROM (SELECT * FROM e.a))))) FROM ok.t AS e", "SELECT routine:ok.tvf table:e.a table:ok.t"},
		{"SELECT * FROM ok.t AS e WHERE EXISTS (SELECT 1 FROM ok.u AS e, (SELECT * FROM e.a))", "SELECT table:ok.t table:ok.u table:e.a"},
		// A closed subquery's FROM declares nothing for its outer query.
		{"SELECT (SELECT 1 FROM secret.t), (SELECT 2 FROM ok.u AS secret) FROM ok.v", "SELECT table:secret.t table:ok.u table:ok.v"},
		// A select list without a FROM.
		{"SELECT (SELECT 1 FROM e.a) AS n", "SELECT table:e.a"},
		// A procedure's body statement.
		{"CREATE PROCEDURE ok.p() BEGIN SELECT (SELECT 1 FROM e.a) FROM ok.t AS e; SELECT (SELECT 1 FROM e.b); END",
			"CREATE PROCEDURE routine!:ok.p table:ok.t table:e.b"},
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

// TestPipeCallAndTableFunctions: |> CALL goes through the inventory as a
// from-item call does (issue 35), and BigQuery's table functions beyond
// ZetaSQL's are read: their TABLE and MODEL arguments are objects, the
// graph GRAPH_EXPAND names is one.
func TestPipeCallAndTableFunctions(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"FROM sales.t |> CALL ML.PREDICT(MODEL sales.m)", "SELECT table:sales.t model:sales.m"},
		{"FROM sales.t |> CALL ML.PREDICT(MODEL secret.m) AS p |> WHERE p.x > 0", "SELECT table:sales.t model:secret.m"},
		{"FROM sales.t |> CALL EXTERNAL_QUERY('us.c', 'SELECT 1')", "SELECT table:sales.t connection:us.c"},
		{"FROM sales.t |> CALL EXTERNAL_QUERY(@c, 'SELECT 1')", "SELECT table:sales.t UNPLACED"},
		{"FROM sales.t |> CALL secret.tvf(1)", "SELECT table:sales.t routine:secret.tvf"},
		{"FROM sales.t |> CALL `p.secret.tvf`(TABLE sales.u)", "SELECT table:sales.t routine:p.secret.tvf table:sales.u"},
		{"FROM sales.t |> CALL NEW_TVF(1)", "SELECT table:sales.t UNPLACED"},
		{"FROM sales.t |> CALL ML.NEW_TVF(MODEL sales.m)", "SELECT table:sales.t model:sales.m UNPLACED"},
		{"FROM sales.t |> CALL", "SELECT table:sales.t UNPLACED"},
		{"SELECT * FROM RANGE_SESSIONIZE(TABLE sales.t, 'r', ['k'])", "SELECT table:sales.t"},
		{"SELECT * FROM AI.SEARCH(TABLE sales.p, 'description', 'a fun toy')", "SELECT table:sales.p"},
		{"SELECT * FROM VECTOR_INDEX.STATISTICS(TABLE sales.t)", "SELECT table:sales.t"},
		{"SELECT * FROM GRAPH_EXPAND('sales.g')", "SELECT property graph:sales.g"},
		{"SELECT * FROM GRAPH_EXPAND(`p.secret.g`, start_node => 'Person', flatten_results => FALSE)", "SELECT property graph:p.secret.g"},
		{"SELECT * FROM GRAPH_EXPAND(@g)", "SELECT UNPLACED"},
		{"SELECT * FROM GRAPH_EXPAND(CONCAT('a', '.g'))", "SELECT UNPLACED"},
		{"SELECT * FROM GRAPH_EXPAND()", "SELECT UNPLACED"},
		{"SELECT AI.AGG(review, 'summarize') FROM sales.t", "SELECT table:sales.t UNPLACED"},
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

// TestPipeRangeVariables: a pipe operator that makes a new table (SELECT,
// AGGREGATE, a set operation, CALL, …) leaves no range variable of its
// input visible; |> AS name makes name the only one; the operators that
// keep the input's rows keep them (issue 35).
func TestPipeRangeVariables(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"FROM sales.t AS e |> EXTEND (SELECT 1 FROM e.arr) AS x", "SELECT table:sales.t"},
		{"FROM sales.t AS e |> WHERE TRUE |> JOIN e.arr AS a |> ORDER BY 1", "SELECT table:sales.t"},
		{"FROM sales.t |> AS e |> EXTEND (SELECT 1 FROM e.arr) AS x", "SELECT table:sales.t"},
		{"FROM sales.t AS secret |> AS e |> JOIN secret.x ON TRUE", "SELECT table:sales.t table:secret.x"},
		{"FROM sales.t AS secret |> SELECT * |> JOIN secret.x ON TRUE", "SELECT table:sales.t table:secret.x"},
		{"FROM sales.t AS secret |> AGGREGATE COUNT(*) AS n |> JOIN secret.x ON TRUE", "SELECT table:sales.t table:secret.x"},
		{"FROM sales.t AS secret |> UNION ALL (SELECT 1) |> JOIN secret.x ON TRUE", "SELECT table:sales.t table:secret.x"},
		{"FROM sales.t AS secret |> CALL ML.PREDICT(MODEL sales.m) |> JOIN secret.x ON TRUE", "SELECT table:sales.t model:sales.m table:secret.x"},
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

// TestUnnestSeesRangeVariables: UNNEST's argument is an expression of the
// row it joins, so a subquery in it sees the range variables declared
// before it, and a select list's (issue 35); a subquery in a FROM list or
// a table function's arguments does not.
func TestUnnestSeesRangeVariables(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"SELECT * FROM ok.t AS e, UNNEST(ARRAY(SELECT x FROM e.arr)) AS y", "SELECT table:ok.t"},
		{"SELECT (SELECT STRING_AGG(x) FROM UNNEST(ARRAY(SELECT key FROM e.event_params)) AS x) FROM ok.t AS e", "SELECT table:ok.t"},
		{"SELECT * FROM UNNEST(ARRAY(SELECT x FROM e.arr)) AS y, ok.t AS e", "SELECT table:e.arr table:ok.t"},
		{"SELECT * FROM ok.t AS e, (SELECT x FROM e.arr)", "SELECT table:ok.t table:e.arr"},
		{"SELECT * FROM ok.t AS e, ok.tvf((SELECT x FROM e.arr))", "SELECT table:ok.t routine:ok.tvf table:e.arr"},
		{"SELECT * FROM ok.t AS e, UNNEST(e.arr) AS y, y.sub", "SELECT table:ok.t"},
	} {
		p := Parse(c.sql)
		if got := describe(p.Statements[0]); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.sql, got, c.want)
		}
	}
}

// TestDMLTargetIsARangeVariable: a DELETE's WHERE sees its target's
// alias, or the table's last part (issue 35); so do an UPDATE's SET and
// WHERE and a MERGE's ON and WHEN clauses, subqueries included, but not
// the UPDATE's FROM items nor the MERGE's USING source, which BigQuery
// joins to the target (no LATERAL).
func TestDMLTargetIsARangeVariable(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"DELETE FROM sales.t AS x WHERE EXISTS (SELECT 1 FROM x.arr)", "DELETE table!:sales.t"},
		{"DELETE sales.t x WHERE EXISTS (SELECT 1 FROM x.arr WHERE TRUE)", "DELETE table!:sales.t"},
		{"DELETE p.sales.t WHERE EXISTS (SELECT 1 FROM t.arr)", "DELETE table!:p.sales.t"},
		{"DELETE `p.sales`.t WHERE EXISTS (SELECT 1 FROM t.arr)", "DELETE table!:p.sales.t"},
		// Quoted whole, the table's name is one identifier: no implicit
		// alias to the reader (the strict side).
		{"DELETE `p.sales.t` WHERE EXISTS (SELECT 1 FROM t.arr)", "DELETE table!:p.sales.t table:t.arr"},
		{"DELETE sales.t AS x WHERE EXISTS (SELECT 1 FROM secret.arr)", "DELETE table!:sales.t table:secret.arr"},
		{"DELETE sales.t WHERE TRUE", "DELETE table!:sales.t"},
		{"UPDATE sales.t AS x SET a = (SELECT MAX(v) FROM x.arr) WHERE TRUE", "UPDATE table!:sales.t"},
		{"UPDATE sales.t SET a = (SELECT MAX(v) FROM t.arr) WHERE EXISTS (SELECT 1 FROM t.arr)", "UPDATE table!:sales.t"},
		{"UPDATE sales.t x SET a = 1 WHERE EXISTS (SELECT 1 FROM x.arr)", "UPDATE table!:sales.t"},
		{"UPDATE `p.sales.t` SET a = (SELECT MAX(v) FROM t.arr) WHERE TRUE", "UPDATE table!:p.sales.t table:t.arr"},
		{"UPDATE sales.t AS x SET a = (SELECT MAX(v) FROM secret.arr) WHERE TRUE", "UPDATE table!:sales.t table:secret.arr"},
		// UPDATE's FROM items see no range variable of the target; its
		// WHERE sees the target and the FROM's aliases.
		{"UPDATE sales.t AS x SET a = 1 FROM x.arr WHERE TRUE", "UPDATE table!:sales.t table:x.arr"},
		{"UPDATE sales.t AS x SET a = s.a FROM ok.s AS s, (SELECT 1 FROM x.arr) WHERE TRUE", "UPDATE table!:sales.t table:ok.s table:x.arr"},
		{"UPDATE sales.t AS x SET a = s.a FROM ok.s AS s JOIN x.arr ON TRUE WHERE EXISTS (SELECT 1 FROM x.arr, s.b)", "UPDATE table!:sales.t table:ok.s table:x.arr"},
		{"UPDATE sales.t AS x SET a = s.a FROM ok.s AS s WHERE EXISTS (SELECT 1 FROM x.arr, s.b)", "UPDATE table!:sales.t table:ok.s"},
		// MERGE's source sees no range variable of the target; its ON
		// and WHEN clauses do.
		{"MERGE sales.t AS T USING ok.s AS S ON T.id = S.id WHEN MATCHED AND (SELECT COUNT(*) FROM T.arr) = 0 THEN DELETE", "MERGE table!:sales.t table:ok.s"},
		{"MERGE sales.t USING ok.s ON (SELECT 1 FROM t.arr LIMIT 1) = 1 WHEN MATCHED THEN UPDATE SET a = (SELECT MAX(v) FROM s.arr)", "MERGE table!:sales.t table:ok.s"},
		{"MERGE sales.t AS T USING T.arr AS S ON TRUE WHEN MATCHED THEN DELETE", "MERGE table!:sales.t table:T.arr"},
		{"MERGE sales.t AS T USING (SELECT * FROM T.arr) AS S ON TRUE WHEN MATCHED THEN DELETE", "MERGE table!:sales.t table:T.arr"},
		{"MERGE sales.t AS T USING ok.s AS S ON TRUE WHEN NOT MATCHED THEN INSERT (a) VALUES ((SELECT 1 FROM secret.arr))", "MERGE table!:sales.t table:ok.s table:secret.arr"},
	} {
		p := Parse(c.sql)
		if got := describe(p.Statements[0]); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.sql, got, c.want)
		}
	}
}

// TestAliasSpellingsHideNoTable (issue 35, red team): a quoted name with
// dots is one identifier to BigQuery's name scope, never a range variable,
// and names fold only in their ASCII letters, so neither spelling makes a
// table of another dataset look like a correlated path or a CTE.
func TestAliasSpellingsHideNoTable(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"SELECT 1 FROM sales.t AS secret, `secret.t`", "SELECT table:sales.t table:secret.t"},
		{"SELECT (SELECT 1 FROM `secret.t`) FROM sales.t AS secret", "SELECT table:secret.t table:sales.t"},
		{"SELECT 1 FROM sales.t AS secret WHERE EXISTS (SELECT 1 FROM `secret.t` AS o)", "SELECT table:sales.t table:secret.t"},
		{"SELECT 1 FROM sales.t AS `\u212Api`, kpi.t", "SELECT table:sales.t table:kpi.t"},
		{"SELECT (SELECT 1 FROM internal.t) FROM sales.t AS `\u0130NTERNAL`", "SELECT table:internal.t table:sales.t"},
		{"WITH `\u212Api` AS (SELECT 1) SELECT * FROM kpi", "SELECT table:kpi"},
		// A path through INFORMATION_SCHEMA is the view, whatever alias
		// its first part spells.
		{"SELECT 1 FROM sales.t AS o, o.INFORMATION_SCHEMA.SCHEMATA", "SELECT table:sales.t is:o.INFORMATION_SCHEMA.SCHEMATA"},
		// A table quoted whole has no implicit alias to the reader.
		{"SELECT (SELECT 1 FROM secret.t) FROM `sales.secret`", "SELECT table:secret.t table:sales.secret"},
		{"SELECT 1 FROM `sales.secret`, secret.t", "SELECT table:sales.secret table:secret.t"},
		{"DELETE `sales.secret` WHERE EXISTS (SELECT 1 FROM secret.t)", "DELETE table!:sales.secret table:secret.t"},
		// A CTE's query sees no outer range variable, even in a subquery.
		// (A WITH in a scalar subquery's CTE names read as tables, the
		// strict side.)
		{"SELECT (WITH c AS (SELECT * FROM secret.t) SELECT 1 FROM c) FROM sales.t AS secret", "SELECT table:secret.t table:c table:sales.t"},
		{"SELECT (WITH c AS (SELECT 1), d AS (SELECT * FROM secret.t) SELECT 1 FROM d) FROM sales.t AS secret", "SELECT table:secret.t table:d table:sales.t"},
		{"SELECT (WITH c AS (SELECT (SELECT 1 FROM e.a) FROM ok.t AS e) SELECT 1 FROM c) FROM sales.t AS secret", "SELECT table:ok.t table:c table:sales.t"},
		// What still correlates: separate parts, any ASCII case.
		{"SELECT 1 FROM sales.t AS secret, `secret`.t", "SELECT table:sales.t"},
		{"SELECT (SELECT 1 FROM SECRET.t) FROM sales.t AS Secret", "SELECT table:sales.t"},
		{"WITH KPI AS (SELECT 1) SELECT * FROM kpi", "SELECT"},
	} {
		p := Parse(c.sql)
		if len(p.Statements) != 1 {
			t.Fatalf("%s: %d statements", c.sql, len(p.Statements))
		}
		if got := describe(p.Statements[0]); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.sql, got, c.want)
		}
	}
}
