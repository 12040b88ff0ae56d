package observability

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The breaker gauge reports what the executor says, read at each
// collection: nothing before ObserveBreakers, then every scope it lists.
func TestBreakerGaugeReadsTheAuthority(t *testing.T) {
	f := newFixture(t)
	if _, ok := f.metrics(t)[MetricBreakerState]; ok {
		t.Error("breaker gauge exported before ObserveBreakers")
	}
	states := map[string]string{"proj-a": BreakerOpen, "proj-b": BreakerClosed}
	f.tel.ObserveBreakers(func() map[string]string { return states })
	wantPoints(t, MetricBreakerState, gauges(t, get(t, f.metrics(t), MetricBreakerState, "{state}")), map[string]int64{
		attrs(AttrScope.String("proj-a")): 2, attrs(AttrScope.String("proj-b")): 0,
	})
	states = map[string]string{"proj-a": BreakerHalfOpen}
	wantPoints(t, MetricBreakerState, gauges(t, get(t, f.metrics(t), MetricBreakerState, "{state}")), map[string]int64{
		attrs(AttrScope.String("proj-a")): 1,
	})
}

// The cache figures of the health report, and anything but hit, miss or
// stale counted as "other".
func TestCacheStats(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if rate, stale := f.tel.CacheStats(); rate != 0 || stale != 0 {
		t.Errorf("before any lookup: rate %v, stale %d", rate, stale)
	}
	for _, r := range []string{CacheMiss, CacheHit, CacheHit, CacheHit, CacheStale, "bogus"} {
		f.tel.CacheLookup(ctx, r, time.Minute)
	}
	if rate, stale := f.tel.CacheStats(); rate != 3.0/5 || stale != 1 {
		t.Errorf("rate %v, stale %d; want 0.6, 1", rate, stale)
	}
	wantPoints(t, MetricCacheLookups, sums(t, get(t, f.metrics(t), MetricCacheLookups, "{lookup}")), map[string]int64{
		attrs(AttrCacheResult.String("hit")): 3, attrs(AttrCacheResult.String("miss")): 1,
		attrs(AttrCacheResult.String("stale")): 1, attrs(AttrCacheResult.String("other")): 1,
	})
}

func TestJobs(t *testing.T) {
	f := newFixture(t)
	ctx, span := f.tel.tracer.Start(context.Background(), "query")
	f.tel.JobDone(ctx, "SELECT", 1000, 10485760, false)
	f.tel.JobDone(ctx, "SELECT", 0, 0, true)
	f.tel.JobDone(ctx, "CREATE_TABLE_AS_SELECT", 500, 10485760, false)
	f.tel.JobDone(ctx, "select * from secret_table", 1, 0, false) // never a statement type: bounded
	f.tel.JobCancelled(ctx, "timeout")
	f.tel.JobCancelled(ctx, "client_cancel")
	f.tel.JobCancelled(ctx, "client_cancel")
	f.tel.JobCancelled(ctx, "job_secret")
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
}

// Every instrument is exported with its unit, and no metric attribute
// carries an identifier (job IDs, table names, SQL, URLs).
func TestNoIdentifiersInMetricAttributes(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	// A failed tool call whose one attempt failed with identifiers in it.
	failure := &ErrorInfo{Code: "QUERY_ERROR", Message: "Unrecognized name: secret_column", Type: "*googleapi.Error", JobID: "job_secret"}
	callCtx, finish := f.tel.StartToolCall(ctx, "execute_sql", "session_secret")
	attemptCtx, end := f.tel.StartAttempt(callCtx, "query", 1)
	f.tel.Attempt(attemptCtx, "query", 1, failure, false)
	end(failure, false)
	finish(failure)
	f.tel.JobDone(ctx, "SELECT", 1, 1, false)
	f.tel.JobCancelled(ctx, "timeout")
	f.tel.JobRecordEvicted(ctx)
	f.tel.CacheLookup(ctx, CacheStale, time.Second)
	f.tel.BreakerChanged(BreakerChange{Scope: "proj-a", Calls: "BigQuery project proj-a", From: BreakerClosed, To: BreakerOpen})
	f.tel.ObserveBreakers(func() map[string]string { return map[string]string{"proj-a": BreakerOpen} })
	f.tel.Rejected(ctx, "query", "proj-a")
	f.tel.Exhausted(ctx, "query", 3, &ErrorInfo{Code: "INTERNAL", Message: "x"})
	runTransportRequests(t, f)

	units := map[string]string{
		MetricOperationDuration: "s", MetricToolCalls: "{call}", MetricErrors: "{error}",
		MetricRetryAttempts: "{attempt}", MetricRetryExhausted: "{operation}", MetricBreakerState: "{state}",
		MetricBreakerTransitions: "{transition}", MetricBreakerRejected: "{call}", MetricCacheLookups: "{lookup}",
		MetricCacheStaleAge: "s", MetricJobsCompleted: "{job}", MetricJobsCancelled: "{job}", MetricJobRecordsEvicted: "{job}",
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

// Statement types are kept only when they look like one: 1 to 40 of A-Z and
// _, so the attribute stays bounded.
func TestStatementTypeIsBounded(t *testing.T) {
	for in, want := range map[string]string{
		"":                              "UNKNOWN",
		"SELECT":                        "SELECT",
		"CREATE_TABLE_AS_SELECT":        "CREATE_TABLE_AS_SELECT",
		strings.Repeat("A", 40):         strings.Repeat("A", 40),
		strings.Repeat("A", 41):         "OTHER",
		"Select":                        "OTHER",
		"SELECT\n":                      "OTHER",
		"DROP TABLE":                    "OTHER",
		"select * from secret_table":    "OTHER",
		"INSERT" + string(rune(0x212A)): "OTHER", // Kelvin sign: not ASCII K
	} {
		if got := statementType(in); got != want {
			t.Errorf("statementType(%q) = %q, want %q", in, got, want)
		}
	}
}
