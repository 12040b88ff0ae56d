package query

import (
	"context"
	"fmt"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/cost"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// Answer is the user's answer to a confirmation the server asked for.
type Answer int

// The answers. NotAsked means the call carries none: the first attempt.
const (
	NotAsked Answer = iota
	Accepted
	Declined
)

type answerKey struct{}

// WithAnswer returns ctx carrying the user's answer to this call's
// confirmation request (the MCP layer reads it from the client's reply).
func WithAnswer(ctx context.Context, a Answer) context.Context {
	return context.WithValue(ctx, answerKey{}, a)
}

func answerFrom(ctx context.Context) Answer {
	a, _ := ctx.Value(answerKey{}).(Answer)
	return a
}

// ConfirmationRequired is returned, before any job runs, for a query whose
// dry-run estimate is above --confirm-above-bytes when the user has not
// answered yet. The MCP layer asks the user (elicitation) and calls again
// with the answer; a client that cannot ask gets AsError.
type ConfirmationRequired struct {
	// Bytes is the dry run's estimate of bytes processed; CostUSD what
	// they cost at Price, the price of the location BigQuery planned the
	// query for (under editions billing 0: the cost is known only after
	// the run); Threshold the server's --confirm-above-bytes.
	Bytes     int64
	CostUSD   float64
	Price     cost.Price
	Threshold int64
	// Advice is what would read less (advice.go), as compact lines.
	Advice []string
}

func (c *ConfirmationRequired) Error() string { return c.Message() }

// Message is what the user is asked, with the cheapest change that would
// read less when there is advice.
func (c *ConfirmationRequired) Message() string {
	m := fmt.Sprintf("Run a BigQuery query that will process about %s (%s)? This server asks before any query above %s.",
		governance.FormatBytes(c.Bytes), c.costText(), governance.FormatBytes(c.Threshold))
	if len(c.Advice) > 0 {
		m += " To read less: " + c.Advice[0] + "."
	}
	return m
}

// costText is the estimate's cost and its price, as a person reads them:
// "about $0.01 at $6.25/TiB on demand in US [table 2026-11]".
func (c *ConfirmationRequired) costText() string {
	if c.Price.Billing == cost.Editions {
		return "its cost, from its slot time at " + c.Price.String() + ", is known only after it runs"
	}
	return fmt.Sprintf("about $%.2f at %s", c.CostUSD, c.Price)
}

// AsError is the RESOURCE_EXHAUSTED error for a client that cannot ask
// its user: never a silent run.
func (c *ConfirmationRequired) AsError() *bqerr.Error {
	return bqerr.Newf(bqerr.ResourceExhausted, "the query would process about %s (%s), above this server's confirmation threshold of %s, and this client cannot ask the user to confirm",
		governance.FormatBytes(c.Bytes), c.costText(), governance.FormatBytes(c.Threshold)).
		WithRetryable(false).
		WithHint("Read less (select only the needed columns, filter on the partition column) to get under the threshold, or use a client that supports MCP elicitation so the user can approve it.").
		WithAdvice(c.Advice)
}

// confirm asks for the user's approval of a query estimated to process
// bytes in location (where BigQuery planned it), when that is above the
// threshold.
func (s *Service) confirm(ctx context.Context, bytes int64, location string) error {
	if s.cfg.ConfirmAboveBytes <= 0 || bytes <= s.cfg.ConfirmAboveBytes {
		return nil
	}
	switch answerFrom(ctx) {
	case Accepted:
		return nil
	case Declined:
		return bqerr.New(bqerr.PermissionDenied, "the user declined to run this query").
			WithRetryable(false).
			WithHint("Do not run it again as is. Ask the user what they want, or narrow the query so it reads less.")
	}
	price := s.price(location)
	usd, _ := price.FromBytes(bytes)
	return &ConfirmationRequired{Bytes: bytes, CostUSD: usd, Price: price, Threshold: s.cfg.ConfirmAboveBytes}
}
