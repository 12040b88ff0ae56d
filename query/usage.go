package query

import (
	"context"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/cost"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// UsageInput is the usage tool's input (none).
type UsageInput struct{}

// UsageOutput is what the caller's queries cost on this server instance.
type UsageOutput struct {
	governance.Report
	// SessionCostUSD and TodayCostUSD price the bytes billed on demand at
	// Price: the price of --location, since the ledger keeps bytes, not
	// where each job ran. Under editions they are 0, as is PricePerTiBUSD,
	// and Note says why: the ledger keeps no slot time.
	SessionCostUSD float64    `json:"sessionCostUSD"`
	TodayCostUSD   float64    `json:"todayCostUSD"`
	PricePerTiBUSD float64    `json:"pricePerTiBUSD"`
	Price          cost.Price `json:"price" jsonschema:"The price the costs are at: billing, location (the server's --location; absent when it has none), perTiBUSD or slotHourUSD, and source."`
	Note           string     `json:"note,omitempty"`
	// Scope says whose spending this is and where it is kept.
	Scope string `json:"scope"`
}

// Usage reports the calling principal's jobs, bytes, holds and budget.
func (s *Service) Usage(ctx context.Context, _ UsageInput) (*UsageOutput, error) {
	p := auth.CallerFrom(ctx).Principal
	r, err := s.cfg.State.Report(ctx, p)
	if err != nil {
		return nil, bqerr.New(bqerr.Unavailable, "the server's bytes ledger could not be read").WithCause(err)
	}
	scope := "this server process"
	if p != "" {
		scope = p + " on this server instance"
	}
	price := s.price(s.cfg.Location)
	out := &UsageOutput{Report: r, PricePerTiBUSD: price.PerTiBUSD, Price: price, Scope: scope}
	if usd, ok := price.FromBytes(r.Session.BytesBilled); ok {
		out.SessionCostUSD = usd
		out.TodayCostUSD, _ = price.FromBytes(r.Today.BytesBilled)
	} else {
		out.Note = "Editions billing: the costs here are 0, since this ledger counts bytes, not slot time; each job's answer (execute_sql, get_job) gives its costUSD."
	}
	return out, nil
}
