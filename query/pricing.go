package query

import (
	"fmt"

	"github.com/bigquery-mcp/bigquery-mcp/cost"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// price is what a job in location costs, by the operator's pricing flags
// (package cost: --price-per-tib-by-location, the price table,
// --price-per-tib; --billing editions and --slot-hour-price).
func (s *Service) price(location string) cost.Price {
	return s.cfg.Prices.For(location)
}

// LedgerPricing is how the governance ledger prices what it counts, by
// the operator's pricing flags: each settled job at its own location's
// on-demand price, or its slot time under editions (unknown without it),
// as the job's own answer prices it; a query's estimate held, and a
// charge that names no job (search_columns' lookups, advice), at the
// on-demand price of location (the server's --location; under editions
// no price: the cost is known only after the run). The state sets the
// limit (governance.Limits.MaxUSDPerDay); usage's costs come from these prices
// whether or not one is set.
func (l Settings) LedgerPricing(location string) governance.USDLimit {
	prices := l.Prices
	at := prices.For(location)
	return governance.USDLimit{
		Price: func(bytes int64) (int64, bool) { return at.MicroUSD(bytes, 0, false) },
		Job: func(j governance.FinishedJob) (int64, bool) {
			return prices.For(j.Location).MicroUSD(j.BytesBilled, j.SlotMs, slotTimeKnown(j.SlotMs, j.HaveSlotMs, j.CacheHit))
		},
	}
}

// slotTimeKnown is whether a finished job's slot time is BigQuery's word,
// by the rule every answer prices a job by: the statistics were read
// (haveSlotMs) and gave some, or the cache answered (no slot time used);
// a zero otherwise is the totalSlotMs BigQuery did not give.
func slotTimeKnown(slotMs int64, haveSlotMs, cacheHit bool) bool {
	return haveSlotMs && (slotMs > 0 || cacheHit)
}

// jobCost prices a finished job in location: its bytes billed on demand,
// its slot time under editions when haveSlotMs says the statistics read
// gave it. A nil cost is unknown; the price comes with every cost.
func (s *Service) jobCost(location string, bytesBilled, slotMs int64, haveSlotMs bool) (*float64, *cost.Price) {
	p := s.price(location)
	usd, ok := p.Job(bytesBilled, slotMs, haveSlotMs)
	if !ok {
		return nil, nil
	}
	return &usd, &p
}

// editionsNote says why an estimate under editions billing has no dollar
// figure.
func editionsNote(p cost.Price) string {
	return fmt.Sprintf("Editions billing: the cost is known only after the run, from its slot time at $%v/slot-hour.", p.SlotHourUSD)
}
