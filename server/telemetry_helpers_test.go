package server

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/observability"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of HTTP
// handlers and hooks.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fixture is a Telemetry wired to in-memory readers. These helpers mirror
// observability's own test helpers.
type fixture struct {
	tel    *observability.Telemetry
	reader *sdkmetric.ManualReader
	spans  *tracetest.SpanRecorder
	logs   *syncBuffer
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	logs := &syncBuffer{}
	log := observability.NewLogger(logs, observability.LogOptions{Level: slog.LevelDebug, ProjectID: "test-project", Redact: bqerr.Redact})
	tel, err := observability.Setup(context.Background(), observability.Options{Version: "1.2.3", MeterProvider: mp, TracerProvider: tp, Logger: log, Redact: bqerr.Redact})
	if err != nil {
		t.Fatalf("Setup: %v", err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		if err := tel.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		_ = tp.Shutdown(ctx)
		_ = mp.Shutdown(ctx)
	})
	return &fixture{tel: tel, reader: reader, spans: rec, logs: logs}
}

// metrics collects every metric by name.
func (f *fixture) metrics(t *testing.T) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != observability.ScopeName {
			t.Errorf("scope = %q, want %q", sm.Scope.Name, observability.ScopeName)
		}
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// logLines parses the JSON log lines written so far.
func (f *fixture) logLines(t *testing.T) []map[string]any {
	t.Helper()
	return parseLines(t, f.logs.String())
}

func parseLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(s), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %v\n%s", err, line)
		}
		out = append(out, m)
	}
	return out
}

func get(t *testing.T, ms map[string]metricdata.Metrics, name, unit string) metricdata.Metrics {
	t.Helper()
	m, ok := ms[name]
	if !ok {
		t.Fatalf("metric %s not exported; have %v", name, keys(ms))
	}
	if m.Unit != unit {
		t.Errorf("%s unit = %q, want %q", name, m.Unit, unit)
	}
	if m.Description == "" {
		t.Errorf("%s has no description", name)
	}
	return m
}

func keys(ms map[string]metricdata.Metrics) []string {
	var out []string
	for k := range ms {
		out = append(out, k)
	}
	return out
}

func attrString(s attribute.Set) string {
	var b strings.Builder
	for _, kv := range s.ToSlice() {
		b.WriteString(string(kv.Key) + "=" + kv.Value.Emit() + " ")
	}
	return b.String()
}

// sums returns a monotonic Int64 counter's points keyed by their attributes.
func sums(t *testing.T, m metricdata.Metrics) map[string]int64 {
	t.Helper()
	s, ok := m.Data.(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("%s is %T, want an int64 Sum", m.Name, m.Data)
	}
	if !s.IsMonotonic || s.Temporality != metricdata.CumulativeTemporality {
		t.Errorf("%s: monotonic=%v temporality=%v, want a cumulative counter", m.Name, s.IsMonotonic, s.Temporality)
	}
	out := map[string]int64{}
	for _, dp := range s.DataPoints {
		out[attrString(dp.Attributes)] = dp.Value
	}
	return out
}

// hists returns a histogram's points keyed by their attributes.
func hists(t *testing.T, m metricdata.Metrics) map[string]metricdata.HistogramDataPoint[float64] {
	t.Helper()
	h, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("%s is %T, want a float64 Histogram", m.Name, m.Data)
	}
	out := map[string]metricdata.HistogramDataPoint[float64]{}
	for _, dp := range h.DataPoints {
		out[attrString(dp.Attributes)] = dp
	}
	return out
}

// gauges returns an int64 gauge's points keyed by their attributes.
func gauges(t *testing.T, m metricdata.Metrics) map[string]int64 {
	t.Helper()
	g, ok := m.Data.(metricdata.Gauge[int64])
	if !ok {
		t.Fatalf("%s is %T, want an int64 Gauge", m.Name, m.Data)
	}
	out := map[string]int64{}
	for _, dp := range g.DataPoints {
		out[attrString(dp.Attributes)] = dp.Value
	}
	return out
}

// attrs renders key/value pairs the way attrString renders a set.
func attrs(kv ...attribute.KeyValue) string { return attrString(attribute.NewSet(kv...)) }

func wantPoints[V comparable](t *testing.T, name string, got, want map[string]V) {
	t.Helper()
	for k, w := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s: no point {%s}; have %v", name, k, got)
		} else if g != w {
			t.Errorf("%s{%s} = %v, want %v", name, k, g, w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected point {%s} = %v", name, k, g)
		}
	}
}

// spanAttr returns a span attribute's value.
func spanAttr(s sdktrace.ReadOnlySpan, key attribute.Key) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func spansNamed(rec *tracetest.SpanRecorder, name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}
