package export

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/bigquery"
	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/option"

	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// copyBigQuery answers a copy job's jobs.insert, jobs.get and the
// destination's tables.patch as BigQuery does, and keeps what was sent.
// The emulator (v0.6.6) runs no copy jobs, so the table path is held to
// this fake of the REST reference.
type copyBigQuery struct {
	mu      sync.Mutex
	job     *bq.Job
	patch   *bq.Table
	inserts int
	// lostAnswer makes the first insert reach BigQuery and its answer
	// fail (503), so the retry meets 409 duplicate.
	lostAnswer bool
}

func (f *copyBigQuery) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/projects/p/jobs":
		f.inserts++
		if f.job != nil {
			reply(http.StatusConflict, map[string]any{"error": map[string]any{"code": 409, "message": "Already Exists: Job p:US." + f.job.JobReference.JobId,
				"errors": []map[string]any{{"reason": "duplicate", "message": "Already Exists: Job p:US." + f.job.JobReference.JobId}}}})
			return
		}
		var job bq.Job
		json.NewDecoder(r.Body).Decode(&job)
		job.Status = &bq.JobStatus{State: "DONE"}
		f.job = &job
		if f.lostAnswer {
			reply(http.StatusServiceUnavailable, map[string]any{"error": map[string]any{"code": 503, "message": "try again",
				"errors": []map[string]any{{"reason": "backendError", "message": "try again"}}}})
			return
		}
		reply(http.StatusOK, &job)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/projects/p/jobs/"):
		reply(http.StatusOK, f.job)
	case r.Method == http.MethodPatch && r.URL.Path == "/projects/p/datasets/exports/tables/campaign":
		var t bq.Table
		json.NewDecoder(r.Body).Decode(&t)
		f.patch = &t
		t.TableReference = &bq.TableReference{ProjectId: "p", DatasetId: "exports", TableId: "campaign"}
		t.NumRows, t.NumBytes = 7, 700
		reply(http.StatusOK, &t)
	default:
		reply(http.StatusNotFound, map[string]any{"error": map[string]any{"code": 404, "message": "no fake for " + r.Method + " " + r.URL.Path}})
	}
}

// TestClientCopierCopiesOnce: the copy job names the source and the
// destination with WRITE_EMPTY (WRITE_TRUNCATE only when overwriting),
// carries the labels and the job ID chosen up front; a retry after a lost
// answer finds that job (409 duplicate) instead of copying twice; the
// destination gets its expiration.
func TestClientCopierCopiesOnce(t *testing.T) {
	fake := &copyBigQuery{lostAnswer: true}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ctx := context.Background()
	client, err := bigquery.NewClient(ctx, "p", option.WithEndpoint(srv.URL), option.WithHTTPClient(&http.Client{Transport: &resilience.Transport{}}))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	s := newTestService(t, &fakeReader{}, &fakeQueries{})
	s.cfg.Copier, s.cfg.Dataset = ClientCopier{Client: client}, "exports"
	ctx = contextWithLabels(ctx)
	out, err := s.Export(ctx, Input{SQL: "SELECT 1", Destination: "table", Name: "campaign"})
	if err != nil {
		t.Fatal(err)
	}
	if fake.inserts != 2 {
		t.Errorf("%d copy inserts, want 2 (the lost answer and its retry)", fake.inserts)
	}
	c := fake.job.Configuration
	if c.Copy == nil || len(c.Copy.SourceTables) != 1 || c.Copy.SourceTables[0].TableId != "anon1" || c.Copy.DestinationTable.DatasetId != "exports" ||
		c.Copy.DestinationTable.TableId != "campaign" || c.Copy.WriteDisposition != "WRITE_EMPTY" ||
		!strings.HasPrefix(fake.job.JobReference.JobId, "bqmcp_job1_copy_") || c.Labels["mcp_tool"] != "export_results" {
		t.Errorf("copy job = %+v %+v", fake.job.JobReference, c.Copy)
	}
	if fake.patch == nil || fake.patch.ExpirationTime < time.Now().Add(DefaultTableTTL-time.Minute).UnixMilli() {
		t.Errorf("expiration patch = %+v, want now + %s", fake.patch, DefaultTableTTL)
	}
	if out.Rows != 7 || out.Bytes != 700 || out.URI != "bigquery://p/exports/campaign" {
		t.Errorf("output = %+v", out)
	}
}
