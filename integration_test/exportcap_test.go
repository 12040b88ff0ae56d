package integration_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/query"
)

// estimating answers every dry run with bytes processed (the emulator
// estimates none) and counts the jobs.insert requests that are not dry
// runs.
type estimating struct {
	base  http.RoundTripper
	bytes int64

	mu      sync.Mutex
	inserts int
}

func (e *estimating) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	isInsert := req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/jobs")
	dry := isInsert && bytes.Contains(body, []byte(`"dryRun":true`))
	if isInsert && !dry {
		e.mu.Lock()
		e.inserts++
		e.mu.Unlock()
	}
	res, err := e.base.RoundTrip(req)
	if err != nil || !dry || res.StatusCode != http.StatusOK {
		return res, err
	}
	defer res.Body.Close()
	var job bq.Job
	if err := json.NewDecoder(res.Body).Decode(&job); err != nil {
		return nil, err
	}
	if job.Statistics == nil {
		job.Statistics = &bq.JobStatistics{}
	}
	if job.Statistics.Query == nil {
		job.Statistics.Query = &bq.JobStatistics2{}
	}
	job.Statistics.TotalBytesProcessed, job.Statistics.Query.TotalBytesProcessed = e.bytes, e.bytes
	out, err := json.Marshal(&job)
	if err != nil {
		return nil, err
	}
	res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(out)), int64(len(out))
	res.Header.Set("Content-Length", strconv.Itoa(len(out)))
	return res, nil
}

func (e *estimating) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.inserts
}

// TestExportRefusesAnEstimateOverItsCap: an export whose dry run estimates
// more than --max-export-bytes is refused with RESOURCE_EXHAUSTED, the
// estimate and the cap, before any query job and with nothing written;
// under the cap the same export runs.
func TestExportRefusesAnEstimateOverItsCap(t *testing.T) {
	est := &estimating{base: http.DefaultTransport, bytes: 3 << 30}
	cfg := exportConfig(t, nil)
	cfg.Transport, cfg.Export.MaxExportBytes = est, 2<<30
	cs := connect(t, cfg, "")
	e := fails(t, cs, "export_results", map[string]any{"sql": exportQuery})
	if e.Code != bqerr.ResourceExhausted || e.Retryable || !strings.Contains(e.Message, "3.0 GiB") ||
		!strings.Contains(e.Message, "2.0 GiB") || !strings.Contains(e.Hint, "--max-export-bytes") {
		t.Errorf("over the cap: %+v", e)
	}
	if n := est.count(); n != 0 {
		t.Errorf("a refused export inserted %d query jobs", n)
	}
	if es, _ := os.ReadDir(cfg.Export.Dir); len(es) != 0 {
		t.Errorf("a refused export left %d files", len(es))
	}
	est.bytes = 1 << 30
	if out := exportResult(t, cs, map[string]any{"sql": exportQuery}); out.Rows != 1000 || est.count() != 1 {
		t.Errorf("under the cap: %d rows, %d query jobs; want 1000 rows, 1 job", out.Rows, est.count())
	}
}

// TestCutResultNamesExportResults: with export_results listed, a cut
// execute_sql result's hint names it with the job's ID (and location);
// without it listed, a cut result has no hint.
func TestCutResultNamesExportResults(t *testing.T) {
	cs := connect(t, exportConfig(t, nil), "")
	cut := ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": exportQuery, "maxRows": 10})
	want := `export_results with jobId "` + cut.JobID + `"`
	if cut.Location != "" { // the emulator names none
		want += ` and location "` + cut.Location + `"`
	}
	if !cut.Truncated || cut.JobID == "" || !strings.Contains(cut.Hint, want) {
		t.Fatalf("cut result: truncated %v, hint %q; want it to name %s", cut.Truncated, cut.Hint, want)
	}
	// Following the hint is not tried here: the emulator's jobs.query jobs
	// have no result table (its job store keeps their rows in memory),
	// where BigQuery names one for every query job.
	// TestExportMatchesExecuteSQL exports by jobId.

	plain := connect(t, testConfig(), "")
	other := ok[query.ExecuteOutput](t, plain, "execute_sql", map[string]any{"sql": exportQuery, "maxRows": 10})
	if !other.Truncated || other.Hint != "" {
		t.Errorf("export not listed: truncated %v, hint %q; want no hint", other.Truncated, other.Hint)
	}
}
