package integration_test

import (
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// TestFourthRoundScopesOverStdio: issue 35's attacks on scopes, project-
// level INFORMATION_SCHEMA and the function inventory, through the built
// binary under --datasets sales and under a whole project ('p.*'), for
// every query tool: each is refused from its text, and none reaches
// BigQuery (not even a dry run). Under 'p.*' dataset secret is allowed, so
// only the attacks on other projects and the inventory apply.
func TestFourthRoundScopesOverStdio(t *testing.T) {
	scopes := []string{
		// An alias must not hide a table BigQuery reads.
		"SELECT (SELECT COUNT(*) FROM secret.orders) AS n FROM sales.orders AS x",
		"WITH c AS (SELECT * FROM secret.orders) SELECT * FROM c, sales.orders AS secret",
		"SELECT (SELECT 1 FROM secret.orders) AS n UNION ALL SELECT 1 FROM sales.orders AS secret",
		"FROM sales.orders |> SELECT (SELECT 1 FROM secret.orders) AS n |> JOIN sales.orders AS secret ON TRUE",
		"FROM sales.orders AS secret |> SELECT * |> JOIN secret.orders ON TRUE",
		// Under a plain list, sales is also a valid project ID.
		"SELECT * FROM sales.INFORMATION_SCHEMA.SCHEMATA",
		"SELECT * FROM INFORMATION_SCHEMA.SCHEMATA",
		"FROM sales.orders |> CALL secret.tvf(1)",
		"SELECT * FROM RANGE_SESSIONIZE(TABLE secret.orders, 'r', ['id'])",
	}
	everywhere := []string{
		// Another project's metadata, or a project's for a dataset's.
		"SELECT * FROM `other-proj`.INFORMATION_SCHEMA.SCHEMATA",
		"SELECT * FROM `other-proj.INFORMATION_SCHEMA.SCHEMATA_OPTIONS`",
		"SELECT * FROM `other-proj`.INFORMATION_SCHEMA.TABLES",
		// |> CALL through the inventory.
		"FROM sales.orders |> CALL EXTERNAL_QUERY('us.pg', 'SELECT 1 AS n')",
		"FROM sales.orders |> CALL NEW_TVF(1)",
		"SELECT * FROM GRAPH_EXPAND(@graph)",
	}
	for _, mode := range []struct {
		name string
		args []string
		sql  []string
	}{
		{"sales", []string{"--datasets", "sales", "--toolsets", "all"}, append(scopes, everywhere...)},
		{"whole project", []string{"--datasets", "p.*", "--toolsets", "all"}, everywhere},
	} {
		t.Run(mode.name, func(t *testing.T) {
			cs, fake := startGovernedBinary(t, "", nil, append(mode.args, "--export-dir", t.TempDir())...)
			refusedByEveryQueryTool(t, cs, fake, mode.name, mode.sql, bqerr.PermissionDenied)
			fake.mu.Lock()
			defer fake.mu.Unlock()
			if len(fake.dryRuns) != 0 {
				t.Errorf("statements the text refuses were dry-run: %q", fake.dryRuns)
			}
		})
	}
}
