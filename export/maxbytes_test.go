package export

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/query"
)

// capQueries records what RunToTable was asked, and runs the export's
// check on a dry run's estimate, as package query does before any job.
type capQueries struct {
	estimate int64
	got      []query.ExecuteInput
}

func (q *capQueries) RunToTable(_ context.Context, in query.ExecuteInput, checkEstimate func(int64) error) (*query.ResultTable, error) {
	q.got = append(q.got, in)
	if err := checkEstimate(q.estimate); err != nil {
		return nil, err
	}
	return nil, bqerr.New(bqerr.Internal, "the estimate passed the cap")
}

func (q *capQueries) ResultOf(context.Context, string, string) (*query.ResultTable, error) {
	return nil, bqerr.New(bqerr.NotFound, "no such job")
}

// TestExportPassesItsCapToTheQuery: an export of sql hands package query
// a check of --max-export-bytes (or its default), which query runs against
// the dry run's estimate before any job; its refusal reaches the agent,
// and no file is written.
func TestExportPassesItsCapToTheQuery(t *testing.T) {
	for _, c := range []struct{ set, estimate int64 }{{1 << 30, 1<<30 + 1}, {0, DefaultMaxBytes + 1}} {
		q := &capQueries{estimate: c.estimate}
		dir := filepath.Join(t.TempDir(), "exports")
		s := NewService(Config{Queries: q, Project: "p", Settings: Settings{Dir: dir, MaxExportBytes: c.set}})
		_, err := s.Export(context.Background(), Input{SQL: "SELECT * FROM sales.orders"})
		if e, ok := bqerr.As(err); !ok || e.Code != bqerr.ResourceExhausted {
			t.Errorf("MaxBytes %d: %v, want the refusal of an estimate of %d", c.set, err, c.estimate)
		}
		if len(q.got) != 1 || q.got[0].SQL != "SELECT * FROM sales.orders" {
			t.Errorf("MaxBytes %d: RunToTable got %+v, want the export's query", c.set, q.got)
		}
		if names := dirEntries(t, dir); len(names) != 0 {
			t.Errorf("MaxBytes %d: files %v after a refusal", c.set, names)
		}
	}
}

// TestEstimateCap: an estimate over --max-export-bytes is refused with the
// estimate, the cap, a hint and the query; at the cap, and without an
// estimate (0), it passes.
func TestEstimateCap(t *testing.T) {
	check := estimateCap("SELECT * FROM sales.orders", 99)
	e, ok := bqerr.As(check(100))
	if !ok || e.Code != bqerr.ResourceExhausted || e.Retryable ||
		!strings.Contains(e.Message, "about 100 B") || !strings.Contains(e.Message, "--max-export-bytes 99 B") ||
		!strings.Contains(e.Hint, "fewer columns") || !strings.Contains(e.Hint, "raise --max-export-bytes") || e.Details.Query == "" {
		t.Fatalf("over the cap: %+v, want RESOURCE_EXHAUSTED with the estimate, the cap and a hint", e)
	}
	for _, n := range []int64{99, 0} {
		if err := check(n); err != nil {
			t.Errorf("estimate %d: %v, want it to pass", n, err)
		}
	}
}

// TestWholeResultHint: the hint a cut result gets names export_results with
// the job's ID, and its location when there is one.
func TestWholeResultHint(t *testing.T) {
	if got := WholeResultHint("job_1", "US"); !strings.Contains(got, `export_results with jobId "job_1" and location "US"`) {
		t.Errorf("hint = %q, want it to name export_results with the job and its location", got)
	}
	if got := WholeResultHint("job_1", ""); !strings.Contains(got, `export_results with jobId "job_1" writes`) {
		t.Errorf("hint without a location = %q", got)
	}
}
