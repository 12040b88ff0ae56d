package export

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// copyBigQuery answers a copy job's jobs.insert and jobs.get and the
// destination's tables.patch as BigQuery does: the query's result table
// (7 rows, 700 bytes) is copied to the destination. The emulator (v0.6.6)
// runs no copy jobs, so the table path is held to this fake of the REST
// reference. lostAnswer makes the first insert reach BigQuery and its
// answer fail (503), so the retry meets 409 duplicate.
func copyBigQuery(t *testing.T, lostAnswer bool) *bqfake.Fake {
	t.Helper()
	fake := bqfake.New(t)
	fake.AddTable(&bq.Table{TableReference: &bq.TableReference{ProjectId: "p", DatasetId: "_anon", TableId: "anon1"}, NumRows: 7, NumBytes: 700})
	if lostAnswer {
		fake.On(bqfake.JobsInsert).Times(1).FailAfter(http.StatusServiceUnavailable, "backendError")
	}
	return fake
}

// TestClientCopierCopiesOnce: the copy job names the source and the
// destination with WRITE_EMPTY (WRITE_TRUNCATE only when overwriting),
// carries the labels and the job ID chosen up front; a retry after a lost
// answer finds that job (409 duplicate) instead of copying twice; the
// destination gets its expiration.
func TestClientCopierCopiesOnce(t *testing.T) {
	fake := copyBigQuery(t, true)
	ctx := context.Background()
	client := fake.Client(t, &http.Client{Transport: &resilience.Transport{}})
	s := newTestService(t, &fakeReader{}, &fakeQueries{})
	s.cfg.Copier, s.cfg.Dataset = ClientCopier{Client: client}, "exports"
	ctx = contextWithLabels(ctx)
	out, err := s.Export(ctx, Input{SQL: "SELECT 1", Destination: "table", Name: "campaign"})
	if err != nil {
		t.Fatal(err)
	}
	if n := fake.Count(bqfake.JobsInsert); n != 2 {
		t.Errorf("%d copy inserts, want 2 (the lost answer and its retry)", n)
	}
	job := onlyJob(t, fake)
	c := job.Configuration
	if c.Copy == nil || len(c.Copy.SourceTables) != 1 || c.Copy.SourceTables[0].TableId != "anon1" || c.Copy.DestinationTable.DatasetId != "exports" ||
		c.Copy.DestinationTable.TableId != "campaign" || c.Copy.WriteDisposition != "WRITE_EMPTY" ||
		!strings.HasPrefix(job.JobReference.JobId, "bqmcp_job1_copy_") || c.Labels["mcp_tool"] != "export_results" {
		t.Errorf("copy job = %+v %+v", job.JobReference, c.Copy)
	}
	var patch *bq.Table
	if p := fake.Requests(bqfake.TablesPatch); len(p) == 1 && p[0].Dataset == "exports" && p[0].Table == "campaign" {
		patch = p[0].TableBody
	}
	if patch == nil || patch.ExpirationTime < time.Now().Add(DefaultTableTTL-time.Minute).UnixMilli() {
		t.Errorf("expiration patch = %+v, want now + %s", patch, DefaultTableTTL)
	}
	if out.Rows != 7 || out.Bytes != 700 || out.URI != "bigquery://p/exports/campaign" {
		t.Errorf("output = %+v", out)
	}
}
