package schema

import (
	"context"
	"strings"

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

// TableLayout reports a table's size, partitioning (type, column and its
// type, integer range, whether a partition filter is required) and
// clustering from the cached tables.get answer fullSchema keeps: the
// query service's cost advice asks it.
func (s *Service) TableLayout(ctx context.Context, project, dataset, table string) (*bqtype.TableLayout, error) {
	ts, err := s.fullSchema(ctx, bqtype.TableRef{Project: project, Dataset: dataset, Table: table}.String())
	if err != nil {
		return nil, err
	}
	return layoutOf(ts), nil
}

// layoutOf reads a table's layout from its schema.
func layoutOf(ts *TableSchema) *bqtype.TableLayout {
	out := &bqtype.TableLayout{Type: ts.Type, NumBytes: ts.NumBytes, Clustering: ts.Clustering}
	p := ts.Partitioning
	if p == nil {
		return out
	}
	pl := &bqtype.PartitionLayout{Type: p.Type, Column: p.Field, RequireFilter: p.RequireFilter}
	if pl.Column == "" {
		// Ingestion-time partitioning.
		pl.Column, pl.ColumnType = "_PARTITIONTIME", "TIMESTAMP"
	} else {
		for _, c := range ts.Columns {
			if strings.EqualFold(c.Name, pl.Column) {
				pl.ColumnType = c.Type
				break
			}
		}
	}
	if p.RangeStart != nil && p.RangeEnd != nil && p.RangeInterval != nil {
		pl.RangeStart, pl.RangeEnd, pl.RangeInterval = *p.RangeStart, *p.RangeEnd, *p.RangeInterval
	}
	out.Partitioning = pl
	return out
}
