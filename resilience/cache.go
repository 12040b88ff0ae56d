package resilience

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	gocache "github.com/patrickmn/go-cache"
	"golang.org/x/sync/singleflight"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
)

// CacheResult is the outcome of a lookup, for metrics.
type CacheResult string

// Cache lookup outcomes.
const (
	CacheHit   CacheResult = "hit"
	CacheMiss  CacheResult = "miss"
	CacheStale CacheResult = "stale"
)

// CacheConfig configures the metadata cache.
type CacheConfig struct {
	// TTL is how long an answer is served without asking BigQuery again.
	TTL time.Duration
	// MaxStale is how old an answer may be and still be served when
	// BigQuery cannot be asked. Older entries are dropped.
	MaxStale time.Duration
	// Lookup, when set, is told every lookup's outcome and, for stale
	// serves, the answer's age.
	Lookup func(ctx context.Context, result CacheResult, age time.Duration)
	// Now is the clock that ages answers; nil means time.Now. Tests pass a
	// fake one, so that an answer goes stale without waiting.
	Now func() time.Time
}

// Cache holds metadata answers (dataset lists, table lists, schemas). Fresh
// answers are served for TTL; concurrent misses for one key make one
// BigQuery call; when a refresh fails for a reason a retry could fix (or
// the breaker is open) the last answer is served, marked stale, up to
// MaxStale. Auth, permission and not-found failures are never papered over:
// they may be the very news the agent needs.
type Cache struct {
	cfg   CacheConfig
	store *gocache.Cache
	group singleflight.Group
	now   func() time.Time
	sets  atomic.Int64
}

type cacheEntry struct {
	value   any
	fetched time.Time
}

// NewCache returns a cache. A zero TTL disables caching (every lookup asks
// BigQuery) but keeps the stale fallback.
func NewCache(cfg CacheConfig) *Cache {
	// No janitor goroutine: expired entries are swept on writes instead, so
	// the cache owns no goroutine that outlives the server.
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Cache{cfg: cfg, store: gocache.New(cfg.MaxStale, 0), now: now}
}

// Get returns key's value, calling fetch when it is missing or older than
// the TTL.
func (c *Cache) Get(ctx context.Context, key string, fetch func(context.Context) (any, error)) (any, bqtype.Freshness, error) {
	var old *cacheEntry
	if v, ok := c.store.Get(key); ok {
		old = v.(*cacheEntry)
		if c.now().Sub(old.fetched) < c.cfg.TTL {
			c.observe(ctx, CacheHit, 0)
			return old.value, bqtype.Freshness{}, nil
		}
	}
	// One refresh per key at a time. It runs detached from this caller's
	// cancellation (its own policy bounds it), so one agent giving up does
	// not fail every other caller waiting on the same key.
	ch := c.group.DoChan(key, func() (_ any, err error) {
		// The fetch runs on singleflight's own goroutine, where a panic
		// would take the whole server down (no caller's recover reaches
		// it, and singleflight re-raises it so that none can): make it
		// this lookup's error instead.
		defer func() {
			if p := recover(); p != nil {
				err = fetchPanicked(p)
			}
		}()
		// A caller that missed just before another's refresh landed joins
		// here after it: the fresh answer is served, not fetched again.
		if v, ok := c.store.Get(key); ok && c.now().Sub(v.(*cacheEntry).fetched) < c.cfg.TTL {
			return v.(*cacheEntry).value, nil
		}
		v, err := fetch(context.WithoutCancel(ctx))
		if err != nil {
			return nil, err
		}
		c.store.SetDefault(key, &cacheEntry{value: v, fetched: c.now()})
		if c.sets.Add(1)%1024 == 0 {
			c.store.DeleteExpired()
		}
		return v, nil
	})
	var res singleflight.Result
	select {
	case res = <-ch:
	case <-ctx.Done():
		return nil, bqtype.Freshness{}, ctx.Err()
	}
	if res.Err == nil {
		c.observe(ctx, CacheMiss, 0)
		return res.Val, bqtype.Freshness{}, nil
	}
	if old != nil && StaleAllowed(res.Err) {
		age := c.now().Sub(old.fetched)
		if age <= c.cfg.MaxStale {
			c.observe(ctx, CacheStale, age)
			e := bqerr.From(res.Err)
			return old.value, bqtype.Freshness{
				Stale:           true,
				CacheAgeSeconds: int(age.Seconds()),
				StaleReason:     "BigQuery could not be reached to refresh this (" + string(e.Code) + ": " + e.Message + ")",
			}, nil
		}
	}
	c.observe(ctx, CacheMiss, 0)
	return nil, bqtype.Freshness{}, res.Err
}

// fetchPanicked is the error for a fetch that panicked: a bug in this
// server, so neither retryable nor answered with stale data.
func fetchPanicked(p any) error {
	return bqerr.New(bqerr.Internal, "internal error while reading metadata").
		WithRetryable(false).
		WithHint("This is a bug in the server; retrying will likely fail the same way. Report it with the time of the call.").
		WithCause(fmt.Errorf("metadata fetch panicked: %v", p)) // no stack: none goes to the logs
}

// Len is the number of cached answers.
func (c *Cache) Len() int { return c.store.ItemCount() }

func (c *Cache) observe(ctx context.Context, r CacheResult, age time.Duration) {
	if c.cfg.Lookup != nil {
		c.cfg.Lookup(ctx, r, age)
	}
}

// StaleAllowed reports whether a failure may be answered with stale
// metadata: BigQuery unreachable or unhealthy, rate limits, an open
// breaker. Never for auth, permission, not-found or invalid requests.
func StaleAllowed(err error) bool {
	if IsBreakerOpen(err) {
		return true
	}
	e := bqerr.From(err)
	switch e.Code {
	case bqerr.Unavailable, bqerr.Internal, bqerr.DeadlineExceeded, bqerr.ResourceExhausted:
		return e.Retryable
	}
	return false
}
