package query

import (
	"fmt"

	"github.com/bigquery-mcp/bigquery-mcp/cost"
)

// price is what a job in location costs, by the operator's pricing flags
// (package cost: --price-per-tib-by-location, the price table,
// --price-per-tib; --billing editions and --slot-hour-price).
func (s *Service) price(location string) cost.Price {
	return s.cfg.Prices().For(location)
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
