package observability

import (
	"maps"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// Stats is a snapshot of the counters a health report needs. They count
// since the process started, whatever exporter is configured (or none).
type Stats struct {
	Version       string    `json:"version,omitempty"`
	Started       time.Time `json:"started"`
	UptimeSeconds int64     `json:"uptimeSeconds"`

	ToolCalls  int64 `json:"toolCalls"`
	ToolErrors int64 `json:"toolErrors"`

	CacheHits   int64 `json:"cacheHits"`
	CacheMisses int64 `json:"cacheMisses"`
	CacheStale  int64 `json:"cacheStale"`
	// CacheHitRate is hits / (hits + misses + stale), 0 before any lookup.
	CacheHitRate float64 `json:"cacheHitRate"`

	RetryAttempts      int64 `json:"retryAttempts"`
	RetriesExhausted   int64 `json:"retriesExhausted"`
	BreakerRejected    int64 `json:"breakerRejected"`
	BreakerTransitions int64 `json:"breakerTransitions"`
	// Breakers is the last known state of every breaker that has changed
	// state at least once; a scope missing here is closed. The executor's
	// BreakerStates is the authority.
	Breakers map[string]resilience.BreakerState `json:"breakers,omitempty"`

	JobsCompleted  int64 `json:"jobsCompleted"`
	JobsCancelled  int64 `json:"jobsCancelled"`
	BytesProcessed int64 `json:"bytesProcessed"`
	BytesBilled    int64 `json:"bytesBilled"`
}

// Stats returns the current counters.
func (t *Telemetry) Stats() Stats {
	s := Stats{
		Version:            t.version,
		Started:            t.started,
		UptimeSeconds:      int64(time.Since(t.started).Seconds()),
		ToolCalls:          t.stats.toolCalls.Load(),
		ToolErrors:         t.stats.toolErrors.Load(),
		CacheHits:          t.stats.cacheHits.Load(),
		CacheMisses:        t.stats.cacheMisses.Load(),
		CacheStale:         t.stats.cacheStale.Load(),
		RetryAttempts:      t.stats.attempts.Load(),
		RetriesExhausted:   t.stats.retriesExhausted.Load(),
		BreakerRejected:    t.stats.rejected.Load(),
		BreakerTransitions: t.stats.breakerTransitions.Load(),
		JobsCompleted:      t.stats.jobsCompleted.Load(),
		JobsCancelled:      t.stats.jobsCancelled.Load(),
		BytesProcessed:     t.stats.bytesProcessed.Load(),
		BytesBilled:        t.stats.bytesBilled.Load(),
	}
	if total := s.CacheHits + s.CacheMisses + s.CacheStale; total > 0 {
		s.CacheHitRate = float64(s.CacheHits) / float64(total)
	}
	t.mu.Lock()
	if len(t.breakers) > 0 {
		s.Breakers = maps.Clone(t.breakers)
	}
	t.mu.Unlock()
	return s
}
