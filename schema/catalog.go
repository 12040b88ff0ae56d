package schema

import (
	"context"

	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// maxCatalogDatasets bounds how many dataset IDs DatasetIDs reads.
const maxCatalogDatasets = 10000

// TableType reports a table's type (TABLE, VIEW, MATERIALIZED_VIEW, …)
// from cached metadata. The query service's dataset allowlist asks it to
// tell an authorized view from a table.
func (s *Service) TableType(ctx context.Context, project, dataset, table string) (string, error) {
	ts, err := s.fullSchema(ctx, bqtype.TableRef{Project: project, Dataset: dataset, Table: table}.String())
	if err != nil {
		return "", err
	}
	return ts.Type, nil
}

// catalogDatasets is the cached answer of DatasetIDs.
type catalogDatasets struct{ ids []string }

// DatasetIDs lists the IDs of every dataset of project, whatever the
// allowlist: the query service's allowlist needs to know the names it must
// not see in a query's text.
func (s *Service) DatasetIDs(ctx context.Context, project string) ([]string, error) {
	d, err := cached(ctx, s, "catalog-datasets\x00"+project, func(ctx context.Context) (*catalogDatasets, error) {
		out := &catalogDatasets{}
		token := ""
		for len(out.ids) < maxCatalogDatasets {
			var next string
			err := s.exec.Do(ctx, resilience.Metadata, project, func(ctx context.Context) error {
				list, err := s.rest.Datasets.List(project).All(true).MaxResults(1000).PageToken(token).Context(ctx).Do()
				if err != nil {
					return err
				}
				for _, d := range list.Datasets {
					if d.DatasetReference != nil {
						out.ids = append(out.ids, d.DatasetReference.DatasetId)
					}
				}
				next = list.NextPageToken
				return nil
			})
			if err != nil {
				return nil, err
			}
			if token = next; token == "" {
				break
			}
		}
		return out, nil
	}, func(d *catalogDatasets, _ bqtype.Freshness) *catalogDatasets { return d })
	if err != nil {
		return nil, err
	}
	return d.ids, nil
}
