package integration_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/integration_test/faults"
	"github.com/bigquery-mcp/bigquery-mcp/observability"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// sums returns, for a counter, the value per attribute set (rendered as
// "k=v,k=v" in sorted key order).
func sums(rm metricdata.ResourceMetrics, name string) map[string]int64 {
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[render(p.Attributes)] += p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out[render(p.Attributes)] += int64(p.Count)
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					out[render(p.Attributes)] = p.Value
				}
			}
		}
	}
	return out
}

func render(s attribute.Set) string {
	var parts []string
	for _, kv := range s.ToSlice() {
		parts = append(parts, string(kv.Key)+"="+kv.Value.Emit())
	}
	return strings.Join(parts, ",")
}

// has reports whether some attribute set of the metric contains every
// k=v in want and has a positive value.
func has(m map[string]int64, want ...string) bool {
	for attrs, v := range m {
		ok := v > 0
		for _, w := range want {
			ok = ok && strings.Contains(","+attrs+",", ","+w+",")
		}
		if ok {
			return true
		}
	}
	return false
}

// The telemetry of a real server after scripted calls: successes, failures
// of each main code, retries, a breaker trip, a stale serve and a job
// cancelled by its timeout.
func TestTelemetryOfScriptedCalls(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { mp.Shutdown(context.Background()); tp.Shutdown(context.Background()) })
	tel, err := observability.Setup(context.Background(), observability.Options{Version: "test", MeterProvider: mp, TracerProvider: tp, Redact: bqerr.Redact})
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t)
	p.HoldQueries(func(sql string) bool { return strings.Contains(sql, "/* hold */") })
	cfg := fastConfig(p)
	cfg.Cache.TTL = time.Millisecond
	cfg.Resilience.Breaker = resilience.Breaker{Failures: 2, Open: time.Minute, Successes: 1}
	cfg.Telemetry = tel
	cs := connect(t, cfg, "")

	ok[struct{}](t, cs, "list_datasets", nil)
	ok[struct{}](t, cs, "get_table_schema", map[string]any{"table": "shop.orders"})
	ok[struct{}](t, cs, "execute_sql", map[string]any{"sql": "SELECT COUNT(*) AS n FROM shop.orders"})
	fails(t, cs, "get_table_schema", map[string]any{"table": "shop.nope"})        // NOT_FOUND
	fails(t, cs, "execute_sql", map[string]any{"sql": "SELEC 1"})                 // QUERY_ERROR
	fails(t, cs, "execute_sql", map[string]any{"sql": "DELETE FROM shop.orders"}) // INVALID_ARGUMENT
	fails(t, cs, "execute_sql", map[string]any{"sql": "SELECT 1 AS n /* hold */", "timeoutSeconds": 1})

	// One retried request, then an outage: stale answers, then the breaker.
	p.AddRule(faults.Rule{Times: 1, Fault: faults.Fault{Status: 503}})
	ok[struct{}](t, cs, "list_tables", map[string]any{"dataset": "shop"})
	time.Sleep(5 * time.Millisecond)
	p.AddRule(faults.Rule{Fault: faults.Fault{Status: 503}})
	for range 3 {
		ok[struct{}](t, cs, "get_table_schema", map[string]any{"table": "shop.orders"}) // stale
	}
	if e := fails(t, cs, "get_table_schema", map[string]any{"table": "shop.customers"}); e.Code != bqerr.Unavailable {
		t.Fatalf("uncached table during the outage: %+v", e)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		metric string
		want   []string
	}{
		{observability.MetricOperationDuration, []string{"gen_ai.tool.name=execute_sql", "outcome=ok"}},
		{observability.MetricToolCalls, []string{"gen_ai.tool.name=get_table_schema", "outcome=error", "error.type=NOT_FOUND"}},
		{observability.MetricErrors, []string{"error.type=QUERY_ERROR"}},
		{observability.MetricErrors, []string{"error.type=INVALID_ARGUMENT"}},
		{observability.MetricErrors, []string{"error.type=DEADLINE_EXCEEDED"}},
		{observability.MetricErrors, []string{"error.type=UNAVAILABLE", "retryable=true"}},
		{observability.MetricRetryAttempts, []string{"operation=metadata"}},
		{observability.MetricRetryExhausted, []string{"operation=metadata"}},
		{observability.MetricBreakerTransitions, []string{"from=closed", "to=open"}},
		{observability.MetricBreakerRejected, nil},
		{observability.MetricCacheLookups, []string{"result=stale"}},
		{observability.MetricCacheLookups, []string{"result=miss"}},
		{observability.MetricCacheStaleAge, nil},
		{observability.MetricJobsCompleted, []string{"statement_type=SELECT"}},
		{observability.MetricJobsCancelled, []string{"reason=timeout"}},
		{observability.MetricBytesProcessed, nil},
		{observability.MetricDBOperationDuration, []string{"db.system.name=gcp.bigquery", "db.operation.name=jobs.insert"}},
		{observability.MetricDBOperationDuration, []string{"db.operation.name=tables.get", "http.response.status_code=503"}},
	}
	for _, c := range checks {
		if m := sums(rm, c.metric); !has(m, c.want...) {
			t.Errorf("%s has no point with %v; points: %v", c.metric, c.want, m)
		}
	}
	// Never SQL, table names or job IDs as metric attributes.
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			for attrs := range sums(rm, m.Name) {
				if strings.Contains(attrs, "orders") || strings.Contains(attrs, "bqmcp_") || strings.Contains(attrs, "SELECT 1") {
					t.Errorf("%s carries a high-cardinality attribute: %s", m.Name, attrs)
				}
			}
		}
	}

	// Spans: one per tool call, BigQuery requests and attempts beneath.
	var toolSpans, children int
	var failed bool
	for _, s := range spans.Ended() {
		if strings.HasPrefix(s.Name(), "tools/call ") {
			toolSpans++
			for _, a := range s.Attributes() {
				if a.Key == "error.type" && a.Value.AsString() == "QUERY_ERROR" {
					failed = true
				}
			}
		} else if s.Parent().IsValid() {
			children++
		}
	}
	if toolSpans < 12 || children == 0 || !failed {
		t.Errorf("spans: %d tool calls, %d children, QUERY_ERROR span %v", toolSpans, children, failed)
	}
}
