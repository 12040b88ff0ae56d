package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
)

// datasetsBigQuery answers datasets.list of project p: the health probe
// (maxResults=1) at once, the unfiltered listing with pages, each a list
// of dataset IDs; hang makes the unfiltered listing wait for its caller to
// give up, fail makes it answer 403.
type datasetsBigQuery struct {
	pages      [][]string
	hang, fail bool
}

func (f *datasetsBigQuery) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path != "/projects/p/datasets" {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"code":404,"message":"no fake for this path","errors":[{"reason":"notFound"}]}}`)
		return
	}
	if r.URL.Query().Get("maxResults") == "1" {
		io.WriteString(w, `{"datasets":[{"datasetReference":{"projectId":"p","datasetId":"sales"}}]}`)
		return
	}
	switch {
	case f.hang:
		<-r.Context().Done()
		return
	case f.fail:
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `{"error":{"code":403,"message":"Access Denied: Project p: User does not have bigquery.datasets.list","errors":[{"reason":"accessDenied"}]}}`)
		return
	}
	page := 0
	if tok := r.URL.Query().Get("pageToken"); tok != "" {
		page = int(tok[0] - '0')
	}
	var ds []string
	for _, id := range f.pages[page] {
		ds = append(ds, `{"datasetReference":{"projectId":"p","datasetId":"`+id+`"}}`)
	}
	next := ""
	if page+1 < len(f.pages) {
		next = `,"nextPageToken":"` + string(rune('0'+page+1)) + `"`
	}
	io.WriteString(w, `{"datasets":[`+strings.Join(ds, ",")+`]`+next+`}`)
}

func healthOf(t *testing.T, fake *datasetsBigQuery, datasets string) *HealthReport {
	t.Helper()
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	cfg := Defaults()
	cfg.Project, cfg.Endpoint, cfg.Auth, cfg.Governance.Datasets = "p", srv.URL, auth.None, datasets
	b, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b.Health(context.Background())
}

// health says whether the credential can list datasets outside the
// allowlist, i.e. whether --datasets is the only boundary, and recommends
// dataset-level IAM when it is, without naming the hidden datasets.
func TestHealthReportsDatasetsOutsideTheAllowlist(t *testing.T) {
	if r := healthOf(t, &datasetsBigQuery{pages: [][]string{{"sales", "hr"}}}, ""); r.Allowlist != nil {
		t.Errorf("no allowlist, yet health reports one: %+v", r.Allowlist)
	}

	r := healthOf(t, &datasetsBigQuery{pages: [][]string{{"sales", "sales_eu"}, {"sales_us"}}}, "sales,sales_*")
	if a := r.Allowlist; a == nil || a.CredentialListsOutside == nil || *a.CredentialListsOutside || a.Hint != "" || a.Datasets != "p.sales, p.sales_*" {
		t.Errorf("IAM limited to the allowlist: %+v", a)
	}

	// The dataset outside is on the second page.
	r = healthOf(t, &datasetsBigQuery{pages: [][]string{{"sales"}, {"hr_payroll"}}}, "sales")
	a := r.Allowlist
	if a == nil || a.CredentialListsOutside == nil || !*a.CredentialListsOutside ||
		!strings.Contains(a.Hint, "roles/bigquery.dataViewer") || strings.Contains(a.Hint, "hr_payroll") {
		t.Errorf("credential sees outside the allowlist: %+v", a)
	}
	if !r.Ready || !r.BigQuery.Reachable {
		t.Errorf("the check changed the rest of the report: %+v", r)
	}
}

// A failing or hanging check is reported in health, never a failed health
// call, and costs at most its short timeout.
func TestHealthSurvivesTheAllowlistCheck(t *testing.T) {
	r := healthOf(t, &datasetsBigQuery{fail: true}, "sales")
	if a := r.Allowlist; a == nil || a.CredentialListsOutside != nil || !strings.Contains(a.Error, "could not check") {
		t.Errorf("403 on the listing: %+v", a)
	}
	start := time.Now()
	r = healthOf(t, &datasetsBigQuery{hang: true}, "sales")
	if took := time.Since(start); took > exposureTimeout+5*time.Second {
		t.Errorf("health took %v with a hanging listing", took)
	}
	if a := r.Allowlist; a == nil || a.CredentialListsOutside != nil || a.Error == "" || !r.BigQuery.Reachable {
		t.Errorf("hanging listing: %+v, reachable %v", a, r.BigQuery.Reachable)
	}
}
