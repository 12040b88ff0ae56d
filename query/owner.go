package query

import (
	"context"
	"fmt"
	"time"

	"cloud.google.com/go/bigquery"
)

// startedJob is a job this server started, after its query passed the
// checks: its results may be read without checking again, and its cost is
// still to be counted when it outlived the call that started it.
type startedJob struct {
	principal string
	pending   bool
}

// startedJobsTTL is how long a started job is remembered: BigQuery keeps
// query results for about a day.
const startedJobsTTL = 24 * time.Hour

func newStartedJobs() *ttlCache[string, startedJob] {
	return newTTLCache[string, startedJob](4096, startedJobsTTL)
}

// checkJobDatasets refuses to read the results of a job this server did not
// start (another instance's, or anyone's in the project) unless BigQuery
// lists the tables it read and all are in allowed datasets.
func (s *Service) checkJobDatasets(ctx context.Context, id, loc string) error {
	if !s.cfg.Datasets.Enabled() {
		return nil
	}
	if _, ok := s.started.Get(id); ok {
		return nil
	}
	_, status, _, err := s.findJob(ctx, id, loc)
	if err != nil {
		return err
	}
	var qs *bigquery.QueryStatistics
	if status.Statistics != nil {
		qs, _ = status.Statistics.Details.(*bigquery.QueryStatistics)
	}
	if qs == nil || len(qs.ReferencedTables) == 0 || len(qs.ReferencedTables) >= maxReferencedTables {
		return s.cfg.Datasets.Denied("job " + id + " was not started by this server and BigQuery does not list all the tables it read, so the dataset allowlist cannot be checked").
			WithHint("Run the query with execute_sql on this server; only results of checked queries can be read.")
	}
	for _, t := range qs.ReferencedTables {
		if !s.cfg.Datasets.Allows(t.ProjectID, t.DatasetID) {
			return s.cfg.Datasets.Denied(fmt.Sprintf("job %s read %s.%s.%s, outside this server's dataset allowlist", id, t.ProjectID, t.DatasetID, t.TableID))
		}
	}
	return nil
}
