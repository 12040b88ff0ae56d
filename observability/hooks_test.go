package observability

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/codes"
	"google.golang.org/api/googleapi"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

const breakerOpenFor = 50 * time.Millisecond

func testExecutor(t *testing.T, hooks resilience.Hooks) *resilience.Executor {
	t.Helper()
	p := resilience.Policy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, Multiplier: 2}
	e, err := resilience.NewExecutor(resilience.Config{
		Policies: map[resilience.Operation]resilience.Policy{
			resilience.Query: p, resilience.Metadata: p, resilience.Write: p, resilience.Auth: p,
		},
		Breaker:       resilience.BreakerSettings{FailureThreshold: 1, OpenDuration: breakerOpenFor, SuccessThreshold: 1},
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
func TestResilienceHooks(t *testing.T) {
	f := newFixture(t)
	exec := testExecutor(t, f.tel.ResilienceHooks())
	mw := f.tel.ToolMiddleware()

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
	wantPoints(t, MetricBreakerState, gauges(t, get(t, ms, MetricBreakerState, "{state}")), map[string]int64{attrs(AttrScope.String("proj-a")): 2})
	if st := f.tel.Stats(); st.Breakers["proj-a"] != resilience.Open {
		t.Errorf("Stats breakers = %v, want proj-a open", st.Breakers)
	}

	// 3. rejected while open.
	_, err = executeSQL(context.Background(), nil)
	if !resilience.IsBreakerOpen(err) {
		t.Fatalf("call while open returned %v", err)
	}

	// 4. after the open duration a probe succeeds: open -> half-open -> closed.
	time.Sleep(breakerOpenFor + 20*time.Millisecond)
	if err := exec.Do(context.Background(), resilience.Metadata, "proj-a", func(context.Context) error { return nil }); err != nil {
		t.Fatalf("probe: %v", err)
	}

	ms = f.metrics(t)
	md, q := AttrOperation.String("metadata"), AttrOperation.String("query")
	wantPoints(t, MetricRetryAttempts, sums(t, get(t, ms, MetricRetryAttempts, "{attempt}")), map[string]int64{
		attrs(md, AttrAttemptOutcome.String("retryable_error"), AttrRetry.Bool(false)): 1,
		attrs(md, AttrAttemptOutcome.String("retryable_error"), AttrRetry.Bool(true)):  1,
		attrs(md, AttrAttemptOutcome.String("ok"), AttrRetry.Bool(true)):               1,
		attrs(md, AttrAttemptOutcome.String("ok"), AttrRetry.Bool(false)):              1, // the probe
		attrs(q, AttrAttemptOutcome.String("retryable_error"), AttrRetry.Bool(false)):  1,
		attrs(q, AttrAttemptOutcome.String("retryable_error"), AttrRetry.Bool(true)):   2,
	})
	unav := AttrErrorType.String("UNAVAILABLE")
	wantPoints(t, MetricRetryExhausted, sums(t, get(t, ms, MetricRetryExhausted, "{operation}")), map[string]int64{attrs(q, unav): 1})
	wantPoints(t, MetricErrors, sums(t, get(t, ms, MetricErrors, "{error}")), map[string]int64{
		attrs(unav, AttrRetryable.Bool(true), md): 2,
		attrs(unav, AttrRetryable.Bool(true), q):  3,
		// The tool calls: the exhausted one and the rejected one.
		attrs(unav, AttrRetryable.Bool(true), AttrGenAIToolName.String("execute_sql")): 2,
	})
	wantPoints(t, MetricBreakerTransitions, sums(t, get(t, ms, MetricBreakerTransitions, "{transition}")), map[string]int64{
		attrs(AttrFrom.String("closed"), AttrTo.String("open")):      1,
		attrs(AttrFrom.String("open"), AttrTo.String("half-open")):   1,
		attrs(AttrFrom.String("half-open"), AttrTo.String("closed")): 1,
	})
	wantPoints(t, MetricBreakerRejected, sums(t, get(t, ms, MetricBreakerRejected, "{call}")), map[string]int64{attrs(q): 1})
	wantPoints(t, MetricBreakerState, gauges(t, get(t, ms, MetricBreakerState, "{state}")), map[string]int64{attrs(AttrScope.String("proj-a")): 0})

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
		if v, _ := spanAttr(s, AttrAttempt); v.AsInt64() != int64(i+1) {
			t.Errorf("attempt attribute = %d, want %d", v.AsInt64(), i+1)
		}
		if v, _ := spanAttr(s, AttrOperation); v.AsString() != "metadata" {
			t.Errorf("operation attribute = %q", v.AsString())
		}
		wantErr := i < 2
		et, _ := spanAttr(s, AttrErrorType)
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
		if l["severity"] != w.sev || l["from"] != w.from || l["to"] != w.to || l["scope"] != "proj-a" {
			t.Errorf("breaker line %d = %v, want %+v", i, l, w)
		}
	}

	st := f.tel.Stats()
	if st.RetryAttempts != 7 || st.RetriesExhausted != 1 || st.BreakerRejected != 1 || st.BreakerTransitions != 3 || st.Breakers["proj-a"] != resilience.Closed {
		t.Errorf("Stats = %+v", st)
	}
}

// A non-retryable failure is one attempt with outcome "error".
func TestAttemptOutcomeError(t *testing.T) {
	f := newFixture(t)
	exec := testExecutor(t, f.tel.ResilienceHooks())
	err := exec.Do(context.Background(), resilience.Metadata, "proj-b", func(context.Context) error {
		return &googleapi.Error{Code: 404, Errors: []googleapi.ErrorItem{{Reason: "notFound"}}}
	})
	if err == nil {
		t.Fatal("want an error")
	}
	ms := f.metrics(t)
	md := AttrOperation.String("metadata")
	wantPoints(t, MetricRetryAttempts, sums(t, get(t, ms, MetricRetryAttempts, "{attempt}")), map[string]int64{
		attrs(md, AttrAttemptOutcome.String("error"), AttrRetry.Bool(false)): 1,
	})
	wantPoints(t, MetricErrors, sums(t, get(t, ms, MetricErrors, "{error}")), map[string]int64{
		attrs(AttrErrorType.String("NOT_FOUND"), AttrRetryable.Bool(false), md): 1,
	})
	if _, ok := ms[MetricRetryExhausted]; ok {
		t.Error("a permanent failure counted as exhausted")
	}
}

func TestCacheLookup(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.tel.CacheLookup(ctx, resilience.CacheMiss, 0)
	f.tel.CacheLookup(ctx, resilience.CacheHit, 0)
	f.tel.CacheLookup(ctx, resilience.CacheHit, 0)
	f.tel.CacheLookup(ctx, resilience.CacheHit, 0)
	f.tel.CacheLookup(ctx, resilience.CacheStale, 90*time.Second)
	f.tel.CacheLookup(ctx, resilience.CacheStale, 30*time.Minute)

	// And through the real cache: a miss, then a stale serve when the
	// refresh fails for a transient reason.
	cache := resilience.NewCache(resilience.CacheConfig{TTL: time.Millisecond, MaxStale: time.Hour, Lookup: f.tel.CacheLookup})
	if _, _, err := cache.Get(ctx, "k", func(context.Context) (any, error) { return "v", nil }); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	v, fr, err := cache.Get(ctx, "k", func(context.Context) (any, error) { return nil, bqerr.New(bqerr.Unavailable, "down") })
	if err != nil || v != "v" || !fr.Stale {
		t.Fatalf("stale serve: %v %+v %v", v, fr, err)
	}

	ms := f.metrics(t)
	wantPoints(t, MetricCacheLookups, sums(t, get(t, ms, MetricCacheLookups, "{lookup}")), map[string]int64{
		attrs(AttrCacheResult.String("hit")):   3,
		attrs(AttrCacheResult.String("miss")):  2,
		attrs(AttrCacheResult.String("stale")): 3,
	})
	ages := hists(t, get(t, ms, MetricCacheStaleAge, "s"))
	dp, ok := ages[attrs()]
	if !ok || len(ages) != 1 || dp.Count != 3 || dp.Sum < 90+1800 || dp.Sum > 90+1800+60 {
		t.Errorf("stale ages = %+v", ages)
	}
	if max, _ := dp.Max.Value(); max != 1800 {
		t.Errorf("max stale age = %v, want 1800", max)
	}
	st := f.tel.Stats()
	if st.CacheHits != 3 || st.CacheMisses != 2 || st.CacheStale != 3 || st.CacheHitRate != 3.0/8 {
		t.Errorf("Stats = %+v", st)
	}
}

func TestQueryHooks(t *testing.T) {
	f := newFixture(t)
	hooks := f.tel.QueryHooks()
	ctx, span := f.tel.tracer.Start(context.Background(), "query")
	hooks.JobDone(ctx, "SELECT", 1000, 10485760, false)
	hooks.JobDone(ctx, "SELECT", 0, 0, true)
	hooks.JobDone(ctx, "CREATE_TABLE_AS_SELECT", 500, 10485760, false)
	hooks.JobDone(ctx, "select * from secret_table", 1, 0, false) // never a statement type: bounded
	hooks.JobCancelled(ctx, "timeout")
	hooks.JobCancelled(ctx, "client_cancel")
	hooks.JobCancelled(ctx, "client_cancel")
	hooks.JobCancelled(ctx, "job_secret")
	span.End()

	ms := f.metrics(t)
	sel, ctas, other := AttrStatementType.String("SELECT"), AttrStatementType.String("CREATE_TABLE_AS_SELECT"), AttrStatementType.String("OTHER")
	wantPoints(t, MetricJobsCompleted, sums(t, get(t, ms, MetricJobsCompleted, "{job}")), map[string]int64{
		attrs(sel, AttrCacheHit.Bool(false)):   1,
		attrs(sel, AttrCacheHit.Bool(true)):    1,
		attrs(ctas, AttrCacheHit.Bool(false)):  1,
		attrs(other, AttrCacheHit.Bool(false)): 1,
	})
	wantPoints(t, MetricJobsCancelled, sums(t, get(t, ms, MetricJobsCancelled, "{job}")), map[string]int64{
		attrs(AttrReason.String("timeout")):       1,
		attrs(AttrReason.String("client_cancel")): 2,
		attrs(AttrReason.String("other")):         1,
	})
	wantPoints(t, MetricBytesProcessed, sums(t, get(t, ms, MetricBytesProcessed, "By")), map[string]int64{
		attrs(sel): 1000, attrs(ctas): 500, attrs(other): 1,
	})
	wantPoints(t, MetricBytesBilled, sums(t, get(t, ms, MetricBytesBilled, "By")), map[string]int64{
		attrs(sel): 10485760, attrs(ctas): 10485760,
	})
	s := spansNamed(f.spans, "query")[0]
	if v, _ := spanAttr(s, AttrBytesBilled); v.AsInt64() != 0 { // the last JobDone wins
		t.Errorf("span bytes billed = %v", v.AsInt64())
	}
	var cancels int
	for _, ev := range s.Events() {
		if ev.Name == "job.cancelled" {
			cancels++
		}
	}
	if cancels != 4 {
		t.Errorf("%d job.cancelled events, want 4", cancels)
	}
	st := f.tel.Stats()
	if st.JobsCompleted != 4 || st.JobsCancelled != 4 || st.BytesProcessed != 1501 || st.BytesBilled != 2*10485760 {
		t.Errorf("Stats = %+v", st)
	}
}

// Every instrument is exported with its unit, and no metric attribute
// carries an identifier (job IDs, table names, SQL, URLs).
func TestNoIdentifiersInMetricAttributes(t *testing.T) {
	f := newFixture(t)
	exec := testExecutor(t, f.tel.ResilienceHooks())
	ctx := context.Background()
	mw := f.tel.ToolMiddleware()
	h := mw("execute_sql", func(ctx context.Context, _ *mcp.CallToolRequest) (any, error) {
		return nil, exec.Do(ctx, resilience.Query, "proj-a", func(context.Context) error {
			return bqerr.New(bqerr.QueryError, "Unrecognized name: secret_column").WithJobID("job_secret").WithQuery("SELECT secret_column FROM secret_table")
		})
	})
	_, _ = h(ctx, nil)
	f.tel.QueryHooks().JobDone(ctx, "SELECT", 1, 1, false)
	f.tel.QueryHooks().JobCancelled(ctx, "timeout")
	f.tel.CacheLookup(ctx, resilience.CacheStale, time.Second)
	f.tel.ResilienceHooks().BreakerChanged("proj-a", resilience.Closed, resilience.Open)
	f.tel.ResilienceHooks().Rejected(ctx, resilience.Query, "proj-a")
	f.tel.ResilienceHooks().Exhausted(ctx, resilience.Query, 3, errors.New("x"))
	runTransportRequests(t, f)

	units := map[string]string{
		MetricOperationDuration: "s", MetricToolCalls: "{call}", MetricErrors: "{error}",
		MetricRetryAttempts: "{attempt}", MetricRetryExhausted: "{operation}", MetricBreakerState: "{state}",
		MetricBreakerTransitions: "{transition}", MetricBreakerRejected: "{call}", MetricCacheLookups: "{lookup}",
		MetricCacheStaleAge: "s", MetricJobsCompleted: "{job}", MetricJobsCancelled: "{job}",
		MetricBytesProcessed: "By", MetricBytesBilled: "By", MetricDBOperationDuration: "s",
	}
	ms := f.metrics(t)
	if len(ms) != len(units) {
		t.Errorf("%d metrics exported, want %d: %v", len(ms), len(units), keys(ms))
	}
	for name, unit := range units {
		m := get(t, ms, name, unit)
		for _, s := range attributeSets(m) {
			for _, kv := range s.ToSlice() {
				v := kv.Value.Emit()
				if strings.Contains(strings.ToLower(v), "secret") || strings.Contains(v, "job_") ||
					(kv.Key != AttrMCPMethodName && strings.Contains(v, "/")) || (kv.Key != AttrScope && strings.Contains(v, "proj")) {
					t.Errorf("%s has an identifying attribute %s=%s", name, kv.Key, v)
				}
			}
		}
	}
}
