package rows

import (
	"errors"
	"iter"
	"strings"
	"testing"

	"cloud.google.com/go/bigquery"
)

var pageSchema = bigquery.Schema{{Name: "n", Type: bigquery.IntegerFieldType}, {Name: "s", Type: bigquery.StringFieldType}}

// source yields rows n = from, from+1, … with a string of width bytes, and
// fails with err after failAfter rows when err is set. It counts the rows
// it was asked for, so a test sees that Fill stops pulling once full.
func source(from, n, width int, failAfter int, err error, pulled *int) iter.Seq2[Row, error] {
	return func(yield func(Row, error) bool) {
		for i := range n {
			if err != nil && i == failAfter {
				yield(Row{}, err)
				return
			}
			*pulled++
			if !yield(Row{Schema: pageSchema, Values: []bigquery.Value{int64(from + i), strings.Repeat("x", width)}}, nil) {
				return
			}
		}
	}
}

func TestPageStopsAtMaxRows(t *testing.T) {
	p, pulled := NewPage(FormatCompact, 3, 1<<20), 0
	if err := p.Fill(source(0, 10, 1, 0, nil, &pulled)); err != nil {
		t.Fatal(err)
	}
	r := p.Result(5, 15)
	if pulled != 3 || r.RowCount != 3 || string(r.Rows[2]) != `[2,"x"]` {
		t.Errorf("pulled %d, rows %s", pulled, r.Rows)
	}
	if !r.Truncated || r.TruncatedBy != "maxRows" || r.NextStartIndex != 8 || r.Warning != "" || r.CutCells != nil {
		t.Errorf("result = %+v, want truncated by maxRows at 8 with no warning", r)
	}
}

// A row that would pass the byte cap is left for the next page; a page
// that holds every row left is not truncated, and an empty one is [].
func TestPageStopsAtMaxResultBytes(t *testing.T) {
	p, pulled := NewPage(FormatCompact, 100, 100), 0
	if err := p.Fill(source(0, 10, 30, 0, nil, &pulled)); err != nil {
		t.Fatal(err)
	}
	r := p.Result(0, 10)
	size := 0
	for _, row := range r.Rows {
		size += len(row) + 1
	}
	if r.RowCount != 2 || size > 100 || r.TruncatedBy != "maxResultBytes" || r.NextStartIndex != 2 {
		t.Errorf("rows %s (%d bytes), result %+v; want 2 rows within 100 bytes, truncated by maxResultBytes", r.Rows, size, r)
	}
	if r := NewPage(FormatObjects, 10, 100).Result(0, 0); r.Rows == nil || r.Truncated {
		t.Errorf("empty page = %+v, want non-nil rows, not truncated", r)
	}
}

// A first row alone over the cap is cut, reported and warned about; the
// page then holds nothing more.
func TestPageCutsAnOversizedFirstRow(t *testing.T) {
	p, pulled := NewPage(FormatObjects, 10, 1024), 0
	if err := p.Fill(source(0, 3, 4000, 0, nil, &pulled)); err != nil {
		t.Fatal(err)
	}
	r := p.Result(0, 1)
	if r.RowCount != 1 || len(r.Rows[0]) > 1023 || !r.Truncated || r.TruncatedBy != "cellBytes" {
		t.Errorf("result = %d rows of %d bytes, truncated %v by %q", r.RowCount, len(r.Rows[0]), r.Truncated, r.TruncatedBy)
	}
	if len(r.CutCells) != 1 || r.CutCells[0].Column != "s" || r.CutCells[0].Bytes != 4000 {
		t.Errorf("CutCells = %+v", r.CutCells)
	}
	if !strings.Contains(r.Warning, "limit of 1024 bytes") || !strings.Contains(r.Warning, "column s") || !strings.Contains(r.Warning, "SUBSTR") {
		t.Errorf("Warning = %q", r.Warning)
	}
}

// The source's error comes back as it is, the rows before it stay, and a
// second Fill (a retry) goes on from them.
func TestPageFillErrorKeepsRows(t *testing.T) {
	boom := errors.New("boom")
	p, pulled := NewPage(FormatCompact, 5, 1<<20), 0
	if err := p.Fill(source(0, 10, 1, 2, boom, &pulled)); !errors.Is(err, boom) {
		t.Fatalf("Fill = %v, want boom", err)
	}
	if p.Len() != 2 {
		t.Fatalf("Len = %d after the error, want 2", p.Len())
	}
	if err := p.Fill(source(p.Len(), 10, 1, 0, nil, &pulled)); err != nil {
		t.Fatal(err)
	}
	r := p.Result(0, 10)
	if r.RowCount != 5 || string(r.Rows[2]) != `[2,"x"]` || r.NextStartIndex != 5 {
		t.Errorf("rows %s, next %d", r.Rows, r.NextStartIndex)
	}
}

func TestCapsWithDefaults(t *testing.T) {
	if got := (Caps{MaxRows: 50}).WithDefaults(); got != (Caps{DefaultMaxRows: 100, MaxRows: 50, MaxResultBytes: 256 << 10}) {
		t.Errorf("WithDefaults = %+v", got)
	}
}
