package observability

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// clearOTelEnv makes a test independent of the machine's OTEL_* settings.
func clearOTelEnv(t *testing.T) {
	for _, k := range []string{
		EnvMetricsExporter, EnvTracesExporter, EnvSDKDisabled, "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES",
		"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_TRACES_SAMPLER",
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
		envOTLPMetricsProtocol, envOTLPTracesProtocol,
		"K_SERVICE", "K_REVISION", "K_CONFIGURATION", "GOOGLE_CLOUD_PROJECT",
	} {
		t.Setenv(k, "")
	}
}

// exercise records something on every signal.
func exercise(t *testing.T, tel *Telemetry) {
	t.Helper()
	ctx := context.Background()
	_, _ = tracked(tel, "execute_sql", "", func(context.Context) (any, *ErrorInfo) { return "ok", nil })(ctx)
	_, _ = tracked(tel, "execute_sql", "", func(context.Context) (any, *ErrorInfo) {
		return nil, &ErrorInfo{Code: "NOT_FOUND", Message: "no such table", Type: "validation"}
	})(ctx)
	tel.CacheLookup(ctx, CacheHit, 0)
	tel.CacheLookup(ctx, CacheStale, time.Minute)
	tel.ObserveBreakers(func() map[string]string { return map[string]string{"proj-a": BreakerOpen} })
	tel.BreakerChanged(BreakerChange{Scope: "proj-a", Calls: "BigQuery project proj-a", From: BreakerClosed, To: BreakerOpen})
}

func TestSetupDefaultsToNone(t *testing.T) {
	clearOTelEnv(t)
	var stderr syncBuffer
	var tel *Telemetry
	stdout, realStderr := captureStd(t, func() {
		var err error
		tel, err = Setup(context.Background(), Options{Stdio: true, Stderr: &stderr, Redact: testRedact})
		if err != nil {
			t.Fatal(err)
		}
		exercise(t, tel)
		if err := tel.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
	if _, ok := tel.MeterProvider().(metricnoop.MeterProvider); !ok {
		t.Errorf("meter provider is %T, want noop", tel.MeterProvider())
	}
	if _, ok := tel.TracerProvider().(tracenoop.TracerProvider); !ok {
		t.Errorf("tracer provider is %T, want noop", tel.TracerProvider())
	}
	if stdout != "" || realStderr != "" || stderr.String() != "" {
		t.Errorf("something was exported: stdout %q, stderr %q, Stderr %q", stdout, realStderr, stderr.String())
	}
	// The health report's cache figures work without any exporter.
	if rate, stale := tel.CacheStats(); rate != 0.5 || stale != 1 {
		t.Errorf("CacheStats = %v, %d; want 0.5, 1", rate, stale)
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Errorf("second Shutdown: %v", err)
	}
}

// In stdio mode the console exporters write to Stderr, never stdout, and
// the resource describes the service and Cloud Run.
func TestSetupConsoleWritesToStderrInStdioMode(t *testing.T) {
	clearOTelEnv(t)
	t.Setenv(EnvMetricsExporter, "console")
	t.Setenv(EnvTracesExporter, "console")
	t.Setenv("K_SERVICE", "bq-mcp")
	t.Setenv("K_REVISION", "bq-mcp-00042-abc")
	t.Setenv("K_CONFIGURATION", "bq-mcp")
	t.Setenv("GOOGLE_CLOUD_PROJECT", "host-project")
	var stderr syncBuffer
	stdout, realStderr := captureStd(t, func() {
		tel, err := Setup(context.Background(), Options{Version: "0.3.0", Stdio: true, Stderr: &stderr, Redact: testRedact})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := tel.MeterProvider().(*sdkmetric.MeterProvider); !ok {
			t.Errorf("meter provider is %T", tel.MeterProvider())
		}
		if _, ok := tel.TracerProvider().(*sdktrace.TracerProvider); !ok {
			t.Errorf("tracer provider is %T", tel.TracerProvider())
		}
		exercise(t, tel)
		if err := tel.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
	if stdout != "" || realStderr != "" {
		t.Fatalf("wrote to the process's stdout %q / stderr %q", stdout, realStderr)
	}
	out := stderr.String()
	for _, want := range []string{
		`"Name":"tools/call execute_sql"`, `"bigquery_mcp.tool.calls"`, `"mcp.server.operation.duration"`,
		`"bigquery_mcp.breaker.state"`, `"service.name","Value":{"Type":"STRING","Value":"bigquery-mcp"}`,
		`"service.version","Value":{"Type":"STRING","Value":"0.3.0"}`, `"gcp_cloud_run"`, `"faas.name","Value":{"Type":"STRING","Value":"bq-mcp"}`,
		`"faas.version","Value":{"Type":"STRING","Value":"bq-mcp-00042-abc"}`, `"cloud.account.id","Value":{"Type":"STRING","Value":"host-project"}`,
		`"cloud.provider","Value":{"Type":"STRING","Value":"gcp"}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("console export lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("export:\n%s", out)
	}
}

func TestSetupRejectsUnknownExporters(t *testing.T) {
	for _, c := range []struct{ env, val string }{
		{EnvMetricsExporter, "zipkin"},
		{EnvTracesExporter, "prometheus"},
		// Prometheus is not built in: its packages cost every start (see
		// exporters.go); a collector can expose OTLP metrics to it.
		{EnvMetricsExporter, "prometheus"},
		{EnvMetricsExporter, "otlp,console"},
		{EnvMetricsExporter, "OTLP"},
	} {
		clearOTelEnv(t)
		t.Setenv(c.env, c.val)
		if _, err := Setup(context.Background(), Options{Redact: testRedact}); err == nil || !strings.Contains(err.Error(), c.env) {
			t.Errorf("%s=%s: err = %v", c.env, c.val, err)
		}
	}
}

func TestSetupSDKDisabled(t *testing.T) {
	clearOTelEnv(t)
	t.Setenv(EnvMetricsExporter, "console")
	t.Setenv(EnvTracesExporter, "console")
	t.Setenv(EnvSDKDisabled, "true")
	var stderr syncBuffer
	tel, err := Setup(context.Background(), Options{Stdio: true, Stderr: &stderr, Redact: testRedact})
	if err != nil {
		t.Fatal(err)
	}
	exercise(t, tel)
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if stderr.String() != "" {
		t.Errorf("exported with the SDK disabled: %s", stderr.String())
	}
}

// otlp defaults to http/protobuf, and Shutdown flushes both signals.
func TestSetupOTLPFlushesOnShutdown(t *testing.T) {
	clearOTelEnv(t)
	var mu sync.Mutex
	got := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		if len(b) > 0 {
			got[r.URL.Path]++
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	t.Setenv(EnvMetricsExporter, "otlp")
	t.Setenv(EnvTracesExporter, "otlp")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	tel, err := Setup(context.Background(), Options{Redact: testRedact})
	if err != nil {
		t.Fatal(err)
	}
	exercise(t, tel)
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got["/v1/metrics"] == 0 || got["/v1/traces"] == 0 {
		t.Errorf("OTLP requests: %v, want metrics and traces", got)
	}
}

// A signal's own protocol variable wins over the general one: here traces
// go over grpc and metrics over http/protobuf.
func TestSetupOTLPProtocolPerSignal(t *testing.T) {
	clearOTelEnv(t)
	var mu sync.Mutex
	httpPaths := map[string]int{}
	httpSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		httpPaths[r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer httpSrv.Close()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	traces := &grpcTraces{}
	grpcSrv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(grpcSrv, traces)
	go grpcSrv.Serve(lis)
	defer grpcSrv.Stop()

	t.Setenv(EnvMetricsExporter, "otlp")
	t.Setenv(EnvTracesExporter, "otlp")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv(envOTLPTracesProtocol, "grpc")
	t.Setenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", httpSrv.URL+"/v1/metrics")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://"+lis.Addr().String())
	tel, err := Setup(context.Background(), Options{Redact: testRedact})
	if err != nil {
		t.Fatal(err)
	}
	exercise(t, tel)
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if httpPaths["/v1/metrics"] == 0 || httpPaths["/v1/traces"] != 0 {
		t.Errorf("OTLP/HTTP requests: %v, want metrics only", httpPaths)
	}
	if traces.exports.Load() == 0 {
		t.Error("no spans reached the gRPC collector")
	}
}

// grpcTraces is an OTLP/gRPC trace collector that counts exports.
type grpcTraces struct {
	coltracepb.UnimplementedTraceServiceServer
	exports atomic.Int64
}

func (g *grpcTraces) Export(context.Context, *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	g.exports.Add(1)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

func TestSetupRejectsUnknownOTLPProtocols(t *testing.T) {
	for _, c := range []struct{ exporter, protoEnv, want string }{
		{EnvMetricsExporter, "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{EnvTracesExporter, "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{EnvMetricsExporter, envOTLPMetricsProtocol, envOTLPMetricsProtocol},
		{EnvTracesExporter, envOTLPTracesProtocol, envOTLPTracesProtocol},
	} {
		clearOTelEnv(t)
		t.Setenv(c.exporter, "otlp")
		t.Setenv(c.protoEnv, "http/json")
		_, err := Setup(context.Background(), Options{Redact: testRedact})
		if err == nil || !strings.Contains(err.Error(), c.exporter) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s=otlp, %s=http/json: err = %v", c.exporter, c.protoEnv, err)
		}
	}
}

func TestResource(t *testing.T) {
	clearOTelEnv(t)
	get := func(o Options) map[string]string {
		t.Helper()
		res, err := newResource(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, kv := range res.Attributes() {
			out[string(kv.Key)] = kv.Value.Emit()
		}
		return out
	}
	r := get(Options{ServiceName: DefaultServiceName})
	if r["service.name"] != "bigquery-mcp" || r["cloud.provider"] != "" || r["telemetry.sdk.language"] != "go" {
		t.Errorf("plain resource = %v", r)
	}
	t.Setenv("OTEL_SERVICE_NAME", "renamed")
	t.Setenv("GOOGLE_CLOUD_PROJECT", "host-project")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=staging")
	r = get(Options{ServiceName: "custom", Version: "1.0.0"})
	for k, v := range map[string]string{
		"service.name": "renamed", "service.version": "1.0.0", "cloud.provider": "gcp",
		"cloud.account.id": "host-project", "deployment.environment.name": "staging",
	} {
		if r[k] != v {
			t.Errorf("%s = %q, want %q", k, r[k], v)
		}
	}
	if _, ok := r["cloud.platform"]; ok {
		t.Error("cloud.platform set outside Cloud Run")
	}
}

// Redaction is required: Setup refuses to build telemetry without it, and
// the log handlers panic at construction, so no logger that would write
// secrets can exist.
func TestRedactRequired(t *testing.T) {
	if _, err := Setup(context.Background(), Options{}); err == nil || !strings.Contains(err.Error(), "Redact") {
		t.Errorf("Setup without Redact: err %v, want one naming Redact", err)
	}
	for name, build := range map[string]func(){
		"NewLogger":     func() { NewLogger(io.Discard, LogOptions{}) },
		"RedactHandler": func() { RedactHandler(slog.DiscardHandler, nil) },
		"SafeHandler":   func() { SafeHandler(slog.DiscardHandler, io.Discard, nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s without a redactor did not panic", name)
				}
			}()
			build()
		}()
	}
}
