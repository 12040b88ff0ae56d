package job

// Location without guessing. Jobs this server started or found are
// remembered with their location, so the job tools find them without the
// agent naming one; an unknown job that a request without location does
// not find is looked for in each location of the project's datasets, a
// bounded number of extra requests.

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"cloud.google.com/go/bigquery"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

const (
	// jobLocationCacheSize bounds how many jobs' locations are
	// remembered.
	jobLocationCacheSize = 4096
	// maxLocationProbes bounds the extra jobs.get requests one call makes
	// to find a job in the locations of the project's datasets.
	maxLocationProbes = 8
)

// locations holds the locations of jobs the runner started or found.
type locations struct {
	jobs *lru.Cache[string, string]
}

func newLocations() *locations {
	c, err := lru.New[string, string](jobLocationCacheSize)
	if err != nil {
		panic(err) // only for a non-positive size
	}
	return &locations{jobs: c}
}

// remember notes where a job runs, so the job tools find it without a
// location.
func (r *Runner) remember(job Ref) {
	if job.ID != "" && job.Location != "" {
		r.jobs.jobs.Add(job.ID, job.Location)
	}
}

// known is loc when the agent gave one, else --location, else where a job
// this server started or found runs; "" when none is known.
func (r *Runner) known(id, loc string) string {
	if loc == "" {
		loc = r.cfg.Location
	}
	if loc == "" {
		loc, _ = r.jobs.jobs.Get(id)
	}
	return loc
}

// found is a job as jobs.get found it, in loc.
type found struct {
	job    *bigquery.Job
	status *bigquery.JobStatus
	loc    string
}

// get reads a job's metadata where loc says.
func (r *Runner) get(ctx context.Context, id, loc string) (*found, error) {
	var job *bigquery.Job
	err := r.exec.Do(ctx, resilience.Query, r.cfg.Project, func(ctx context.Context) error {
		var err error
		job, err = r.client.JobFromIDLocation(ctx, id, loc)
		return err
	})
	if err != nil {
		return nil, bqerr.From(err).WithJobID(id)
	}
	status := job.LastStatus()
	if status == nil {
		status = &bigquery.JobStatus{}
	}
	f := &found{job: job, status: status, loc: cmp.Or(job.Location(), loc)}
	r.remember(Ref{ID: id, Location: f.loc})
	return f, nil
}

// find reads a job's metadata. A job whose location nobody knows is asked
// for without one, which finds jobs in the US and EU multi-regions; if
// that answers 404, probe looks in the other locations.
func (r *Runner) find(ctx context.Context, id, loc string) (*found, error) {
	f, err := r.get(ctx, id, loc)
	if err == nil {
		return f, nil
	}
	if loc != "" || !isNotFound(err) {
		return nil, err
	}
	return r.probe(ctx, id, err)
}

// probe looks for a job that a request without location did not find
// (notFound is that request's error) in each location of the project's
// datasets, taken from cached metadata. US and EU are skipped: a request
// without location already covers them. At most maxLocationProbes
// jobs.get requests are made.
func (r *Runner) probe(ctx context.Context, id string, notFound error) (*found, error) {
	candidates := r.probeLocations(ctx)
	for _, loc := range candidates {
		f, err := r.get(ctx, id, loc)
		if err == nil {
			return f, nil
		}
		if !isNotFound(err) {
			return nil, err
		}
	}
	hint := "No job " + id + " in this project's US and EU locations"
	if len(candidates) > 0 {
		hint += " nor in " + strings.Join(candidates, ", ") + " (where its datasets are)"
	}
	hint += ". Check the jobId, and pass location if the job ran in another region."
	return nil, bqerr.From(notFound).WithJobID(id).WithHint(hint)
}

// probeLocations lists where to look for a job: the distinct locations of
// the project's datasets other than the US and EU multi-regions, at most
// maxLocationProbes of them.
func (r *Runner) probeLocations(ctx context.Context) []string {
	if r.cfg.Locations == nil {
		return nil
	}
	all, err := r.cfg.Locations(ctx)
	if err != nil {
		r.log.DebugContext(ctx, "dataset locations unknown", "error", bqerr.Redact(err.Error()))
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
