package query

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/iterator"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// GetResultsInput is get_query_results' input.
type GetResultsInput struct {
	JobID      string `json:"jobId" jsonschema:"The jobId returned by execute_sql."`
	Location   string `json:"location,omitempty" jsonschema:"The job's location, as returned by execute_sql."`
	StartIndex uint64 `json:"startIndex,omitempty" jsonschema:"Zero-based row to start from (nextStartIndex of the previous result)."`
	MaxRows    int    `json:"maxRows,omitempty" jsonschema:"Maximum rows to return (default 100)."`
}

// GetResults reads a page of a finished query's results.
func (s *Service) GetResults(ctx context.Context, in GetResultsInput) (*ExecuteOutput, error) {
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
	ctx, cancel := context.WithTimeout(ctx, s.cfg.QueryTimeout)
	defer cancel()
	job, status, err := s.job(ctx, id, loc)
	if err != nil {
		return nil, err
	}
	if status.State != bigquery.Done {
		return nil, bqerr.Newf(bqerr.InvalidArgument, "job %s has not finished (state %s)", id, stateName(status.State)).
			WithHint("Wait and call get_query_results again, or check it with get_job.").WithJobID(id)
	}
	if err := status.Err(); err != nil {
		return nil, bqerr.From(err).WithJobID(id)
	}
	out := &ExecuteOutput{JobID: id, Location: job.Location()}
	addStats(out, status)
	if err := s.readRows(ctx, resilience.Query, job, in.StartIndex, maxRows, out); err != nil {
		return nil, bqerr.From(err).WithJobID(id)
	}
	return out, nil
}

// readRows reads up to maxRows rows from start under op's policy, and stops
// early when the encoded rows would pass the server's byte cap, so one wide
// row cannot flood the agent's context. A first row that alone passes the
// cap has its largest values cut (fitRow), and the result says so.
//
// Each retry resumes after the last row read, so rows are never read twice.
// When pages keep failing after some rows arrived, those rows are returned
// marked incomplete, with where to resume, rather than thrown away.
func (s *Service) readRows(ctx context.Context, op resilience.Operation, job *bigquery.Job, start uint64, maxRows int, out *ExecuteOutput) error {
	out.Rows = []json.RawMessage{}
	size := 0
	var (
		rowSchema bigquery.Schema
		total     uint64
		byteCut   bool
	)
	err := s.exec.Do(ctx, op, s.cfg.Project, func(ctx context.Context) error {
		it, err := job.Read(ctx)
		if err != nil {
			return err
		}
		it.StartIndex = start + uint64(len(out.Rows))
		it.PageInfo().MaxSize = min(maxRows-len(out.Rows)+1, 10000)
		var row []bigquery.Value
		for len(out.Rows) < maxRows {
			err := it.Next(&row)
			if errors.Is(err, iterator.Done) {
				break
			}
			if err != nil {
				return err
			}
			rowSchema, total = it.Schema, it.TotalRows
			enc, err := EncodeRow(it.Schema, row)
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
				if enc, out.CutCells, err = fitRow(it.Schema, row, s.cfg.MaxResultBytes-1, 0); err != nil {
					return bqerr.New(bqerr.Internal, "a result row could not be encoded").WithCause(err)
				}
			}
			size += len(enc) + 1
			out.Rows = append(out.Rows, enc)
		}
		rowSchema, total = it.Schema, it.TotalRows
		return nil
	})
	out.RowCount = len(out.Rows)
	next := start + uint64(out.RowCount)
	if err != nil {
		if out.RowCount == 0 || ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled) {
			return err
		}
		e := bqerr.From(err)
		out.Schema, out.TotalRows = bqtype.Columns(rowSchema), total
		out.Incomplete = true
		out.NextStartIndex = next
		out.Warning = fmt.Sprintf("Reading results failed after %d rows (%s: %s). These rows are correct but not all; call get_query_results with jobId %s and startIndex %d to continue.",
			out.RowCount, e.Code, e.Message, job.ID(), next)
		s.log.WarnContext(ctx, "partial results", "job_id", job.ID(), "rows", out.RowCount, "code", string(e.Code), "cause", bqerr.Redact(err.Error()))
		s.noteCuts(out)
		return nil
	}
	out.Schema = bqtype.Columns(rowSchema)
	out.TotalRows = total
	if next < out.TotalRows {
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
