package query

import (
	"context"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// Issue 35, fourth round: an attacker's spellings that try to make a table
// of a dataset outside the allowlist look like a range variable (so that
// it is read as a correlated path), or to hide a reach-out. Each is
// refused with no dry run and no job, by execute_sql and dry_run_sql.
func TestRedTeamScopes(t *testing.T) {
	for _, sql := range []string{
		// A quoted name with dots is one identifier for BigQuery's name
		// scope, so it never matches a range variable: it is a table.
		"SELECT 1 FROM sales.orders AS secret, `secret.orders`",
		"SELECT (SELECT 1 FROM `secret.orders`) FROM sales.orders AS secret",
		"SELECT 1 FROM sales.orders AS secret JOIN `secret.orders` ON TRUE",
		"SELECT 1 FROM sales.orders AS secret, `secret.orders`.x",
		"SELECT (SELECT 1 FROM `secret.orders` AS o) AS n FROM sales.orders AS secret",
		"FROM sales.orders AS secret |> JOIN `secret.orders` ON TRUE",
		"FROM sales.orders |> AS secret |> JOIN `secret.orders` ON TRUE",
		"DELETE sales.orders secret WHERE EXISTS (SELECT 1 FROM `secret.orders`)",
		"SELECT 1 FROM sales.orders AS secret WHERE EXISTS (SELECT 1 FROM `secret.orders`)",
		// A table quoted whole: no implicit alias the reader relies on.
		"SELECT (SELECT 1 FROM secret.orders) FROM `sales.secret`",
		"SELECT 1 FROM `p.sales.secret`, secret.orders",
		"DELETE `sales.secret` WHERE EXISTS (SELECT 1 FROM secret.orders)",
		"SELECT (WITH c AS (SELECT * FROM secret.orders) SELECT 1 FROM c) FROM sales.orders AS secret",
		"SELECT (WITH RECURSIVE c AS (SELECT * FROM secret.orders) SELECT 1 FROM c) FROM sales.orders AS secret",
		"SELECT 1 FROM sales.orders AS secret WHERE EXISTS (WITH a AS (SELECT 1), c AS (SELECT * FROM secret.orders) SELECT 1 FROM c)",
		"SELECT (SELECT * FROM ML.PREDICT(MODEL secret.m, TABLE secret.orders)) FROM sales.orders AS secret",
		"SELECT (FROM sales.orders |> AS secret |> SELECT 1), (SELECT 1 FROM secret.orders) FROM sales.orders",
		// Escapes, offsets, columns, pipes: no alias by another road.
		"SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS `sec\\x72et2`",
		"SELECT 1 FROM sales.orders AS `secret.orders`, secret.orders",
		"SELECT 1 FROM sales.orders AS `secret `, secret.orders",
		"SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x, UNNEST(x.a) AS y WITH OFFSET AS secret2",
		"SELECT (SELECT 1 FROM secret.orders) AS secret FROM sales.orders",
		"FROM sales.orders AS x |> EXTEND (SELECT 1 FROM secret.orders) AS n |> AS secret",
		"FROM sales.orders AS secret |> SELECT 1 AS n |> JOIN secret.orders ON TRUE",
		"FROM sales.orders AS secret |> AGGREGATE COUNT(*) AS n |> WHERE EXISTS (SELECT 1 FROM secret.orders)",
		"SELECT * FROM (SELECT 1 FROM sales.orders AS secret), secret.orders",
		"SELECT * FROM sales.orders AS x JOIN (sales.orders AS secret JOIN sales.orders AS y ON TRUE) ON TRUE, (SELECT 1 FROM secret.orders)",
		// BigQuery folds only ASCII letters when it compares names: the
		// Kelvin sign and the dotted capital I are not k and i.
		"SELECT 1 FROM sales.orders AS `\u212Api`, kpi.orders",
		"SELECT (SELECT 1 FROM internal.orders) FROM sales.orders AS `\u0130NTERNAL`",
		"SELECT 1 FROM sales.orders AS `\u0130nternal` WHERE EXISTS (SELECT 1 FROM internal.orders)",
		// An alias declared after the select list, but not by its FROM.
		"SELECT (SELECT 1 FROM secret.orders) AS n FROM sales.orders |> AS secret",
		"SELECT (SELECT 1 FROM secret.orders) AS n FROM sales.orders |> JOIN sales.orders AS secret ON TRUE",
		"SELECT (SELECT 1 FROM secret.orders) AS n FROM sales.orders AS x |> WHERE TRUE |> AS secret",
		"SELECT (SELECT 1 FROM secret.orders) AS n FROM sales.orders AS x UNION ALL SELECT 1 FROM sales.orders AS secret",
		"SELECT (SELECT 1 FROM sales.orders AS secret), (SELECT 1 FROM secret.orders) FROM sales.orders",
		"SELECT (SELECT 1 FROM secret.orders), (SELECT 1 FROM sales.orders AS secret) FROM sales.orders",
		"SELECT ARRAY(SELECT 1 FROM sales.orders AS secret), (SELECT 1 FROM secret.orders) FROM sales.orders",
		"SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x; SELECT 1 FROM sales.orders AS secret",
		"SELECT 1 FROM sales.orders AS secret; SELECT (SELECT 1 FROM secret.orders) FROM sales.orders",
		"SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x WHERE EXISTS (SELECT 1 FROM sales.orders AS secret)",
		"SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x WINDOW secret AS (ORDER BY 1)",
		"SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x, UNNEST(x.a) AS y WITH OFFSET AS z, (SELECT 1 FROM sales.orders AS secret)",
		"SELECT (SELECT 1 FROM secret.orders) FROM (SELECT 1 FROM sales.orders AS secret) AS x",
		"SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x JOIN (SELECT 1 FROM sales.orders AS secret) ON TRUE",
		"WITH secret AS (SELECT 1 AS orders) SELECT * FROM secret.orders",
		"SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x QUALIFY EXISTS (SELECT 1 FROM sales.orders AS secret)",
		"SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x ORDER BY (SELECT 1 FROM sales.orders AS secret)",
		"SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x GROUP BY 1 HAVING EXISTS (SELECT 1 FROM sales.orders AS secret)",
		"SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x PIVOT (SUM(a) FOR b IN (1)) AS secret",
		"SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x UNPIVOT (a FOR b IN (c)) AS secret",
		"SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x TABLESAMPLE SYSTEM (10 PERCENT) AS secret",
		"SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x MATCH_RECOGNIZE (ORDER BY a PATTERN (A) DEFINE A AS TRUE) AS secret",
		"SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x FOR SYSTEM_TIME AS OF CURRENT_TIMESTAMP() AS secret",
		"SELECT (SELECT 1 FROM secret /* c */ . orders) FROM sales.orders AS x",
		"SELECT (SELECT 1 FROM secret\n.\norders) FROM sales.orders AS x",
		"SELECT (SELECT 1 FROM `secret`.`orders`) FROM sales.orders AS x",
		"SELECT (SELECT 1 FROM SECRET.orders) FROM sales.orders AS secret2",
		// An UPDATE's and a MERGE's target is a range variable of SET,
		// WHERE, ON and WHEN, never of UPDATE's FROM items or MERGE's
		// USING source (TestRedTeamCorrelatedPaths has the SET case).
		"UPDATE sales.orders AS secret SET a = 1 FROM secret.orders WHERE TRUE",
		"UPDATE sales.orders AS secret SET a = 1 FROM sales.orders AS y JOIN secret.orders ON TRUE WHERE TRUE",
		"UPDATE sales.orders AS secret SET a = 1 FROM (SELECT 1 FROM secret.orders) WHERE TRUE",
		"UPDATE sales.orders AS secret SET a = (SELECT 1 FROM `secret.orders`) WHERE TRUE",
		"UPDATE sales.orders AS x SET a = (SELECT 1 FROM secret.orders) WHERE TRUE",
		"UPDATE sales.orders AS x SET a = 1 FROM sales.orders AS secret WHERE EXISTS (SELECT 1 FROM `secret.orders`)",
		"UPDATE `sales.secret` SET a = (SELECT 1 FROM secret.orders) WHERE TRUE",
		"MERGE sales.orders AS secret USING secret.orders AS s ON TRUE WHEN MATCHED THEN DELETE",
		"MERGE sales.orders AS secret USING sales.orders AS s JOIN secret.orders ON TRUE ON TRUE WHEN MATCHED THEN DELETE",
		"MERGE sales.orders AS x USING sales.orders AS s ON EXISTS (SELECT 1 FROM secret.orders) WHEN MATCHED THEN DELETE",
		"UPDATE sales.orders AS x SET a = 1 FROM sales.orders AS secret, `secret.orders` WHERE TRUE",
		"MERGE sales.orders AS secret USING (SELECT * FROM secret.orders) AS s ON TRUE WHEN MATCHED THEN DELETE",
		"MERGE sales.orders AS t USING sales.orders AS secret ON TRUE WHEN MATCHED AND EXISTS (SELECT 1 FROM `secret.orders`) THEN DELETE",
		"DELETE FROM sales.orders AS x WHERE EXISTS (SELECT 1 FROM secret.orders)",
		"INSERT INTO sales.copy SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x |> AS secret",
		"CREATE TEMP TABLE t AS SELECT (SELECT 1 FROM secret.orders) AS n FROM sales.orders |> AS secret",
		"BEGIN SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x; SELECT 1 FROM sales.orders AS secret; END",
		"SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x INTERSECT DISTINCT (SELECT 1 FROM sales.orders AS secret)",
		"(SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x) UNION ALL (SELECT 1 FROM sales.orders AS secret)",
		"SELECT * FROM sales.orders AS secret, secret.orders.x, `region-us`.INFORMATION_SCHEMA.JOBS",
	} {
		t.Run(sql, func(t *testing.T) {
			s, fake := newGovernedService(t, nil, true)
			assertRefusedWithoutJob(t, s, fake, sql)
		})
	}
}

// TestRedTeamCorrelatedPaths: where BigQuery resolves a path from a
// range variable of an enclosing query, the text reads it as that range
// variable's column, as BigQuery does: an UPDATE's target alias in its
// SET's subqueries (the DML reference's UPDATE dataset.Inventory SET
// quantity = quantity + (SELECT quantity FROM dataset.NewArrivals WHERE
// Inventory.product = NewArrivals.product)), and an outer query's alias in
// a FROM subquery of an expression subquery (no LATERAL only hides the
// FROM list's own). Should BigQuery ever read such a path as the table, its
// dry run lists p.secret.orders, and the statement is refused with no job.
func TestRedTeamCorrelatedPaths(t *testing.T) {
	for _, sql := range []string{
		"UPDATE sales.orders AS secret SET a = (SELECT 1 FROM secret.orders) WHERE TRUE",
		"SELECT (SELECT COUNT(*) FROM (SELECT * FROM secret.orders)) FROM sales.orders AS secret",
		"SELECT 1 FROM sales.orders AS secret WHERE EXISTS (SELECT 1 FROM (SELECT * FROM secret.orders))",
	} {
		t.Run(sql, func(t *testing.T) {
			s, fake := newGovernedService(t, map[string]plan{
				sql: {"SELECT", []string{"p.sales.orders", "p.secret.orders"}, 100},
			}, true)
			_, err := s.Execute(context.Background(), ExecuteInput{SQL: sql})
			if e, ok := bqerr.As(err); !ok || e.Code != bqerr.PermissionDenied {
				t.Fatalf("Execute = %v, want PERMISSION_DENIED", err)
			}
			if _, err := s.DryRun(context.Background(), DryRunInput{SQL: sql}); err == nil {
				t.Error("dry_run_sql accepted it")
			}
			if _, q, _ := fake.counts(); q != 0 {
				t.Errorf("%d jobs, want none", q)
			}
		})
	}
}

// TestRedTeamReachOuts: a Cloud KMS key built by an expression, given as
// a parameter, bytes or parenthesized, or spelled outside --kms-keys
// through quoting, case, comments, SAFE. or named arguments; an option
// value that names an external dataset's source; project- and region-level
// INFORMATION_SCHEMA in every quoting; each is refused with no dry run
// and no job, by execute_sql and dry_run_sql.
func TestRedTeamReachOuts(t *testing.T) {
	keys, err := governance.ParseKMSKeys("projects/p/locations/us/keyRings/pii/cryptoKeys/*")
	if err != nil {
		t.Fatal(err)
	}
	const listed, other = "projects/p/locations/us/keyRings/pii/cryptoKeys/", "'gcp-kms://projects/o/locations/us/keyRings/r/cryptoKeys/k'"
	for _, sql := range []string{
		"SELECT KEYS.KEYSET_CHAIN(CONCAT('gcp-kms://', '" + listed + "k'), b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN(FORMAT('%s', '" + listed + "k'), b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN(@k, b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN(b'gcp-kms://" + listed + "k', b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN('gcp-kms://" + listed + "k\\x2f..\\x2f..\\x2f..\\x2f..\\x2f..\\x2f..\\x2fo/locations/us/keyRings/r/cryptoKeys/k', b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN('gcp-kms://' '" + listed + "k', b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN(('gcp-kms://" + listed + "k'), b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN(kms_resource_name => " + other + ", first_level_keyset => b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN(first_level_keyset => b'\\x01', kms_resource_name => " + other + ")",
		"SELECT `KEYS`.KEYSET_CHAIN(" + other + ", b'\\x01')",
		"SELECT `KEYS.KEYSET_CHAIN`(" + other + ", b'\\x01')",
		"SELECT keys . keyset_chain(" + other + ", b'\\x01')",
		"SELECT SAFE.KEYS.KEYSET_CHAIN(" + other + ", b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN /* c */ (" + other + ", b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN(r" + other + ", b'\\x01')",
		"SELECT KEYS.KEYSET_CHAIN('''gcp-kms://projects/o/locations/us/keyRings/r/cryptoKeys/k''', b'\\x01')",
		"SELECT DLP_DETERMINISTIC_ENCRYPT(SAFE.DLP_KEY_CHAIN(" + other + ", b'\\x01'), 'a', '', '')",
		"SELECT DLP_DETERMINISTIC_ENCRYPT((DLP_KEY_CHAIN(" + other + ", b'\\x01')), 'a', '', '')",
		"CREATE TABLE sales.t (n INT64) OPTIONS (kms_key_name = CONCAT('" + listed + "', 'k'))",
		"CREATE TABLE sales.t (n INT64) OPTIONS (`kms_key_name` = 'projects/o/locations/us/keyRings/r/cryptoKeys/k')",
		"CREATE TABLE sales.t (n INT64) OPTIONS (KMS_KEY_NAME /* c */ = 'projects/o/locations/us/keyRings/r/cryptoKeys/k')",
		"CREATE TABLE sales.t (n INT64) OPTIONS (kms_key_name = r'projects/o/locations/us/keyRings/r/cryptoKeys/k')",
		"CREATE TABLE sales.t (n INT64) OPTIONS (kms_key_name = @k)",
		"CREATE TABLE sales.t (n INT64) OPTIONS (kms_key_name = '" + listed + "k' || '')",
		"ALTER TABLE sales.orders SET OPTIONS (kms_key_name = 'projects/o/locations/us/keyRings/r/cryptoKeys/k')",
		"ALTER SCHEMA sales SET OPTIONS (default_kms_key_name = 'projects/o/locations/us/keyRings/r/cryptoKeys/k')",
		"CREATE SCHEMA mkt_x OPTIONS (default_kms_key_name = 'projects/o/locations/us/keyRings/r/cryptoKeys/k')",
		"CREATE SCHEMA mkt_x OPTIONS (external_source = 'google-cloudspanner:/projects/o/instances/i/databases/d')",
		"CREATE EXTERNAL SCHEMA mkt_x OPTIONS (external_source = 'google-cloudspanner:/projects/o/instances/i/databases/d', location = 'us')",
		"CREATE MODEL sales.m OPTIONS (model_type = 'ONNX', model_path = CONCAT('gs://', 'b/m.onnx'))",
		"CREATE MODEL sales.m OPTIONS (MODEL_TYPE = 'TENSORFLOW', `MODEL_PATH` = 'gs://b/m/*')",
		"CREATE MODEL sales.m OPTIONS (model_type = 'linear_reg', model_registry = 'vertex_ai') AS SELECT 1 AS label FROM sales.orders",
		"CREATE MODEL sales.m OPTIONS (model_type = 'linear_reg', kms_key_name = 'projects/o/locations/us/keyRings/r/cryptoKeys/k') AS SELECT 1 AS label FROM sales.orders",
		"CREATE MODEL sales.m REMOTE WITH CONNECTION DEFAULT OPTIONS (endpoint = 'gemini-2.0-flash')",
		"CREATE PROCEDURE sales.p() BEGIN CREATE TABLE sales.t (n INT64) OPTIONS (kms_key_name = 'projects/o/locations/us/keyRings/r/cryptoKeys/k'); END",
		"CREATE PROCEDURE sales.p() BEGIN SELECT KEYS.KEYSET_CHAIN(" + other + ", b'\\x01'); END",
		"CREATE FUNCTION sales.f() AS ((SELECT KEYS.KEYSET_CHAIN(" + other + ", b'\\x01')))",
		"CREATE TEMP FUNCTION f() AS (KEYS.KEYSET_CHAIN(" + other + ", b'\\x01')); SELECT f()",
		"SELECT * FROM `region-us`.INFORMATION_SCHEMA.SCHEMATA",
		"SELECT * FROM `region-us.INFORMATION_SCHEMA.SCHEMATA`",
		"SELECT * FROM region-us.INFORMATION_SCHEMA.SCHEMATA",
		"SELECT * FROM `o.region-us.INFORMATION_SCHEMA.TABLES`",
		"SELECT * FROM `o`.`region-us`.INFORMATION_SCHEMA.TABLES",
		"SELECT * FROM `p.region-us`.INFORMATION_SCHEMA.TABLES",
		"SELECT * FROM `o.INFORMATION_SCHEMA.SCHEMATA`",
		"SELECT * FROM `o`.INFORMATION_SCHEMA.SCHEMATA",
		"SELECT * FROM `o.INFORMATION_SCHEMA`.SCHEMATA",
		"SELECT * FROM `INFORMATION_SCHEMA.SCHEMATA`",
		"SELECT * FROM INFORMATION_SCHEMA.TABLES",
		"SELECT * FROM p.INFORMATION_SCHEMA.JOBS",
		"SELECT * FROM `p.secret`.INFORMATION_SCHEMA.TABLES",
		"SELECT * FROM SECRET.information_schema.tables",
		"SELECT * FROM Sales.INFORMATION_SCHEMA.TABLES",
		// An alias named like the project: the path is read as the view.
		"SELECT * FROM sales.orders AS o, o.INFORMATION_SCHEMA.SCHEMATA",
		"SELECT (SELECT 1 FROM o.INFORMATION_SCHEMA.SCHEMATA) FROM sales.orders AS o",
		"SELECT 1 FROM sales.orders AS secret, secret.INFORMATION_SCHEMA.TABLES",
	} {
		t.Run(sql, func(t *testing.T) {
			s, fake := newGovernedService(t, nil, true, func(c *Config) { c.KMSKeys = keys })
			assertRefusedWithoutJob(t, s, fake, sql)
		})
	}
}
