package query

import (
	"context"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
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
		"UPDATE sales.orders AS secret SET a = (SELECT 1 FROM secret.orders) WHERE TRUE",
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
			_, err := s.Execute(context.Background(), ExecuteInput{SQL: sql})
			if e, ok := bqerr.As(err); !ok || (e.Code != bqerr.PermissionDenied && e.Code != bqerr.InvalidArgument) {
				t.Fatalf("Execute = %v, want PERMISSION_DENIED", err)
			}
			if d, q, _ := fake.counts(); d != 0 || q != 0 {
				t.Errorf("%d dry runs and %d jobs, want none", d, q)
			}
			if _, err := s.DryRun(context.Background(), DryRunInput{SQL: sql}); err == nil {
				t.Error("dry_run_sql accepted it")
			}
		})
	}
}
