// Package observability holds the server's logs, metrics and traces.
//
// Logs are JSON lines that Cloud Logging understands (see [NewLogger]); every
// message and string attribute passes through [bqerr.Redact] before it is
// written, and a line written inside a trace span carries the span's trace
// and span IDs. Metrics and traces use OpenTelemetry (see [Setup]); which
// exporter they go to is chosen by the standard OTEL_* environment
// variables, and nothing is exported unless one is configured.
package observability

import (
	"context"
	"encoding"
	"encoding/json"
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

// LogOptions configures [NewLoggerWith].
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
// Every message and string attribute is redacted (see [RedactHandler]) and
// lines logged with a context holding a span carry its trace (see
// [TraceHandler]). It writes to w and nowhere else.
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return NewLoggerWith(w, LogOptions{Level: level})
}

// NewLoggerWith is [NewLogger] with options.
func NewLoggerWith(w io.Writer, o LogOptions) *slog.Logger {
	return slog.New(NewHandler(w, o))
}

// NewHandler returns the handler behind [NewLoggerWith]: Cloud Logging JSON,
// redacted, with trace correlation.
func NewHandler(w io.Writer, o LogOptions) slog.Handler {
	project := o.ProjectID
	if project == "" {
		project = os.Getenv("GOOGLE_CLOUD_PROJECT")
	}
	j := slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level: o.Level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) > 0 {
				return a
			}
			switch a.Key {
			case slog.LevelKey:
				return slog.String("severity", Severity(a.Value.Any().(slog.Level)))
			case slog.MessageKey:
				a.Key = "message"
			}
			return a
		},
	})
	return TraceHandler(RedactHandler(j), project)
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

// MaxLoggedSQL bounds how much SQL text [SQLAttr] logs.
const MaxLoggedSQL = 500

// sqlText is SQL on its way to the log: redacted and cut only if the line
// is written at all, and dropped by [RedactHandler] above debug level.
type sqlText string

func (s sqlText) LogValue() slog.Value {
	return slog.StringValue(bqerr.Truncate(bqerr.Redact(string(s)), MaxLoggedSQL))
}

// SQLAttr returns an "sql" attribute for a line logged at level. SQL is
// user data (literals may hold anything), so it is logged only at debug
// level: above that SQLAttr returns the empty attribute, which handlers
// ignore. The text is redacted and cut to [MaxLoggedSQL] characters.
//
// As a second line of defence, [RedactHandler] drops an SQLAttr from any
// record above debug level, and from attributes bound with Logger.With
// (their level is not known when they are bound).
func SQLAttr(sql string, level slog.Level) slog.Attr {
	if level > slog.LevelDebug {
		return slog.Attr{}
	}
	return slog.Any("sql", sqlText(sql))
}

// RedactHandler wraps h so that the message and every string in the
// attributes (nested groups, errors, Stringers, and the strings inside
// structs, maps and slices) pass through [bqerr.Redact] first: tokens, keys,
// query strings and private keys never reach the log.
func RedactHandler(h slog.Handler) slog.Handler {
	if r, ok := h.(*redactHandler); ok {
		return r
	}
	return &redactHandler{inner: h}
}

type redactHandler struct{ inner slog.Handler }

func (h *redactHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *redactHandler) Handle(ctx context.Context, r slog.Record) error {
	nr := slog.NewRecord(r.Time, r.Level, bqerr.Redact(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		if a, ok := redactAttr(a, r.Level); ok {
			nr.AddAttrs(a)
		}
		return true
	})
	return h.inner.Handle(ctx, nr)
}

func (h *redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	out := make([]slog.Attr, 0, len(as))
	for _, a := range as {
		// Bound attributes serve every level: an SQLAttr is dropped.
		if a, ok := redactAttr(a, slog.LevelInfo); ok {
			out = append(out, a)
		}
	}
	return &redactHandler{inner: h.inner.WithAttrs(out)}
}

func (h *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{inner: h.inner.WithGroup(name)}
}

// redactAttr returns a with its strings redacted, or false when it must be
// dropped (SQL above debug level).
func redactAttr(a slog.Attr, level slog.Level) (slog.Attr, bool) {
	if a.Value.Kind() == slog.KindLogValuer {
		if _, ok := a.Value.LogValuer().(sqlText); ok && level > slog.LevelDebug {
			return slog.Attr{}, false
		}
	}
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, bqerr.Redact(v.String())), true
	case slog.KindGroup:
		group := v.Group()
		out := make([]slog.Attr, 0, len(group))
		for _, g := range group {
			if g, ok := redactAttr(g, level); ok {
				out = append(out, g)
			}
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(out...)}, true
	case slog.KindAny:
		return slog.Attr{Key: a.Key, Value: redactAny(v.Any())}, true
	}
	return slog.Attr{Key: a.Key, Value: v}, true
}

// redactAny redacts a value of unknown type. Errors, Stringers and
// TextMarshalers become their (redacted) text; anything else takes a round
// trip through JSON, which is how the JSON handler would write it, so that
// every string inside can be redacted without changing the shape.
func redactAny(x any) slog.Value {
	switch t := x.(type) {
	case nil:
		return slog.AnyValue(nil)
	case error:
		return slog.StringValue(bqerr.Redact(t.Error()))
	case fmt.Stringer:
		return slog.StringValue(bqerr.Redact(t.String()))
	case encoding.TextMarshaler:
		b, err := t.MarshalText()
		if err != nil {
			return slog.StringValue("!ERROR: " + bqerr.Redact(err.Error()))
		}
		return slog.StringValue(bqerr.Redact(string(b)))
	case json.RawMessage:
		return redactJSON(t)
	case []byte:
		return slog.StringValue(bqerr.Redact(string(t)))
	case bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, uintptr, float32, float64:
		return slog.AnyValue(t)
	}
	b, err := json.Marshal(x)
	if err != nil {
		return slog.StringValue(bqerr.Redact(fmt.Sprintf("%+v", x)))
	}
	return redactJSON(b)
}

// redactJSON decodes JSON and redacts every string and object key in it.
func redactJSON(b []byte) slog.Value {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return slog.StringValue(bqerr.Redact(string(b)))
	}
	return slog.AnyValue(redactTree(v))
}

func redactTree(v any) any {
	switch t := v.(type) {
	case string:
		return bqerr.Redact(t)
	case []any:
		for i := range t {
			t[i] = redactTree(t[i])
		}
		return t
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[bqerr.Redact(k)] = redactTree(e)
		}
		return out
	}
	return v
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
