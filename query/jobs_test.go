package query

import (
	"context"
	"strings"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// TestIdentifiersCheckedBeforeAnyRequest: job IDs, locations and projects
// that BigQuery would never issue are INVALID_ARGUMENT, and no request
// reaches BigQuery, so a crafted ID cannot steer a request URL.
func TestIdentifiersCheckedBeforeAnyRequest(t *testing.T) {
	fake := newFakeBigQuery(t, func(int, int) bool { return false })
	s := newPartialService(t, fake)
	ctx := context.Background()
	calls := map[string]func() error{
		"get_job traversal": func() error {
			_, err := s.GetJob(ctx, JobInput{JobID: "../../datasets/sales"})
			return err
		},
		"get_job slash": func() error { _, err := s.GetJob(ctx, JobInput{JobID: "a/b"}); return err },
		"get_job query string": func() error {
			_, err := s.GetJob(ctx, JobInput{JobID: "job?alt=media"})
			return err
		},
		"get_job empty": func() error { _, err := s.GetJob(ctx, JobInput{JobID: "  "}); return err },
		"get_job location": func() error {
			_, err := s.GetJob(ctx, JobInput{JobID: "bqmcp_ok", Location: "../../x"})
			return err
		},
		"cancel_job traversal": func() error {
			_, err := s.CancelJob(ctx, JobInput{JobID: "../../datasets/sales"})
			return err
		},
		"cancel_job location": func() error {
			_, err := s.CancelJob(ctx, JobInput{JobID: "bqmcp_ok", Location: "us central1"})
			return err
		},
		"get_query_results traversal": func() error {
			_, err := s.GetResults(ctx, GetResultsInput{JobID: "../jobs/x"})
			return err
		},
		"get_query_results location": func() error {
			_, err := s.GetResults(ctx, GetResultsInput{JobID: "bqmcp_ok", Location: "EU/x"})
			return err
		},
		"execute_sql project": func() error {
			_, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT 1", DefaultDataset: "evil/p.ds"})
			return err
		},
		"dry_run_sql project": func() error {
			_, err := s.DryRun(ctx, DryRunInput{SQL: "SELECT 1", DefaultDataset: "..:x.ds"})
			return err
		},
	}
	for name, call := range calls {
		err := call()
		e, ok := bqerr.As(err)
		if !ok || e.Code != bqerr.InvalidArgument || e.Hint == "" {
			t.Errorf("%s: error %v, want INVALID_ARGUMENT with a hint", name, err)
		}
	}
	if reqs := fake.log(); len(reqs) != 0 {
		t.Errorf("requests reached BigQuery:\n%s", strings.Join(reqs, "\n"))
	}
}

// TestJobToolsAcceptBigQueryJobIDs: the IDs BigQuery and this server issue
// pass the check and reach BigQuery.
func TestJobToolsAcceptBigQueryJobIDs(t *testing.T) {
	fake := newFakeBigQuery(t, func(int, int) bool { return false })
	s := newPartialService(t, fake)
	for _, id := range []string{partialJobID, "job_AbC-123", "bqmcp_0b3c2a51-8f0e-4d0e-9a57-0d1f7b4c9e21"} {
		out, err := s.GetJob(context.Background(), JobInput{JobID: id, Location: "US"})
		if err != nil {
			t.Fatalf("GetJob(%q): %v", id, err)
		}
		if out.JobID != id || out.State != "DONE" {
			t.Errorf("GetJob(%q) = %+v", id, out)
		}
	}
}
