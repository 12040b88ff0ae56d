package observability

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

const (
	secretToken = "ya29.a0AfH6SMBsecretsecretsecret"
	secretKey   = "AIzaSyA-secret-api-key-0123456789"
)

// toolCase is one scripted tool call.
type toolCase struct {
	fail        *ErrorInfo // what the handler fails with; nil succeeds
	code        string     // the code expected, "" for success
	retryable   bool
	severity    string
	errType     string // the root cause's type in the fingerprint
	jobID       string
	reason      string
	causeSubstr string
}

func toolCases() []toolCase {
	return []toolCase{
		{fail: nil},
		{fail: &ErrorInfo{Code: "INVALID_ARGUMENT", Message: "bad arguments", Type: "validation"},
			code: "INVALID_ARGUMENT", severity: "WARNING", errType: "validation"},
		{
			fail: &ErrorInfo{Code: "QUERY_ERROR", Message: "Syntax error at [1:1]", Type: "*googleapi.Error", JobID: "job_secretjob1",
				Cause: "googleapi: Error 400: Syntax error: https://bigquery.googleapis.com/bigquery/v2/projects/p/jobs?key=" + secretKey},
			code: "QUERY_ERROR", severity: "WARNING", errType: "*googleapi.Error", jobID: "job_secretjob1",
			causeSubstr: "https://bigquery.googleapis.com/bigquery/v2/projects/p/jobs",
		},
		{fail: &ErrorInfo{Code: "NOT_FOUND", Message: "Not found: Table p:d.secret_table", Type: "*googleapi.Error", Reason: "notFound", HTTPStatus: 404},
			code: "NOT_FOUND", severity: "WARNING", errType: "*googleapi.Error", reason: "notFound"},
		{fail: &ErrorInfo{Code: "SCHEMA_ERROR", Message: "value does not fit", Type: "validation"},
			code: "SCHEMA_ERROR", severity: "WARNING", errType: "validation"},
		{fail: &ErrorInfo{Code: "PERMISSION_DENIED", Message: "access denied", Type: "*errors.errorString", Cause: "denied: Authorization: Bearer " + secretToken},
			code: "PERMISSION_DENIED", severity: "CRITICAL", errType: "*errors.errorString", causeSubstr: "Authorization: [REDACTED]"},
		{fail: &ErrorInfo{Code: "UNAUTHENTICATED", Message: "bad credentials", Type: "*errors.errorString", Cause: fmt.Sprintf("token %s expired", secretToken)},
			code: "UNAUTHENTICATED", severity: "CRITICAL", errType: "*errors.errorString", causeSubstr: "token [REDACTED] expired"},
		{fail: &ErrorInfo{Code: "AUTH_ERROR", Message: "no credentials", Type: "*errors.errorString", Cause: "-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----"},
			code: "AUTH_ERROR", severity: "CRITICAL", errType: "*errors.errorString", causeSubstr: "[REDACTED PRIVATE KEY]"},
		{fail: &ErrorInfo{Code: "RESOURCE_EXHAUSTED", Message: "quota exceeded", Type: "validation"},
			code: "RESOURCE_EXHAUSTED", severity: "WARNING", errType: "validation"},
		{fail: &ErrorInfo{Code: "UNAVAILABLE", Message: "unreachable", Retryable: true, Type: "validation"},
			code: "UNAVAILABLE", retryable: true, severity: "WARNING", errType: "validation"},
		{fail: &ErrorInfo{Code: "DEADLINE_EXCEEDED", Message: "waiting: deadline exceeded", Retryable: true, Type: "context.DeadlineExceeded"},
			code: "DEADLINE_EXCEEDED", retryable: true, severity: "WARNING", errType: "context.DeadlineExceeded"},
		{fail: &ErrorInfo{Code: "INTERNAL", Message: "internal error in execute_sql", Retryable: true, Type: "validation"},
			code: "INTERNAL", retryable: true, severity: "ERROR", errType: "validation"},
	}
}

func TestToolCall(t *testing.T) {
	f := newFixture(t)
	cases := toolCases()
	for i, c := range cases {
		h := tracked(f.tel, "execute_sql", fmt.Sprintf("session-%d", i), func(ctx context.Context) (any, *ErrorInfo) {
			if !trace.SpanContextFromContext(ctx).IsValid() {
				t.Error("the handler's context holds no span")
			}
			if c.fail != nil {
				return nil, c.fail
			}
			return map[string]int{"rows": 1}, nil
		})
		out, fail := h(context.Background())
		if fail != c.fail {
			t.Errorf("middleware changed the failure: %v, want %v", fail, c.fail)
		}
		if c.fail == nil && out == nil {
			t.Error("middleware dropped the result")
		}
	}

	// Metrics.
	ms := f.metrics(t)
	base := []attribute.KeyValue{AttrMCPMethodName.String("tools/call"), AttrGenAIToolName.String("execute_sql")}
	wantCalls := map[string]int64{attrs(append(base, AttrOutcome.String("ok"))...): 1}
	wantErrors := map[string]int64{}
	for _, c := range cases[1:] {
		wantCalls[attrs(append(base, AttrOutcome.String("error"), AttrErrorType.String(c.code))...)] = 1
		wantErrors[attrs(AttrErrorType.String(c.code), AttrRetryable.Bool(c.retryable), AttrGenAIToolName.String("execute_sql"))] = 1
	}
	wantPoints(t, MetricToolCalls, sums(t, get(t, ms, MetricToolCalls, "{call}")), wantCalls)
	wantPoints(t, MetricErrors, sums(t, get(t, ms, MetricErrors, "{error}")), wantErrors)
	durations := hists(t, get(t, ms, MetricOperationDuration, "s"))
	counts := map[string]uint64{}
	for k, dp := range durations {
		counts[k] = dp.Count
		if dp.Sum < 0 || len(dp.Bounds) != len(operationBuckets) || dp.Bounds[0] != 0.01 {
			t.Errorf("%s{%s}: sum %v, bounds %v", MetricOperationDuration, k, dp.Sum, dp.Bounds)
		}
	}
	wantCounts := map[string]uint64{}
	for k, v := range wantCalls {
		wantCounts[k] = uint64(v)
	}
	wantPoints(t, MetricOperationDuration, counts, wantCounts)

	// Spans.
	spans := spansNamed(f.spans, "tools/call execute_sql")
	if len(spans) != len(cases) {
		t.Fatalf("%d tool spans, want %d", len(spans), len(cases))
	}
	for i, s := range spans {
		c := cases[i]
		if s.SpanKind() != trace.SpanKindServer {
			t.Errorf("span kind %v, want server", s.SpanKind())
		}
		if v, _ := spanAttr(s, AttrGenAIToolName); v.AsString() != "execute_sql" {
			t.Errorf("gen_ai.tool.name = %q", v.AsString())
		}
		if v, _ := spanAttr(s, AttrMCPMethodName); v.AsString() != "tools/call" {
			t.Errorf("mcp.method.name = %q", v.AsString())
		}
		if v, _ := spanAttr(s, AttrMCPSessionID); v.AsString() != fmt.Sprintf("session-%d", i) {
			t.Errorf("mcp.session.id = %q", v.AsString())
		}
		et, hasET := spanAttr(s, AttrErrorType)
		job, hasJob := spanAttr(s, AttrJobID)
		if c.code == "" {
			if s.Status().Code != codes.Unset || hasET || hasJob {
				t.Errorf("successful call's span: status %v, error.type %v, job %v", s.Status(), et.AsString(), job.AsString())
			}
			continue
		}
		if s.Status().Code != codes.Error || !strings.HasPrefix(s.Status().Description, c.code+": ") {
			t.Errorf("span status = %+v, want error %s", s.Status(), c.code)
		}
		if et.AsString() != c.code {
			t.Errorf("span error.type = %q, want %q", et.AsString(), c.code)
		}
		if hasJob != (c.jobID != "") || job.AsString() != c.jobID {
			t.Errorf("span bigquery.job_id = %q (set %v), want %q", job.AsString(), hasJob, c.jobID)
		}
		if c.reason != "" {
			if v, _ := spanAttr(s, AttrErrorReason); v.AsString() != c.reason {
				t.Errorf("span bigquery.error.reason = %q, want %q", v.AsString(), c.reason)
			}
		}
	}

	// Logs: one debug line for the success, one per failure at its severity.
	lines := f.logLines(t)
	if len(lines) != len(cases) {
		t.Fatalf("%d log lines, want %d:\n%s", len(lines), len(cases), f.logs.String())
	}
	if lines[0]["severity"] != "DEBUG" || lines[0]["message"] != "tool call" {
		t.Errorf("success line = %v", lines[0])
	}
	for i, c := range cases[1:] {
		l := lines[i+1]
		want := map[string]any{
			"severity": c.severity, "code": c.code, "retryable": c.retryable, "tool": "execute_sql",
			"fingerprint": c.errType + ":execute_sql:" + c.code,
		}
		for k, v := range want {
			if l[k] != v {
				t.Errorf("%s line: %s = %v, want %v", c.code, k, l[k], v)
			}
		}
		if !strings.HasPrefix(l["message"].(string), "tool call failed: ") {
			t.Errorf("%s line: message %q", c.code, l["message"])
		}
		if c.jobID != "" && l["job_id"] != c.jobID {
			t.Errorf("%s line: job_id = %v", c.code, l["job_id"])
		}
		if c.reason != "" && l["reason"] != c.reason {
			t.Errorf("%s line: reason = %v", c.code, l["reason"])
		}
		if c.causeSubstr != "" && !strings.Contains(fmt.Sprint(l["cause"]), c.causeSubstr) {
			t.Errorf("%s line: cause %q does not contain %q", c.code, l["cause"], c.causeSubstr)
		}
		if _, ok := l["duration_ms"]; !ok {
			t.Errorf("%s line has no duration_ms", c.code)
		}
		// Every line was written inside the tool span.
		tr, _ := l[TraceKey].(string)
		if !strings.HasPrefix(tr, "projects/test-project/traces/") || tr != "projects/test-project/traces/"+spans[i+1].SpanContext().TraceID().String() {
			t.Errorf("%s line: trace = %q, want span %s", c.code, tr, spans[i+1].SpanContext().TraceID())
		}
		if l[SpanIDKey] != spans[i+1].SpanContext().SpanID().String() {
			t.Errorf("%s line: spanId = %v", c.code, l[SpanIDKey])
		}
	}
	for _, secret := range []string{secretToken, secretKey, "MIIEvQ"} {
		if strings.Contains(f.logs.String(), secret) {
			t.Errorf("log contains secret %q:\n%s", secret, f.logs.String())
		}
	}

}

// The middleware's span is the parent of what the handler starts, and a
// remote parent in the context is honoured.
func TestToolSpanParenting(t *testing.T) {
	f := newFixture(t)
	parent := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: trace.FlagsSampled, Remote: true,
	})
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), parent)
	h := tracked(f.tel, "list_tables", "", func(ctx context.Context) (any, *ErrorInfo) {
		_, child := f.tel.tracer.Start(ctx, "child")
		child.End()
		return "ok", nil
	})
	if _, fail := h(ctx); fail != nil {
		t.Fatal(fail)
	}
	tool := spansNamed(f.spans, "tools/call list_tables")
	child := spansNamed(f.spans, "child")
	if len(tool) != 1 || len(child) != 1 {
		t.Fatalf("spans: %d tool, %d child", len(tool), len(child))
	}
	if tool[0].Parent().SpanID() != parent.SpanID() || tool[0].SpanContext().TraceID() != parent.TraceID() {
		t.Errorf("tool span parent = %v, want the remote parent", tool[0].Parent())
	}
	if child[0].Parent().SpanID() != tool[0].SpanContext().SpanID() {
		t.Error("the handler's span is not a child of the tool span")
	}
}

// tracked runs h the way the server's tool middleware does.
func tracked(tel *Telemetry, tool, session string, h func(context.Context) (any, *ErrorInfo)) func(context.Context) (any, *ErrorInfo) {
	return func(ctx context.Context) (any, *ErrorInfo) {
		ctx, finish := tel.StartToolCall(ctx, tool, session)
		out, fail := h(ctx)
		finish(fail)
		return out, fail
	}
}
