package schema

// preview_table: a table's first rows through tabledata.list, which scans
// nothing and bills nothing, unlike SELECT * LIMIT n (a full scan of the
// columns selected, billed on demand).

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
	"github.com/bigquery-mcp/bigquery-mcp/rows"
)

// PreviewInput is preview_table's input.
type PreviewInput struct {
	Table      string   `json:"table" jsonschema:"[project.]dataset.table"`
	Columns    []string `json:"columns,omitempty" jsonschema:"Names or patterns."`
	MaxRows    int      `json:"maxRows,omitempty" jsonschema:"Default 100."`
	StartIndex uint64   `json:"startIndex,omitempty" jsonschema:"From nextStartIndex."`
	Format     string   `json:"format,omitempty" jsonschema:"compact (default) or objects."`
}

// PreviewOutput is preview_table's result.
type PreviewOutput struct {
	Table  string          `json:"table"`
	Schema []bqtype.Column `json:"schema"`
	// Rows are arrays in schema order (format compact) or objects.
	Rows      []json.RawMessage `json:"rows"`
	RowCount  int               `json:"rowCount"`
	TotalRows uint64            `json:"totalRows"`
	// Truncated is true when rows were left out: TruncatedBy says whether
	// maxRows or the byte cap stopped it, NextStartIndex where to go on.
	Truncated      bool   `json:"truncated"`
	TruncatedBy    string `json:"truncatedBy,omitempty"`
	NextStartIndex uint64 `json:"nextStartIndex,omitempty"`
	// CutCells lists the first row's values shortened because that row
	// alone passed the byte cap (TruncatedBy cellBytes when nothing else
	// was cut).
	CutCells []rows.CutCell `json:"cutCells,omitempty"`
	// Warning says what was cut and how to read it whole, as execute_sql's
	// does.
	Warning string `json:"warning,omitempty"`
}

// Preview reads a table's rows from startIndex with tabledata.list: free,
// and capped by rows and bytes like a query result (rows.Page).
func (s *Service) Preview(ctx context.Context, in PreviewInput) (*PreviewOutput, error) {
	format, err := rows.ParseFormat(in.Format)
	if err != nil {
		return nil, bqerr.Invalid(err.Error(), "Use format compact (default) or objects.")
	}
	maxRows := s.cfg.DefaultMaxRows
	switch {
	case in.MaxRows < 0 || in.MaxRows > s.cfg.MaxRows:
		return nil, bqerr.Invalid(fmt.Sprintf("maxRows must be between 1 and %d", s.cfg.MaxRows), "Ask for fewer rows, and page with startIndex.")
	case in.MaxRows > 0:
		maxRows = in.MaxRows
	}
	full, err := s.fullSchema(ctx, in.Table)
	if err != nil {
		return nil, err
	}
	ref, _ := bqtype.ParseTableRef(full.Table)
	pick, cols, err := selectColumns(full.Columns, in.Columns)
	if err != nil {
		return nil, err
	}
	out := &PreviewOutput{Table: full.Table, Schema: cols}
	pg := rows.NewPage(format, maxRows, s.cfg.MaxResultBytes)
	// A retried attempt goes on from the rows already in the page.
	err = s.exec.Do(ctx, resilience.Metadata, ref.Project, func(ctx context.Context) error {
		it := s.client.DatasetInProject(ref.Project, ref.Dataset).Table(ref.Table).Read(ctx)
		it.StartIndex = in.StartIndex + uint64(pg.Len())
		it.PageInfo().MaxSize = min(maxRows-pg.Len()+1, 10000)
		err := pg.Fill(func(yield func(rows.Row, error) bool) {
			for {
				var row []bigquery.Value
				err := it.Next(&row)
				if errors.Is(err, iterator.Done) {
					return
				}
				if err != nil {
					yield(rows.Row{}, err)
					return
				}
				sch, vals := project(it.Schema, row, pick)
				if !yield(rows.Row{Schema: sch, Values: vals}, nil) {
					return
				}
			}
		})
		out.TotalRows = it.TotalRows
		return err
	})
	if err != nil {
		return nil, bqerr.From(err)
	}
	r := pg.Result(in.StartIndex, out.TotalRows)
	out.Rows, out.RowCount, out.CutCells, out.Warning = r.Rows, r.RowCount, r.CutCells, r.Warning
	out.Truncated, out.TruncatedBy, out.NextStartIndex = r.Truncated, r.TruncatedBy, r.NextStartIndex
	return out, nil
}

// selectColumns returns the indexes of the named top-level columns in
// table order (nil: all) and their schema.
func selectColumns(all []bqtype.Column, names []string) ([]int, []bqtype.Column, error) {
	if len(names) == 0 {
		return nil, all, nil
	}
	var pick []int
	var cols []bqtype.Column
	for i, c := range all {
		if matchColumn(c.Name, names) {
			pick = append(pick, i)
			cols = append(cols, c)
		}
	}
	if len(pick) == 0 {
		return nil, nil, bqerr.Invalid("no column matches columns: "+bqerr.Truncate(strings.Join(names, ", "), 200),
			"Check the names with get_table_schema, or leave columns out for all of them.")
	}
	return pick, cols, nil
}

// project keeps the picked columns of a row and its schema.
func project(sch bigquery.Schema, row []bigquery.Value, pick []int) (bigquery.Schema, []bigquery.Value) {
	if pick == nil {
		return sch, row
	}
	ps, pr := make(bigquery.Schema, 0, len(pick)), make([]bigquery.Value, 0, len(pick))
	for _, i := range pick {
		if i < len(sch) {
			ps = append(ps, sch[i])
		}
		if i < len(row) {
			pr = append(pr, row[i])
		}
	}
	return ps, pr
}
