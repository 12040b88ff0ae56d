package query

import (
	"crypto/sha256"

	"cloud.google.com/go/bigquery"
	lru "github.com/hashicorp/golang-lru/v2"
)

// verdictCacheSize bounds how many read-only verdicts are remembered. Keys
// are hashes, so the cache's memory does not grow with the SQL's length.
const verdictCacheSize = 4096

// verdicts remembers what BigQuery's dry run said of a query, so the same
// query asked again runs without a dry run first. The statement type and
// the tables read depend only on the SQL text, the default dataset that
// resolves its names and the parameters' types, which together make the
// key; values never change them.
type verdicts struct {
	cache *lru.Cache[[sha256.Size]byte, verdict]
}

// verdict is what a dry run settled about a query.
type verdict struct {
	statementType string
	// datasetsAllowed is set when every table BigQuery reported is in an
	// allowed dataset. A query read through an authorized view is checked
	// again each time: its answer rests on metadata that can change.
	datasetsAllowed bool
}

func newVerdicts() *verdicts {
	c, err := lru.New[[sha256.Size]byte, verdict](verdictCacheSize)
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

func (v *verdicts) get(r *request) (verdict, bool) { return v.cache.Get(verdictKey(r)) }

func (v *verdicts) add(r *request, vd verdict) { v.cache.Add(verdictKey(r), vd) }
