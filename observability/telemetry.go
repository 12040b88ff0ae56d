package observability

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// DefaultServiceName is service.name unless Options or OTEL_SERVICE_NAME
// say otherwise.
const DefaultServiceName = "bigquery-mcp"

// ScopeName is the instrumentation scope of every metric and span.
const ScopeName = "github.com/bigquery-mcp/bigquery-mcp/observability"

// The environment variables that choose exporters (the OpenTelemetry
// standard ones). Unset means "none": nothing leaves the process unless an
// operator asked for it.
const (
	EnvMetricsExporter = "OTEL_METRICS_EXPORTER"
	EnvTracesExporter  = "OTEL_TRACES_EXPORTER"
	EnvSDKDisabled     = "OTEL_SDK_DISABLED"
)

// Options configures [Setup].
type Options struct {
	// ServiceName is service.name; empty means "bigquery-mcp".
	// OTEL_SERVICE_NAME (and service.name in OTEL_RESOURCE_ATTRIBUTES)
	// override it.
	ServiceName string
	// Version is service.version and the instrumentation scope's version.
	Version string
	// Stdio says stdout carries the MCP protocol: a "console" exporter then
	// writes to Stderr. Without it, "console" writes to stdout.
	Stdio bool
	// Stderr receives console exports in stdio mode; nil means os.Stderr.
	Stderr io.Writer
	// Logger receives failed tool calls, breaker changes and the
	// OpenTelemetry SDK's own errors (export failures); nil drops them. It
	// must redact (a [NewLogger] logger does).
	Logger *slog.Logger
	// Redact removes secrets from the text that goes into spans (error
	// statuses). It is required: [Setup] fails without it.
	Redact func(string) string

	// MeterProvider and TracerProvider, when set, replace the providers
	// Setup would build from the environment (tests use the SDK's
	// ManualReader and a SpanRecorder). Shutdown leaves them alone: their
	// owner shuts them down.
	MeterProvider  metric.MeterProvider
	TracerProvider trace.TracerProvider
}

// Telemetry is the server's metrics, traces and the cache figures of the
// health report. It knows nothing of the packages it watches: its methods
// take plain values (names, counts, durations, [ErrorInfo]), and the server
// wiring assigns them to each package's hooks, the way gobreaker.Settings
// takes OnStateChange. All methods are safe for concurrent use. A nil
// *Telemetry is not usable: use [Setup].
type Telemetry struct {
	tracer trace.Tracer
	log    *slog.Logger
	redact func(string) string
	mp     metric.MeterProvider
	tp     trace.TracerProvider

	inst instruments

	mu            sync.Mutex
	breakerStates func() map[string]string // see ObserveBreakers

	cache struct{ hits, misses, stale atomic.Int64 }

	shutdownOnce sync.Once
	shutdownErr  error
	shutdowns    []func(context.Context) error
	callback     metric.Registration
}

// Setup builds the telemetry. Exporters are chosen by OTEL_METRICS_EXPORTER
// and OTEL_TRACES_EXPORTER, each one of:
//
//   - "none" (also when unset, or when OTEL_SDK_DISABLED=true): nothing is
//     exported, and instruments cost next to nothing;
//   - "otlp": OTLP over http/protobuf, or grpc per OTEL_EXPORTER_OTLP_PROTOCOL
//     (or its _METRICS_/_TRACES_ variant), to OTEL_EXPORTER_OTLP_ENDPOINT
//     (standard OTLP variables apply);
//   - "console": JSON lines on stdout, or on Options.Stderr in stdio mode.
//
// Anything else is an error, and so is a nil o.Redact. Call Shutdown
// before exiting to flush.
func Setup(ctx context.Context, o Options) (*Telemetry, error) {
	if o.Redact == nil {
		return nil, errors.New("observability: Options.Redact is required: span statuses must be redacted")
	}
	if o.ServiceName == "" {
		o.ServiceName = DefaultServiceName
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	userLogger := o.Logger
	if o.Logger == nil {
		o.Logger = Discard()
	}
	t := &Telemetry{log: o.Logger, redact: o.Redact, mp: o.MeterProvider, tp: o.TracerProvider}
	fail := func(err error) (*Telemetry, error) {
		return nil, errors.Join(err, t.Shutdown(ctx))
	}
	if t.mp == nil || t.tp == nil {
		disabled := strings.EqualFold(strings.TrimSpace(os.Getenv(EnvSDKDisabled)), "true")
		console := io.Writer(os.Stdout)
		if o.Stdio {
			console = o.Stderr
		}
		metrics, traces := exporterName(EnvMetricsExporter, disabled), exporterName(EnvTracesExporter, disabled)
		// The resource is described only for an exporter: with telemetry
		// off (the default) start-up does none of the SDK's work.
		var res *resource.Resource
		if (t.mp == nil && metrics != "none") || (t.tp == nil && traces != "none") {
			var err error
			if res, err = newResource(ctx, o); err != nil {
				return fail(err)
			}
		}
		if t.mp == nil {
			reader, err := metricReader(ctx, metrics, console)
			if err != nil {
				return fail(err)
			}
			if reader == nil {
				t.mp = metricnoop.NewMeterProvider()
			} else {
				mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(reader))
				t.shutdowns = append(t.shutdowns, mp.Shutdown)
				t.mp = mp
			}
		}
		if t.tp == nil {
			exp, err := spanExporter(ctx, traces, console)
			if err != nil {
				return fail(err)
			}
			if exp == nil {
				t.tp = tracenoop.NewTracerProvider()
			} else {
				tp := sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithBatcher(exp))
				t.shutdowns = append(t.shutdowns, tp.Shutdown)
				t.tp = tp
			}
		}
		if len(t.shutdowns) > 0 && userLogger != nil {
			// The SDK reports export failures to a process-wide handler
			// that would otherwise print unstructured text to stderr.
			log := userLogger
			otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
				log.Warn("telemetry export failed", "error", err.Error())
			}))
		}
	}
	t.tracer = t.tp.Tracer(ScopeName, trace.WithInstrumentationVersion(o.Version))
	meter := t.mp.Meter(ScopeName, metric.WithInstrumentationVersion(o.Version))
	if err := t.inst.init(meter); err != nil {
		return fail(err)
	}
	reg, err := meter.RegisterCallback(t.observeBreakers, t.inst.breakerState)
	if err != nil {
		return fail(err)
	}
	t.callback = reg
	return t, nil
}

// Shutdown flushes and stops the exporters Setup built (not providers
// passed in Options). It is safe to call more than once.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	t.shutdownOnce.Do(func() {
		var errs []error
		// Traces first (they were added last), then metrics, whose final
		// collection still observes the breaker gauge; only then is its
		// callback dropped.
		for i := len(t.shutdowns) - 1; i >= 0; i-- {
			errs = append(errs, t.shutdowns[i](ctx))
		}
		if t.callback != nil {
			errs = append(errs, t.callback.Unregister())
		}
		t.shutdownErr = errors.Join(errs...)
	})
	return t.shutdownErr
}

// MeterProvider returns the provider the instruments were made with, for
// other instrumentation that should export alongside.
func (t *Telemetry) MeterProvider() metric.MeterProvider { return t.mp }

// TracerProvider returns the provider the spans are made with.
func (t *Telemetry) TracerProvider() trace.TracerProvider { return t.tp }

// exporterName reads an OTEL_*_EXPORTER variable: "none" when unset or
// when the SDK is disabled.
func exporterName(env string, disabled bool) string {
	if disabled {
		return "none"
	}
	// Taken verbatim, as the specification's values are lowercase: a
	// misspelt or listed value fails startup instead of running blind.
	v := os.Getenv(env)
	if v == "" {
		return "none"
	}
	return v
}

// newResource describes this process: service name and version, the SDK,
// and Cloud Run / Google Cloud attributes when their variables are set.
// OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME override what is detected.
func newResource(ctx context.Context, o Options) (*resource.Resource, error) {
	attrs := []attribute.KeyValue{semconv.ServiceName(o.ServiceName)}
	if o.Version != "" {
		attrs = append(attrs, semconv.ServiceVersion(o.Version))
	}
	attrs = append(attrs, gcpAttributes()...)
	return resource.New(ctx,
		resource.WithSchemaURL(semconv.SchemaURL),
		resource.WithAttributes(attrs...),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(), // last: the operator's word wins
	)
}

// gcpAttributes reads the variables Cloud Run sets (K_SERVICE, K_REVISION,
// K_CONFIGURATION) and GOOGLE_CLOUD_PROJECT.
func gcpAttributes() []attribute.KeyValue {
	var attrs []attribute.KeyValue
	service, revision, config := os.Getenv("K_SERVICE"), os.Getenv("K_REVISION"), os.Getenv("K_CONFIGURATION")
	project := os.Getenv("GOOGLE_CLOUD_PROJECT")
	if service != "" || revision != "" || config != "" {
		attrs = append(attrs, semconv.CloudProviderGCP, semconv.CloudPlatformGCPCloudRun)
		if service != "" {
			attrs = append(attrs, semconv.FaaSName(service))
		}
		if revision != "" {
			attrs = append(attrs, semconv.FaaSVersion(revision))
		}
	}
	if project != "" {
		if len(attrs) == 0 {
			attrs = append(attrs, semconv.CloudProviderGCP)
		}
		attrs = append(attrs, semconv.CloudAccountID(project))
	}
	return attrs
}
