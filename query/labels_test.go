package query

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"sync"
	"testing"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// jobBodies records the job requests that reach the wire, jobs.insert
// (dry runs here) and jobs.query, before passing them on to next.
type jobBodies struct {
	next http.Handler

	mu      sync.Mutex
	inserts []bq.Job
	queries []bq.QueryRequest
}

func (h *jobBodies) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.mu.Lock()
		switch r.URL.Path {
		case "/projects/p/jobs":
			var j bq.Job
			_ = json.Unmarshal(body, &j)
			h.inserts = append(h.inserts, j)
		case "/projects/p/queries":
			var q bq.QueryRequest
			_ = json.Unmarshal(body, &q)
			h.queries = append(h.queries, q)
		}
		h.mu.Unlock()
	}
	h.next.ServeHTTP(w, r)
}

// Every job request carries the call's labels: execute_sql's jobs.query,
// the read-only check's dry run before it, and dry_run_sql's dry run. A
// call without labels sends none.
func TestJobRequestsCarryTheCallsLabels(t *testing.T) {
	rec := &jobBodies{next: &planBigQuery{t: t, plans: map[string]plan{}, jobs: map[string]plan{}}}
	s := newSlowService(t, rec)
	s.cfg.AllowWrites = false // the read-only check dry-runs the query first
	labels := map[string]string{"mcp_server": "bigquery-mcp", "mcp_tool": "execute_sql", "mcp_client": "claude-code", "team": "data"}
	ctx := governance.WithJobLabels(context.Background(), labels)

	if _, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT 1"}); err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if _, err := s.DryRun(ctx, DryRunInput{SQL: "SELECT 2"}); err != nil {
		t.Fatalf("DryRun: %v", err)
	}
	if _, err := s.Execute(context.Background(), ExecuteInput{SQL: "SELECT 3"}); err != nil {
		t.Fatalf("Execute without labels: %v", err)
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.queries) != 2 || len(rec.inserts) != 3 {
		t.Fatalf("%d jobs.query and %d jobs.insert requests, want 2 and 3", len(rec.queries), len(rec.inserts))
	}
	if got := rec.queries[0].Labels; !maps.Equal(got, labels) {
		t.Errorf("execute_sql's jobs.query labels = %v, want %v", got, labels)
	}
	for i, what := range []string{"execute_sql's read-only dry run", "dry_run_sql's dry run"} {
		if got := rec.inserts[i].Configuration.Labels; !maps.Equal(got, labels) {
			t.Errorf("%s labels = %v, want %v", what, got, labels)
		}
	}
	if got := rec.queries[1].Labels; len(got) != 0 {
		t.Errorf("a call without labels sent %v", got)
	}
}
