package query

import (
	"context"
	"time"

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
	// LastJobs are the caller's last settled jobs, newest first.
	LastJobs []UsageJob `json:"lastJobs,omitempty" jsonschema:"The caller's last jobs (at most 10, newest first, the last 24 hours), each priced at its own location."`
}

// UsageJob is one of the caller's last jobs, compact: the answer counts
// against the agent's context.
type UsageJob struct {
	// At is when the job ended (UTC, RFC 3339, seconds).
	At          string `json:"at"`
	Tool        string `json:"tool,omitempty"`
	Statement   string `json:"statement,omitempty"`
	BytesBilled int64  `json:"bytesBilled"`
	// CostUSD is absent when unknown (editions without slot time).
	CostUSD    *float64 `json:"costUSD,omitempty"`
	CacheHit   bool     `json:"cacheHit,omitempty"`
	DurationMs int64    `json:"durationMs"`
	JobID      string   `json:"jobId"`
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
	jobs, err := s.cfg.State.RecentJobs(ctx, p)
	if err != nil {
		return nil, bqerr.New(bqerr.Unavailable, "the server's job records could not be read").WithCause(err)
	}
	price := s.price(s.cfg.Location)
	out := &UsageOutput{Report: r, PricePerTiBUSD: price.PerTiBUSD, Price: price, Scope: scope}
	if usd, ok := price.FromBytes(r.Session.BytesBilled); ok {
		out.SessionCostUSD = usd
		out.TodayCostUSD, _ = price.FromBytes(r.Today.BytesBilled)
	} else {
		out.Note = "Editions billing: the costs here are 0, since this ledger counts bytes, not slot time; each job's answer (execute_sql, get_job) gives its costUSD."
	}
	out.LastJobs = s.usageJobs(jobs)
	return out, nil
}

// usageJobs lists jobs for usage, each priced at its own location.
func (s *Service) usageJobs(jobs []governance.FinishedJob) []UsageJob {
	out := make([]UsageJob, 0, len(jobs))
	for _, j := range jobs {
		usd, _ := s.jobCost(j.Location, j.BytesBilled, j.SlotMs, j.HaveSlotMs)
		out = append(out, UsageJob{
			At: j.Ended.UTC().Format(time.RFC3339), Tool: j.Tool, Statement: j.Statement,
			BytesBilled: j.BytesBilled, CostUSD: usd, CacheHit: j.CacheHit,
			DurationMs: j.Ended.Sub(j.Started).Milliseconds(), JobID: j.ID,
		})
	}
	return out
}
