package observability

import (
	"context"
	"log/slog"
	"regexp"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/observability/obstest"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// fixture is a Telemetry wired to in-memory readers.
type fixture struct {
	tel    *Telemetry
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
	log := NewLogger(logs, LogOptions{Level: slog.LevelDebug, ProjectID: "test-project", Redact: testRedact})
	tel, err := Setup(context.Background(), Options{Version: "1.2.3", MeterProvider: mp, TracerProvider: tp, Logger: log, Redact: testRedact})
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
		if sm.Scope.Name != ScopeName {
			t.Errorf("scope = %q, want %q", sm.Scope.Name, ScopeName)
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

// The metric, span and log readers are shared with the server's tests.
type syncBuffer = obstest.SyncBuffer

var (
	parseLines = obstest.ParseLines
	get        = obstest.Get
	keys       = obstest.Keys
	attrString = obstest.AttrString
	sums       = obstest.Sums
	hists      = obstest.Hists
	gauges     = obstest.Gauges
	attrs      = obstest.Attrs
	spanAttr   = obstest.SpanAttr
	spansNamed = obstest.SpansNamed
)

func wantPoints[V comparable](t *testing.T, name string, got, want map[string]V) {
	t.Helper()
	obstest.WantPoints(t, name, got, want)
}

// attributeSets lists the attribute sets of every data point of m.
func attributeSets(m metricdata.Metrics) []attribute.Set {
	var out []attribute.Set
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		for _, dp := range d.DataPoints {
			out = append(out, dp.Attributes)
		}
	case metricdata.Gauge[int64]:
		for _, dp := range d.DataPoints {
			out = append(out, dp.Attributes)
		}
	case metricdata.Histogram[float64]:
		for _, dp := range d.DataPoints {
			out = append(out, dp.Attributes)
		}
	}
	return out
}

// testRedact stands in for the server's redactor (bqerr.Redact, tested in
// bqerr) with the same markers, for the secrets these tests feed in: it
// shows that every string reaches the redactor, whatever shape it travels
// in.
func testRedact(s string) string {
	for _, r := range testRedactions {
		s = r.re.ReplaceAllString(s, r.with)
	}
	return s
}

var testRedactions = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`(?s)-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----`), "[REDACTED PRIVATE KEY]"},
	{regexp.MustCompile(`(Authorization:\s*)[^"\n\\]+`), "${1}[REDACTED]"},
	{regexp.MustCompile(`(Bearer)\s+[^\s"\\]+`), "${1} [REDACTED]"},
	{regexp.MustCompile(`(password=)[^&\s"\\]+`), "${1}[REDACTED]"},
	{regexp.MustCompile(`\?[^\s"'\\]*`), ""},
	{regexp.MustCompile(`ya29\.[\w.-]+`), "[REDACTED]"},
}
