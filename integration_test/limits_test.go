package integration_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/query"
)

// TestFirstRowPassingTheByteCapIsCut: a single row larger than
// max-result-bytes comes back with its large values cut to fit, says so in
// truncated/truncatedBy/cutCells, and the tool result stays near the cap.
func TestFirstRowPassingTheByteCapIsCut(t *testing.T) {
	cfg := testConfig()
	cfg.MaxResultBytes = 4096
	cs := connect(t, cfg, "")
	out := ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": "SELECT 7 AS id, REPEAT('x', 20000) AS body, REPEAT('y', 20000) AS title", "format": "objects"})
	raw, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if out.RowCount != 1 || !out.Truncated || out.TruncatedBy != "cellBytes" {
		t.Errorf("RowCount, Truncated, TruncatedBy = %d, %v, %q; want 1, true, cellBytes", out.RowCount, out.Truncated, out.TruncatedBy)
	}
	if len(out.CutCells) != 2 || out.CutCells[0].Column != "body" || out.CutCells[0].Bytes != 20000 || out.CutCells[1].Column != "title" {
		t.Fatalf("cutCells = %+v, want body and title of 20000 bytes", out.CutCells)
	}
	var row map[string]any
	if err := json.Unmarshal(out.Rows[0], &row); err != nil {
		t.Fatal(err)
	}
	body, _ := row["body"].(string)
	if row["id"] != 7.0 || len(body) != out.CutCells[0].KeptBytes || body != strings.Repeat("x", len(body)) || len(body) == 0 {
		t.Errorf("row = id %v, body of %d bytes (cutCells says %d kept)", row["id"], len(body), out.CutCells[0].KeptBytes)
	}
	if n := len(raw); n > cfg.MaxResultBytes+2048 {
		t.Errorf("result is %d bytes, want near max-result-bytes %d", n, cfg.MaxResultBytes)
	}
	t.Logf("result %d bytes for max-result-bytes %d; cutCells %+v", len(raw), cfg.MaxResultBytes, out.CutCells)
}

// TestCraftedJobIDsNeverReachBigQuery: job IDs and locations outside
// BigQuery's character set are INVALID_ARGUMENT, and no request is sent.
func TestCraftedJobIDsNeverReachBigQuery(t *testing.T) {
	rec := &recorder{base: httpDefault()}
	cfg := testConfig()
	cfg.Transport = rec
	cs := connect(t, cfg, "")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_job", map[string]any{"jobId": "../../datasets/sales"}},
		{"cancel_job", map[string]any{"jobId": "../../datasets/sales"}},
		{"get_query_results", map[string]any{"jobId": "x/../../../datasets"}},
		{"get_job", map[string]any{"jobId": "bqmcp_ok", "location": "../US"}},
		{"list_tables", map[string]any{"dataset": "shop", "project": "../other"}},
	} {
		if e := fails(t, cs, c.tool, c.args); e.Code != bqerr.InvalidArgument {
			t.Errorf("%s %v: code %s, want INVALID_ARGUMENT", c.tool, c.args, e.Code)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.reqs) != 0 {
		t.Errorf("requests reached BigQuery: %v", rec.reqs)
	}
}
