package observability

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/api/googleapi"
)

// The secrets every redaction test feeds in, and what must never come out.
const (
	pemBlock     = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAsecretkeymaterial\n-----END RSA PRIVATE KEY-----"
	bearerSecret = "xoxbearersecretvalue"
)

var leaks = []string{"ya29.", "SECRET", "MIIEpA", "secretkeymaterial", bearerSecret, "hunter2"}

func assertNoLeaks(t *testing.T, out string) {
	t.Helper()
	for _, s := range leaks {
		if strings.Contains(out, s) {
			t.Errorf("log output contains %q:\n%s", s, out)
		}
	}
}

type stringer struct{}

func (stringer) String() string { return "token=ya29.fromStringer" }

type payload struct {
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	List    []string          `json:"list"`
	N       int               `json:"n"`
}

func TestLogRedactsMessagesAndAttributes(t *testing.T) {
	var buf bytes.Buffer
	log := NewLogger(&buf, LogOptions{Level: slog.LevelDebug, Redact: testRedact})
	ctx := context.Background()

	log.Info("calling https://bigquery.googleapis.com/bigquery/v2/projects/p/jobs?key=SECRET with Bearer "+bearerSecret,
		"token", "ya29.a0secretaccesstoken",
		"url", "https://example.com/path?key=SECRET&alt=json",
		"path", "/bigquery/v2/projects/p/jobs?key=SECRET",
		"pem", pemBlock,
		"auth", "Authorization: Bearer "+bearerSecret,
		"err", errors.New("oauth2: refresh failed: access_token=ya29.inerror&password=hunter2"),
		"gerr", &googleapi.Error{Code: 401, Message: "Request had invalid authentication credentials: ya29.ingoogleapierror"},
		"stringer", stringer{},
		"struct", payload{URL: "https://x.example/?key=SECRET", Headers: map[string]string{"Authorization": "Bearer " + bearerSecret}, List: []string{"ya29.inslice"}, N: 7},
		"map", map[string]any{"private_key": pemBlock, "nested": map[string]any{"t": "ya29.nested"}},
		"raw", json.RawMessage(`{"access_token":"ya29.raw","n":1}`),
		"bytes", []byte("key: ya29.inbytes"),
		"urlval", &url.URL{Scheme: "https", Host: "h", Path: "/p", RawQuery: "key=SECRET"},
		slog.Group("grp", "inner", "Bearer "+bearerSecret, slog.Group("deeper", "x", "?key=SECRET")),
		"count", 42,
	)
	log.With("bound", "ya29.boundtoken").WithGroup("g").With("boundInGroup", "?key=SECRET").InfoContext(ctx, "grouped", "k", pemBlock)
	log.Warn("plain message stays", "table", "my_dataset.my_table", "n", 3)

	out := buf.String()
	assertNoLeaks(t, out)
	lines := parseLines(t, out)
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	l := lines[0]
	wants := map[string]any{
		"severity": "INFO",
		"message":  "calling https://bigquery.googleapis.com/bigquery/v2/projects/p/jobs with Bearer [REDACTED]",
		"url":      "https://example.com/path",
		"path":     "/bigquery/v2/projects/p/jobs",
		"pem":      "[REDACTED PRIVATE KEY]",
		"count":    float64(42),
		"urlval":   "https://h/p",
	}
	for k, v := range wants {
		if l[k] != v {
			t.Errorf("%s = %#v, want %#v", k, l[k], v)
		}
	}
	// Structured values keep their shape.
	st, ok := l["struct"].(map[string]any)
	if !ok || st["n"] != float64(7) || st["url"] != "https://x.example/" {
		t.Errorf("struct = %#v", l["struct"])
	}
	if raw, ok := l["raw"].(map[string]any); !ok || raw["n"] != float64(1) {
		t.Errorf("raw = %#v", l["raw"])
	}
	g := lines[1]
	if g["bound"] != "[REDACTED]" {
		t.Errorf("bound = %v", g["bound"])
	}
	if grp, ok := g["g"].(map[string]any); !ok || grp["k"] != "[REDACTED PRIVATE KEY]" || grp["boundInGroup"] != "" {
		t.Errorf("group g = %#v", g["g"])
	}
	if lines[2]["message"] != "plain message stays" || lines[2]["table"] != "my_dataset.my_table" || lines[2]["severity"] != "WARNING" {
		t.Errorf("ordinary line changed: %v", lines[2])
	}
}

// Severity by error class: credentials and permissions CRITICAL, INTERNAL
// ERROR, every other class WARNING. (That every bqerr code is covered is
// checked in server, which knows them.)
func TestSeverities(t *testing.T) {
	want := map[string]string{
		"UNAUTHENTICATED": "CRITICAL", "PERMISSION_DENIED": "CRITICAL", "AUTH_ERROR": "CRITICAL",
		"INTERNAL":         "ERROR",
		"INVALID_ARGUMENT": "WARNING", "NOT_FOUND": "WARNING", "QUERY_ERROR": "WARNING", "SCHEMA_ERROR": "WARNING",
		"UNAVAILABLE": "WARNING", "DEADLINE_EXCEEDED": "WARNING", "RESOURCE_EXHAUSTED": "WARNING",
	}
	for code := range want {
		var buf bytes.Buffer
		LogToolError(context.Background(), NewLogger(&buf, LogOptions{Level: slog.LevelInfo, Redact: testRedact}), "get_job", &ErrorInfo{Code: code, Message: "m"})
		lines := parseLines(t, buf.String())
		if len(lines) != 1 || lines[0]["severity"] != want[code] || Severity(LevelFor(code)) != want[code] {
			t.Errorf("%s logged as %v, want %s", code, lines, want[code])
		}
	}
	for l, s := range map[slog.Level]string{slog.LevelDebug: "DEBUG", slog.LevelInfo: "INFO", slog.LevelWarn: "WARNING", slog.LevelError: "ERROR", LevelCritical: "CRITICAL"} {
		if Severity(l) != s {
			t.Errorf("Severity(%v) = %s, want %s", l, Severity(l), s)
		}
	}
	// Below its level nothing is written, and nil inputs are harmless.
	var buf bytes.Buffer
	LogToolError(context.Background(), NewLogger(&buf, LogOptions{Level: LevelCritical, Redact: testRedact}), "t", &ErrorInfo{Code: "INTERNAL", Message: "m"})
	LogToolError(context.Background(), nil, "t", &ErrorInfo{Code: "INTERNAL", Message: "m"})
	LogToolError(context.Background(), NewLogger(&buf, LogOptions{Level: slog.LevelDebug, Redact: testRedact}), "t", nil)
	if buf.Len() != 0 {
		t.Errorf("wrote %q", buf.String())
	}
}

func TestLogToolErrorFields(t *testing.T) {
	var buf bytes.Buffer
	cause := &googleapi.Error{Code: 400, Message: "Syntax error at https://bigquery.googleapis.com/x?key=SECRET"}
	e := &ErrorInfo{Code: "QUERY_ERROR", Message: "Syntax error: Unexpected identifier", Type: "*googleapi.Error", JobID: "job_123",
		Reason: "invalidQuery", Attempts: 2, HTTPStatus: 400, Cause: fmt.Errorf("insert: %w", cause).Error()}
	LogToolError(context.Background(), NewLogger(&buf, LogOptions{Level: slog.LevelInfo, Redact: testRedact}), "execute_sql", e, slog.Int("duration_ms", 12))
	assertNoLeaks(t, buf.String())
	l := parseLines(t, buf.String())[0]
	for k, v := range map[string]any{
		"severity": "WARNING", "message": "tool call failed: Syntax error: Unexpected identifier",
		"tool": "execute_sql", "code": "QUERY_ERROR", "retryable": false, "reason": "invalidQuery",
		"job_id": "job_123", "attempts": float64(2), "http_status": float64(400), "duration_ms": float64(12),
		"fingerprint": "*googleapi.Error:execute_sql:QUERY_ERROR",
		"cause":       "insert: googleapi: Error 400: Syntax error at https://bigquery.googleapis.com/x",
	} {
		if l[k] != v {
			t.Errorf("%s = %#v, want %#v", k, l[k], v)
		}
	}
}

func TestTraceFields(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())
	ctx, span := tp.Tracer("t").Start(context.Background(), "op")
	defer span.End()
	sc := span.SpanContext()

	t.Setenv("GOOGLE_CLOUD_PROJECT", "env-project")
	for _, c := range []struct {
		name, project, want string
	}{
		{"option", "opt-project", "projects/opt-project/traces/" + sc.TraceID().String()},
		{"env", "", "projects/env-project/traces/" + sc.TraceID().String()},
	} {
		var buf bytes.Buffer
		log := NewLogger(&buf, LogOptions{ProjectID: c.project, Redact: testRedact})
		log.InfoContext(ctx, "in span")
		log.Info("no span")
		log.WithGroup("req").With("a", 1).WithGroup("inner").InfoContext(ctx, "grouped", "b", 2)
		lines := parseLines(t, buf.String())
		if lines[0][TraceKey] != c.want || lines[0][SpanIDKey] != sc.SpanID().String() || lines[0][TraceSampledKey] != true {
			t.Errorf("%s: trace fields = %v", c.name, lines[0])
		}
		if _, ok := lines[1][TraceKey]; ok {
			t.Errorf("%s: a line outside any span has a trace: %v", c.name, lines[1])
		}
		// Under groups the trace stays at the top level, where Cloud
		// Logging looks for it, and the attributes stay nested.
		g := lines[2]
		req, _ := g["req"].(map[string]any)
		inner, _ := req["inner"].(map[string]any)
		if g[TraceKey] != c.want || req["a"] != float64(1) || inner["b"] != float64(2) {
			t.Errorf("%s: grouped line = %v", c.name, g)
		}
	}

	t.Setenv("GOOGLE_CLOUD_PROJECT", "")
	var buf bytes.Buffer
	NewLogger(&buf, LogOptions{Redact: testRedact}).InfoContext(ctx, "no project")
	if l := parseLines(t, buf.String())[0]; l[TraceKey] != sc.TraceID().String() {
		t.Errorf("without a project the trace is %v, want the bare ID", l[TraceKey])
	}
}

// captureStd runs fn with os.Stdout and os.Stderr redirected to pipes and
// returns what was written to each.
func captureStd(t *testing.T, fn func()) (stdout, stderr string) {
	t.Helper()
	read := func(f **os.File) func() string {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		orig := *f
		*f = w
		done := make(chan string)
		go func() {
			b, _ := io.ReadAll(r)
			done <- string(b)
		}()
		return func() string {
			*f = orig
			w.Close()
			s := <-done
			r.Close()
			return s
		}
	}
	stopOut := read(&os.Stdout)
	stopErr := read(&os.Stderr)
	defer func() {
		stdout, stderr = stopOut(), stopErr()
	}()
	fn()
	return
}

// Logging, including through the telemetry's middleware and hooks, writes
// to the writer given and nowhere else: not stdout (the MCP stream in stdio
// mode), not stderr.
func TestLogWritesOnlyToItsWriter(t *testing.T) {
	var buf syncBuffer
	stdout, stderr := captureStd(t, func() {
		log := NewLogger(&buf, LogOptions{Level: slog.LevelDebug, Redact: testRedact})
		log.Info("hello", "k", "v")
		log.Log(context.Background(), LevelCritical, "critical")
		LogToolError(context.Background(), log, "t", &ErrorInfo{Code: "PERMISSION_DENIED", Message: "denied"})
		f := newFixture(t)
		f.tel.log = log
		_, _ = tracked(f.tel, "t", "", func(context.Context) (any, *ErrorInfo) {
			return nil, &ErrorInfo{Code: "INTERNAL", Message: "boom"}
		})(context.Background())
		f.tel.BreakerChanged(BreakerChange{Scope: "p", Calls: "BigQuery project p", From: BreakerClosed, To: BreakerOpen})
	})
	if stdout != "" || stderr != "" {
		t.Errorf("stdout %q, stderr %q: want nothing", stdout, stderr)
	}
	if n := len(parseLines(t, buf.String())); n != 5 {
		t.Errorf("%d lines in the writer, want 5:\n%s", n, buf.String())
	}
}

func TestParseLevel(t *testing.T) {
	for in, want := range map[string]slog.Level{"debug": slog.LevelDebug, "": slog.LevelInfo, " INFO ": slog.LevelInfo, "warning": slog.LevelWarn, "warn": slog.LevelWarn, "error": slog.LevelError} {
		if got, ok := ParseLevel(in); !ok || got != want {
			t.Errorf("ParseLevel(%q) = %v, %v", in, got, ok)
		}
	}
	if _, ok := ParseLevel("loud"); ok {
		t.Error("ParseLevel accepted loud")
	}
	Discard().Error("dropped")
}

// sdkLevel stands for go-sdk's mcp.LoggingLevel: a string type, which the
// SDK logs as "level" when a client sets its log level.
type sdkLevel string

type panicky struct{}

func (*panicky) String() string { panic("boom ya29.inpanic") }

type brokenErr struct{ p *payload }

func (e brokenErr) Error() string { return e.p.URL } // nil p: panics

// Any attribute type is accepted, whatever its key: only the record's own
// level becomes severity, and a value whose methods panic costs one field,
// not the process.
func TestLogAcceptsAnyAttribute(t *testing.T) {
	var buf bytes.Buffer
	log := NewLogger(&buf, LogOptions{Level: slog.LevelDebug, Redact: testRedact})
	log.Info("client log level set", "level", sdkLevel("debug"))
	log.Info("string level", "level", "warning", "msg", 3)
	log.Info("int level", slog.Int("level", 7), slog.Any("level2", slog.LevelWarn))
	log.Info("level value", slog.Any("level", slog.LevelError))
	log.WithGroup("g").Info("grouped", "level", 1.5)
	log.With("level", sdkLevel("bound")).Warn("bound")
	var nilStringer *panicky
	log.Info("panicking values", "s", nilStringer, "e", brokenErr{}, "ok", "fine")
	lines := parseLines(t, buf.String())
	if len(lines) != 7 {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	for i, want := range []map[string]any{
		{"severity": "INFO", "message": "client log level set", "level": "debug"},
		{"severity": "INFO", "level": "warning"},
		{"severity": "INFO", "level": float64(7), "level2": "WARN"},
		{"severity": "INFO"},
		{"severity": "INFO", "message": "grouped"},
		{"severity": "WARNING", "level": "bound"},
		{"severity": "INFO", "ok": "fine"},
	} {
		for k, v := range want {
			if lines[i][k] != v {
				t.Errorf("line %d: %s = %#v, want %#v (%v)", i, k, lines[i][k], v, lines[i])
			}
		}
	}
	if g, _ := lines[4]["g"].(map[string]any); g["level"] != 1.5 {
		t.Errorf("grouped level = %v", lines[4]["g"])
	}
	for _, k := range []string{"s", "e"} {
		if s, _ := lines[6][k].(string); !strings.HasPrefix(s, "!PANIC(") {
			t.Errorf("%s = %v, want a panic marker", k, lines[6][k])
		}
	}
	assertNoLeaks(t, buf.String())
}

type panicHandler struct{ slog.Handler }

func (panicHandler) Handle(context.Context, slog.Record) error {
	panic("handler broke: ya29.inhandler")
}
func (h panicHandler) WithAttrs([]slog.Attr) slog.Handler { panic("WithAttrs broke") }

// A handler that panics is recovered: the caller goes on, and the fallback
// writer gets one redacted line saying what was dropped.
func TestSafeHandlerRecovers(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(SafeHandler(panicHandler{slog.NewJSONHandler(io.Discard, nil)}, &buf, testRedact))
	log.Info("first ya29.inmessage")
	log.With("k", "v").Info("second")
	lines := parseLines(t, buf.String())
	if len(lines) != 3 {
		t.Fatalf("%d fallback lines:\n%s", len(lines), buf.String())
	}
	if lines[0]["severity"] != "ERROR" || !strings.Contains(lines[0]["message"].(string), "log handler panicked") ||
		lines[0]["dropped"] != "first [REDACTED]" {
		t.Errorf("fallback line = %v", lines[0])
	}
	assertNoLeaks(t, buf.String())
	// Without a fallback nothing is written and nothing panics.
	slog.New(SafeHandler(panicHandler{slog.NewJSONHandler(io.Discard, nil)}, nil, testRedact)).Error("x")
}

type tokenStringer struct{ tok string }

func (s tokenStringer) String() string { return "creds " + s.tok }

type tokenText struct{}

func (tokenText) MarshalText() ([]byte, error) { return []byte("Bearer " + bearerSecret), nil }

type tokenValuer struct{}

func (tokenValuer) LogValue() slog.Value {
	return slog.GroupValue(slog.String("inner", "ya29.fromvaluer"), slog.Any("err", errors.New("ya29.errinvaluer")))
}

// Every string reaches the log through the redactor, whatever shape it
// travels in: message, attribute, group, error (wrapped, joined, %q-quoted),
// Stringer and TextMarshaler (alone or inside maps and slices), struct
// fields via JSON, map keys, JSON text, bytes, LogValuer, bound attributes.
func TestLogRedactsEveryShape(t *testing.T) {
	const tok = "ya29.a0shapetoken"
	type inner struct {
		Note string `json:"note"`
	}
	type outer struct {
		Token string            `json:"token"`
		Inner inner             `json:"inner"`
		Ptr   *inner            `json:"ptr"`
		Tags  map[string]string `json:"tags"`
		List  []string          `json:"list"`
	}
	quoted := fmt.Errorf("bigquery: %q", "invalid credentials "+tok)
	shapes := []slog.Attr{
		slog.String("string", "token "+tok),
		slog.String("quoted", fmt.Sprintf("%q", "Authorization: Bearer "+bearerSecret)),
		slog.Any("error", errors.New("refresh failed: "+tok)),
		slog.Any("wrapped", fmt.Errorf("call: %w", errors.New(tok))),
		slog.Any("joined", errors.Join(errors.New("a"), errors.New(tok))),
		slog.Any("quotedError", quoted),
		slog.Any("doubleQuoted", fmt.Errorf("outer: %q", quoted.Error())),
		slog.Any("stringer", tokenStringer{tok}),
		slog.Any("text", tokenText{}),
		slog.Any("struct", outer{Token: tok, Inner: inner{Note: tok}, Ptr: &inner{Note: tok}, Tags: map[string]string{"t": tok}, List: []string{tok}}),
		slog.Any("structPtr", &outer{Token: tok}),
		slog.Any("map", map[string]any{"err": errors.New(tok), "s": tokenStringer{tok}, "deep": map[string]any{"list": []any{tok, errors.New(tok)}}}),
		slog.Any("mapKey", map[string]int{tok: 1}),
		slog.Any("errSlice", []error{errors.New(tok), nil}),
		slog.Any("stringers", []fmt.Stringer{tokenStringer{tok}}),
		slog.Any("raw", json.RawMessage(`{"access_token":"`+tok+`","list":["`+tok+`"]}`)),
		slog.Any("bytes", []byte("token="+tok)),
		slog.Any("valuer", tokenValuer{}),
		slog.Group("group", slog.String("a", tok), slog.Group("g2", slog.Any("e", errors.New(tok)))),
	}
	var buf bytes.Buffer
	log := NewLogger(&buf, LogOptions{Level: slog.LevelDebug, Redact: testRedact})
	log.With("bound", tok).WithGroup("req").LogAttrs(context.Background(), slog.LevelInfo, "message "+tok, shapes...)
	out := buf.String()
	assertNoLeaks(t, out)
	if strings.Contains(out, "shapetoken") {
		t.Errorf("token leaked:\n%s", out)
	}
	lines := parseLines(t, out)
	if len(lines) != 1 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	req, _ := lines[0]["req"].(map[string]any)
	for _, a := range shapes {
		if _, ok := req[a.Key]; !ok {
			t.Errorf("shape %s missing from the line:\n%s", a.Key, out)
		}
	}
	// Errors and Stringers inside maps keep their text, redacted.
	if m, _ := req["map"].(map[string]any); m["err"] != "[REDACTED]" || m["s"] != "creds [REDACTED]" {
		t.Errorf("map = %v", req["map"])
	}
}
