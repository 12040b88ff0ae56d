package bqtype

// Freshness tells an agent how current a metadata answer is. It is empty
// for a fresh answer.
//
// It is part of the tools' JSON contract, so it lives here rather than in
// the cache that computes it: the cache may change its bookkeeping without
// changing what agents read.
type Freshness struct {
	// Stale is true when BigQuery could not be asked and this is the last
	// answer it gave.
	Stale bool `json:"stale,omitempty"`
	// CacheAgeSeconds is how old a stale answer is.
	CacheAgeSeconds int `json:"cacheAgeSeconds,omitempty"`
	// StaleReason says why the answer could not be refreshed.
	StaleReason string `json:"staleReason,omitempty"`
}
