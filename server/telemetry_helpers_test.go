package server

import (
	"context"
	"log/slog"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/observability/obstest"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/observability"
)

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
