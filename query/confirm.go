package query

import (
	"context"
	"fmt"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
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
	// Bytes is the dry run's estimate of bytes processed; CostUSD its
	// on-demand price; Threshold the server's --confirm-above-bytes.
	Bytes     int64
	CostUSD   float64
	Threshold int64
}

func (c *ConfirmationRequired) Error() string { return c.Message() }

// Message is what the user is asked.
func (c *ConfirmationRequired) Message() string {
	return fmt.Sprintf("Run a BigQuery query that will process about %s (about $%.2f on demand)? This server asks before any query above %s.",
		governance.FormatBytes(c.Bytes), c.CostUSD, governance.FormatBytes(c.Threshold))
}

// AsError is the RESOURCE_EXHAUSTED error for a client that cannot ask
// its user: never a silent run.
func (c *ConfirmationRequired) AsError() *bqerr.Error {
	return bqerr.Newf(bqerr.ResourceExhausted, "the query would process about %s (about $%.2f), above this server's confirmation threshold of %s, and this client cannot ask the user to confirm",
		governance.FormatBytes(c.Bytes), c.CostUSD, governance.FormatBytes(c.Threshold)).
		WithRetryable(false).
		WithHint("Read less (select only the needed columns, filter on the partition column) to get under the threshold, or use a client that supports MCP elicitation so the user can approve it.")
}

// confirm asks for the user's approval of a query estimated to process
// bytes, when that is above the threshold.
func (s *Service) confirm(ctx context.Context, bytes int64) error {
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
	return &ConfirmationRequired{Bytes: bytes, CostUSD: Cost(bytes, s.cfg.PricePerTiB), Threshold: s.cfg.ConfirmAboveBytes}
}
