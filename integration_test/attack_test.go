package integration_test

import (
	"strings"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
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
