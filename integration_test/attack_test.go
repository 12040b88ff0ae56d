package integration_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAllowlistUnderAttackOverStdio: the built binary, started with
// --datasets sales --allow-writes, refuses every class of issue 17's
// trials (escaped identifiers after a parenthesised from-item, models,
// persistent routines, DDL and DCL on other datasets, table copies,
// statements it cannot place) from the text alone: PERMISSION_DENIED, and
// not one request at the wire, not even a dry run, so no BigQuery error
// can tell whether the object exists.
func TestAllowlistUnderAttackOverStdio(t *testing.T) {
	cs, fake := startGovernedBinary(t, "", nil, "--datasets", "sales", "--allow-writes")
	before, _ := fake.snapshot()
	for _, sql := range []string{
		"SELECT * FROM (SELECT 1 AS x), `region-us`.`INFORMATION\\x5FSCHEMA`.JOBS",
		"SELECT * FROM sales.v_orders, `secre\\x74`.orders",
		"SELECT * FROM sales.v_orders, `p.secre\\u0074.orders`",
		"SELECT * FROM ML.PREDICT(MODEL secret.m, TABLE sales.orders)",
		"SELECT * FROM ML.WEIGHTS(MODEL `p.secret.m`)",
		"SELECT * FROM ML.FEATURE_INFO(MODEL secret.m)",
		"SELECT secret.fn(id) FROM sales.orders",
		"DROP SCHEMA secret CASCADE",
		"ALTER SCHEMA secret SET OPTIONS (description = 'x')",
		"CREATE SCHEMA secret2",
		"CREATE VIEW secret.v AS SELECT 1 AS n",
		"CREATE MATERIALIZED VIEW secret.mv AS SELECT 1 AS n",
		"CREATE FUNCTION secret.f() AS (1)",
		"CREATE TABLE FUNCTION secret.tf() AS SELECT 1 AS n",
		"CALL secret.p()",
		"CREATE MODEL secret.m OPTIONS (model_type = 'linear_reg') AS SELECT 1 AS label",
		"GRANT `roles/bigquery.dataViewer` ON SCHEMA secret TO 'user:a@example.com'",
		"REVOKE `roles/bigquery.dataViewer` ON SCHEMA secret FROM 'user:a@example.com'",
		"LOAD DATA OVERWRITE secret.t FROM FILES (format = 'CSV', uris = ['gs://b/x.csv'])",
		"CREATE TABLE sales.c CLONE secret.orders",
		"CREATE TABLE sales.c COPY secret.orders",
		"CREATE TABLE sales.c LIKE secret.orders",
		"CREATE SNAPSHOT TABLE sales.s CLONE secret.orders",
		"EXECUTE IMMEDIATE 'DROP SCHEMA secret'",
		"SELECT * FROM secret.missing",
		"SELECT nme FROM secret.orders",
	} {
		for _, tool := range []string{"execute_sql", "dry_run_sql"} {
			e := fails(t, cs, tool, map[string]any{"sql": sql})
			if e.Code != bqerr.PermissionDenied || !strings.Contains(e.Hint, "sales") {
				t.Errorf("%s %q: %s %q (hint %q), want PERMISSION_DENIED naming sales", tool, sql, e.Code, e.Message, e.Hint)
			}
			if strings.Contains(e.Message, "Did you mean") || strings.Contains(e.Message, "not found") {
				t.Errorf("%s %q: the refusal repeats BigQuery: %q", tool, sql, e.Message)
			}
		}
	}
	after, jobs := fake.snapshot()
	if jobs != 0 || len(after) != len(before) {
		t.Errorf("refused statements reached BigQuery: %d jobs, requests %v", jobs, after[len(before):])
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if len(fake.dryRuns) != 0 {
		t.Errorf("dry runs for statements the text refuses: %q", fake.dryRuns)
	}
}

// TestThirdRoundOverStdio: issue 28's third round of attacks (property
// graphs of a dataset outside the allowlist: one of an allowed dataset is
// looked up, TestGraphOverOutsideTableOverStdio; materialized view replicas, connections named in strings and
// arguments, EXPORT DATA in every position, unknown table-valued
// functions), against the built binary started with --datasets sales,
// read-only and with --allow-writes, through every query tool:
// PERMISSION_DENIED (or the read-only guard's INVALID_ARGUMENT) and not
// one request at the wire.
func TestThirdRoundOverStdio(t *testing.T) {
	attacks := []string{
		"SELECT * FROM GRAPH_TABLE(secret.g MATCH (n) COLUMNS (n.id))",
		"SELECT * FROM sales.orders, GRAPH_TABLE(`p.secret.g` MATCH (n) COLUMNS (n.id)) AS g",
		"SELECT * FROM sales.orders |> JOIN GRAPH_TABLE(secret.g MATCH (n) COLUMNS (n.id AS id)) USING (id)",
		"SELECT (SELECT COUNT(*) FROM GRAPH_TABLE(secret.g MATCH (n) COLUMNS (n.id))) AS n",
		"GRAPH secret.g MATCH (n) RETURN n.id",
		"SELECT OBJ.MAKE_REF('gs://b/x.jpg', 'us.conn') AS r",
		"SELECT AI.GENERATE('hi', connection_id => 'us.conn', endpoint => 'gemini-2.5-flash')",
		"SELECT * FROM EXTERNAL_QUERY('us.pg', 'SELECT * FROM users')",
		"SELECT * FROM sales.orders, NEW_TVF('secret')",
		"CREATE TEMP FUNCTION f() AS ((SELECT COUNT(*) FROM secret.orders)); SELECT f()",
	}
	writes := []string{
		"CREATE MATERIALIZED VIEW sales.x AS REPLICA OF secret.v",
		"INSERT INTO sales.orders SELECT * FROM GRAPH_TABLE(secret.g MATCH (n) COLUMNS (n.id))",
		"CREATE TABLE sales.c AS SELECT * FROM GRAPH_TABLE(secret.g MATCH (n) COLUMNS (n.id))",
		"EXPORT DATA OPTIONS (uri = 'gs://elsewhere/x/*.csv', format = 'CSV') AS SELECT * FROM sales.orders",
		"WITH x AS (SELECT * FROM sales.orders) EXPORT DATA OPTIONS (uri = 'gs://elsewhere/*') AS SELECT * FROM x",
		"SELECT * FROM sales.orders |> EXPORT DATA OPTIONS (uri = 'gs://elsewhere/*', format = 'JSON')",
		"CREATE MODEL sales.m REMOTE WITH CONNECTION DEFAULT OPTIONS (endpoint = 'gemini-2.0-flash')",
		"CREATE PROCEDURE sales.p() BEGIN INSERT INTO sales.orders SELECT * FROM secret.orders; END",
	}
	for _, mode := range []struct {
		name string
		args []string
		sql  []string
	}{
		{"read-only", []string{"--datasets", "sales", "--toolsets", "all"}, append(attacks, writes...)},
		{"allow-writes", []string{"--datasets", "sales", "--toolsets", "all", "--allow-writes"}, append(attacks, writes...)},
	} {
		t.Run(mode.name, func(t *testing.T) {
			cs, fake := startGovernedBinary(t, "", nil, append(mode.args, "--export-dir", t.TempDir())...)
			refusedByEveryQueryTool(t, cs, fake, mode.name, mode.sql, bqerr.PermissionDenied, bqerr.InvalidArgument)
		})
	}
}

// refusedByEveryQueryTool sends each statement to execute_sql, dry_run_sql
// and export_results and checks that each answer is one of the codes
// wanted and that none of them reached BigQuery: no job and no request
// between the snapshots taken before and after.
func refusedByEveryQueryTool(t *testing.T, cs *mcp.ClientSession, fake *governedBigQuery, mode string, sqls []string, want ...bqerr.Code) {
	t.Helper()
	before, _ := fake.snapshot()
	for _, sql := range sqls {
		for _, tool := range []string{"execute_sql", "dry_run_sql", "export_results"} {
			args := map[string]any{"sql": sql}
			if tool == "export_results" {
				args["format"] = "jsonl"
			}
			if e := fails(t, cs, tool, args); !slices.Contains(want, e.Code) {
				t.Errorf("%s %s %q: %s %q, want one of %v", mode, tool, sql, e.Code, e.Message, want)
			}
		}
	}
	if after, jobs := fake.snapshot(); jobs != 0 || len(after) != len(before) {
		t.Errorf("refused statements reached BigQuery: %d jobs, requests %v", jobs, after[len(before):])
	}
}
