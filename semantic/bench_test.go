package semantic

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// bigManifest is the sample manifest with n metrics more (simple, ratio
// and derived in turn over its measures), as a large dbt project's.
func bigManifest(t testing.TB, n int) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/shop/semantic_manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	metrics := raw["metrics"].([]any)
	for i := range n {
		var m map[string]any
		switch i % 3 {
		case 0:
			m = map[string]any{"name": fmt.Sprintf("m%d", i), "type": "simple", "label": fmt.Sprintf("Metric %d", i), "description": "Revenue of one product line, in EUR.",
				"type_params": map[string]any{"measure": map[string]any{"name": "order_total", "filter": map[string]any{"where_filters": []any{map[string]any{"where_sql_template": fmt.Sprintf("{{ Dimension('order_id__status') }} = 's%d'", i)}}}}},
				"config":      map[string]any{"meta": map[string]any{"certified": i%2 == 0}}}
		case 1:
			m = map[string]any{"name": fmt.Sprintf("m%d", i), "type": "ratio", "description": "A share.",
				"type_params": map[string]any{"numerator": map[string]any{"name": fmt.Sprintf("m%d", i-1)}, "denominator": map[string]any{"name": "revenue"}}}
		default:
			m = map[string]any{"name": fmt.Sprintf("m%d", i), "type": "derived", "description": "A difference.",
				"type_params": map[string]any{"expr": "a - b", "metrics": []any{map[string]any{"name": fmt.Sprintf("m%d", i-2), "alias": "a"}, map[string]any{"name": "orders", "alias": "b"}}}}
		}
		metrics = append(metrics, m)
	}
	raw["metrics"] = metrics
	out, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// BenchmarkLoad1000Metrics: a manifest of 1,000 metrics loads in 200 ms
// or less (issue 37).
func BenchmarkLoad1000Metrics(b *testing.B) {
	src := bigManifest(b, 1000)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompile: compiling a query takes 2 ms or less (issue 37).
func BenchmarkCompile(b *testing.B) {
	m, err := Parse(bigManifest(b, 1000))
	if err != nil {
		b.Fatal(err)
	}
	in := QueryInput{Metrics: []string{"revenue", "revenue_per_customer", "revenue_growth_mom"}, GroupBy: []string{"metric_time__month", "customer__region"},
		Where: Filters{"{{ Dimension('customer__region') }} IN ('EU', 'NA')"}}
	for b.Loop() {
		if _, err := m.Compile(in); err != nil {
			b.Fatal(err)
		}
	}
}
