package query

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
)

// regionalBigQuery keeps each job in one location and finds it only as
// BigQuery does: a request without location finds jobs in the US and EU
// multi-regions, any other job needs its location named (else 404). It
// answers jobs.query (the job runs where the request's location says, US
// when none), jobs.get, getQueryResults and jobs.cancel, and logs every
// request as "METHOD path location".
type regionalBigQuery struct {
	*bqfake.Fake
	// reportLocation makes answers name the job's location, as BigQuery
	// does; the emulator never does.
	reportLocation bool

	mu    sync.Mutex
	jobs  map[string]string // job ID -> location
	since int               // requests before the last reset
}

func newRegionalBigQuery(t *testing.T, jobs map[string]string) *regionalBigQuery {
	if jobs == nil {
		jobs = map[string]string{}
	}
	f := &regionalBigQuery{Fake: bqfake.New(t), jobs: jobs}
	schema := &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "n", Type: "INTEGER"}}}
	rows := []*bq.TableRow{{F: []*bq.TableCell{{V: "1"}}}}
	f.On(bqfake.Any).ReplyFunc(func(r *bqfake.Request) (any, error) {
		t.Logf("regional bigquery: %s", r)
		return nil, nil
	})
	f.On(bqfake.JobsQuery).ReplyFunc(func(r *bqfake.Request) (any, error) {
		loc := r.QueryRequest.Location
		if loc == "" {
			loc = "US"
		}
		f.mu.Lock()
		id := fmt.Sprintf("job_%d", len(f.jobs))
		f.jobs[id] = loc
		f.mu.Unlock()
		return &bq.QueryResponse{JobReference: f.ref(id, loc), JobComplete: true, Schema: schema, Rows: rows, TotalRows: 1}, nil
	})
	f.On(bqfake.Any).ReplyFunc(func(r *bqfake.Request) (any, error) {
		asked := r.Query.Get("location")
		f.mu.Lock()
		loc, ok := f.jobs[r.JobID]
		f.mu.Unlock()
		found := ok && (strings.EqualFold(asked, loc) || asked == "" && (loc == "US" || loc == "EU"))
		if !found {
			return nil, bqfake.Errorf(http.StatusNotFound, "notFound", "Not found: Job p:%s", r.JobID)
		}
		switch r.Route {
		case bqfake.JobsGetQueryResults:
			return &bq.GetQueryResultsResponse{JobReference: f.ref(r.JobID, loc), JobComplete: true, Schema: schema, Rows: rows, TotalRows: 1}, nil
		case bqfake.JobsCancel:
			return &bq.JobCancelResponse{Job: fakeJob(f.ref(r.JobID, loc), nil)}, nil
		}
		return fakeJob(f.ref(r.JobID, loc), nil), nil
	})
	return f
}

// requests lists the requests since the last reset as "METHOD path
// location".
func (f *regionalBigQuery) requests() []string {
	f.mu.Lock()
	since := f.since
	f.mu.Unlock()
	var out []string
	for _, r := range f.Requests(bqfake.Any)[since:] {
		out = append(out, strings.TrimSpace(r.Method+" "+r.Path+" "+r.Query.Get("location")))
	}
	return out
}

func (f *regionalBigQuery) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.since = f.Count(bqfake.Any)
}

func (f *regionalBigQuery) ref(id, loc string) *bq.JobReference {
	ref := &bq.JobReference{ProjectId: "p", JobId: id}
	if f.reportLocation {
		ref.Location = loc
	}
	return ref
}

// tokyoDatasets is a project whose datasets live in the multi-regions and
// two regions; only the regions are worth probing.
func tokyoDatasets(context.Context, string) ([]string, error) {
	return []string{"EU", "US", "asia-northeast1", "europe-west1"}, nil
}

// A job in asia-northeast1 is found by get_job, get_query_results and
// cancel_job without the agent naming its location: one request without
// location, then one per region of the project's datasets until found. The
// location found is named in the result and remembered, so the next call
// makes one request.
func TestJobToolsFindJobsInAnyRegion(t *testing.T) {
	ctx := context.Background()
	jobs := map[string]string{"job_tokyo": "asia-northeast1", "job_us": "US"}
	for _, report := range []bool{true, false} {
		t.Run(fmt.Sprintf("reportLocation=%v", report), func(t *testing.T) {
			f := newRegionalBigQuery(t, jobs)
			f.reportLocation = report
			s := newTestService(t, f, func(c *Config) { c.Catalog = locations{project: tokyoDatasets} })

			out, err := s.GetJob(ctx, JobInput{JobID: "job_tokyo"})
			if err != nil {
				t.Fatalf("GetJob: %v", err)
			}
			if out.Location != "asia-northeast1" || out.State != "DONE" {
				t.Errorf("GetJob = %+v, want the job found in asia-northeast1", out)
			}
			want := []string{"GET /projects/p/jobs/job_tokyo", "GET /projects/p/jobs/job_tokyo asia-northeast1"}
			if got := f.requests(); !slices.Equal(got, want) {
				t.Errorf("requests = %q, want %q", got, want)
			}

			f.reset()
			if out, err = s.GetJob(ctx, JobInput{JobID: "job_tokyo"}); err != nil || out.Location != "asia-northeast1" {
				t.Fatalf("GetJob again = %+v, %v", out, err)
			}
			want = []string{"GET /projects/p/jobs/job_tokyo asia-northeast1"}
			if got := f.requests(); !slices.Equal(got, want) {
				t.Errorf("a remembered job: requests = %q, want %q", got, want)
			}

			f.reset()
			if out, err = s.GetJob(ctx, JobInput{JobID: "job_us"}); err != nil || report && out.Location != "US" {
				t.Fatalf("GetJob(job_us) = %+v, %v", out, err)
			}
			if got := f.requests(); len(got) != 1 {
				t.Errorf("a US job: requests = %q, want one without location", got)
			}
		})
	}

	t.Run("get_query_results", func(t *testing.T) {
		f := newRegionalBigQuery(t, jobs)
		s := newTestService(t, f, func(c *Config) { c.Catalog = locations{project: tokyoDatasets} })
		out, err := s.GetResults(ctx, GetResultsInput{JobID: "job_tokyo"})
		if err != nil {
			t.Fatalf("GetResults: %v", err)
		}
		if out.Location != "asia-northeast1" || out.RowCount != 1 {
			t.Errorf("GetResults = %+v, want a row from asia-northeast1", out)
		}
		want := []string{"GET /projects/p/queries/job_tokyo", "GET /projects/p/jobs/job_tokyo asia-northeast1", "GET /projects/p/queries/job_tokyo asia-northeast1"}
		if got := f.requests(); !slices.Equal(got, want) {
			t.Errorf("requests = %q, want %q", got, want)
		}
	})

	t.Run("cancel_job", func(t *testing.T) {
		f := newRegionalBigQuery(t, jobs)
		s := newTestService(t, f, func(c *Config) { c.Catalog = locations{project: tokyoDatasets} })
		out, err := s.CancelJob(ctx, JobInput{JobID: "job_tokyo"})
		if err != nil {
			t.Fatalf("CancelJob: %v", err)
		}
		if out.Location != "asia-northeast1" {
			t.Errorf("CancelJob = %+v", out)
		}
		if got := f.requests(); !slices.Contains(got, "POST /projects/p/jobs/job_tokyo/cancel asia-northeast1") {
			t.Errorf("requests = %q, want the cancel sent to asia-northeast1", got)
		}
	})
}

// A job that is nowhere costs one request without location and one per
// region probed, at most maxLocationProbes, and fails NOT_FOUND with a hint
// that says where it was looked for.
func TestJobNotFoundInAnyRegionIsBounded(t *testing.T) {
	const maxLocationProbes = 8 // package job's bound
	ctx := context.Background()
	f := newRegionalBigQuery(t, nil)
	s := newTestService(t, f, func(c *Config) { c.Catalog = locations{project: tokyoDatasets} })
	_, err := s.GetJob(ctx, JobInput{JobID: "job_nowhere"})
	e, ok := bqerr.As(err)
	if !ok || e.Code != bqerr.NotFound || !strings.Contains(e.Hint, "asia-northeast1, europe-west1") || e.Details.JobID != "job_nowhere" {
		t.Errorf("error = %v (hint %q), want NOT_FOUND naming the regions tried", err, e.Hint)
	}
	if got := f.requests(); len(got) != 3 {
		t.Errorf("requests = %q, want 1 without location + 2 regions", got)
	}

	many := func(context.Context, string) ([]string, error) {
		var locs []string
		for i := range 3 * maxLocationProbes {
			locs = append(locs, fmt.Sprintf("region-%d", i), "US")
		}
		return locs, nil
	}
	f.reset()
	s = newTestService(t, f, func(c *Config) { c.Catalog = locations{project: many} })
	if _, err := s.GetJob(ctx, JobInput{JobID: "job_nowhere"}); err == nil {
		t.Fatal("GetJob of a missing job succeeded")
	}
	if got := f.requests(); len(got) != 1+maxLocationProbes {
		t.Errorf("%d requests with %d dataset regions, want 1 + %d", len(got), 3*maxLocationProbes, maxLocationProbes)
	}

	// A location the agent named is asked for, and nothing else.
	f.reset()
	if _, err := s.GetJob(ctx, JobInput{JobID: "job_nowhere", Location: "EU"}); err == nil {
		t.Fatal("GetJob of a missing job succeeded")
	}
	if got := f.requests(); len(got) != 1 {
		t.Errorf("requests = %q, want one in the named location", got)
	}
}

// With --location unset, a query with a default dataset runs in that
// dataset's location (cached metadata, asked once per call); the result
// names the location BigQuery reports or, where it reports none (the
// emulator), the one asked for; a query with nothing to go on leaves the
// choice to BigQuery and names nothing it does not know. The job's
// location is remembered for the job tools.
func TestExecuteRunsWhereItsDefaultDatasetIs(t *testing.T) {
	ctx := context.Background()
	f := newRegionalBigQuery(t, nil)
	var lookups []string
	s := newTestService(t, f, func(c *Config) {
		c.Catalog = locations{
			dataset: func(_ context.Context, project, dataset string) (string, error) {
				lookups = append(lookups, project+"."+dataset)
				if dataset == "tokyo_sales" {
					return "asia-northeast1", nil
				}
				return "", bqerr.New(bqerr.NotFound, "Not found: Dataset")
			},
			project: tokyoDatasets,
		}
	})

	out, err := s.Execute(ctx, ExecuteInput{SQL: "SELECT n FROM orders", DefaultDataset: "tokyo_sales"})
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if out.Location != "asia-northeast1" {
		t.Errorf("Location = %q, want the default dataset's", out.Location)
	}
	if !slices.Equal(lookups, []string{"p.tokyo_sales"}) {
		t.Errorf("dataset lookups = %q, want one", lookups)
	}
	f.mu.Lock()
	ran := f.jobs[out.JobID]
	f.mu.Unlock()
	if ran != "asia-northeast1" {
		t.Errorf("the job ran in %q, want asia-northeast1 (jobs.query's location)", ran)
	}
	f.reset()
	if j, err := s.GetJob(ctx, JobInput{JobID: out.JobID}); err != nil || j.Location != "asia-northeast1" {
		t.Errorf("GetJob of the job just run = %+v, %v", j, err)
	}
	if got := f.requests(); len(got) != 1 {
		t.Errorf("get_job of a job this server started: requests = %q, want one", got)
	}

	// Nothing known: no location sent, none named.
	out, err = s.Execute(ctx, ExecuteInput{SQL: "SELECT 1"})
	if err != nil || out.Location != "" {
		t.Errorf("Execute without a dataset = %+v, %v; want no location named", out, err)
	}
	// A lookup that fails leaves the choice to BigQuery.
	out, err = s.Execute(ctx, ExecuteInput{SQL: "SELECT 1", DefaultDataset: "gone"})
	if err != nil || out.Location != "" {
		t.Errorf("Execute with an unknown dataset = %+v, %v", out, err)
	}
	// BigQuery's word on the location is named.
	f.reportLocation = true
	if out, err = s.Execute(ctx, ExecuteInput{SQL: "SELECT 1"}); err != nil || out.Location != "US" {
		t.Errorf("Execute = %+v, %v; want the location BigQuery reported", out, err)
	}
}

// dry_run_sql plans the query where it would run (the default dataset's
// location) and names the location BigQuery planned it for.
func TestDryRunNamesItsLocation(t *testing.T) {
	fake := newPlanBigQuery(t, map[string]plan{})
	s := newTestService(t, fake, func(c *Config) {
		c.Catalog = locations{dataset: func(context.Context, string, string) (string, error) { return "asia-northeast1", nil }}
	})
	out, err := s.DryRun(context.Background(), DryRunInput{SQL: "SELECT n FROM orders", DefaultDataset: "tokyo_sales"})
	if err != nil {
		t.Fatalf("DryRun: %v", err)
	}
	if out.Location != "US" { // what the fake's dry run reports
		t.Errorf("Location = %q, want the one BigQuery reported", out.Location)
	}
	if inserts, _ := jobBodies(fake.Fake); len(inserts) != 1 || inserts[0].JobReference.Location != "asia-northeast1" {
		t.Errorf("dry run requests = %+v, want one sent to asia-northeast1", inserts)
	}
}

// locations is a Catalog that knows only where datasets live; a nil func
// knows nothing.
type locations struct {
	dataset func(ctx context.Context, project, dataset string) (string, error)
	project func(ctx context.Context, project string) ([]string, error)
}

func (locations) TableType(context.Context, string, string, string) (string, error) { return "", nil }

func (locations) DatasetIDs(context.Context, string) ([]string, error) { return nil, nil }

func (locations) TableLayout(context.Context, string, string, string) (*bqtype.TableLayout, error) {
	return nil, nil
}

func (l locations) DatasetLocation(ctx context.Context, project, dataset string) (string, error) {
	if l.dataset == nil {
		return "", nil
	}
	return l.dataset(ctx, project, dataset)
}

func (l locations) DatasetLocations(ctx context.Context, project string) ([]string, error) {
	if l.project == nil {
		return nil, nil
	}
	return l.project(ctx, project)
}
