package semantic

import (
	"strings"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

func shop(t testing.TB) *Manifest {
	t.Helper()
	m, err := Load("testdata/shop/semantic_manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Each query compiles to SQL with MetricFlow's columns and the pieces its
// semantics need: the join along the entity key, the spine for offsets and
// cumulative windows, the non-additive pick, the filters.
func TestCompile(t *testing.T) {
	m := shop(t)
	for _, c := range []struct {
		name string
		in   QueryInput
		cols string
		want []string
	}{
		{"simple, one hop, filter", QueryInput{Metrics: []string{"revenue", "orders"}, GroupBy: []string{"metric_time__month", "customer__region"},
			Where: Filters{"{{ Dimension('customer__region') }} = 'EU'"}, OrderBy: []string{"-revenue"}, Limit: 5},
			"metric_time__month customer__region revenue orders",
			[]string{"DATETIME_TRUNC(q1.d_ordered_at, month) AS metric_time__month", "LEFT OUTER JOIN (SELECT customer_id AS e_customer, region AS d_region FROM `demo-project.mf_shop.customers`)",
				"WHERE (q1_j1.d_region = 'EU')", "FULL OUTER JOIN", "ORDER BY revenue DESC\nLIMIT 5"}},
		{"ratio", QueryInput{Metrics: []string{"revenue_per_customer"}}, "revenue_per_customer",
			[]string{"CAST(__num AS FLOAT64) / CAST(NULLIF(__den, 0) AS FLOAT64) AS revenue_per_customer", "COUNT(DISTINCT __m) AS __den"}},
		{"metric filter", QueryInput{Metrics: []string{"completed_revenue"}, GroupBy: []string{"metric_time__week"}}, "metric_time__week completed_revenue",
			[]string{"DATETIME_TRUNC(q1.d_ordered_at, isoweek)", "WHERE (q1.d_status = 'completed')"}},
		{"offsets", QueryInput{Metrics: []string{"revenue_growth_mom", "revenue_start_of_month"}, GroupBy: []string{"metric_time__month"}},
			"metric_time__month revenue_growth_mom revenue_start_of_month",
			[]string{"(SELECT DISTINCT DATETIME_TRUNC(date_day, month) AS date_day FROM `demo-project.mf_shop.mf_time_spine`) AS q3_ts",
				"DATE_SUB(CAST(q3_ts.date_day AS DATETIME), INTERVAL 1 month) = DATETIME_TRUNC(q3.d_ordered_at, month)", "revenue - revenue_last_month AS revenue_growth_mom",
				"ON DATETIME_TRUNC(q8_ts.date_day, month) = DATETIME_TRUNC(q8.d_ordered_at, month)"}},
		{"grain to date", QueryInput{Metrics: []string{"revenue_mtd"}, GroupBy: []string{"metric_time__month"}}, "metric_time__month revenue_mtd",
			[]string{">= DATETIME_TRUNC(q1_ts.date_day, month)", "MIN(metric_time__day) AS __pick", "ON q3.metric_time__day = q4.__pick AND (q3.metric_time__month = q4.metric_time__month OR (q3.metric_time__month IS NULL AND q4.metric_time__month IS NULL))"}},
		{"offset by day", QueryInput{Metrics: []string{"revenue_growth_mom"}, GroupBy: []string{"metric_time__day"}}, "metric_time__day revenue_growth_mom",
			[]string{"DATE_SUB(CAST(q3_ts.date_day AS DATETIME), INTERVAL 1 month) = DATETIME_TRUNC(q3.d_ordered_at, day)", "q3_ts.date_day AS metric_time__day"}},
		{"window", QueryInput{Metrics: []string{"revenue_7d"}, GroupBy: []string{"metric_time"}}, "metric_time__day revenue_7d",
			[]string{"> DATE_SUB(CAST(q1_ts.date_day AS DATETIME), INTERVAL 7 day)", "q1_ts.date_day AS metric_time__day"}},
		{"cumulative without metric_time", QueryInput{Metrics: []string{"revenue_all_time"}}, "revenue_all_time", []string{"SUM(__m) AS revenue_all_time"}},
		{"non-additive, two hops", QueryInput{Metrics: []string{"closing_balance"}, GroupBy: []string{"metric_time__month", "customer__country__continent"}},
			"metric_time__month customer__country__continent closing_balance",
			[]string{"q1.e_account AS __nad_p0, DATETIME_TRUNC(q1.d_balance_date, month) AS __nad_p1", "MAX(__nad_t) AS __nad_pick",
				"ON q2.__nad_t = q3.__nad_pick AND q2.__nad_p0 = q3.__nad_p0 AND q2.__nad_p1 = q3.__nad_p1",
				"ON q1_j1.e_country = q1_j2.e_country"}},
		{"percentile, sum_boolean", QueryInput{Metrics: []string{"order_amount_p90", "large_orders"}}, "order_amount_p90 large_orders",
			[]string{"APPROX_QUANTILES(__m, 10)[OFFSET(9)]", "CASE WHEN amount >= 100 THEN 1 ELSE 0 END"}},
		{"MetricFlow's column order", QueryInput{Metrics: []string{"orders"}, GroupBy: []string{"customer__country__continent", "customer", "metric_time__year", "customer__region", "order_id__status", "metric_time__quarter"}},
			"metric_time__quarter metric_time__year order_id__status customer customer__region customer__country__continent orders", []string{"q1.e_customer AS customer"}},
		{"saved query", QueryInput{SavedQuery: "monthly_revenue_by_region"}, "metric_time__month customer__region revenue orders",
			[]string{"(q1.d_status != 'returned')"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := m.Compile(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if cols := strings.Join(got.Columns, " "); cols != c.cols {
				t.Errorf("columns %q, want %q", cols, c.cols)
			}
			for _, w := range c.want {
				if !strings.Contains(got.SQL, w) {
					t.Errorf("SQL lacks %q:\n%s", w, got.SQL)
				}
			}
		})
	}
}

// What the compiler cannot account for is refused with INVALID_ARGUMENT:
// unknown names (with the closest), filters that name anything but
// elements, literals and operators, unsupported metrics.
func TestCompileRefuses(t *testing.T) {
	m := shop(t)
	for _, c := range []struct {
		in   QueryInput
		want string
	}{
		{QueryInput{Metrics: []string{"revenu"}}, "closest: revenue"},
		{QueryInput{Metrics: []string{"revenue"}, GroupBy: []string{"customer__regoin"}}, "customer__region"},
		{QueryInput{Metrics: []string{"revenue"}, Where: Filters{"{{ Dimension('customer__region') }} IN (SELECT region FROM `p.d.t`)"}}, "refused"},
		{QueryInput{Metrics: []string{"revenue"}, Where: Filters{"amount > 5"}}, "refused"},
		{QueryInput{Metrics: []string{"revenue"}, Where: Filters{"{{ Dimension('customer__region') }} = 'EU') OR (1 = 1"}}, "refused"},
		{QueryInput{Metrics: []string{"revenue"}, Where: Filters{"{{ Dimension('customer__region') }} = 'EU' -- "}}, ""},
		{QueryInput{Metrics: []string{"revenue"}, Where: Filters{"{{ Entity('order_id') }} > 1.5 AND {{ Entity('order_id') }} < .5e3"}}, ""},
		{QueryInput{Metrics: []string{"revenue"}, Where: Filters{"{{ Entity('order_id') }} > orders.amount"}}, "refused"},
		{QueryInput{Metrics: []string{"revenue"}, Where: Filters{"{{ Entity('order_id') }} > 1 .x"}}, "refused"},
		{QueryInput{Metrics: []string{"revenue"}, Where: Filters{"{{ Metric('orders', group_by=['customer']) }} > 2"}}, "refused"},
		{QueryInput{Metrics: []string{"revenue"}, Where: Filters{"{{ Dimension('customer__region') }} = 'EU"}}, "refused"},
		{QueryInput{Metrics: []string{"signup_to_order"}}, "conversion"},
		{QueryInput{Metrics: []string{"revenue_growth_mom"}}, "metric_time"},
		{QueryInput{Metrics: []string{"revenue"}, OrderBy: []string{"-profit"}}, "order_by"},
	} {
		_, err := m.Compile(c.in)
		if c.want == "" {
			if err != nil {
				t.Errorf("%+v: %v, want it compiled", c.in, err)
			}
			continue
		}
		e, ok := bqerr.As(err)
		if !ok || e.Code != bqerr.InvalidArgument || !strings.Contains(e.Message+" "+e.Hint, c.want) {
			t.Errorf("%+v: %v, want INVALID_ARGUMENT mentioning %q", c.in, err, c.want)
		}
	}
}

// A manifest that does not parse, or names a table that cannot exist, is
// an error naming the place.
func TestParseRefuses(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`{"semantic_models": [`, "line 1, column"},
		{`{"semantic_models": [{"name": "o", "node_relation": {"alias": "t", "schema_name": "bad dataset"}}]}`, "semantic_models[0] (o): node_relation: schema_name"},
		{`{"semantic_models": [{"name": "o", "node_relation": {"alias": "t", "schema_name": "d"}}], "metrics": [{"name": "x", "type": "simple", "type_params": {"measure": {"name": "nope"}}}]}`, "metrics[0] (x): type_params.measure"},
		{`{"semantic_models": [{"name": "o", "node_relation": {"alias": "t", "schema_name": "d"}, "dimensions": [{"name": "a, 1 AS b", "type": "categorical"}]}]}`, "semantic_models[0] (o): dimension \"a, 1 AS b\": not an identifier"},
		{`{"semantic_models": [{"name": "o", "node_relation": {"alias": "t", "schema_name": "d"}}], "metrics": [{"name": "x y", "type": "simple"}]}`, "metrics[0]: name \"x y\""},
	} {
		if _, err := Parse([]byte(c.src)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%s) = %v, want %q", c.src, err, c.want)
		}
	}
}

// list_metrics lists certified metrics first, finds by words, and pages
// within 4 KB.
func TestList(t *testing.T) {
	m := shop(t)
	out, err := m.List(ListInput{})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Metrics[0].Certified || out.Metrics[len(out.Metrics)-1].Certified && out.NextPageToken == "" {
		t.Errorf("certified metrics are not first: %+v", out.Metrics)
	}
	if jsonSize(out) > pageBytes {
		t.Errorf("page is %d bytes", jsonSize(out))
	}
	seen := len(out.Metrics)
	for out.NextPageToken != "" {
		if out, err = m.List(ListInput{PageToken: out.NextPageToken}); err != nil {
			t.Fatal(err)
		}
		seen += len(out.Metrics)
	}
	if seen != len(m.order) {
		t.Errorf("pages listed %d metrics, want %d", seen, len(m.order))
	}
	out, _ = m.List(ListInput{Search: "month start"})
	if len(out.Metrics) != 1 || out.Metrics[0].Name != "revenue_start_of_month" {
		t.Errorf("search found %+v", out.Metrics)
	}
}
