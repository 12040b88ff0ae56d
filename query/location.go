package query

// Location without guessing. With --location unset, a query runs where its
// default dataset lives (from cached metadata) or, without one, where
// BigQuery routes it by the data it reads; the result names the location
// used. The job tools find a job in any region without the agent naming
// one: jobs this server started are remembered, and an unknown job that a
// request without location does not find is looked for in each location
// of the project's datasets, a bounded number of extra requests.

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

const (
	// jobLocationCacheSize bounds how many started jobs' locations are
	// remembered.
	jobLocationCacheSize = 4096
	// maxLocationProbes bounds the extra jobs.get requests one call makes
	// to find a job in the locations of the project's datasets.
	maxLocationProbes = 8
)

// locator holds the locations of jobs the service started or found.
type locator struct {
	jobs *lru.Cache[string, string]
}

func newLocator() *locator {
	c, err := lru.New[string, string](jobLocationCacheSize)
	if err != nil {
		panic(err) // only for a non-positive size
	}
	return &locator{jobs: c}
}

// rememberJob notes where a job runs, so the job tools find it without a
// location.
func (s *Service) rememberJob(id, location string) {
	if id != "" && location != "" {
		s.loc.jobs.Add(id, location)
	}
}

// knownLocation is loc when the agent gave one, else --location, else
// where a job this server started or found runs; "" when none is known.
func (s *Service) knownLocation(id, loc string) string {
	if loc == "" {
		loc = s.cfg.Location
	}
	if loc == "" {
		loc, _ = s.loc.jobs.Get(id)
	}
	return loc
}

// jobLocation returns where r's job runs, working it out once per request:
// --location when set; otherwise the default dataset's location from cached
// metadata. "" leaves the choice to BigQuery, which routes by the data the
// query reads (a dry run that reports its location fills it in; see dryRun).
// A lookup that fails only leaves the location unset: the query's own
// request reports any real problem with the dataset.
func (s *Service) jobLocation(ctx context.Context, r *request) string {
	if r.located {
		return r.location
	}
	r.located = true
	r.location = s.cfg.Location
	if r.location == "" && r.defaultDataset != "" && s.cfg.Catalog != nil {
		loc, err := s.cfg.Catalog.DatasetLocation(ctx, r.defaultProject, r.defaultDataset)
		if err != nil {
			s.log.DebugContext(ctx, "default dataset location unknown", "dataset", r.defaultProject+"."+r.defaultDataset, "error", bqerr.Redact(err.Error()))
		}
		r.location = loc
	}
	return r.location
}

// findJob reads a job's metadata. A job whose location nobody knows is
// asked for without one, which finds jobs in the US and EU multi-regions;
// if that answers 404, probeJob looks in the other locations. It returns
// the location the job was found in.
func (s *Service) findJob(ctx context.Context, id, loc string) (*bigquery.Job, *bigquery.JobStatus, string, error) {
	job, status, err := s.job(ctx, id, loc)
	if err == nil {
		loc = cmp.Or(job.Location(), loc)
		s.rememberJob(id, loc)
		return job, status, loc, nil
	}
	if loc != "" || !isNotFound(err) {
		return nil, nil, "", err
	}
	return s.probeJob(ctx, id, err)
}

// firstResults sends get_query_results' first getQueryResults. A job of
// unknown location that it does not find is looked for with probeJob, then
// read where it was found.
func (s *Service) firstResults(ctx context.Context, job jobHandle, start uint64, maxRows int, until time.Time) (*page, error) {
	ms, _ := pollTimeout(ctx, until)
	p, err := s.results(ctx, resilience.Query, job, start, "", maxRows, ms)
	if err == nil || job.location != "" || !isNotFound(err) {
		return p, err
	}
	if _, _, job.location, err = s.probeJob(ctx, job.id, err); err != nil {
		return nil, err
	}
	ms, _ = pollTimeout(ctx, until)
	return s.results(ctx, resilience.Query, job, start, "", maxRows, ms)
}

// probeJob looks for a job that a request without location did not find
// (notFound is that request's error) in each location of the project's
// datasets, taken from cached metadata. US and EU are skipped: a request
// without location already covers them. At most maxLocationProbes
// jobs.get requests are made.
func (s *Service) probeJob(ctx context.Context, id string, notFound error) (*bigquery.Job, *bigquery.JobStatus, string, error) {
	candidates := s.probeLocations(ctx)
	for _, loc := range candidates {
		job, status, err := s.job(ctx, id, loc)
		if err == nil {
			loc = cmp.Or(job.Location(), loc)
			s.rememberJob(id, loc)
			return job, status, loc, nil
		}
		if !isNotFound(err) {
			return nil, nil, "", err
		}
	}
	hint := "No job " + id + " in this project's US and EU locations"
	if len(candidates) > 0 {
		hint += " nor in " + strings.Join(candidates, ", ") + " (where its datasets are)"
	}
	hint += ". Check the jobId, and pass location if the job ran in another region."
	return nil, nil, "", bqerr.From(notFound).WithJobID(id).WithHint(hint)
}

// probeLocations lists where to look for a job: the distinct locations of
// the project's datasets other than the US and EU multi-regions, at most
// maxLocationProbes of them.
func (s *Service) probeLocations(ctx context.Context) []string {
	if s.cfg.Catalog == nil {
		return nil
	}
	all, err := s.cfg.Catalog.DatasetLocations(ctx, s.cfg.Project)
	if err != nil {
		s.log.DebugContext(ctx, "dataset locations unknown", "error", bqerr.Redact(err.Error()))
		return nil
	}
	var out []string
	for _, loc := range all {
		if loc == "" || strings.EqualFold(loc, "US") || strings.EqualFold(loc, "EU") || slices.Contains(out, loc) {
			continue
		}
		out = append(out, loc)
		if len(out) == maxLocationProbes {
			break
		}
	}
	return out
}

func isNotFound(err error) bool { return bqerr.From(err).Code == bqerr.NotFound }
