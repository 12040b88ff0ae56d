package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
)

// unfiltered matches the unfiltered datasets.list of project p, not the
// health probe's (maxResults=1).
func unfiltered(r *bqfake.Request) bool { return r.Query.Get("maxResults") != "1" }

// probed answers the health probe: project p has dataset sales.
func probed(t *testing.T) *bqfake.Fake {
	t.Helper()
	fake := bqfake.New(t)
	fake.AddDataset("sales", "")
	return fake
}

// datasetPages answers the health probe at once and the unfiltered
// listing with pages, each a list of dataset IDs.
func datasetPages(t *testing.T, pages ...[]string) *bqfake.Fake {
	t.Helper()
	fake := probed(t)
	fake.On(bqfake.DatasetsList).When(unfiltered).ReplyFunc(func(r *bqfake.Request) (any, error) {
		page, _ := strconv.Atoi(r.Query.Get("pageToken"))
		out := &bq.DatasetList{}
		for _, id := range pages[page] {
			out.Datasets = append(out.Datasets, &bq.DatasetListDatasets{DatasetReference: &bq.DatasetReference{ProjectId: "p", DatasetId: id}})
		}
		if page+1 < len(pages) {
			out.NextPageToken = strconv.Itoa(page + 1)
		}
		return out, nil
	})
	return fake
}

func healthOf(t *testing.T, fake *bqfake.Fake, datasets string) *HealthReport {
	t.Helper()
	return backendOf(t, fake, datasets).Health(context.Background())
}

func backendOf(t *testing.T, fake *bqfake.Fake, datasets string) *Backend {
	t.Helper()
	cfg := Defaults()
	cfg.Project, cfg.Endpoint, cfg.Auth, cfg.Governance.Datasets = "p", fake.URL, auth.None, datasets
	b, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// health says whether the credential can list datasets outside the
// allowlist, i.e. whether --datasets is the only boundary, and recommends
// dataset-level IAM when it is, without naming the hidden datasets.
func TestHealthReportsDatasetsOutsideTheAllowlist(t *testing.T) {
	if r := healthOf(t, datasetPages(t, []string{"sales", "hr"}), ""); r.Allowlist != nil {
		t.Errorf("no allowlist, yet health reports one: %+v", r.Allowlist)
	}

	r := healthOf(t, datasetPages(t, []string{"sales", "sales_eu"}, []string{"sales_us"}), "sales,sales_*")
	if a := r.Allowlist; a == nil || a.CredentialListsOutside == nil || *a.CredentialListsOutside || a.Hint != "" || a.Datasets != "p.sales, p.sales_*" {
		t.Errorf("IAM limited to the allowlist: %+v", a)
	}

	// The dataset outside is on the second page.
	r = healthOf(t, datasetPages(t, []string{"sales"}, []string{"hr_payroll"}), "sales")
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
	fake := probed(t)
	fake.On(bqfake.DatasetsList).When(unfiltered).FailWith(bqfake.Errorf(http.StatusForbidden, "accessDenied", "Access Denied: Project p: User does not have bigquery.datasets.list"))
	r := healthOf(t, fake, "sales")
	if a := r.Allowlist; a == nil || a.CredentialListsOutside != nil || !strings.Contains(a.Error, "could not check") {
		t.Errorf("403 on the listing: %+v", a)
	}
	// A listing that never answers: the check gives up at its bound (cut
	// short here) and health still answers; without the bound it would
	// wait for ever.
	fake = probed(t)
	fake.On(bqfake.DatasetsList).When(unfiltered).Hold()
	b := backendOf(t, fake, "sales")
	b.exposureTimeout = 10 * time.Millisecond
	r = b.Health(context.Background())
	if a := r.Allowlist; a == nil || a.CredentialListsOutside != nil || a.Error == "" || !r.BigQuery.Reachable {
		t.Errorf("hanging listing: %+v, reachable %v", a, r.BigQuery.Reachable)
	}
}
