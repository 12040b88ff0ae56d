package schema

import (
	"context"
	"strings"
	"testing"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
)

// A preview whose first row alone passes max-result-bytes cuts that row's
// largest value and says so the way execute_sql does: truncated by
// cellBytes, the cut cell listed, and a warning that points at cutCells.
func TestPreviewWarnsOfCutCells(t *testing.T) {
	fake := bqfake.New(t)
	fake.AddDataset("d", "EU")
	wide := table("wide")
	wide.Schema = &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "id", Type: "INTEGER"}, {Name: "body", Type: "STRING"}}}
	addTable(fake, "d", wide)
	fake.SetRows("d", "wide", &bq.TableRow{F: []*bq.TableCell{{V: "1"}, {V: strings.Repeat("x", 5000)}}})
	s := newTestService(t, fake, serviceOptions{project: "p"})
	s.cfg.MaxResultBytes = 1024

	p, err := s.Preview(context.Background(), PreviewInput{Table: "d.wide"})
	if err != nil {
		t.Fatal(err)
	}
	if p.RowCount != 1 || len(p.Rows[0]) > 1024 || !p.Truncated || p.TruncatedBy != "cellBytes" || p.NextStartIndex != 0 {
		t.Errorf("RowCount, row bytes, Truncated, TruncatedBy, NextStartIndex = %d, %d, %v, %q, %d; want 1, <= 1024, true, cellBytes, 0",
			p.RowCount, len(p.Rows[0]), p.Truncated, p.TruncatedBy, p.NextStartIndex)
	}
	if len(p.CutCells) != 1 || p.CutCells[0].Column != "body" || p.CutCells[0].Bytes != 5000 {
		t.Errorf("CutCells = %+v, want body of 5000 bytes", p.CutCells)
	}
	if !strings.Contains(p.Warning, "cutCells") || !strings.Contains(p.Warning, "1024 bytes") {
		t.Errorf("Warning = %q, want it to name the limit and point at cutCells", p.Warning)
	}
}
