package resilience

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
)

const (
	testTTL      = 5 * time.Minute
	testMaxStale = 24 * time.Hour
)

// fakeClock is the cache's injected clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type lookup struct {
	result CacheResult
	age    time.Duration
}

// lookups records what the Lookup hook is told.
type lookups struct {
	mu  sync.Mutex
	got []lookup
}

func (l *lookups) hook(_ context.Context, r CacheResult, age time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, lookup{r, age})
}

func (l *lookups) all() []lookup {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]lookup(nil), l.got...)
}

func newTestCache(ttl, maxStale time.Duration) (*Cache, *fakeClock, *lookups) {
	l := &lookups{}
	clk := &fakeClock{t: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	c := NewCache(CacheConfig{TTL: ttl, MaxStale: maxStale, Lookup: l.hook, Now: clk.Now})
	return c, clk, l
}

// fetcher returns a fetch that answers "v1", "v2", … or fails with err
// while err is set, and the count of its calls.
type fetcher struct {
	calls atomic.Int32
	mu    sync.Mutex
	err   error
}

func (f *fetcher) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

func (f *fetcher) fetch(context.Context) (any, error) {
	n := f.calls.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	return fmt.Sprintf("v%d", n), nil
}

func mustGet(t *testing.T, c *Cache, key string, fetch func(context.Context) (any, error)) (any, bqtype.Freshness) {
	t.Helper()
	v, fr, err := c.Get(context.Background(), key, fetch)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	return v, fr
}

func TestCacheHitWithinTTL(t *testing.T) {
	c, clk, l := newTestCache(testTTL, testMaxStale)
	f := &fetcher{}
	for i := range 3 {
		v, fr := mustGet(t, c, "datasets:p", f.fetch)
		if v != "v1" || fr != (bqtype.Freshness{}) {
			t.Fatalf("lookup %d = %v, %+v; want v1, fresh", i, v, fr)
		}
		clk.Advance(testTTL/3 - time.Second)
	}
	if f.calls.Load() != 1 {
		t.Fatalf("fetch called %d times within the TTL, want 1", f.calls.Load())
	}
	want := []lookup{{CacheMiss, 0}, {CacheHit, 0}, {CacheHit, 0}}
	if got := l.all(); !equalLookups(got, want) {
		t.Errorf("Lookup saw %v, want %v", got, want)
	}
	if c.Len() != 1 {
		t.Errorf("Len() = %d, want 1", c.Len())
	}
}

func TestCacheRefreshAfterTTL(t *testing.T) {
	c, clk, _ := newTestCache(testTTL, testMaxStale)
	f := &fetcher{}
	mustGet(t, c, "k", f.fetch)
	clk.Advance(testTTL)
	v, fr := mustGet(t, c, "k", f.fetch)
	if v != "v2" || fr.Stale {
		t.Fatalf("after the TTL got %v %+v, want a fresh v2", v, fr)
	}
	if f.calls.Load() != 2 {
		t.Fatalf("fetch called %d times, want 2", f.calls.Load())
	}
	// The refreshed answer is fresh for a whole TTL again.
	clk.Advance(testTTL - time.Second)
	if v, _ := mustGet(t, c, "k", f.fetch); v != "v2" || f.calls.Load() != 2 {
		t.Fatalf("got %v after %d fetches, want v2 from the cache", v, f.calls.Load())
	}
}

func TestCacheKeysAreSeparate(t *testing.T) {
	c, _, _ := newTestCache(testTTL, testMaxStale)
	f := &fetcher{}
	a, _ := mustGet(t, c, "a", f.fetch)
	b, _ := mustGet(t, c, "b", f.fetch)
	if a == b || f.calls.Load() != 2 || c.Len() != 2 {
		t.Fatalf("a=%v b=%v after %d fetches, Len %d", a, b, f.calls.Load(), c.Len())
	}
}

func TestCacheZeroTTLAlwaysFetchesButKeepsStaleFallback(t *testing.T) {
	c, clk, _ := newTestCache(0, testMaxStale)
	f := &fetcher{}
	mustGet(t, c, "k", f.fetch)
	mustGet(t, c, "k", f.fetch)
	if f.calls.Load() != 2 {
		t.Fatalf("fetch called %d times with a zero TTL, want 2", f.calls.Load())
	}
	clk.Advance(time.Minute)
	f.fail(apiErr(503, ""))
	v, fr := mustGet(t, c, "k", f.fetch)
	if v != "v2" || !fr.Stale || fr.CacheAgeSeconds != 60 {
		t.Fatalf("got %v %+v, want stale v2 aged 60s", v, fr)
	}
}

// Concurrent misses for one key make one fetch, and every caller gets its
// answer. The test runs in a synctest bubble so that it knows when every
// caller is waiting on the fetch: only then is the fetch let go.
func TestCacheConcurrentMissesMakeOneFetch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, _, l := newTestCache(testTTL, testMaxStale)
		const callers = 50
		var calls atomic.Int32
		release := make(chan struct{})
		fetch := func(context.Context) (any, error) {
			calls.Add(1)
			<-release
			return "schema", nil
		}
		var wg sync.WaitGroup
		results := make(chan any, callers)
		for range callers {
			wg.Go(func() {
				v, _, err := c.Get(context.Background(), "schema:p.d.t", fetch)
				if err != nil {
					t.Error(err)
				}
				results <- v
			})
		}
		synctest.Wait() // every caller is blocked: on the fetch, or waiting for it
		close(release)
		wg.Wait()
		close(results)
		for v := range results {
			if v != "schema" {
				t.Fatalf("a caller got %v", v)
			}
		}
		if calls.Load() != 1 {
			t.Fatalf("fetch called %d times for %d concurrent misses, want 1", calls.Load(), callers)
		}
		var misses int
		for _, lk := range l.all() {
			if lk.result != CacheMiss {
				t.Errorf("lookup %v, want every caller to miss and share the one fetch", lk)
			}
			misses++
		}
		if misses != callers {
			t.Errorf("%d misses for %d callers", misses, callers)
		}
	})
}

func TestCacheServesStaleWhenRefreshFails(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		reason string // in StaleReason
	}{
		{"503", apiErr(503, ""), "UNAVAILABLE"},
		{"500 backendError", apiErr(500, "backendError"), "UNAVAILABLE"},
		{"500 internalError", apiErr(500, "internalError"), "INTERNAL"},
		{"429", apiErr(429, ""), "RESOURCE_EXHAUSTED"},
		{"403 rateLimitExceeded", apiErr(403, "rateLimitExceeded"), "RESOURCE_EXHAUSTED"},
		{"no response", &AttemptError{Err: connReset()}, "UNAVAILABLE"},
		{"timeout", context.DeadlineExceeded, "DEADLINE_EXCEEDED"},
		{"open breaker", breakerOpenError("p", 30*time.Second), "circuit breaker open"},
		{"exhausted retries", exhaustedError(t), "UNAVAILABLE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, clk, l := newTestCache(testTTL, testMaxStale)
			f := &fetcher{}
			mustGet(t, c, "k", f.fetch)
			age := testTTL + 90*time.Second
			clk.Advance(age)
			f.fail(tc.err)
			v, fr, err := c.Get(context.Background(), "k", f.fetch)
			if err != nil {
				t.Fatalf("Get = %v, want the stale answer", err)
			}
			if v != "v1" {
				t.Fatalf("value = %v, want the last good answer v1", v)
			}
			if !fr.Stale || fr.CacheAgeSeconds != int(age.Seconds()) {
				t.Errorf("freshness = %+v, want stale with cacheAgeSeconds %d", fr, int(age.Seconds()))
			}
			if fr.StaleReason == "" || !strings.Contains(fr.StaleReason, tc.reason) {
				t.Errorf("StaleReason = %q, want it to mention %q", fr.StaleReason, tc.reason)
			}
			if f.calls.Load() != 2 {
				t.Errorf("fetch called %d times, want 2", f.calls.Load())
			}
			if got := l.all(); len(got) != 2 || got[1] != (lookup{CacheStale, age}) {
				t.Errorf("Lookup saw %v, want a stale lookup aged %v last", got, age)
			}
			// A stale serve does not make the entry fresh: the next lookup
			// asks BigQuery again, and a success ends the staleness.
			f.fail(nil)
			v, fr = mustGet(t, c, "k", f.fetch)
			if v != "v3" || fr.Stale {
				t.Errorf("after recovery got %v %+v, want a fresh v3", v, fr)
			}
		})
	}
}

// exhaustedError is what Executor.Do returns when every attempt failed.
func exhaustedError(t *testing.T) error {
	e := newTestExecutor(t, testConfig(2), Hooks{})
	err := e.Do(context.Background(), Metadata, "p", func(context.Context) error { return apiErr(503, "") })
	if bqerr.From(err).Details.Attempts != 2 {
		t.Fatalf("not an exhausted error: %v", err)
	}
	return err
}

func TestCacheNeverStaleForCallerFacingFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		code bqerr.Code
	}{
		{"403 accessDenied", apiErr(403, "accessDenied"), bqerr.PermissionDenied},
		{"401", apiErr(401, ""), bqerr.Unauthenticated},
		{"404 notFound", apiErr(404, "notFound"), bqerr.NotFound},
		{"400 invalid", apiErr(400, "invalid"), bqerr.InvalidArgument},
		{"403 quotaExceeded", apiErr(403, "quotaExceeded"), bqerr.ResourceExhausted},
		{"bqerr.Invalid", bqerr.Invalid("bad name", "fix it"), bqerr.InvalidArgument},
		{"no credentials", bqerr.New(bqerr.AuthError, "no Google credentials"), bqerr.AuthError},
		{"endpoint misconfigured", notRetryable(bqerr.New(bqerr.Unavailable, "the endpoint does not speak TLS")), bqerr.Unavailable},
		{"unknown", errors.New("boom"), bqerr.Internal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, clk, l := newTestCache(testTTL, testMaxStale)
			f := &fetcher{}
			mustGet(t, c, "k", f.fetch)
			clk.Advance(testTTL + time.Second)
			f.fail(tc.err)
			v, fr, err := c.Get(context.Background(), "k", f.fetch)
			if err == nil {
				t.Fatalf("Get = %v %+v, want the %s error", v, fr, tc.name)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("Get = %v, want the fetch's error", err)
			}
			mustCode(t, err, tc.code)
			if v != nil || fr != (bqtype.Freshness{}) {
				t.Errorf("value %v, freshness %+v with an error", v, fr)
			}
			if got := l.all(); got[len(got)-1].result != CacheMiss {
				t.Errorf("Lookup saw %v, want a miss last", got)
			}
		})
	}
}

func TestCacheNotStaleBeyondMaxStale(t *testing.T) {
	c, clk, _ := newTestCache(testTTL, time.Hour)
	f := &fetcher{}
	mustGet(t, c, "k", f.fetch)
	f.fail(apiErr(503, ""))
	clk.Advance(time.Hour) // exactly MaxStale: still served
	if v, fr := mustGet(t, c, "k", f.fetch); v != "v1" || !fr.Stale || fr.CacheAgeSeconds != 3600 {
		t.Fatalf("at MaxStale got %v %+v, want stale v1 aged 3600s", v, fr)
	}
	clk.Advance(time.Second)
	v, fr, err := c.Get(context.Background(), "k", f.fetch)
	if err == nil {
		t.Fatalf("beyond MaxStale got %v %+v, want the error", v, fr)
	}
	mustCode(t, err, bqerr.Unavailable)
}

func TestCacheFailedFirstFetchCachesNothing(t *testing.T) {
	c, _, _ := newTestCache(testTTL, testMaxStale)
	f := &fetcher{}
	f.fail(apiErr(503, ""))
	if _, _, err := c.Get(context.Background(), "k", f.fetch); err == nil {
		t.Fatal("Get succeeded with nothing to serve")
	}
	if c.Len() != 0 {
		t.Fatalf("Len() = %d after a failed fetch", c.Len())
	}
	f.fail(nil)
	if v, _ := mustGet(t, c, "k", f.fetch); v != "v2" {
		t.Fatalf("got %v, want a new fetch", v)
	}
}

func TestCacheCancelledCallerDoesNotFailOthers(t *testing.T) {
	c, _, _ := newTestCache(testTTL, testMaxStale)
	var calls atomic.Int32
	started := make(chan struct{})
	release := make(chan struct{})
	fetchErr := make(chan error, 1)
	fetch := func(ctx context.Context) (any, error) {
		calls.Add(1)
		close(started)
		<-release
		fetchErr <- ctx.Err()
		return "answer", nil
	}

	ctxA, cancelA := context.WithCancel(context.Background())
	defer cancelA()
	errA := make(chan error, 1)
	go func() {
		_, _, err := c.Get(ctxA, "k", fetch)
		errA <- err
	}()
	<-started

	type res struct {
		v   any
		err error
	}
	resB := make(chan res, 1)
	go func() {
		v, _, err := c.Get(context.Background(), "k", fetch)
		resB <- res{v, err}
	}()

	cancelA()
	if err := <-errA; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled caller got %v, want context.Canceled", err)
	}
	close(release)
	if got := <-resB; got.err != nil || got.v != "answer" {
		t.Fatalf("the other caller got %v, %v; want the answer", got.v, got.err)
	}
	if err := <-fetchErr; err != nil {
		t.Errorf("the fetch's context ended with its first caller: %v", err)
	}
	if calls.Load() != 1 {
		t.Errorf("fetch called %d times, want 1", calls.Load())
	}
	// The answer the cancelled caller started is cached for everyone.
	if v, _ := mustGet(t, c, "k", func(context.Context) (any, error) { return nil, errors.New("not cached") }); v != "answer" {
		t.Errorf("got %v, want the cached answer", v)
	}
}

func TestCacheLookupHookSeesEveryOutcome(t *testing.T) {
	c, clk, l := newTestCache(testTTL, testMaxStale)
	f := &fetcher{}
	mustGet(t, c, "k", f.fetch) // miss
	mustGet(t, c, "k", f.fetch) // hit
	clk.Advance(10 * time.Minute)
	f.fail(apiErr(503, ""))
	mustGet(t, c, "k", f.fetch) // stale, 10m old
	f.fail(apiErr(404, "notFound"))
	_, _, _ = c.Get(context.Background(), "k", f.fetch) // miss (error)
	want := []lookup{{CacheMiss, 0}, {CacheHit, 0}, {CacheStale, 10 * time.Minute}, {CacheMiss, 0}}
	if got := l.all(); !equalLookups(got, want) {
		t.Errorf("Lookup saw %v, want %v", got, want)
	}
}

func TestCacheWithoutLookupHook(t *testing.T) {
	c := NewCache(CacheConfig{TTL: time.Minute, MaxStale: time.Hour})
	v, _, err := c.Get(context.Background(), "k", func(context.Context) (any, error) { return 1, nil })
	if err != nil || v != 1 {
		t.Fatalf("Get = %v, %v", v, err)
	}
}

func equalLookups(a, b []lookup) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A fetch runs on singleflight's goroutine, where a panic cannot be
// recovered by the caller: it must become the lookup's error, not a crash.
func TestCacheFetchPanicIsAnError(t *testing.T) {
	c, clk, _ := newTestCache(testTTL, testMaxStale)
	f := &fetcher{}
	mustGet(t, c, "k", f.fetch)
	clk.Advance(testTTL)
	v, fr, err := c.Get(context.Background(), "k", func(context.Context) (any, error) { panic("bug in a fetch") })
	be := mustCode(t, err, bqerr.Internal)
	if be.Retryable || fr.Stale || v != nil {
		t.Errorf("retryable %v, freshness %+v, value %v: a bug is neither retried nor papered over", be.Retryable, fr, v)
	}
	if v, _ := mustGet(t, c, "k", f.fetch); v != "v2" {
		t.Errorf("after the panic got %v, want a new fetch", v)
	}
}
