package query

import (
	"context"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// UsageInput is the usage tool's input (none).
type UsageInput struct{}

// UsageOutput is what the caller's queries cost on this server instance.
type UsageOutput struct {
	governance.Report
	// SessionCostUSD and TodayCostUSD price the bytes billed on demand.
	SessionCostUSD float64 `json:"sessionCostUSD"`
	TodayCostUSD   float64 `json:"todayCostUSD"`
	PricePerTiBUSD float64 `json:"pricePerTiBUSD"`
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
	return &UsageOutput{
		Report:         r,
		SessionCostUSD: Cost(r.Session.BytesBilled, s.cfg.PricePerTiB),
		TodayCostUSD:   Cost(r.Today.BytesBilled, s.cfg.PricePerTiB),
		PricePerTiBUSD: s.cfg.PricePerTiB,
		Scope:          scope,
	}, nil
}
