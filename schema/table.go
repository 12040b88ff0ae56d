package schema

// get_table_schema: one table's columns and layout, read once through the
// metadata cache (fullSchema, which preview_table and the query catalog
// share) and then cut to what the agent asked for (cut.go).

import (
	"context"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// GetTableSchemaInput is get_table_schema's input.
type GetTableSchemaInput struct {
	Table               string   `json:"table" jsonschema:"[project.]dataset.table"`
	Columns             []string `json:"columns,omitempty" jsonschema:"Names or patterns like user_*."`
	MaxDepth            int      `json:"maxDepth,omitempty" jsonschema:"Nested levels (default 2)."`
	IncludeDescriptions *bool    `json:"includeDescriptions,omitempty" jsonschema:"Default: if they fit."`
	Format              string   `json:"format,omitempty" jsonschema:"json (default) or ddl."`
	FullViewQuery       bool     `json:"fullViewQuery,omitempty" jsonschema:"Whole view SQL (default 2000 bytes)."`
}

// Partitioning describes how a table is partitioned.
type Partitioning struct {
	// Type is DAY, HOUR, MONTH, YEAR (time partitioning) or RANGE.
	Type         string `json:"type"`
	Field        string `json:"field,omitempty"`
	ExpirationMs int64  `json:"expirationMs,omitempty"`
	// RequireFilter means queries must filter on the partition column.
	RequireFilter bool   `json:"requireFilter,omitempty"`
	RangeStart    *int64 `json:"rangeStart,omitempty"`
	RangeEnd      *int64 `json:"rangeEnd,omitempty"`
	RangeInterval *int64 `json:"rangeInterval,omitempty"`
}

// ForeignKey is a declared foreign key: Columns of this table reference
// ReferencedColumns (in the same order) of the table References names.
type ForeignKey struct {
	Columns []string `json:"columns"`
	// References is the referenced table, project.dataset.table.
	References        string   `json:"references"`
	ReferencedColumns []string `json:"referencedColumns"`
}

// TableSchema is get_table_schema's result.
type TableSchema struct {
	Table       string          `json:"table"`
	Type        string          `json:"type"`
	Description string          `json:"description,omitempty"`
	Location    string          `json:"location,omitempty"`
	Columns     []bqtype.Column `json:"columns" jsonschema:"Name and type of each; mode omitted means NULLABLE; empty fields are left out."`
	// PrimaryKey and ForeignKeys are the table's declared keys (BigQuery
	// does not enforce them): join on these rather than on guesses from
	// column names. Left out when none are declared.
	PrimaryKey   []string          `json:"primaryKey,omitempty" jsonschema:"Declared primary key columns (BigQuery does not enforce keys); omitted when none."`
	ForeignKeys  []ForeignKey      `json:"foreignKeys,omitempty" jsonschema:"Declared foreign keys: columns join the table references (project.dataset.table) on referencedColumns, in order. Join on declared keys rather than on names that look alike; omitted when none."`
	Partitioning *Partitioning     `json:"partitioning,omitempty"`
	Clustering   []string          `json:"clustering,omitempty"`
	NumRows      uint64            `json:"numRows"`
	NumBytes     int64             `json:"numBytes"`
	Created      string            `json:"created,omitempty"`
	LastModified string            `json:"lastModified,omitempty"`
	Expires      string            `json:"expires,omitempty"`
	Labels       map[string]string `json:"labels,omitempty"`
	// ViewQuery is the SQL of a view or materialized view.
	ViewQuery string `json:"viewQuery,omitempty"`
	// DDL holds the columns one per line when format is ddl.
	DDL string `json:"ddl,omitempty"`
	// Truncated says the answer was cut (Hint says what and how to get
	// it): OmittedColumns columns left out, nested fields below maxDepth,
	// descriptions, or view SQL (ViewQueryTruncated).
	Truncated          bool   `json:"truncated,omitempty"`
	OmittedColumns     int    `json:"omittedColumns,omitempty"`
	MatchedColumns     int    `json:"matchedColumns,omitempty"`
	ViewQueryTruncated bool   `json:"viewQueryTruncated,omitempty"`
	Hint               string `json:"hint,omitempty"`
	bqtype.Freshness
}

// GetTableSchema reads a table's columns and layout, cut to the columns,
// depth and budget asked for (cut).
func (s *Service) GetTableSchema(ctx context.Context, in GetTableSchemaInput) (*TableSchema, error) {
	o, err := newCutOptions(in)
	if err != nil {
		return nil, err
	}
	full, err := s.fullSchema(ctx, in.Table)
	if err != nil {
		return nil, err
	}
	return cut(s.allowedKeys(full), o), nil
}

// allowedKeys leaves out the foreign keys to tables in datasets the
// allowlist does not allow: an agent could not join them, and a dataset it
// may not read is not named. It filters a copy, after the cache, which
// holds every key.
func (s *Service) allowedKeys(full *TableSchema) *TableSchema {
	if !s.cfg.Datasets.Enabled() || len(full.ForeignKeys) == 0 {
		return full
	}
	out := *full
	out.ForeignKeys = nil
	for _, fk := range full.ForeignKeys {
		if ref, err := bqtype.ParseTableRef(fk.References); err == nil && s.cfg.Datasets.Allows(ref.Project, ref.Dataset) {
			out.ForeignKeys = append(out.ForeignKeys, fk)
		}
	}
	return &out
}

// fullSchema reads a table's whole schema, through the metadata cache.
func (s *Service) fullSchema(ctx context.Context, table string) (*TableSchema, error) {
	ref, err := bqtype.ParseTableRef(table)
	if err != nil {
		return nil, err
	}
	if ref.Project == "" {
		ref.Project = s.cfg.Project
	}
	if ref.Project == "" {
		return nil, noProject()
	}
	// Checked on the parsed name, before the cache: every spelling of a
	// table and every cached schema pass here.
	if err := s.cfg.Datasets.Check(ref.Project, ref.Dataset); err != nil {
		return nil, err
	}
	return cached(ctx, s, "table\x00"+ref.String(), func(ctx context.Context) (*TableSchema, error) {
		var md *bigquery.TableMetadata
		err := s.exec.Do(ctx, resilience.Metadata, ref.Project, func(ctx context.Context) error {
			var err error
			md, err = s.client.DatasetInProject(ref.Project, ref.Dataset).Table(ref.Table).Metadata(ctx)
			return err
		})
		if err != nil {
			return nil, err
		}
		return tableSchema(ref, md), nil
	}, func(o *TableSchema, f bqtype.Freshness) *TableSchema { c := *o; c.Freshness = f; return &c })
}

func tableSchema(ref bqtype.TableRef, md *bigquery.TableMetadata) *TableSchema {
	out := &TableSchema{
		Table:       ref.String(),
		Type:        string(md.Type),
		Description: md.Description,
		Location:    md.Location,
		Columns:     bqtype.Columns(md.Schema),
		NumRows:     md.NumRows,
		NumBytes:    md.NumBytes,
		Labels:      md.Labels,
		ViewQuery:   md.ViewQuery,
	}
	if out.Type == "" {
		out.Type = "TABLE"
	}
	if md.MaterializedView != nil && out.ViewQuery == "" {
		out.ViewQuery = md.MaterializedView.Query
	}
	out.Created = rfc3339(md.CreationTime)
	out.LastModified = rfc3339(md.LastModifiedTime)
	out.Expires = rfc3339(md.ExpirationTime)
	if tp := md.TimePartitioning; tp != nil {
		typ := string(tp.Type)
		if typ == "" {
			typ = "DAY"
		}
		out.Partitioning = &Partitioning{Type: typ, Field: tp.Field, ExpirationMs: tp.Expiration.Milliseconds(), RequireFilter: md.RequirePartitionFilter}
	}
	if rp := md.RangePartitioning; rp != nil {
		p := &Partitioning{Type: "RANGE", Field: rp.Field, RequireFilter: md.RequirePartitionFilter}
		if r := rp.Range; r != nil {
			p.RangeStart, p.RangeEnd, p.RangeInterval = &r.Start, &r.End, &r.Interval
		}
		out.Partitioning = p
	}
	if md.Clustering != nil {
		out.Clustering = md.Clustering.Fields
	}
	out.PrimaryKey, out.ForeignKeys = keys(ref, md.TableConstraints)
	return out
}

// keys turns a table's declared constraints into its primary key columns
// and foreign keys; a foreign key's table without a project is in ref's.
func keys(ref bqtype.TableRef, tc *bigquery.TableConstraints) ([]string, []ForeignKey) {
	if tc == nil {
		return nil, nil
	}
	var pk []string
	if tc.PrimaryKey != nil && len(tc.PrimaryKey.Columns) > 0 {
		pk = tc.PrimaryKey.Columns
	}
	var fks []ForeignKey
	for _, f := range tc.ForeignKeys {
		if f == nil || f.ReferencedTable == nil || len(f.ColumnReferences) == 0 {
			continue
		}
		to := bqtype.TableRef{Project: f.ReferencedTable.ProjectID, Dataset: f.ReferencedTable.DatasetID, Table: f.ReferencedTable.TableID}
		if to.Project == "" {
			to.Project = ref.Project
		}
		fk := ForeignKey{References: to.String()}
		for _, c := range f.ColumnReferences {
			if c != nil {
				fk.Columns = append(fk.Columns, c.ReferencingColumn)
				fk.ReferencedColumns = append(fk.ReferencedColumns, c.ReferencedColumn)
			}
		}
		fks = append(fks, fk)
	}
	return pk, fks
}
