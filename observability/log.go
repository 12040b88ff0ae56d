// Package observability holds the server's logs, metrics and traces.
//
// Logs are JSON lines that Cloud Logging understands (see [NewLogger]); every
// message and string attribute passes through [bqerr.Redact] before it is
// written, a line written inside a trace span carries the span's trace and
// span IDs, and a failure inside logging never reaches the caller. Metrics
// and traces use OpenTelemetry (see [Setup]); which exporter they go to is
// chosen by the standard OTEL_* environment variables, and nothing is
// exported unless one is configured.
//
// The package is a leaf: it imports none of the packages it watches, nor
// the MCP SDK. [Telemetry]'s methods take plain values (tool and operation
// names, counts, durations, errors), and the server wiring assigns them to
// the resilience, query and cache hooks and calls them from its tool
// middleware.
package observability

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
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
}

// NewLogger returns a JSON logger whose field names Cloud Logging
// understands: "severity" (DEBUG, INFO, WARNING, ERROR, CRITICAL) and
// "message". It must write to stderr: stdout is the MCP stdio stream.
//
// Every message and string attribute is redacted (see [RedactHandler]),
// lines logged with a context holding a span carry its trace (see
// [TraceHandler]), and a failure inside logging is recovered (see
// [SafeHandler]). It writes to w and nowhere else.
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
	return SafeHandler(TraceHandler(RedactHandler(j), project), w)
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

// LevelFor is the level a failed tool call is logged at, by error class:
// credentials and permissions are CRITICAL (an operator must act), INTERNAL
// is ERROR (a bug or a BigQuery fault), everything else (the caller's
// mistakes, and transient faults that retries and the breaker handle) is
// WARNING.
func LevelFor(c bqerr.Code) slog.Level {
	switch c {
	case bqerr.Unauthenticated, bqerr.PermissionDenied, bqerr.AuthError:
		return LevelCritical
	case bqerr.Internal:
		return slog.LevelError
	}
	return slog.LevelWarn
}

// LogToolError logs a failed tool call at [LevelFor] its code, with the
// fields an operator needs to group and debug it: fingerprint
// ("<errorType>:<tool>:<code>", errorType being the Go type of the root
// cause or "validation" when the server itself refused the call), code,
// retryable, reason, job_id, and the raw cause, redacted. extra attributes
// (a duration, say) are appended.
func LogToolError(ctx context.Context, log *slog.Logger, tool string, err *bqerr.Error, extra ...slog.Attr) {
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
		slog.String("code", string(err.Code)),
		slog.Bool("retryable", err.Retryable),
		slog.String("fingerprint", ErrorType(err)+":"+tool+":"+string(err.Code)),
	)
	if err.Details.Reason != "" {
		attrs = append(attrs, slog.String("reason", err.Details.Reason))
	}
	if err.Details.JobID != "" {
		attrs = append(attrs, slog.String("job_id", err.Details.JobID))
	}
	if err.Details.Attempts > 0 {
		attrs = append(attrs, slog.Int("attempts", err.Details.Attempts))
	}
	if err.HTTPStatus != 0 {
		attrs = append(attrs, slog.Int("http_status", err.HTTPStatus))
	}
	if c := err.Cause(); c != nil {
		attrs = append(attrs, slog.String("cause", bqerr.Redact(c.Error())))
	}
	attrs = append(attrs, extra...)
	log.LogAttrs(ctx, level, "tool call failed: "+err.Message, attrs...)
}

// ErrorType names the kind of failure behind err for grouping: the Go type
// of the root cause (following Unwrap, the first branch of a joined error)
// such as "*googleapi.Error", "context.Canceled" or
// "context.DeadlineExceeded" for the context errors, and "validation" for
// a *bqerr.Error with no cause (the server refused the call itself).
func ErrorType(err error) string {
	if err == nil {
		return ""
	}
	switch {
	case errors.Is(err, context.Canceled):
		return "context.Canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "context.DeadlineExceeded"
	}
	root := err
	for range 100 { // bounded: a cyclic Unwrap cannot hang the logger
		var next error
		switch u := root.(type) {
		case interface{ Unwrap() error }:
			next = u.Unwrap()
		case interface{ Unwrap() []error }:
			if es := u.Unwrap(); len(es) > 0 {
				next = es[0]
			}
		}
		if next == nil {
			break
		}
		root = next
	}
	if _, ok := root.(*bqerr.Error); ok {
		return "validation"
	}
	return fmt.Sprintf("%T", root)
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
