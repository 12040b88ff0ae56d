package query

// Location without guessing. With --location unset, a query runs where its
// default dataset lives (from cached metadata) or, without one, where
// BigQuery routes it by the data it reads; the result names the location
// used. Finding a job in any region is package job's (job.Runner).

import (
	"context"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// jobLocation returns where r's job runs, working it out once per request:
// --location when set; otherwise the default dataset's location from cached
// metadata. "" leaves the choice to BigQuery, which routes by the data the
// query reads (a dry run that reports its location fills it in; see dryRun).
// A lookup that fails only leaves the location unset: the query's own
// request reports any real problem with the dataset. The lookup may take
// at most half of the call's time left, so that against a BigQuery that
// does not answer, the query's own request still meets it in time and is
// counted by the breaker (the lookup, cached and detached from the call,
// is counted when its own policy ends it); while the project's breaker is
// open it is not made, and the query's request fails at once.
func (s *Service) jobLocation(ctx context.Context, r *request) string {
	if r.located {
		return r.location
	}
	r.located = true
	r.location = s.cfg.Location
	if r.location == "" && r.defaultDataset != "" && s.cfg.Catalog != nil && s.exec.BreakerStates()[s.cfg.Project] != resilience.Open {
		lctx := ctx
		if d, ok := ctx.Deadline(); ok {
			var cancel context.CancelFunc
			lctx, cancel = context.WithTimeout(ctx, time.Until(d)/2)
			defer cancel()
		}
		loc, err := s.cfg.Catalog.DatasetLocation(lctx, r.defaultProject, r.defaultDataset)
		if err != nil {
			s.log.DebugContext(ctx, "default dataset location unknown", "dataset", r.defaultProject+"."+r.defaultDataset, "error", bqerr.Redact(err.Error()))
		}
		r.location = loc
	}
	return r.location
}
