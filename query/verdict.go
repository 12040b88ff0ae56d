package query

import (
	"crypto/sha256"

	"cloud.google.com/go/bigquery"
	lru "github.com/hashicorp/golang-lru/v2"
)

// verdictCacheSize bounds how many read-only verdicts are remembered. Keys
// are hashes, so the cache's memory does not grow with the SQL's length.
const verdictCacheSize = 4096

// verdicts remembers the statement type BigQuery's dry run reported for a
// query, so the same query asked again runs without a dry run first. The
// statement type depends only on the SQL text, the default dataset that
// resolves its names and the parameters' types, which together make the
// key; values never change it.
type verdicts struct {
	cache *lru.Cache[[sha256.Size]byte, string]
}

func newVerdicts() *verdicts {
	c, err := lru.New[[sha256.Size]byte, string](verdictCacheSize)
	if err != nil {
		panic(err) // only for a non-positive size
	}
	return &verdicts{cache: c}
}

func verdictKey(r *request) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(r.sql))
	h.Write([]byte{0})
	h.Write([]byte(r.defaultProject + "." + r.defaultDataset))
	for _, p := range r.params {
		h.Write([]byte{0})
		h.Write([]byte(p.Name))
		h.Write([]byte{' '})
		if v, ok := p.Value.(*bigquery.QueryParameterValue); ok {
			h.Write([]byte(FormatType(&v.Type)))
		}
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

func (v *verdicts) get(r *request) (string, bool) { return v.cache.Get(verdictKey(r)) }

func (v *verdicts) add(r *request, statementType string) { v.cache.Add(verdictKey(r), statementType) }
