package query

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestExecuteCutsAnOversizedFirstRow: through the real client, a first row
// with two strings each larger than max-result-bytes no longer comes back
// whole and untruncated; the payload stays near max-result-bytes and says
// what was cut.
func TestExecuteCutsAnOversizedFirstRow(t *testing.T) {
	fake := newFakeBigQuery(t, func(int, int) bool { return false })
	// Cells eight times the limit, each row four times the encoder's
	// pooled buffer (rows.encMaxPooledBuf); small, for the race detector.
	fake.wide = strings.Repeat("w", 128<<10)
	s := newPartialService(t, fake, func(c *Config) { c.MaxResultBytes = 16 << 10 })

	out, err := s.Execute(context.Background(), ExecuteInput{SQL: "SELECT n, body, title FROM t", MaxRows: 10, Format: "objects"})
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if out.RowCount != 1 || !out.Truncated || out.TruncatedBy != "maxResultBytes" || out.NextStartIndex != 1 {
		t.Errorf("RowCount, Truncated, TruncatedBy, NextStartIndex = %d, %v, %q, %d; want 1, true, maxResultBytes, 1",
			out.RowCount, out.Truncated, out.TruncatedBy, out.NextStartIndex)
	}
	if len(out.CutCells) != 2 || out.CutCells[0].Column != "body" || out.CutCells[0].Bytes != len(fake.wide) || out.CutCells[1].Column != "title" {
		t.Errorf("CutCells = %+v, want body and title of %d bytes", out.CutCells, len(fake.wide))
	}
	if !strings.Contains(out.Warning, "cutCells") || !strings.Contains(out.Warning, "SUBSTR") {
		t.Errorf("Warning = %q, want it to point at cutCells and SUBSTR", out.Warning)
	}
	payload, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(payload) > s.cfg.MaxResultBytes+2048 {
		t.Errorf("payload is %d bytes, want near max-result-bytes (%d)", len(payload), s.cfg.MaxResultBytes)
	}
	t.Logf("payload %d bytes for max-result-bytes %d; cut cells %+v", len(payload), s.cfg.MaxResultBytes, out.CutCells)

	// The last row alone: every row is there, only its values were cut.
	last, err := s.GetResults(context.Background(), GetResultsInput{JobID: out.JobID, StartIndex: fakeRows - 1, Format: "objects"})
	if err != nil {
		t.Fatalf("GetResults: %v", err)
	}
	if last.RowCount != 1 || !last.Truncated || last.TruncatedBy != "cellBytes" || last.NextStartIndex != 0 || len(last.CutCells) != 2 {
		t.Errorf("last page: RowCount, Truncated, TruncatedBy, NextStartIndex, CutCells = %d, %v, %q, %d, %+v; want 1, true, cellBytes, 0, two cuts",
			last.RowCount, last.Truncated, last.TruncatedBy, last.NextStartIndex, last.CutCells)
	}
}

// TestCutResultNamesExport: when export_results is listed, a cut result's
// hint names it with the job's ID and location (execute_sql and
// get_query_results alike); a whole page says nothing of it, and neither
// does any result when the tool is not listed.
func TestCutResultNamesExport(t *testing.T) {
	fake := newFakeBigQuery(t, func(int, int) bool { return false })
	s := newPartialService(t, fake)
	ctx := context.Background()
	want := `export_results with jobId "` + partialJobID + `" and location "US"`

	cut, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM t", MaxRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !cut.Truncated || cut.Hint != "" {
		t.Errorf("not listed: truncated %v, hint %q; want a cut result without a hint", cut.Truncated, cut.Hint)
	}

	// Listed: what package export says (export.WholeResultHint).
	s = newPartialService(t, fake, func(c *Config) {
		c.WholeResult = func(id, loc string) string {
			return fmt.Sprintf("The whole result: export_results with jobId %q and location %q.", id, loc)
		}
	})
	cut, err = s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM t", MaxRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !cut.Truncated || !strings.Contains(cut.Hint, want) {
		t.Errorf("execute_sql: truncated %v, hint %q; want it to name %s", cut.Truncated, cut.Hint, want)
	}
	page, err := s.GetResults(ctx, GetResultsInput{JobID: cut.JobID, StartIndex: 2, MaxRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !page.Truncated || !strings.Contains(page.Hint, want) {
		t.Errorf("get_query_results: truncated %v, hint %q; want it to name %s", page.Truncated, page.Hint, want)
	}
	whole, err := s.GetResults(ctx, GetResultsInput{JobID: cut.JobID, StartIndex: 4})
	if err != nil {
		t.Fatal(err)
	}
	if whole.Truncated || whole.Hint != "" {
		t.Errorf("last page: truncated %v, hint %q; want neither", whole.Truncated, whole.Hint)
	}

	// Without a job ID there is nothing to export by.
	out := &ExecuteOutput{Truncated: true}
	s.cutHint(out)
	if out.Hint != "" {
		t.Errorf("no job ID: hint %q", out.Hint)
	}
}
