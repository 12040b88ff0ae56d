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
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
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
	id, loc, err := s.jobRef(in.JobID, in.Location)
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
	format, err := ParseFormat(in.Format)
	if err != nil {
		return nil, bqerr.Invalid(err.Error(), "Use format compact (default) or objects.")
	}
	wait, err := s.waitFor(in.WaitSeconds)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, wait+s.cfg.QueryTimeout)
	defer cancel()
	acc, err := s.checkOwner(ctx, id)
	if err != nil {
		return nil, err
	}
	job := jobHandle{id: id, location: acc.location(s, id, loc)}
	until := start.Add(wait)
	p, err := s.firstResults(ctx, job, in.StartIndex, maxRows, until)
	if err == nil {
		p, err = s.await(ctx, resilience.Query, p, in.StartIndex, maxRows, start, until)
	}
	if err != nil {
		if acc.recorded && s.follower.has(id) {
			// A job that failed has ended: settle what it billed.
			s.settleFromJob(ctx, job, acc.rec.Reservation, 0)
		}
		return nil, s.withheld(acc, bqerr.From(err).WithJobID(id))
	}
	out := &ExecuteOutput{JobID: id, Location: p.job.location}
	if !p.complete {
		s.stillRunning(ctx, p.job, start, out)
		out.Rows, out.Schema = []json.RawMessage{}, []bqtype.Column{}
		out.DurationMs = time.Since(start).Milliseconds()
		return out, nil
	}
	if acc.recorded && s.follower.has(id) {
		// The job outlived the call that started it and ends here:
		// getQueryResults has no bytes billed, so jobs.get settles it.
		if billed, ok := s.settleFromJob(ctx, p.job, acc.rec.Reservation, 0); ok {
			p.bytesBilled = billed
		}
	}
	out.JobComplete, out.State, out.Format = true, "DONE", format
	if err := s.collect(ctx, resilience.Query, p, in.StartIndex, maxRows, out); err != nil {
		return nil, s.withheld(acc, bqerr.From(err).WithJobID(id))
	}
	addStats(out, p, "")
	out.DurationMs = time.Since(start).Milliseconds()
	return out, nil
}

// collect encodes the rows of first (the page that came with the finished
// job, starting at row start), then reads further pages with
// getQueryResults only while fewer than maxRows rows are in hand and the
// byte cap leaves room. It stops early when the encoded rows would pass the
// server's byte cap, so one wide row cannot flood the agent's context; a
// first row that alone passes the cap has its largest values cut (FitRow),
// and the result says so.
//
// A failed page is retried under op's policy, from its own page token, so
// rows are never read twice. When pages keep failing after some rows
// arrived, those rows are returned marked incomplete, with where to resume,
// rather than thrown away.
func (s *Service) collect(ctx context.Context, op resilience.Operation, first *page, start uint64, maxRows int, out *ExecuteOutput) error {
	out.Rows = []json.RawMessage{}
	schema, err := schemaOf(first.schema)
	if err != nil {
		return bqerr.New(bqerr.Internal, "the result schema could not be read").WithCause(err)
	}
	out.Schema, out.TotalRows = bqtype.Columns(schema), first.totalRows
	size, byteCut := 0, false
	p := first
	for {
		for _, tr := range p.rows {
			if len(out.Rows) >= maxRows {
				break
			}
			row, err := rowValues(schema, tr)
			if err != nil {
				return bqerr.New(bqerr.Internal, "a result row could not be read").WithCause(err)
			}
			enc, err := EncodeRowAs(schema, row, out.Format)
			if err != nil {
				return bqerr.New(bqerr.Internal, "a result row could not be encoded").WithCause(err)
			}
			if size+len(enc)+1 > s.cfg.MaxResultBytes {
				if len(out.Rows) > 0 {
					byteCut = true
					break
				}
				// The row alone passes the cap and no later page can
				// hold it: cut its largest values instead.
				if enc, out.CutCells, err = FitRow(schema, row, s.cfg.MaxResultBytes-1, 0, out.Format); err != nil {
					return bqerr.New(bqerr.Internal, "a result row could not be encoded").WithCause(err)
				}
			}
			size += len(enc) + 1
			out.Rows = append(out.Rows, enc)
		}
		if byteCut || len(out.Rows) >= maxRows || p.token == "" || len(p.rows) == 0 {
			break
		}
		next, err := s.results(ctx, op, p.job, 0, p.token, maxRows-len(out.Rows), 0)
		if err != nil {
			return s.partial(ctx, err, first.job, start, out)
		}
		p = next
	}
	out.RowCount = len(out.Rows)
	if next := start + uint64(out.RowCount); next < out.TotalRows {
		out.Truncated = true
		out.NextStartIndex = next
		out.TruncatedBy = "maxRows"
		if byteCut {
			out.TruncatedBy = "maxResultBytes"
		}
	}
	s.noteCuts(out)
	return nil
}

// partial turns a page that kept failing into an incomplete result when
// rows already arrived; with no rows, or when the client gave up, it is the
// call's error.
func (s *Service) partial(ctx context.Context, err error, job jobHandle, start uint64, out *ExecuteOutput) error {
	out.RowCount = len(out.Rows)
	if out.RowCount == 0 || ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled) {
		return err
	}
	next := start + uint64(out.RowCount)
	e := bqerr.From(err)
	out.Incomplete = true
	out.NextStartIndex = next
	out.Warning = fmt.Sprintf("Reading results failed after %d rows (%s: %s). These rows are correct but not all; call get_query_results with jobId %s and startIndex %d to continue.",
		out.RowCount, e.Code, e.Message, job.id, next)
	s.log.WarnContext(ctx, "partial results", "job_id", job.id, "rows", out.RowCount, "code", string(e.Code), "cause", bqerr.Redact(err.Error()))
	s.noteCuts(out)
	return nil
}

// noteCuts marks a result whose values were shortened, and tells the agent
// how to read them whole.
func (s *Service) noteCuts(out *ExecuteOutput) {
	if len(out.CutCells) == 0 {
		return
	}
	out.Truncated = true
	if out.TruncatedBy == "" {
		out.TruncatedBy = "cellBytes"
	}
	c := out.CutCells[0]
	out.Warning = strings.TrimSpace(out.Warning + fmt.Sprintf(" The first row passed the server's limit of %d bytes per result, so %d value(s) were shortened (column %s: %d of %d bytes kept); cutCells lists them. Select part of a long value with SUBSTR, or fewer columns, to read the rest.",
		s.cfg.MaxResultBytes, len(out.CutCells), c.Column, c.KeptBytes, c.Bytes))
}
