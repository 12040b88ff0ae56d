package query

import (
	"context"
	"net/http"
	"strings"
	"testing"

	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/googleapi"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/sqltext"
)

// The trials of issue 17, against a fake whose dry run reports what the
// REST reference says: referencedTables with views resolved and no models,
// routines or INFORMATION_SCHEMA; referencedRoutines; the DDL and DCL
// targets. The allowlist is sales and mkt_*; secret and hr are outside.

func restTable(name string) *bq.TableReference { return tableRefs([]string{name})[0] }

// TestAllowlistUnderAttack: every spelling and position that walked around
// the allowlist is refused with PERMISSION_DENIED, with no job, and (when
// the text alone shows it) with no dry run either.
func TestAllowlistUnderAttack(t *testing.T) {
	for _, tc := range []struct {
		sql    string
		writes bool
		// stats is the dry run's answer, for statements the text lets
		// through and only BigQuery's reading refuses.
		stats *bq.JobStatistics2
	}{
		// Escaped identifiers, after a parenthesised from-item.
		{sql: "SELECT * FROM (SELECT 1 AS x), `region-us`.`INFORMATION\\x5FSCHEMA`.JOBS"},
		{sql: "SELECT * FROM (SELECT 1 AS x), `region-us`.`INFORMATION\\u005FSCHEMA`.JOBS_BY_PROJECT"},
		{sql: "SELECT * FROM UNNEST([1]) AS x, `region\\x2dus.INFORMATION_SCHEMA.JOBS`"},
		{sql: "SELECT * FROM sales.v_orders, `secre\\x74`.orders"},
		{sql: "SELECT * FROM sales.v_orders, `p.secre\\u0074.orders`"},
		{sql: "SELECT * FROM sales.v_orders, `\\163ecret`.orders"},
		{sql: "SELECT * FROM sales.v_orders JOIN `secret\\U00000020`.orders USING (id)"},
		{sql: "SELECT * FROM sales.orders WHERE id = `bad\\q`"},
		// Objects that are not tables.
		{sql: "SELECT * FROM ML.PREDICT(MODEL secret.m, TABLE sales.orders)"},
		{sql: "SELECT * FROM ML.WEIGHTS(MODEL `p.secret.m`)"},
		{sql: "SELECT * FROM ML.FEATURE_INFO(MODEL `secre\\x74`.m)"},
		{sql: "SELECT secret.fn(id) FROM sales.orders"},
		{sql: "SELECT `p.secret.fn`(1)"},
		{sql: "SELECT SAFE.secret.fn(1)"},
		{sql: "SELECT * FROM secret.tvf(TABLE sales.orders)"},
		{sql: "SELECT * FROM VECTOR_SEARCH(TABLE secret.docs, 'e', TABLE sales.q)"},
		// A routine of an allowed dataset that calls one outside: only the
		// dry run's referencedRoutines shows it.
		{sql: "SELECT sales.fn(1)", stats: &bq.JobStatistics2{StatementType: "SELECT",
			ReferencedRoutines: []*bq.RoutineReference{{ProjectId: "p", DatasetId: "sales", RoutineId: "fn"}, {ProjectId: "p", DatasetId: "secret", RoutineId: "inner"}}}},
		// DDL and DCL on other datasets, with writes on.
		{sql: "DROP SCHEMA secret CASCADE", writes: true},
		{sql: "DROP SCHEMA IF EXISTS `p.secret`", writes: true},
		{sql: "ALTER SCHEMA secret SET OPTIONS (description = 'x')", writes: true},
		{sql: "CREATE SCHEMA secret2", writes: true},
		{sql: "UNDROP SCHEMA secret", writes: true},
		{sql: "CREATE VIEW secret.v AS SELECT 1 AS n", writes: true},
		{sql: "CREATE OR REPLACE MATERIALIZED VIEW secret.mv AS SELECT 1 AS n", writes: true},
		{sql: "CREATE FUNCTION secret.f() AS (1)", writes: true},
		{sql: "CREATE TABLE FUNCTION secret.tf() AS SELECT 1 AS n", writes: true},
		{sql: "CREATE PROCEDURE secret.p() BEGIN SELECT 1; END", writes: true},
		{sql: "CALL secret.p()", writes: true},
		{sql: "CALL sales.p()", writes: true},
		{sql: "CREATE MODEL secret.m OPTIONS (model_type = 'linear_reg') AS SELECT 1 AS label", writes: true},
		{sql: "GRANT `roles/bigquery.dataViewer` ON SCHEMA secret TO 'user:a@example.com'", writes: true},
		{sql: "REVOKE `roles/bigquery.dataViewer` ON SCHEMA secret FROM 'user:a@example.com'", writes: true},
		{sql: "GRANT `roles/bigquery.dataViewer` ON TABLE secret.orders TO 'user:a@example.com'", writes: true},
		{sql: "LOAD DATA OVERWRITE secret.t FROM FILES (format = 'CSV', uris = ['gs://b/x.csv'])", writes: true},
		{sql: "CREATE TABLE sales.c CLONE secret.orders", writes: true},
		{sql: "CREATE TABLE sales.c COPY secret.orders", writes: true},
		{sql: "CREATE TABLE sales.c LIKE secret.orders", writes: true},
		{sql: "CREATE SNAPSHOT TABLE sales.s CLONE secret.orders", writes: true},
		{sql: "CREATE SNAPSHOT TABLE secret.s CLONE sales.orders", writes: true},
		{sql: "CREATE SEARCH INDEX i ON secret.orders (ALL COLUMNS)", writes: true},
		{sql: "DROP ALL ROW ACCESS POLICIES ON secret.orders", writes: true},
		{sql: "EXECUTE IMMEDIATE 'DROP SCHEMA secret'", writes: true},
		{sql: "CREATE CAPACITY `p.region-us.c` OPTIONS (slot_count = 100)", writes: true},
		{sql: "CREATE EXTERNAL TABLE sales.e WITH CONNECTION `p.us.c` OPTIONS (format = 'CSV', uris = ['gs://b/x'])", writes: true},
		// Issue 28's third round. Property graphs, in every position: of
		// a dataset outside, or built on a table outside (sales.g).
		{sql: "SELECT * FROM GRAPH_TABLE(secret.g MATCH (n) COLUMNS (n.id))"},
		{sql: "SELECT * FROM GRAPH_TABLE(sales.g MATCH (n) COLUMNS (n.id))"},
		{sql: "SELECT * FROM sales.orders, GRAPH_TABLE(`p.secret.g` MATCH (n) COLUMNS (n.id)) AS g"},
		{sql: "SELECT * FROM sales.orders |> JOIN GRAPH_TABLE(secret.g MATCH (n) COLUMNS (n.id AS id)) USING (id)"},
		{sql: "SELECT (SELECT COUNT(*) FROM GRAPH_TABLE(secret.g MATCH (n) COLUMNS (n.id))) AS n"},
		{sql: "GRAPH secret.g MATCH (n) RETURN n.id"},
		{sql: "INSERT INTO sales.orders SELECT * FROM GRAPH_TABLE(secret.g MATCH (n) COLUMNS (n.id))", writes: true},
		{sql: "CREATE TABLE sales.c AS SELECT * FROM GRAPH_TABLE(sales.g MATCH (n) COLUMNS (n.id))", writes: true},
		{sql: "CREATE PROPERTY GRAPH sales.g NODE TABLES (secret.people KEY (id))", writes: true},
		// Materialized view replicas.
		{sql: "CREATE MATERIALIZED VIEW sales.x AS REPLICA OF secret.v", writes: true},
		{sql: "CREATE MATERIALIZED VIEW sales.x AS REPLICA OF `p.secret.v`", writes: true},
		// Connections named in a string or an argument.
		{sql: "SELECT OBJ.MAKE_REF('gs://b/x.jpg', 'us.conn') AS r"},
		{sql: "SELECT OBJ.MAKE_REF(uri, 'us.conn') FROM sales.orders"},
		{sql: "SELECT OBJ.FETCH_METADATA(OBJ.MAKE_REF('gs://b/x', 'us.c'))"},
		{sql: "SELECT OBJ.GET_ACCESS_URL(ref, 'r') FROM sales.orders"},
		{sql: "SELECT AI.GENERATE('hi', connection_id => 'us.conn', endpoint => 'gemini-2.5-flash')"},
		{sql: "SELECT AI.GENERATE(CONCAT('x', name), endpoint => 'gemini-2.5-flash') FROM sales.orders"},
		{sql: "SELECT * FROM EXTERNAL_QUERY('us.pg', 'SELECT * FROM users')"},
		{sql: "SELECT * FROM sales.orders WHERE id IN (SELECT id FROM EXTERNAL_QUERY(\"p.us.pg\", 'SELECT 1 AS id'))"},
		{sql: "CREATE MODEL sales.m REMOTE WITH CONNECTION DEFAULT OPTIONS (endpoint = 'gemini-2.0-flash')", writes: true},
		// Table-valued functions the reader has not been taught.
		{sql: "SELECT * FROM sales.orders, NEW_TVF('secret')"},
		{sql: "SELECT * FROM ML.SOMETHING_NEW(MODEL sales.m)"},
		// Files outside BigQuery, and exports elsewhere.
		{sql: "LOAD DATA INTO sales.orders FROM FILES (format = 'CSV', uris = ['gs://other/x.csv'])", writes: true},
		{sql: "EXPORT DATA OPTIONS (uri = 'gs://elsewhere/x/*.csv', format = 'CSV') AS SELECT * FROM sales.orders", writes: true},
		{sql: "WITH x AS (SELECT * FROM sales.orders) EXPORT DATA OPTIONS (uri = 'gs://elsewhere/*') AS SELECT * FROM x", writes: true},
		{sql: "SELECT * FROM sales.orders |> EXPORT DATA OPTIONS (uri = 'gs://elsewhere/*', format = 'JSON')", writes: true},
		{sql: "EXPORT DATA OPTIONS (uri = 'gs://b/exports2/x/*') AS SELECT * FROM sales.orders", writes: true},
		// A procedure's body is read.
		{sql: "CREATE PROCEDURE sales.p() BEGIN INSERT INTO sales.orders SELECT * FROM secret.orders; END", writes: true},
		{sql: "CREATE PROCEDURE sales.p() BEGIN IF TRUE THEN DELETE secret.orders WHERE TRUE; END IF; END", writes: true},
		// Temporary functions read like any SQL.
		{sql: "CREATE TEMP FUNCTION f() AS ((SELECT COUNT(*) FROM secret.orders)); SELECT f()"},
		// Statements whose text names only allowed objects, where BigQuery
		// reports a target outside: each dry-run field is read.
		{sql: "ALTER TABLE sales.orders SET OPTIONS (description = 'x')", writes: true,
			stats: &bq.JobStatistics2{StatementType: "ALTER_TABLE", DdlTargetTable: restTable("p.secret.orders")}},
		{sql: "CREATE SCHEMA sales", writes: true,
			stats: &bq.JobStatistics2{StatementType: "CREATE_SCHEMA", DdlTargetDataset: &bq.DatasetReference{ProjectId: "p", DatasetId: "secret"}}},
		{sql: "CREATE FUNCTION sales.f() AS (1)", writes: true,
			stats: &bq.JobStatistics2{StatementType: "CREATE_FUNCTION", DdlTargetRoutine: &bq.RoutineReference{ProjectId: "p", DatasetId: "secret", RoutineId: "f"}}},
		{sql: "CREATE TABLE sales.c AS SELECT 1 AS n", writes: true,
			stats: &bq.JobStatistics2{StatementType: "CREATE_TABLE_AS_SELECT", DdlDestinationTable: restTable("p.secret.c")}},
		{sql: "GRANT `roles/bigquery.dataViewer` ON SCHEMA sales TO 'user:a@example.com'", writes: true,
			stats: &bq.JobStatistics2{StatementType: "GRANT", DclTargetDataset: &bq.DatasetReference{ProjectId: "p", DatasetId: "secret"}}},
		{sql: "GRANT `roles/bigquery.dataViewer` ON VIEW sales.v_orders TO 'user:a@example.com'", writes: true,
			stats: &bq.JobStatistics2{StatementType: "GRANT", DclTargetView: restTable("p.hr.v_all")}},
		{sql: "CREATE ROW ACCESS POLICY r ON sales.orders GRANT TO ('user:a@example.com') FILTER USING (TRUE)", writes: true,
			stats: &bq.JobStatistics2{StatementType: "CREATE_ROW_ACCESS_POLICY", DdlTargetRowAccessPolicy: &bq.RowAccessPolicyReference{ProjectId: "p", DatasetId: "secret", TableId: "orders", PolicyId: "r"}}},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			s, fake := newGovernedService(t, nil, tc.writes, func(c *Config) { c.ExportGCS = "gs://b/exports" })
			// sales.g is a graph of an allowed dataset built on a table
			// outside: its lookup refuses it (graph.go).
			addGraph(fake, "p.sales.g", graphDef(t, "p.sales.g", []string{"p.secret.people"}))
			if tc.stats != nil {
				fake.stats = map[string]*bq.JobStatistics2{tc.sql: tc.stats}
			}
			ctx := context.Background()
			_, err := s.Execute(ctx, ExecuteInput{SQL: tc.sql})
			if e, ok := bqerr.As(err); !ok || e.Code != bqerr.PermissionDenied {
				t.Fatalf("Execute = %v, want PERMISSION_DENIED", err)
			}
			dryRuns, queries, _ := fake.counts()
			if queries != 0 {
				t.Errorf("%d jobs ran", queries)
			}
			if tc.stats == nil && dryRuns != 0 {
				t.Errorf("%d dry runs for a statement its text shows to be outside the allowlist", dryRuns)
			}
			if _, err := s.DryRun(ctx, DryRunInput{SQL: tc.sql}); err == nil {
				t.Error("dry_run_sql accepted it")
			}
		})
	}
}

// TestAllowlistStillAllows: statements of the same shapes on allowed
// datasets still run (the issue's "a query that is allowed today is still
// allowed").
func TestAllowlistStillAllows(t *testing.T) {
	for _, tc := range []struct {
		sql    string
		writes bool
		stats  *bq.JobStatistics2
	}{
		{sql: "SELECT * FROM ML.PREDICT(MODEL sales.m, TABLE sales.orders)",
			stats: &bq.JobStatistics2{StatementType: "SELECT", ReferencedTables: []*bq.TableReference{restTable("p.sales.orders")}}},
		{sql: "SELECT sales.fn(1), SAFE.NET.HOST('https://x.example'), NET.HOST('y')",
			stats: &bq.JobStatistics2{StatementType: "SELECT", ReferencedRoutines: []*bq.RoutineReference{{ProjectId: "p", DatasetId: "sales", RoutineId: "fn"}}}},
		{sql: "SELECT * FROM (SELECT 1 AS x), sales.orders",
			stats: &bq.JobStatistics2{StatementType: "SELECT", ReferencedTables: []*bq.TableReference{restTable("p.sales.orders")}}},
		{sql: "SELECT * FROM `sa\\x6ces`.orders",
			stats: &bq.JobStatistics2{StatementType: "SELECT", ReferencedTables: []*bq.TableReference{restTable("p.sales.orders")}}},
		{sql: "CREATE TABLE sales.c CLONE sales.orders", writes: true,
			stats: &bq.JobStatistics2{StatementType: "CREATE_TABLE", DdlTargetTable: restTable("p.sales.c"), ReferencedTables: []*bq.TableReference{restTable("p.sales.orders")}}},
		{sql: "DROP TABLE IF EXISTS mkt_eu.old", writes: true,
			stats: &bq.JobStatistics2{StatementType: "DROP_TABLE", DdlTargetTable: restTable("p.mkt_eu.old")}},
		{sql: "GRANT `roles/bigquery.dataViewer` ON SCHEMA sales TO 'user:a@example.com'", writes: true,
			stats: &bq.JobStatistics2{StatementType: "GRANT", DclTargetDataset: &bq.DatasetReference{ProjectId: "p", DatasetId: "sales"}}},
		{sql: "MERGE sales.orders T USING mkt_eu.clicks S ON T.id = S.id WHEN MATCHED THEN UPDATE SET n = 1", writes: true,
			stats: &bq.JobStatistics2{StatementType: "MERGE", ReferencedTables: []*bq.TableReference{restTable("p.mkt_eu.clicks"), restTable("p.sales.orders")}}},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			s, fake := newGovernedService(t, nil, tc.writes)
			fake.stats = map[string]*bq.JobStatistics2{tc.sql: tc.stats}
			if _, err := s.Execute(context.Background(), ExecuteInput{SQL: tc.sql}); err != nil {
				t.Fatalf("Execute refused an allowed statement: %v", err)
			}
			if _, q, _ := fake.counts(); q != 1 {
				t.Errorf("%d jobs, want 1", q)
			}
		})
	}
}

// TestAllowlistConnectionsAndExports: a connection the operator lists in
// --connections, and an EXPORT DATA below --export-gcs, pass the text's
// checks; the same statements are refused without them.
func TestAllowlistConnectionsAndExports(t *testing.T) {
	for _, sql := range []string{
		"SELECT * FROM EXTERNAL_QUERY('us.pg', 'SELECT 1 AS n')",
		"SELECT AI.GENERATE(name, connection_id => 'p.us.ai') FROM sales.orders",
		"SELECT OBJ.MAKE_REF('gs://b/x.jpg', 'projects/p/locations/us/connections/ai') AS r",
		"EXPORT DATA OPTIONS (uri = 'gs://b/exports/q1/*.csv', format = 'CSV') AS SELECT * FROM sales.orders",
		"EXPORT DATA WITH CONNECTION us.pg OPTIONS (uri = 'gs://b/exports/q2/*', format = 'JSON') AS SELECT * FROM sales.orders",
	} {
		t.Run(sql, func(t *testing.T) {
			bare, _ := newGovernedService(t, nil, true)
			if err := bare.checkText(&request{sql: sql, text: sqltext.Parse(sql)}); err == nil {
				t.Fatal("allowed without --connections and --export-gcs")
			}
			conns, err := governance.ParseConnections("us.pg, p.US.ai", "p")
			if err != nil {
				t.Fatal(err)
			}
			s, fake := newGovernedService(t, nil, true, func(c *Config) { c.Connections, c.ExportGCS = conns, "gs://b/exports" })
			fake.stats = map[string]*bq.JobStatistics2{sql: {StatementType: "SELECT", ReferencedTables: []*bq.TableReference{restTable("p.sales.orders")}}}
			if _, err := s.Execute(context.Background(), ExecuteInput{SQL: sql}); err != nil {
				t.Fatalf("Execute refused it with --connections and --export-gcs: %v", err)
			}
		})
	}
}

// TestAllowlistNoOracle: a table outside the allowlist answers the same
// whether it exists or not, and a misspelt column of it never brings back
// BigQuery's "Did you mean": the allowlist is decided before any dry-run
// error can reach the caller.
func TestAllowlistNoOracle(t *testing.T) {
	s, fake := newGovernedService(t, nil, false)
	fake.dryRunErrors = map[string]*googleapi.Error{
		"SELECT * FROM secret.missing":  {Code: http.StatusNotFound, Message: "Not found: Table p:secret.missing was not found in location US", Errors: []googleapi.ErrorItem{{Reason: "notFound"}}},
		"SELECT * FROM secret.orders":   {Code: http.StatusForbidden, Message: "Access Denied: Table p:secret.orders", Errors: []googleapi.ErrorItem{{Reason: "accessDenied"}}},
		"SELECT nme FROM secret.orders": {Code: http.StatusBadRequest, Message: "Unrecognized name: nme; Did you mean name? at [1:8]", Errors: []googleapi.ErrorItem{{Reason: "invalidQuery"}}},
	}
	answer := func(sql string) *bqerr.Error {
		_, err := s.Execute(context.Background(), ExecuteInput{SQL: sql})
		e, ok := bqerr.As(err)
		if !ok {
			t.Fatalf("%s: %v", sql, err)
		}
		return e
	}
	missing, existing, misspelt := answer("SELECT * FROM secret.missing"), answer("SELECT * FROM secret.orders"), answer("SELECT nme FROM secret.orders")
	for _, e := range []*bqerr.Error{missing, existing, misspelt} {
		if e.Code != bqerr.PermissionDenied {
			t.Errorf("code %s, want PERMISSION_DENIED", e.Code)
		}
		for _, leak := range []string{"Did you mean", "not found", "Access Denied"} {
			if strings.Contains(e.Message+e.Hint, leak) {
				t.Errorf("the refusal %q leaks %q", e.Message, leak)
			}
		}
	}
	if strings.Replace(missing.Message, "missing", "orders", 1) != existing.Message || missing.Hint != existing.Hint {
		t.Errorf("existing and missing tables answer differently:\n%q\n%q", missing.Message, existing.Message)
	}
	if d, _, _ := fake.counts(); d != 0 {
		t.Errorf("%d dry runs", d)
	}
}
