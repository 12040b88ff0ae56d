package query

import (
	"context"
	"fmt"
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
	// SessionCostUSD and TodayCostUSD are what the session's and the day's
	// jobs cost, each at its own price as its own answer gives it (its
	// location's on-demand price, or its slot time under editions), to the
	// millionth of a dollar, summed by the ledger as each job settles: the
	// dollar budget's own figures, so that with --max-usd-per-day today's
	// cost + reservedUSD + leftUSD is dayLimitUSD (unless the spend passed
	// it). Running queries are not in them until they end. A job whose cost
	// is unknown (editions without its slot time) is left out, and Note
	// says how many were.
	SessionCostUSD float64 `json:"sessionCostUSD" jsonschema:"What this session's jobs cost, each at its own price (as its own answer gives it), summed as each settled; running queries are not in it. Jobs of unknown cost are left out: note says how many."`
	TodayCostUSD   float64 `json:"todayCostUSD" jsonschema:"The same for the UTC day's jobs: with a dollar budget, todayCostUSD + reservedUSD + leftUSD = dayLimitUSD."`
	// PricePerTiBUSD and Price are the price of the server's --location:
	// what an estimate is held at, and a charge that names no job
	// (search_columns' lookups, advice); 0 under editions.
	PricePerTiBUSD float64    `json:"pricePerTiBUSD"`
	Price          cost.Price `json:"price" jsonschema:"The price at the server's --location (location absent when it has none): what estimates are held at; each job is priced at its own location (lastJobs). billing, perTiBUSD or slotHourUSD, source."`
	// Note says what the costs leave out, when anything is.
	Note string `json:"note,omitempty"`
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
	out := &UsageOutput{Report: r, PricePerTiBUSD: price.PerTiBUSD, Price: price, Scope: scope,
		SessionCostUSD: microToUSD(r.Session.MicroUSD), TodayCostUSD: microToUSD(r.Today.MicroUSD),
		Note: usageNote(price, r)}
	out.LastJobs = s.usageJobs(jobs)
	return out, nil
}

// microToUSD is millionths of a dollar in dollars.
func microToUSD(micro int64) float64 { return float64(micro) / 1e6 }

// usageNote says what usage's costs leave out: the jobs whose cost is
// unknown, or under editions that each job is priced by its slot time;
// "" when nothing needs saying.
func usageNote(p cost.Price, r governance.Report) string {
	if n := r.Session.Unpriced; n > 0 {
		why := ""
		if p.Billing == cost.Editions {
			why = " (editions billing: BigQuery gave no slot time for them)"
		}
		return fmt.Sprintf("%d of this session's jobs (%d today) are not in the costs: their cost is unknown%s.", n, r.Today.Unpriced, why)
	}
	if p.Billing == cost.Editions {
		return fmt.Sprintf("Editions billing: each job is priced by its slot time at $%v/slot-hour, once it ends.", p.SlotHourUSD)
	}
	return ""
}

// usageJobs lists jobs for usage, each priced at its own location.
func (s *Service) usageJobs(jobs []governance.FinishedJob) []UsageJob {
	out := make([]UsageJob, 0, len(jobs))
	for _, j := range jobs {
		usd, _ := s.jobCost(j.Location, j.BytesBilled, j.SlotMs, slotTimeKnown(j.SlotMs, j.HaveSlotMs, j.CacheHit))
		out = append(out, UsageJob{
			At: j.Ended.UTC().Format(time.RFC3339), Tool: j.Tool, Statement: j.Statement,
			BytesBilled: j.BytesBilled, CostUSD: usd, CacheHit: j.CacheHit,
			DurationMs: j.Ended.Sub(j.Started).Milliseconds(), JobID: j.ID,
		})
	}
	return out
}
