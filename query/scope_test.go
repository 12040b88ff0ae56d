package query

import (
	"context"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// Issue 35: range variables' scopes and the case of dataset IDs, as
// BigQuery has them.

// TestAllowlistScopes: the GA4 idioms (a correlated path in a subquery of
// the select list, before the FROM that declares its range variable) run
// under an allowlist of the export's dataset; an alias hides no table of
// another dataset that BigQuery would read instead, and what names one is
// refused with no job and no dry run.
func TestAllowlistScopes(t *testing.T) {
	ga4 := []string{
		"SELECT (SELECT value.int_value FROM UNNEST(e.event_params) WHERE key = 'ga_session_id') AS s FROM `p.analytics_1.events_*` AS e",
		"SELECT (SELECT value.int_value FROM e.event_params WHERE key = 'ga_session_id') AS session_id FROM `p.analytics_1.events_*` AS e",
		"SELECT event_name, (SELECT value.string_value FROM e.event_params WHERE key = 'page_location') AS page FROM analytics_1.events_20240101 AS e " +
			"QUALIFY ROW_NUMBER() OVER (PARTITION BY (SELECT value.int_value FROM e.event_params WHERE key = 'ga_session_id') ORDER BY event_timestamp) = 1",
		"SELECT user_pseudo_id, ARRAY(SELECT AS STRUCT key, value.string_value FROM events_20240101.user_properties) AS props FROM analytics_1.events_20240101",
	}
	for _, sql := range ga4 {
		t.Run(sql, func(t *testing.T) {
			plans := map[string]plan{sql: {"SELECT", []string{"p.analytics_1.events_20240101"}, 100}}
			s, fake := newGovernedService(t, plans, false, func(c *Config) {
				c.Datasets, _ = governance.ParseAllowlist("analytics_1", "p")
			})
			if _, err := s.Execute(context.Background(), ExecuteInput{SQL: sql}); err != nil {
				t.Fatalf("Execute refused a GA4 idiom: %v", err)
			}
			if _, q, _ := fake.counts(); q != 1 {
				t.Errorf("%d jobs, want 1", q)
			}
		})
	}
	for _, sql := range []string{
		"SELECT (SELECT * FROM secret.orders) FROM sales.orders AS x",
		"SELECT (SELECT COUNT(*) FROM secret.orders) AS n FROM sales.orders",
		"WITH c AS (SELECT * FROM secret.orders) SELECT * FROM c, sales.orders AS secret",
		"SELECT (SELECT 1 FROM secret.orders) UNION ALL SELECT 1 FROM sales.orders AS secret",
		"SELECT 1 FROM sales.orders AS secret UNION ALL SELECT (SELECT 1 FROM secret.orders)",
		"FROM sales.orders |> SELECT (SELECT 1 FROM secret.orders) AS n |> JOIN sales.orders AS secret ON TRUE",
		"SELECT (SELECT 1 FROM secret.orders) FROM (SELECT * FROM sales.orders AS secret)",
		// A FROM subquery sees the range variables of the queries an
		// expression subquery correlates to (TestRedTeamCorrelatedPaths),
		// never those of its own FROM list or a table function's.
		"SELECT (SELECT COUNT(*) FROM sales.orders AS secret, (SELECT * FROM secret.orders)) FROM sales.orders",
		"SELECT (SELECT COUNT(*) FROM sales.orders AS secret JOIN (SELECT * FROM (SELECT * FROM secret.orders)) ON TRUE) FROM sales.orders",
		"SELECT * FROM sales.orders AS secret, (SELECT (SELECT COUNT(*) FROM (SELECT * FROM secret.orders)))",
		"SELECT (SELECT COUNT(*) FROM sales.tvf((SELECT * FROM secret.orders))) FROM sales.orders AS secret",
		"SELECT (SELECT COUNT(*) FROM (WITH c AS (SELECT * FROM secret.orders) SELECT * FROM c)) FROM sales.orders AS secret",
		"SELECT (SELECT 1 FROM sales.orders JOIN sales.orders AS o2 ON EXISTS (SELECT 1 FROM secret.orders) JOIN sales.orders AS secret ON TRUE) FROM sales.orders",
		"INSERT INTO sales.copy SELECT (SELECT 1 FROM secret.orders) FROM sales.orders AS x",
	} {
		t.Run(sql, func(t *testing.T) {
			s, fake := newGovernedService(t, nil, true)
			assertRefusedWithoutJob(t, s, fake, sql)
		})
	}
}

// TestAllowlistDatasetCase: dataset IDs are compared case-sensitively, as
// BigQuery compares them. With datasets sales and Sales in one project, the
// authorized view sales.v over Sales.orders runs: sales names sales, not
// Sales. A spelling that can name a dataset outside the allowlist (its own,
// or another case of a case-insensitive dataset's ID that no dataset has
// exactly) is still refused, with no job.
func TestAllowlistDatasetCase(t *testing.T) {
	catalog := func(datasets ...string) func(*Config) {
		return func(c *Config) {
			c.Datasets, _ = governance.ParseAllowlist("sales", "p")
			c.Catalog = fakeCatalog{types: map[string]string{"p.sales.v": "VIEW", "p.Sales.orders": "TABLE"}, datasets: datasets}
		}
	}
	plans := map[string]plan{
		"SELECT * FROM sales.v":            {"SELECT", []string{"p.Sales.orders"}, 100},
		"SELECT * FROM `p.sales.v`":        {"SELECT", []string{"p.Sales.orders"}, 100},
		"SELECT Sales FROM sales.v":        {"SELECT", []string{"p.Sales.orders"}, 100},
		"SELECT `Sales` FROM sales.v":      {"SELECT", []string{"p.Sales.orders"}, 100},
		"SELECT SALES FROM sales.v":        {"SELECT", []string{"p.Sales.orders"}, 100},
		"SELECT x.Sales FROM sales.v AS x": {"SELECT", []string{"p.Sales.orders"}, 100},
	}
	for _, tc := range []struct {
		sql      string
		datasets []string
		allowed  bool
	}{
		{"SELECT * FROM sales.v", []string{"sales", "Sales"}, true},
		// Sales is named as written.
		{"SELECT Sales FROM sales.v", []string{"sales", "Sales"}, false},
		{"SELECT `Sales` FROM sales.v", []string{"sales", "Sales"}, false},
		// SALES is neither dataset's ID: it names neither (both are
		// case-sensitive, since their IDs differ only in case).
		{"SELECT SALES FROM sales.v", []string{"sales", "Sales"}, true},
		// Without a dataset sales, sales.v may be Sales.v of a
		// case-insensitive Sales: refused.
		{"SELECT * FROM sales.v", []string{"Sales"}, false},
	} {
		t.Run(tc.sql, func(t *testing.T) {
			s, fake := newGovernedService(t, plans, false, catalog(tc.datasets...))
			_, err := s.Execute(context.Background(), ExecuteInput{SQL: tc.sql})
			_, q, _ := fake.counts()
			if tc.allowed {
				if err != nil || q != 1 {
					t.Fatalf("Execute = %v with %d jobs, want it to run once", err, q)
				}
				return
			}
			if e, ok := bqerr.As(err); !ok || e.Code != bqerr.PermissionDenied {
				t.Fatalf("Execute = %v, want PERMISSION_DENIED", err)
			}
			if q != 0 {
				t.Errorf("%d jobs, want none", q)
			}
		})
	}
}

// TestAllowlistFunctionInventory: |> CALL goes through the function
// inventory (|> CALL EXTERNAL_QUERY needs its connection listed, an
// unknown table function is refused, ML.PREDICT is BigQuery's and no
// routine), and BigQuery's own table functions beyond ZetaSQL's run over
// allowed tables (issue 35). Refusals run no job and no dry run.
func TestAllowlistFunctionInventory(t *testing.T) {
	for _, sql := range []string{
		"FROM sales.orders |> CALL EXTERNAL_QUERY('us.pg', 'SELECT 1 AS n')",
		"FROM sales.orders |> CALL NEW_TVF(1)",
		"FROM sales.orders |> CALL secret.tvf(1)",
		"FROM sales.orders |> CALL ML.PREDICT(MODEL secret.m)",
		"SELECT * FROM RANGE_SESSIONIZE(TABLE secret.orders, 'r', ['id'])",
		"SELECT * FROM AI.SEARCH(TABLE secret.orders, 'description', 'a fun toy')",
		"SELECT * FROM GRAPH_EXPAND(@graph)",
	} {
		t.Run(sql, func(t *testing.T) {
			s, fake := newGovernedService(t, nil, false)
			_, err := s.Execute(context.Background(), ExecuteInput{SQL: sql})
			if e, ok := bqerr.As(err); !ok || e.Code != bqerr.PermissionDenied {
				t.Fatalf("Execute = %v, want PERMISSION_DENIED", err)
			}
			if d, q, _ := fake.counts(); d != 0 || q != 0 {
				t.Errorf("%d dry runs and %d jobs, want none", d, q)
			}
		})
	}
	for _, sql := range []string{
		"FROM sales.orders |> CALL ML.PREDICT(MODEL sales.m)",
		"SELECT * FROM RANGE_SESSIONIZE(TABLE sales.orders, 'r', ['id'])",
		"SELECT * FROM AI.SEARCH(TABLE sales.orders, 'description', 'a fun toy')",
		"SELECT * FROM VECTOR_INDEX.STATISTICS(TABLE sales.orders)",
	} {
		t.Run(sql, func(t *testing.T) {
			plans := map[string]plan{sql: {"SELECT", []string{"p.sales.orders"}, 100}}
			s, fake := newGovernedService(t, plans, false)
			if _, err := s.Execute(context.Background(), ExecuteInput{SQL: sql}); err != nil {
				t.Fatalf("Execute refused it: %v", err)
			}
			if _, q, _ := fake.counts(); q != 1 {
				t.Errorf("%d jobs, want 1", q)
			}
		})
	}
}
