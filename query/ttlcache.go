package query

import (
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// ttlCache is a bounded LRU whose entries expire. Unlike golang-lru's
// expirable.LRU it starts no goroutine: expired entries are dropped when
// read, and the size bound evicts the rest.
type ttlCache[K comparable, V any] struct {
	cache *lru.Cache[K, ttlEntry[V]]
	ttl   time.Duration
	now   func() time.Time // the clock; tests replace it
}

type ttlEntry[V any] struct {
	value   V
	expires time.Time
}

func newTTLCache[K comparable, V any](size int, ttl time.Duration) *ttlCache[K, V] {
	c, err := lru.New[K, ttlEntry[V]](size)
	if err != nil {
		panic(err) // only for a non-positive size
	}
	return &ttlCache[K, V]{cache: c, ttl: ttl, now: time.Now}
}

// Get returns the value stored under k, unless it expired.
func (c *ttlCache[K, V]) Get(k K) (V, bool) {
	e, ok := c.cache.Get(k)
	if !ok || c.now().After(e.expires) {
		if ok {
			c.cache.Remove(k)
		}
		var zero V
		return zero, false
	}
	return e.value, true
}

// Add stores v under k for the cache's TTL.
func (c *ttlCache[K, V]) Add(k K, v V) {
	c.cache.Add(k, ttlEntry[V]{value: v, expires: c.now().Add(c.ttl)})
}
