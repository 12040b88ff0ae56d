package query

// Location without guessing. With --location unset, a query runs where its
// default dataset lives (from cached metadata) or, without one, where
// BigQuery routes it by the data it reads; the result names the location
// used. Finding a job in any region is package job's (job.Runner).

import (
	"context"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

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
