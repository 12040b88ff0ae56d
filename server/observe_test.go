package server

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/codes"
	"golang.org/x/oauth2"
	"google.golang.org/api/googleapi"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/observability"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// These tests run the wiring of observe.go through the real executor and
// cache: what each package reports reaches telemetry as the right metric,
// span and log line.

// breakerOpenFor is how long a test breaker stays open. The breaker's
// clock is failsafe-go's own, which a caller cannot replace; the tests that
// wait it out run in a synctest bubble, where time.Sleep advances a fake
// clock that the breaker reads too.
const breakerOpenFor = 500 * time.Millisecond

func testExecutor(t *testing.T, hooks resilience.Hooks) *resilience.Executor {
	t.Helper()
	p := resilience.Policy{Attempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, Multiplier: 2}
	e, err := resilience.NewExecutor(resilience.Config{
		Retry: map[resilience.Operation]resilience.Policy{
			resilience.Query: p, resilience.Metadata: p, resilience.Write: p, resilience.Auth: p,
		},
		Breaker:       resilience.Breaker{Failures: 1, Open: breakerOpenFor, Successes: 1},
		MaxRetryAfter: time.Second,
	}, hooks)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func unavailable() error {
	return &googleapi.Error{Code: 503, Message: "backend error", Errors: []googleapi.ErrorItem{{Reason: "backendError"}}}
}

// Scripted through the real executor: an operation that fails twice and
// then succeeds, one that exhausts its attempts and opens the breaker, a
// call the open breaker rejects, and a probe that closes it again.
func TestResilienceHooks(t *testing.T) { synctest.Test(t, testResilienceHooks) }

func testResilienceHooks(t *testing.T) {
	f := newFixture(t)
	exec := testExecutor(t, resilienceHooks(f.tel, &clientLog{}))
	f.tel.ObserveBreakers(breakerStates(exec))
	mw := Observe(f.tel)

	// 1. fail, fail, ok (metadata) inside a tool call.
	calls := 0
	listTables := mw("list_tables", func(ctx context.Context, _ *mcp.CallToolRequest) (any, error) {
		return nil, exec.Do(ctx, resilience.Metadata, "proj-a", func(context.Context) error {
			calls++
			if calls < 3 {
				return unavailable()
			}
			return nil
		})
	})
	if _, err := listTables(context.Background(), nil); err != nil {
		t.Fatalf("fail/fail/ok: %v", err)
	}

	// 2. fail x3 (query): exhausted, breaker closed -> open.
	executeSQL := mw("execute_sql", func(ctx context.Context, _ *mcp.CallToolRequest) (any, error) {
		return nil, exec.Do(ctx, resilience.Query, "proj-a", func(context.Context) error { return unavailable() })
	})
	_, err := executeSQL(context.Background(), nil)
	if e, ok := bqerr.As(err); !ok || e.Code != bqerr.Unavailable || e.Details.Attempts != 3 {
		t.Fatalf("exhausted call returned %v", err)
	}
	ms := f.metrics(t)
	wantPoints(t, observability.MetricBreakerState, gauges(t, get(t, ms, observability.MetricBreakerState, "{state}")), map[string]int64{attrs(observability.AttrScope.String("proj-a")): 2})
	if st := exec.BreakerStates(); st["proj-a"] != resilience.Open {
		t.Errorf("executor breakers = %v, want proj-a open", st)
	}

	// 3. rejected while open.
	_, err = executeSQL(context.Background(), nil)
	if !resilience.IsBreakerOpen(err) {
		t.Fatalf("call while open returned %v", err)
	}

	// 4. after the open duration (on the bubble's clock) a probe succeeds:
	// open -> half-open -> closed.
	time.Sleep(breakerOpenFor)
	if err := exec.Do(context.Background(), resilience.Metadata, "proj-a", func(context.Context) error { return nil }); err != nil {
		t.Fatalf("probe: %v", err)
	}

	ms = f.metrics(t)
	md, q := observability.AttrOperation.String("metadata"), observability.AttrOperation.String("query")
	wantPoints(t, observability.MetricRetryAttempts, sums(t, get(t, ms, observability.MetricRetryAttempts, "{attempt}")), map[string]int64{
		attrs(md, observability.AttrAttemptOutcome.String("retryable_error"), observability.AttrRetry.Bool(false)): 1,
		attrs(md, observability.AttrAttemptOutcome.String("retryable_error"), observability.AttrRetry.Bool(true)):  1,
		attrs(md, observability.AttrAttemptOutcome.String("ok"), observability.AttrRetry.Bool(true)):               1,
		attrs(md, observability.AttrAttemptOutcome.String("ok"), observability.AttrRetry.Bool(false)):              1, // the probe
		attrs(q, observability.AttrAttemptOutcome.String("retryable_error"), observability.AttrRetry.Bool(false)):  1,
		attrs(q, observability.AttrAttemptOutcome.String("retryable_error"), observability.AttrRetry.Bool(true)):   2,
	})
	unav := observability.AttrErrorType.String("UNAVAILABLE")
	wantPoints(t, observability.MetricRetryExhausted, sums(t, get(t, ms, observability.MetricRetryExhausted, "{operation}")), map[string]int64{attrs(q, unav): 1})
	wantPoints(t, observability.MetricErrors, sums(t, get(t, ms, observability.MetricErrors, "{error}")), map[string]int64{
		attrs(unav, observability.AttrRetryable.Bool(true), md): 2,
		attrs(unav, observability.AttrRetryable.Bool(true), q):  3,
		// The tool calls: the exhausted one and the rejected one.
		attrs(unav, observability.AttrRetryable.Bool(true), observability.AttrGenAIToolName.String("execute_sql")): 2,
	})
	wantPoints(t, observability.MetricBreakerTransitions, sums(t, get(t, ms, observability.MetricBreakerTransitions, "{transition}")), map[string]int64{
		attrs(observability.AttrFrom.String("closed"), observability.AttrTo.String("open")):      1,
		attrs(observability.AttrFrom.String("open"), observability.AttrTo.String("half-open")):   1,
		attrs(observability.AttrFrom.String("half-open"), observability.AttrTo.String("closed")): 1,
	})
	wantPoints(t, observability.MetricBreakerRejected, sums(t, get(t, ms, observability.MetricBreakerRejected, "{call}")), map[string]int64{attrs(q): 1})
	wantPoints(t, observability.MetricBreakerState, gauges(t, get(t, ms, observability.MetricBreakerState, "{state}")), map[string]int64{attrs(observability.AttrScope.String("proj-a")): 0})

	// Spans: one per attempt, children of the tool span, numbered.
	tools := spansNamed(f.spans, "tools/call list_tables")
	mdAttempts := spansNamed(f.spans, "bigquery.attempt metadata")
	qAttempts := spansNamed(f.spans, "bigquery.attempt query")
	sql := spansNamed(f.spans, "tools/call execute_sql")
	if len(tools) != 1 || len(mdAttempts) != 4 || len(qAttempts) != 3 || len(sql) != 2 {
		t.Fatalf("spans: %d list_tables, %d metadata attempts, %d query attempts, %d execute_sql", len(tools), len(mdAttempts), len(qAttempts), len(sql))
	}
	for i, s := range mdAttempts[:3] {
		if s.Parent().SpanID() != tools[0].SpanContext().SpanID() {
			t.Errorf("metadata attempt %d is not a child of the tool span", i+1)
		}
		if v, _ := spanAttr(s, observability.AttrAttempt); v.AsInt64() != int64(i+1) {
			t.Errorf("attempt attribute = %d, want %d", v.AsInt64(), i+1)
		}
		if v, _ := spanAttr(s, observability.AttrOperation); v.AsString() != "metadata" {
			t.Errorf("operation attribute = %q", v.AsString())
		}
		wantErr := i < 2
		et, _ := spanAttr(s, observability.AttrErrorType)
		if (s.Status().Code == codes.Error) != wantErr || (et.AsString() == "UNAVAILABLE") != wantErr {
			t.Errorf("attempt %d: status %v, error.type %q", i+1, s.Status(), et.AsString())
		}
	}
	for _, s := range qAttempts {
		if s.Parent().SpanID() != sql[0].SpanContext().SpanID() {
			t.Error("query attempt is not a child of the execute_sql span")
		}
	}
	var exhaustedEvent bool
	for _, ev := range sql[0].Events() {
		exhaustedEvent = exhaustedEvent || ev.Name == "retry.exhausted"
	}
	var rejectedEvent bool
	for _, ev := range sql[1].Events() {
		rejectedEvent = rejectedEvent || ev.Name == "breaker.rejected"
	}
	if !exhaustedEvent || !rejectedEvent {
		t.Errorf("events: exhausted %v, rejected %v", exhaustedEvent, rejectedEvent)
	}

	// Logs: a WARNING when the breaker opens and half-opens, INFO when it
	// closes.
	var breakerLines []map[string]any
	for _, l := range f.logLines(t) {
		if strings.HasPrefix(l["message"].(string), "circuit breaker") {
			breakerLines = append(breakerLines, l)
		}
	}
	want := []struct{ sev, from, to string }{{"WARNING", "closed", "open"}, {"WARNING", "open", "half-open"}, {"INFO", "half-open", "closed"}}
	if len(breakerLines) != len(want) {
		t.Fatalf("breaker log lines: %v", breakerLines)
	}
	for i, w := range want {
		l := breakerLines[i]
		if l["severity"] != w.sev || l["from"] != w.from || l["to"] != w.to || l["scope"] != "proj-a" ||
			l["message"] != "circuit breaker "+w.to+" for BigQuery project proj-a" {
			t.Errorf("breaker line %d = %v, want %+v", i, l, w)
		}
	}

	if st := exec.BreakerStates(); st["proj-a"] != resilience.Closed {
		t.Errorf("executor breakers = %v, want proj-a closed", st)
	}
}

type failingTokens struct{}

func (failingTokens) Token() (*oauth2.Token, error) { return nil, unavailable() }

// A breaker that token fetches opened is the credentials' breaker in every
// word the server says about it: the log line, and the refusal an agent
// reads, under the one scope the metrics carry.
func TestCredentialsBreakerSaysCredentials(t *testing.T) {
	f := newFixture(t)
	exec := testExecutor(t, resilienceHooks(f.tel, &clientLog{}))
	ts := exec.TokenSource(failingTokens{})
	if _, err := ts.Token(); err == nil {
		t.Fatal("Token succeeded from a failing source")
	}
	_, err := ts.Token()
	if !resilience.IsBreakerOpen(err) {
		t.Fatalf("second Token = %v, want the open breaker's refusal", err)
	}
	if msg := bqerr.From(err).Message; !strings.Contains(msg, "fetching BigQuery credentials") || strings.Contains(msg, "project") {
		t.Errorf("the agent reads %q", msg)
	}
	var opened bool
	for _, l := range f.logLines(t) {
		if l["message"] == "circuit breaker open for fetching BigQuery credentials" && l["scope"] == resilience.CredentialsScope {
			opened = true
		}
		if m, _ := l["message"].(string); strings.Contains(m, "project "+resilience.CredentialsScope) {
			t.Errorf("log line names a project %q: %v", resilience.CredentialsScope, l)
		}
	}
	if !opened {
		t.Errorf("no log line says the credentials' breaker opened: %v", f.logLines(t))
	}
}

// observability imports nothing of ours, so it spells resilience's breaker
// states and cache results as plain strings; the wiring passes
// string(state) along. The two spellings must agree, or the gauge reads
// every state as closed and log lines say nothing true.
func TestObservabilitySpellsResilienceStates(t *testing.T) {
	for state, want := range map[resilience.BreakerState]struct {
		name  string
		gauge int64
	}{
		resilience.Closed:   {observability.BreakerClosed, 0},
		resilience.HalfOpen: {observability.BreakerHalfOpen, 1},
		resilience.Open:     {observability.BreakerOpen, 2},
	} {
		if string(state) != want.name {
			t.Errorf("resilience says %q, observability %q", state, want.name)
		}
		if got := observability.BreakerStateValue(string(state)); got != want.gauge {
			t.Errorf("gauge value of %q = %d, want %d", state, got, want.gauge)
		}
	}
	for result, want := range map[resilience.CacheResult]string{
		resilience.CacheHit:   observability.CacheHit,
		resilience.CacheMiss:  observability.CacheMiss,
		resilience.CacheStale: observability.CacheStale,
	} {
		if string(result) != want {
			t.Errorf("resilience says %q, observability %q", result, want)
		}
	}
}

// A non-retryable failure is one attempt with outcome "error".
func TestAttemptOutcomeError(t *testing.T) {
	f := newFixture(t)
	exec := testExecutor(t, resilienceHooks(f.tel, &clientLog{}))
	err := exec.Do(context.Background(), resilience.Metadata, "proj-b", func(context.Context) error {
		return &googleapi.Error{Code: 404, Errors: []googleapi.ErrorItem{{Reason: "notFound"}}}
	})
	if err == nil {
		t.Fatal("want an error")
	}
	ms := f.metrics(t)
	md := observability.AttrOperation.String("metadata")
	wantPoints(t, observability.MetricRetryAttempts, sums(t, get(t, ms, observability.MetricRetryAttempts, "{attempt}")), map[string]int64{
		attrs(md, observability.AttrAttemptOutcome.String("error"), observability.AttrRetry.Bool(false)): 1,
	})
	wantPoints(t, observability.MetricErrors, sums(t, get(t, ms, observability.MetricErrors, "{error}")), map[string]int64{
		attrs(observability.AttrErrorType.String("NOT_FOUND"), observability.AttrRetryable.Bool(false), md): 1,
	})
	if _, ok := ms[observability.MetricRetryExhausted]; ok {
		t.Error("a permanent failure counted as exhausted")
	}
}

func TestCacheLookup(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	lookup := cacheLookup(f.tel)
	lookup(ctx, resilience.CacheMiss, 0)
	lookup(ctx, resilience.CacheHit, 0)
	lookup(ctx, resilience.CacheHit, 0)
	lookup(ctx, resilience.CacheHit, 0)
	lookup(ctx, resilience.CacheStale, 90*time.Second)
	lookup(ctx, resilience.CacheStale, 30*time.Minute)

	// And through the real cache: a miss, then a stale serve when the
	// refresh fails for a transient reason.
	now := time.Now()
	cache := resilience.NewCache(resilience.CacheConfig{TTL: time.Minute, MaxStale: time.Hour, Lookup: lookup, Now: func() time.Time { return now }})
	if _, _, err := cache.Get(ctx, "k", func(context.Context) (any, error) { return "v", nil }); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute)
	v, fr, err := cache.Get(ctx, "k", func(context.Context) (any, error) { return nil, bqerr.New(bqerr.Unavailable, "down") })
	if err != nil || v != "v" || !fr.Stale {
		t.Fatalf("stale serve: %v %+v %v", v, fr, err)
	}

	ms := f.metrics(t)
	wantPoints(t, observability.MetricCacheLookups, sums(t, get(t, ms, observability.MetricCacheLookups, "{lookup}")), map[string]int64{
		attrs(observability.AttrCacheResult.String("hit")):   3,
		attrs(observability.AttrCacheResult.String("miss")):  2,
		attrs(observability.AttrCacheResult.String("stale")): 3,
	})
	ages := hists(t, get(t, ms, observability.MetricCacheStaleAge, "s"))
	dp, ok := ages[attrs()]
	if !ok || len(ages) != 1 || dp.Count != 3 || dp.Sum != 90+1800+120 {
		t.Errorf("stale ages = %+v", ages)
	}
	if max, _ := dp.Max.Value(); max != 1800 {
		t.Errorf("max stale age = %v, want 1800", max)
	}
	if rate, stale := f.tel.CacheStats(); rate != 3.0/8 || stale != 3 {
		t.Errorf("CacheStats = %v, %d; want 3/8, 3", rate, stale)
	}
}
