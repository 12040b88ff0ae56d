// Package obstest holds test helpers shared by the tests of observability
// and of the server wiring: reading metrics, spans and JSON log lines back
// from in-memory exporters. It imports nothing of this module, so
// observability's own tests can use it.
package obstest

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// SyncBuffer is a bytes.Buffer safe for the concurrent writes of HTTP
// handlers and hooks.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// ParseLines parses JSON log lines, failing the test on one that is not JSON.
func ParseLines(t *testing.T, s string) []map[string]any {
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

// Get returns the exported metric name, checking its unit and that it has a
// description.
func Get(t *testing.T, ms map[string]metricdata.Metrics, name, unit string) metricdata.Metrics {
	t.Helper()
	m, ok := ms[name]
	if !ok {
		t.Fatalf("metric %s not exported; have %v", name, Keys(ms))
	}
	if m.Unit != unit {
		t.Errorf("%s unit = %q, want %q", name, m.Unit, unit)
	}
	if m.Description == "" {
		t.Errorf("%s has no description", name)
	}
	return m
}

// Keys lists the names of the exported metrics.
func Keys(ms map[string]metricdata.Metrics) []string {
	var out []string
	for k := range ms {
		out = append(out, k)
	}
	return out
}

// AttrString renders an attribute set as "k=v " pairs in key order: the key
// the point maps below use.
func AttrString(s attribute.Set) string {
	var b strings.Builder
	for _, kv := range s.ToSlice() {
		b.WriteString(string(kv.Key) + "=" + kv.Value.Emit() + " ")
	}
	return b.String()
}

// Sums returns a monotonic Int64 counter's points keyed by their attributes.
func Sums(t *testing.T, m metricdata.Metrics) map[string]int64 {
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
		out[AttrString(dp.Attributes)] = dp.Value
	}
	return out
}

// Hists returns a histogram's points keyed by their attributes.
func Hists(t *testing.T, m metricdata.Metrics) map[string]metricdata.HistogramDataPoint[float64] {
	t.Helper()
	h, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("%s is %T, want a float64 Histogram", m.Name, m.Data)
	}
	out := map[string]metricdata.HistogramDataPoint[float64]{}
	for _, dp := range h.DataPoints {
		out[AttrString(dp.Attributes)] = dp
	}
	return out
}

// Gauges returns an int64 gauge's points keyed by their attributes.
func Gauges(t *testing.T, m metricdata.Metrics) map[string]int64 {
	t.Helper()
	g, ok := m.Data.(metricdata.Gauge[int64])
	if !ok {
		t.Fatalf("%s is %T, want an int64 Gauge", m.Name, m.Data)
	}
	out := map[string]int64{}
	for _, dp := range g.DataPoints {
		out[AttrString(dp.Attributes)] = dp.Value
	}
	return out
}

// Attrs renders key/value pairs the way AttrString renders a set.
func Attrs(kv ...attribute.KeyValue) string { return AttrString(attribute.NewSet(kv...)) }

// WantPoints checks that a metric has exactly the wanted points.
func WantPoints[V comparable](t *testing.T, name string, got, want map[string]V) {
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

// SpanAttr returns a span attribute's value.
func SpanAttr(s sdktrace.ReadOnlySpan, key attribute.Key) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// SpansNamed returns the ended spans called name.
func SpansNamed(rec *tracetest.SpanRecorder, name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}
