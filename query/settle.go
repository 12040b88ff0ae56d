package query

// Budgets as reservations. A query holds its dry-run estimate in the
// caller's budget before its job starts (reserve, in preflight), so calls
// running at once cannot all pass one check; package job settles the hold
// to the job's bytes billed when any tool sees the job finish, or follows
// a job that outlives its call; release gives it back when no job started.

import (
	"context"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// reserve holds bytes of the caller's budget for r's job, once per
// request: preflight reserves the estimate when a budget needs one, and
// Execute reserves nothing (0 bytes) for a query it did not estimate, so
// that every job is charged through one reservation.
func (s *Service) reserve(ctx context.Context, r *request, bytes int64) error {
	if r.charge.Reservation != "" {
		return nil
	}
	id, err := s.cfg.State.Reserve(ctx, auth.CallerFrom(ctx).Principal, bytes)
	if err != nil {
		return bqerr.From(err).WithQuery(r.sql)
	}
	r.charge.Reservation, r.charge.Estimate = id, bytes
	return nil
}

// release gives back r's hold when its job never started.
func (s *Service) release(ctx context.Context, r *request) {
	if r.charge.Reservation == "" {
		return
	}
	if err := s.cfg.State.Release(context.WithoutCancel(ctx), r.charge.Reservation); err != nil {
		s.log.WarnContext(ctx, "budget reservation not released", "error", bqerr.Redact(err.Error()))
	}
	r.charge.Reservation = ""
}
