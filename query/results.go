package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
	"github.com/bigquery-mcp/bigquery-mcp/rows"
)

// GetResultsInput is get_query_results' input.
type GetResultsInput struct {
	JobID       string `json:"jobId" jsonschema:"jobId from execute_sql."`
	Location    string `json:"location,omitempty" jsonschema:"location from execute_sql."`
	StartIndex  uint64 `json:"startIndex,omitempty" jsonschema:"From nextStartIndex."`
	MaxRows     int    `json:"maxRows,omitempty" jsonschema:"Default 100."`
	Format      string `json:"format,omitempty" jsonschema:"compact (default) or objects."`
	WaitSeconds int    `json:"waitSeconds,omitempty" jsonschema:"Seconds to wait (default 45)."`
}

// GetResults reads a page of a query's results, waiting for the job first
// when it is still running. One getQueryResults request both waits and
// returns the rows. Waiting never cancels the job: the caller only asked
// to read it.
func (s *Service) GetResults(ctx context.Context, in GetResultsInput) (*ExecuteOutput, error) {
	start := time.Now()
	ref, err := job.ParseRef(in.JobID, in.Location)
	if err != nil {
		return nil, err
	}
	maxRows := s.cfg.DefaultMaxRows
	switch {
	case in.MaxRows < 0 || in.MaxRows > s.cfg.MaxRows:
		return nil, bqerr.Invalid(fmt.Sprintf("maxRows must be between 1 and %d", s.cfg.MaxRows), "Ask for fewer rows per page.")
	case in.MaxRows > 0:
		maxRows = in.MaxRows
	}
	format, err := rows.ParseFormat(in.Format)
	if err != nil {
		return nil, bqerr.Invalid(err.Error(), "Use format compact (default) or objects.")
	}
	wait, err := s.waitFor(in.WaitSeconds)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, wait+s.cfg.QueryTimeout)
	defer cancel()
	acc, ref, err := s.jobs.Check(ctx, ref)
	if err != nil {
		return nil, err
	}
	until := start.Add(wait)
	p, err := s.jobs.FirstResults(ctx, ref, in.StartIndex, maxRows, until)
	if err == nil {
		p, err = s.jobs.Await(ctx, resilience.Query, p, in.StartIndex, maxRows, start, until)
	}
	if err != nil {
		if s.jobs.Unsettled(acc) {
			// A job that failed has ended: settle what it billed.
			s.jobs.SettleFromJob(ctx, ref, acc.Charge())
		}
		return nil, acc.Withheld(bqerr.From(err).WithJobID(ref.ID))
	}
	out := &ExecuteOutput{JobID: ref.ID, Location: p.Job.Location}
	if !p.Complete {
		s.stillRunning(ctx, p.Job, start, out)
		out.Rows, out.Schema = []json.RawMessage{}, []bqtype.Column{}
		out.DurationMs = time.Since(start).Milliseconds()
		return out, nil
	}
	if s.jobs.Unsettled(acc) {
		// The job outlived the call that started it and ends here:
		// getQueryResults has no bytes billed, so jobs.get settles it.
		if st, ok := s.jobs.SettleFromJob(ctx, p.Job, acc.Charge()); ok {
			p.BilledBy(st)
		}
	}
	out.JobComplete, out.State, out.Format = true, "DONE", format
	if err := s.collect(ctx, resilience.Query, p, in.StartIndex, maxRows, out); err != nil {
		return nil, acc.Withheld(bqerr.From(err).WithJobID(ref.ID))
	}
	s.addStats(out, p, "")
	s.cutHint(out)
	out.DurationMs = time.Since(start).Milliseconds()
	return out, nil
}

// collect reads the result into out: the rows of first (the page that came
// with the finished job, starting at row start), then further pages from
// getQueryResults while the rows.Page wants more, so one wide row cannot
// flood the agent's context (rows.Page.Fill says how rows are capped and
// cut).
//
// A failed page is retried under op's policy, from its own page token, so
// rows are never read twice. When pages keep failing after some rows
// arrived, those rows are returned marked incomplete, with where to resume,
// rather than thrown away.
func (s *Service) collect(ctx context.Context, op resilience.Operation, first *job.Page, start uint64, maxRows int, out *ExecuteOutput) error {
	schema, err := rows.SchemaFromREST(first.Schema)
	if err != nil {
		return bqerr.New(bqerr.Internal, "the result schema could not be read").WithCause(err)
	}
	out.Schema, out.TotalRows = bqtype.Columns(schema), first.TotalRows
	pg := rows.NewPage(out.Format, maxRows, s.cfg.MaxResultBytes)
	var fetchErr error
	err = pg.Fill(func(yield func(rows.Row, error) bool) {
		for p := first; ; {
			for _, tr := range p.Rows {
				vals, err := rows.ValuesFromREST(schema, tr)
				if err != nil {
					yield(rows.Row{}, bqerr.New(bqerr.Internal, "a result row could not be read").WithCause(err))
					return
				}
				if !yield(rows.Row{Schema: schema, Values: vals}, nil) {
					return
				}
			}
			if p.Token == "" || len(p.Rows) == 0 {
				return
			}
			if p, fetchErr = s.jobs.Results(ctx, op, p.Job, 0, p.Token, maxRows-pg.Len(), 0); fetchErr != nil {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	if fetchErr != nil {
		return s.partial(ctx, fetchErr, first.Job, start, pg, out)
	}
	s.put(out, pg.Result(start, out.TotalRows))
	return nil
}

// put copies a page's rows and what cut them into out.
func (s *Service) put(out *ExecuteOutput, r rows.Result) {
	out.Rows, out.RowCount, out.CutCells = r.Rows, r.RowCount, r.CutCells
	out.Truncated, out.TruncatedBy, out.NextStartIndex = r.Truncated, r.TruncatedBy, r.NextStartIndex
	out.Warning = strings.TrimSpace(out.Warning + " " + r.Warning)
}

// cutHint names the way to a cut result's every row, Config.WholeResult,
// with its job: only when the wiring set one, since a hint naming a tool
// the agent cannot call would mislead it, and nextStartIndex (with
// get_query_results, as the tool's description says) already tells it how
// to page on. A result without a job ID (none is expected: jobs.query is
// asked to create a job every time) gets none.
func (s *Service) cutHint(out *ExecuteOutput) {
	if s.cfg.WholeResult == nil || !out.Truncated || out.JobID == "" {
		return
	}
	out.Hint = strings.TrimSpace(out.Hint + " " + s.cfg.WholeResult(out.JobID, out.Location))
}

// partial turns a page that kept failing into an incomplete result when
// rows already arrived; with no rows, or when the client gave up, it is the
// call's error.
func (s *Service) partial(ctx context.Context, err error, ref job.Ref, start uint64, pg *rows.Page, out *ExecuteOutput) error {
	if pg.Len() == 0 || ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled) {
		return err
	}
	next := start + uint64(pg.Len())
	e := bqerr.From(err)
	out.Warning = fmt.Sprintf("Reading results failed after %d rows (%s: %s). These rows are correct but not all; call get_query_results with jobId %s and startIndex %d to continue.",
		pg.Len(), e.Code, e.Message, ref.ID, next)
	s.log.WarnContext(ctx, "partial results", "job_id", ref.ID, "rows", pg.Len(), "code", string(e.Code), "cause", bqerr.Redact(err.Error()))
	// Read as a whole result ending here: only cut values truncate it.
	s.put(out, pg.Result(start, next))
	out.Incomplete, out.NextStartIndex = true, next
	return nil
}
