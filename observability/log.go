// Package observability holds the server's logs, metrics and traces.
//
// Logs are JSON lines that Cloud Logging understands (see [NewLogger]); every
// message and string attribute passes through the redaction function the
// caller gives (the server passes bqerr.Redact) before it is written, a
// line written inside a trace span carries the span's trace and span IDs, and a failure inside logging never reaches the caller. Metrics
// and traces use OpenTelemetry (see [Setup]); which exporter they go to is
// chosen by the standard OTEL_* environment variables, and nothing is
// exported unless one is configured.
//
// The package is a leaf: it imports none of the project's packages, nor
// the MCP SDK. [Telemetry]'s methods take plain values (tool and operation
// names, counts, durations, and failures as [ErrorInfo]), redaction is a
// function passed in, and the server wiring assigns the methods to the
// resilience, query and cache hooks and calls them from its tool
// middleware.
package observability

import (
	"context"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"go.opentelemetry.io/otel/trace"
)

// LevelCritical is Cloud Logging's CRITICAL severity: failures an operator
// must act on (credentials, permissions).
const LevelCritical = slog.LevelError + 4

// Cloud Logging's special fields for correlating a log line with a trace.
const (
	TraceKey        = "logging.googleapis.com/trace"
	SpanIDKey       = "logging.googleapis.com/spanId"
	TraceSampledKey = "logging.googleapis.com/trace_sampled"
)

// LogOptions configures [NewLogger].
type LogOptions struct {
	// Level is the minimum level written; nil means INFO.
	Level slog.Leveler
	// ProjectID is the Google Cloud project named in the trace field
	// ("projects/<ProjectID>/traces/<trace id>"). Empty means the
	// GOOGLE_CLOUD_PROJECT environment variable; when that is empty too the
	// field holds the bare trace ID.
	ProjectID string
	// Redact removes secrets (tokens, keys, query strings) from a string;
	// every message and string attribute passes through it. It is
	// required: [NewLogger] panics without it, so a logger that would
	// write secrets cannot be built by mistake.
	Redact func(string) string
}

// NewLogger returns a JSON logger whose field names Cloud Logging
// understands: "severity" (DEBUG, INFO, WARNING, ERROR, CRITICAL) and
// "message". It must write to stderr: stdout is the MCP stdio stream.
//
// Every message and string attribute is redacted (see [RedactHandler]),
// lines logged with a context holding a span carry its trace (see
// [TraceHandler]), and a failure inside logging is recovered (see
// [SafeHandler]). It writes to w and nowhere else. A nil o.Redact is a
// programming error and panics, at startup, where it is built.
func NewLogger(w io.Writer, o LogOptions) *slog.Logger {
	return slog.New(newHandler(w, o))
}

// newHandler returns the handler behind [NewLogger]: Cloud Logging JSON,
// redacted, with trace correlation, recovering from its own failures.
func newHandler(w io.Writer, o LogOptions) slog.Handler {
	project := o.ProjectID
	if project == "" {
		project = os.Getenv("GOOGLE_CLOUD_PROJECT")
	}
	j := slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level:       o.Level,
		ReplaceAttr: cloudLoggingKeys,
	})
	return SafeHandler(TraceHandler(RedactHandler(j, o.Redact), project), w, o.Redact)
}

// cloudLoggingKeys renames the record's level and message to Cloud
// Logging's "severity" and "message". Only the record's own fields are
// renamed: they are top-level (no group) and the level is a slog.Level.
// Anything else called "level" (go-sdk logs `"level", "<string>"` when a
// client sets its log level) passes through as it is, whatever its type.
func cloudLoggingKeys(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.LevelKey:
		if a.Value.Kind() == slog.KindAny {
			if l, ok := a.Value.Any().(slog.Level); ok {
				return slog.String("severity", Severity(l))
			}
		}
	case slog.MessageKey:
		if a.Value.Kind() == slog.KindString {
			a.Key = "message"
		}
	}
	return a
}

// Severity maps a slog level to Cloud Logging's severity names.
func Severity(l slog.Level) string {
	switch {
	case l >= LevelCritical:
		return "CRITICAL"
	case l >= slog.LevelError:
		return "ERROR"
	case l >= slog.LevelWarn:
		return "WARNING"
	case l >= slog.LevelInfo:
		return "INFO"
	default:
		return "DEBUG"
	}
}

// ParseLevel reads debug, info, warn(ing) or error.
func ParseLevel(s string) (slog.Level, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, true
	case "info", "":
		return slog.LevelInfo, true
	case "warn", "warning":
		return slog.LevelWarn, true
	case "error":
		return slog.LevelError, true
	}
	return 0, false
}

// Discard is a logger that drops everything, for tests and libraries.
func Discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// ErrorInfo is what observability records about a failure, as plain
// values: the server wiring fills it from its own error type, so this
// package depends on none of the project's packages.
type ErrorInfo struct {
	// Code is the error class (QUERY_ERROR, PERMISSION_DENIED, …): the
	// error.type attribute and, by [LevelFor], the log severity.
	Code string
	// Retryable says whether the same request may succeed if sent again.
	Retryable bool
	// Message is the agent-visible message.
	Message string
	// Type names the kind of failure for grouping, the first part of the
	// log line's fingerprint ("*googleapi.Error", "validation", …).
	Type string
	// Reason is BigQuery's error reason and JobID the job involved, when
	// known.
	Reason, JobID string
	// Attempts is how many attempts were made and HTTPStatus BigQuery's
	// HTTP status, when known (0 otherwise).
	Attempts, HTTPStatus int
	// Cause is the raw cause's text, "" when there is none. It goes to
	// the log only (through the logger's redaction), never to the agent.
	Cause string
}

// Error is the failure as a span status: "<code>: <message>".
func (e *ErrorInfo) Error() string { return e.Code + ": " + e.Message }

// Error classes [LevelFor] treats specially; the others are WARNING.
const (
	codeUnauthenticated  = "UNAUTHENTICATED"
	codePermissionDenied = "PERMISSION_DENIED"
	codeAuthError        = "AUTH_ERROR"
	codeInternal         = "INTERNAL"
)

// LevelFor is the level a failed tool call is logged at, by error class
// (code): credentials and permissions are CRITICAL (an operator must act),
// INTERNAL is ERROR (a bug or a BigQuery fault), everything else (the
// caller's mistakes, and transient faults that retries and the breaker
// handle) is WARNING.
func LevelFor(code string) slog.Level {
	switch code {
	case codeUnauthenticated, codePermissionDenied, codeAuthError:
		return LevelCritical
	case codeInternal:
		return slog.LevelError
	}
	return slog.LevelWarn
}

// LogToolError logs a failed tool call at [LevelFor] its code, with the
// fields an operator needs to group and debug it: fingerprint
// ("<type>:<tool>:<code>"), code, retryable, reason, job_id, attempts,
// http_status and the raw cause. log must redact (a [NewLogger] logger
// does): the cause is written as given. extra attributes (a duration,
// say) are appended. A nil log or err writes nothing.
func LogToolError(ctx context.Context, log *slog.Logger, tool string, err *ErrorInfo, extra ...slog.Attr) {
	if log == nil || err == nil {
		return
	}
	level := LevelFor(err.Code)
	if !log.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 8+len(extra))
	attrs = append(attrs,
		slog.String("tool", tool),
		slog.String("code", err.Code),
		slog.Bool("retryable", err.Retryable),
		slog.String("fingerprint", err.Type+":"+tool+":"+err.Code),
	)
	if err.Reason != "" {
		attrs = append(attrs, slog.String("reason", err.Reason))
	}
	if err.JobID != "" {
		attrs = append(attrs, slog.String("job_id", err.JobID))
	}
	if err.Attempts > 0 {
		attrs = append(attrs, slog.Int("attempts", err.Attempts))
	}
	if err.HTTPStatus != 0 {
		attrs = append(attrs, slog.Int("http_status", err.HTTPStatus))
	}
	if err.Cause != "" {
		attrs = append(attrs, slog.String("cause", err.Cause))
	}
	attrs = append(attrs, extra...)
	log.LogAttrs(ctx, level, "tool call failed: "+err.Message, attrs...)
}

// TraceHandler wraps h so that a line logged with a context holding a valid
// span carries Cloud Logging's trace fields at the top level:
// logging.googleapis.com/trace ("projects/<projectID>/traces/<trace id>",
// or the bare trace ID when projectID is empty),
// logging.googleapis.com/spanId and logging.googleapis.com/trace_sampled.
//
// So that the fields stay at the top level even under Logger.WithGroup,
// TraceHandler opens groups itself rather than passing them to h.
func TraceHandler(h slog.Handler, projectID string) slog.Handler {
	return &traceHandler{inner: h, project: projectID}
}

type traceHandler struct {
	inner   slog.Handler // with the attributes bound before any group
	project string
	groups  []groupFrame // open groups, outermost first
}

type groupFrame struct {
	name  string
	attrs []slog.Attr
}

func (h *traceHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *traceHandler) WithAttrs(as []slog.Attr) slog.Handler {
	if len(as) == 0 {
		return h
	}
	if len(h.groups) == 0 {
		return &traceHandler{inner: h.inner.WithAttrs(as), project: h.project}
	}
	c := *h
	c.groups = slices.Clone(h.groups)
	last := &c.groups[len(c.groups)-1]
	last.attrs = append(slices.Clip(last.attrs), as...)
	return &c
}

func (h *traceHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.groups = append(slices.Clip(h.groups), groupFrame{name: name})
	return &c
}

func (h *traceHandler) Handle(ctx context.Context, r slog.Record) error {
	var extra []slog.Attr
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		tr := sc.TraceID().String()
		if h.project != "" {
			tr = "projects/" + h.project + "/traces/" + tr
		}
		extra = []slog.Attr{
			slog.String(TraceKey, tr),
			slog.String(SpanIDKey, sc.SpanID().String()),
			slog.Bool(TraceSampledKey, sc.IsSampled()),
		}
	}
	if len(h.groups) == 0 {
		if len(extra) > 0 {
			r = r.Clone()
			r.AddAttrs(extra...)
		}
		return h.inner.Handle(ctx, r)
	}
	nested := make([]slog.Attr, 0, r.NumAttrs())
	r.Attrs(func(a slog.Attr) bool {
		nested = append(nested, a)
		return true
	})
	for i := len(h.groups) - 1; i >= 0; i-- {
		g := h.groups[i]
		as := make([]slog.Attr, 0, len(g.attrs)+len(nested))
		as = append(append(as, g.attrs...), nested...)
		nested = []slog.Attr{{Key: g.name, Value: slog.GroupValue(as...)}}
	}
	nr := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	nr.AddAttrs(extra...)
	nr.AddAttrs(nested...)
	return h.inner.Handle(ctx, nr)
}
