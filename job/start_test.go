package job

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/googleapi"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// TestQueryConfigIsTheOneShape: every query job is GoogleSQL with its cap;
// parameters make it NAMED, a default dataset is kept; and jobs.query's
// request carries the same fields plus what jobs.query alone needs.
func TestQueryConfigIsTheOneShape(t *testing.T) {
	plain := QueryConfig(QuerySpec{SQL: "SELECT 1", MaxBytesBilled: 10})
	if plain.UseLegacySql == nil || *plain.UseLegacySql || plain.ParameterMode != "" || plain.DefaultDataset != nil || plain.MaximumBytesBilled != 10 {
		t.Errorf("plain = %+v, want GoogleSQL, no parameter mode, no default dataset, the cap", plain)
	}
	ds := &bq.DatasetReference{ProjectId: "p", DatasetId: "d"}
	q := QueryConfig(QuerySpec{SQL: "SELECT @n", Params: []*bq.QueryParameter{{Name: "n"}}, DefaultDataset: ds})
	if q.ParameterMode != "NAMED" || q.DefaultDataset != ds {
		t.Errorf("with parameters = %+v, want NAMED and the default dataset", q)
	}
	r := &Runner{newID: func() string { return "req-1" }}
	req := r.QueryRequest(t.Context(), q, "EU", 7, 3*time.Second)
	if req.Query != q.Query || req.ParameterMode != "NAMED" || req.DefaultDataset != ds || req.Location != "EU" ||
		req.MaxResults != 7 || req.JobTimeoutMs != 3000 || req.RequestId != "req-1" || req.JobCreationMode != JobCreationRequired {
		t.Errorf("jobs.query request = %+v, want the query's fields, its location, rows, timeout and one requestId", req)
	}
}

// TestSameJob: only BigQuery's 409 naming the job is the earlier attempt's
// job; any other error is not.
func TestSameJob(t *testing.T) {
	dup := &googleapi.Error{Code: http.StatusConflict, Message: "Already Exists: Job p:US.job_1"}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{dup, true},
		{fmt.Errorf("inserting: %w", dup), true},
		{&googleapi.Error{Code: http.StatusConflict, Message: "Already Exists: Table p:d.t"}, false},
		{&googleapi.Error{Code: http.StatusServiceUnavailable, Message: "job_1"}, false},
		{errors.New("job_1"), false},
		{nil, false},
	} {
		if got := sameJob(c.err, "job_1"); got != c.want {
			t.Errorf("sameJob(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestParseRefRefusesBadIDs: a job ID or location that could not be part
// of a request URL is refused before any request.
func TestParseRefRefusesBadIDs(t *testing.T) {
	if ref, err := ParseRef(" job_1 ", " EU "); err != nil || ref != (Ref{ID: "job_1", Location: "EU"}) {
		t.Errorf("ParseRef = %+v, %v; want the trimmed job and location", ref, err)
	}
	for _, c := range [][2]string{{"job/../x", ""}, {"", ""}, {"job_1", "eu/x"}} {
		if _, err := ParseRef(c[0], c[1]); err == nil {
			t.Errorf("ParseRef(%q, %q) accepted", c[0], c[1])
		} else if e, ok := bqerr.As(err); !ok || e.Code != bqerr.InvalidArgument {
			t.Errorf("ParseRef(%q, %q) = %v, want INVALID_ARGUMENT", c[0], c[1], err)
		}
	}
}
