package observability

import (
	"context"
	"fmt"
	"io"
	"os"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// The exporters are built here, from the documented set only, instead of by
// go.opentelemetry.io/contrib/exporters/autoexport: autoexport links every
// exporter it knows (Prometheus with its HTTP server and /proc reader, OTLP
// logs, metric producers), and their package initialisation cost every
// start of the server, telemetry on or off. Each exporter reads its own
// standard OTEL_EXPORTER_OTLP_* variables (endpoint, headers, timeout,
// TLS) when it is built, which happens only when OTEL_*_EXPORTER asks for it.

// The variables that choose the OTLP protocol; the signal's own one wins.
const (
	envOTLPProtocol        = "OTEL_EXPORTER_OTLP_PROTOCOL"
	envOTLPMetricsProtocol = "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"
	envOTLPTracesProtocol  = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
)

// The OTLP protocols; http/protobuf is the default, as the specification
// says.
const (
	protoHTTP = "http/protobuf"
	protoGRPC = "grpc"
)

// metricReader returns the reader for name, nil for "none".
func metricReader(ctx context.Context, name string, console io.Writer) (sdkmetric.Reader, error) {
	switch name {
	case "none":
		return nil, nil
	case "console":
		exp, err := stdoutmetric.New(stdoutmetric.WithWriter(console))
		if err != nil {
			return nil, err
		}
		return sdkmetric.NewPeriodicReader(exp), nil
	case "otlp":
		var exp sdkmetric.Exporter
		proto, err := otlpProtocol(envOTLPMetricsProtocol)
		if err == nil {
			if proto == protoGRPC {
				exp, err = otlpmetricgrpc.New(ctx)
			} else {
				exp, err = otlpmetrichttp.New(ctx)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s=otlp: %w", EnvMetricsExporter, err)
		}
		// The reader reads OTEL_METRIC_EXPORT_INTERVAL and _TIMEOUT.
		return sdkmetric.NewPeriodicReader(exp), nil
	}
	return nil, fmt.Errorf("%s=%q is not supported: use otlp, console or none", EnvMetricsExporter, name)
}

// spanExporter is metricReader for traces.
func spanExporter(ctx context.Context, name string, console io.Writer) (sdktrace.SpanExporter, error) {
	switch name {
	case "none":
		return nil, nil
	case "console":
		return stdouttrace.New(stdouttrace.WithWriter(console))
	case "otlp":
		var exp sdktrace.SpanExporter
		proto, err := otlpProtocol(envOTLPTracesProtocol)
		if err == nil {
			if proto == protoGRPC {
				exp, err = otlptracegrpc.New(ctx)
			} else {
				exp, err = otlptracehttp.New(ctx)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s=otlp: %w", EnvTracesExporter, err)
		}
		return exp, nil
	}
	return nil, fmt.Errorf("%s=%q is not supported: use otlp, console or none", EnvTracesExporter, name)
}

// otlpProtocol reads the signal's protocol variable, else the general one;
// unset means http/protobuf. Like the exporter variables, values are taken
// verbatim.
func otlpProtocol(signalEnv string) (string, error) {
	name, v := signalEnv, os.Getenv(signalEnv)
	if v == "" {
		name, v = envOTLPProtocol, os.Getenv(envOTLPProtocol)
	}
	switch v {
	case "", protoHTTP:
		return protoHTTP, nil
	case protoGRPC:
		return protoGRPC, nil
	}
	return "", fmt.Errorf("%s=%q is not supported: use http/protobuf or grpc", name, v)
}
