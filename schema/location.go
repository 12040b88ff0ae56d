package schema

import (
	"context"
	"slices"

	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// Where datasets live, from cached metadata, for the query service: it runs
// a query with a default dataset in that dataset's location, and looks for
// a job of unknown location in the locations of the project's datasets.

// datasetLocation is the cached answer of DatasetLocation.
type datasetLocation struct{ location string }

// DatasetLocation returns a dataset's location: one datasets.get, then
// served from the metadata cache. "" when BigQuery does not say (the
// emulator's loaded datasets).
func (s *Service) DatasetLocation(ctx context.Context, project, dataset string) (string, error) {
	d, err := cached(ctx, s, "dataset-location\x00"+project+"\x00"+dataset, func(ctx context.Context) (*datasetLocation, error) {
		out := &datasetLocation{}
		err := s.exec.Do(ctx, resilience.Metadata, project, func(ctx context.Context) error {
			ds, err := s.rest.Datasets.Get(project, dataset).Fields("location").Context(ctx).Do()
			if err != nil {
				return err
			}
			out.location = ds.Location
			return nil
		})
		if err != nil {
			return nil, err
		}
		return out, nil
	}, func(d *datasetLocation, _ bqtype.Freshness) *datasetLocation { return d })
	if err != nil {
		return "", err
	}
	return d.location, nil
}

// DatasetLocations returns the distinct locations of a project's datasets,
// sorted, from the cached listing of its first MaxPageSize datasets.
func (s *Service) DatasetLocations(ctx context.Context, project string) ([]string, error) {
	l, err := s.ListDatasets(ctx, ListDatasetsInput{Project: project, MaxResults: MaxPageSize})
	if err != nil {
		return nil, err
	}
	var locs []string
	for _, d := range l.Datasets {
		if d.Location != "" && !slices.Contains(locs, d.Location) {
			locs = append(locs, d.Location)
		}
	}
	slices.Sort(locs)
	return locs, nil
}
