package schema

// search_columns: find columns by name or description across a project's
// datasets, ranked, capped and saying when it stopped early.

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"
	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/job"
)

// Search limits: results returned, datasets and tables read per call.
const (
	DefaultSearchResults = 50
	MaxSearchResults     = 500
	maxSearchDatasets    = 50
	maxSearchTables      = 500
	// infoSchemaBytes caps what one INFORMATION_SCHEMA query may bill; it
	// bills BigQuery's 10 MB minimum in practice.
	infoSchemaBytes = 100 << 20
	// infoSchemaMinBill is BigQuery's minimum bill for such a query.
	infoSchemaMinBill = 10 << 20
)

// SearchInput is search_columns' input.
type SearchInput struct {
	Query      string   `json:"query" jsonschema:"Text in column names or descriptions."`
	Project    string   `json:"project,omitempty"`
	Datasets   []string `json:"datasets,omitempty" jsonschema:"Only these (default: up to 50)."`
	MaxResults int      `json:"maxResults,omitempty" jsonschema:"Default 50, max 500."`
	Method     string   `json:"method,omitempty" jsonschema:"auto, metadata or information_schema."`
}

// ColumnMatch is one found column.
type ColumnMatch struct {
	Table       string `json:"table"`
	Column      string `json:"column"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
}

// SearchOutput is search_columns' result, best matches first: exact name,
// name prefix, name substring, then description.
type SearchOutput struct {
	Project string        `json:"project"`
	Matches []ColumnMatch `json:"matches"`
	// Truncated is true when more matched than returned or when datasets or
	// tables were left unread; Hint says how to narrow the search.
	Truncated       bool   `json:"truncated"`
	DatasetsScanned int    `json:"datasetsScanned"`
	TablesScanned   int    `json:"tablesScanned,omitempty"`
	Method          string `json:"method"`
	Hint            string `json:"hint,omitempty"`
}

type scored struct {
	ColumnMatch
	rank int
}

// SearchColumns finds columns matching in.Query.
func (s *Service) SearchColumns(ctx context.Context, in SearchInput) (*SearchOutput, error) {
	q := strings.ToLower(strings.TrimSpace(in.Query))
	if q == "" {
		return nil, bqerr.Invalid("query is empty", "Pass part of a column name or description, e.g. customer_id or email.")
	}
	project := s.projectOr(in.Project)
	if project == "" {
		return nil, noProject()
	}
	if err := bqtype.ValidateProjectID(project); err != nil {
		return nil, err
	}
	limit := DefaultSearchResults
	switch {
	case in.MaxResults < 0 || in.MaxResults > MaxSearchResults:
		return nil, bqerr.Invalid(fmt.Sprintf("maxResults must be between 1 and %d", MaxSearchResults), "Ask for fewer matches and narrow the query.")
	case in.MaxResults > 0:
		limit = in.MaxResults
	}
	method := cmp.Or(in.Method, "auto")
	if method != "auto" && method != "metadata" && method != "information_schema" {
		return nil, bqerr.Invalid(fmt.Sprintf("unknown method %q", bqerr.Truncate(method, 40)), "Use auto, metadata or information_schema.")
	}
	out := &SearchOutput{Project: project, Matches: []ColumnMatch{}, Method: method}
	datasets, more, err := s.searchDatasets(ctx, project, in.Datasets)
	if err != nil {
		return nil, err
	}
	var notes []string
	if more {
		out.Truncated = true
		notes = append(notes, fmt.Sprintf("only the first %d datasets were searched (pass datasets to choose)", maxSearchDatasets))
	}
	var found []scored
	tablesLeft := maxSearchTables
	usedMeta := false
	for _, ds := range datasets {
		out.DatasetsScanned++
		if method != "metadata" {
			m, err := s.searchInfoSchema(ctx, project, ds, q, limit)
			if err == nil {
				found = append(found, m...)
				continue
			}
			if method == "information_schema" {
				return nil, bqerr.From(err)
			}
		}
		usedMeta = true
		m, read, cut, err := s.searchMetadata(ctx, project, ds, q, tablesLeft)
		if err != nil {
			return nil, err
		}
		found = append(found, m...)
		out.TablesScanned += read
		tablesLeft -= read
		if cut {
			out.Truncated = true
			notes = append(notes, fmt.Sprintf("stopped after reading %d table schemas (pass datasets to search the rest)", maxSearchTables))
			break
		}
	}
	if method == "auto" {
		out.Method = "information_schema"
		if usedMeta {
			out.Method = "metadata"
		}
	}
	slices.SortFunc(found, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.Table, b.Table), cmp.Compare(a.Column, b.Column))
	})
	if len(found) > limit {
		out.Truncated = true
		notes = append(notes, fmt.Sprintf("%d of %d or more matches shown (raise maxResults or narrow query)", limit, len(found)))
		found = found[:limit]
	}
	for _, f := range found {
		out.Matches = append(out.Matches, f.ColumnMatch)
	}
	if out.Truncated {
		out.Hint = "Cut: " + strings.Join(notes, "; ") + "."
	}
	return out, nil
}

// searchDatasets returns the datasets to search and whether some were left
// out by the cap: those asked for, each of which the allowlist must allow,
// or else the project's allowed datasets.
func (s *Service) searchDatasets(ctx context.Context, project string, asked []string) ([]string, bool, error) {
	if len(asked) > 0 {
		for _, d := range asked {
			if err := bqtype.ValidateDatasetID(d); err != nil {
				return nil, false, err
			}
			if err := s.cfg.Datasets.Check(project, d); err != nil {
				return nil, false, err
			}
		}
		return asked[:min(len(asked), maxSearchDatasets)], len(asked) > maxSearchDatasets, nil
	}
	l, err := s.ListDatasets(ctx, ListDatasetsInput{Project: project, MaxResults: maxSearchDatasets})
	if err != nil {
		return nil, false, err
	}
	var ids []string
	for _, d := range l.Datasets {
		ids = append(ids, d.ID)
	}
	return ids, l.NextPageToken != "", nil
}

// searchInfoSchema asks the dataset's INFORMATION_SCHEMA.COLUMN_FIELD_PATHS
// view. Dataset-qualified, so it needs no region qualifier and reads no
// other dataset (a region-qualified view would read them all), but it runs
// in the dataset's location and bills BigQuery's 10 MB minimum per query.
// Each row is kept only if the allowlist allows the dataset it names.
//
// The query is a job like any other (job.Runner.Lookup): its requestId is
// chosen before the first attempt, so a retry never starts a second job.
// BigQuery's minimum bill is held in the caller's budget before it
// starts, as a query's estimate is, so that searches running at once (on
// any instance) cannot all pass one check; the job's bytes billed settle
// the hold.
func (s *Service) searchInfoSchema(ctx context.Context, project, dataset, q string, limit int) ([]scored, error) {
	if err := s.cfg.Datasets.Check(project, dataset); err != nil {
		return nil, err
	}
	var c job.Charge
	if s.cfg.Budget != nil {
		hold, err := s.cfg.Budget.Reserve(ctx, auth.CallerFrom(ctx).Principal, infoSchemaMinBill)
		if err != nil {
			return nil, err
		}
		c = job.Charge{Reservation: hold, Estimate: infoSchemaMinBill}
	}
	rows := limit * 4
	sql := fmt.Sprintf("SELECT table_schema, table_name, field_path, data_type, description "+
		"FROM `%s.%s.INFORMATION_SCHEMA.COLUMN_FIELD_PATHS` "+
		"WHERE STRPOS(LOWER(field_path), @q) > 0 OR STRPOS(LOWER(IFNULL(description, '')), @q) > 0 LIMIT %d", project, dataset, rows)
	cfg := job.QueryConfig(job.QuerySpec{SQL: sql, MaxBytesBilled: infoSchemaBytes,
		Params: []*bq.QueryParameter{{Name: "q", ParameterType: &bq.QueryParameterType{Type: "STRING"}, ParameterValue: &bq.QueryParameterValue{Value: q}}}})
	p, err := s.jobs.Lookup(ctx, cfg, "", rows, c)
	if err != nil {
		return nil, err
	}
	var found []scored
	for _, r := range p.Rows {
		// The view reports NULL for a column without a description; any
		// cell may be NULL without failing the search.
		schema, _ := cell(r, 0)
		table, _ := cell(r, 1)
		path, ok := cell(r, 2)
		typ, _ := cell(r, 3)
		desc, _ := cell(r, 4)
		if !ok || !s.cfg.Datasets.Allows(project, schema) {
			continue
		}
		if m, ok := match(schema+"."+table, path, typ, desc, q); ok {
			found = append(found, m)
		}
	}
	return found, nil
}

// cell is row's i-th value as text; false for NULL or a missing cell.
func cell(row *bq.TableRow, i int) (string, bool) {
	if i >= len(row.F) || row.F[i] == nil {
		return "", false
	}
	v, ok := row.F[i].V.(string)
	return v, ok
}

// searchMetadata reads the dataset's table schemas through the metadata
// cache (free) and matches their columns. It reads at most budget tables
// and says whether it stopped early.
func (s *Service) searchMetadata(ctx context.Context, project, dataset, q string, budget int) ([]scored, int, bool, error) {
	l, err := s.ListTables(ctx, ListTablesInput{Project: project, Dataset: dataset, MaxResults: MaxPageSize})
	if err != nil {
		return nil, 0, false, err
	}
	tables := l.Tables
	cut := l.NextPageToken != ""
	if len(tables) > budget {
		tables, cut = tables[:budget], true
	}
	var (
		mu    sync.Mutex
		found []scored
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(sizeReaders)
	for _, t := range tables {
		g.Go(func() error {
			ts, err := s.fullSchema(gctx, project+"."+dataset+"."+t.ID)
			if err != nil {
				if bqerr.From(err).Code == bqerr.NotFound {
					return nil // dropped since the listing
				}
				return err
			}
			var local []scored
			walk(ts.Columns, "", func(path string, c bqtype.Column) {
				if m, ok := match(dataset+"."+t.ID, path, c.Type, c.Description, q); ok {
					local = append(local, m)
				}
			})
			mu.Lock()
			found = append(found, local...)
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, 0, false, err
	}
	return found, len(tables), cut, nil
}

func walk(cols []bqtype.Column, prefix string, fn func(string, bqtype.Column)) {
	for _, c := range cols {
		p := prefix + c.Name
		fn(p, c)
		walk(c.Fields, p+".", fn)
	}
}

// match ranks a column against q: 0 exact name, 1 name prefix, 2 name
// substring, 3 path substring, 4 description.
func match(table, path, typ, desc, q string) (scored, bool) {
	lp := strings.ToLower(path)
	name := lp[strings.LastIndexByte(lp, '.')+1:]
	rank := -1
	switch {
	case name == q:
		rank = 0
	case strings.HasPrefix(name, q):
		rank = 1
	case strings.Contains(name, q):
		rank = 2
	case strings.Contains(lp, q):
		rank = 3
	case strings.Contains(strings.ToLower(desc), q):
		rank = 4
	}
	if rank < 0 {
		return scored{}, false
	}
	return scored{ColumnMatch: ColumnMatch{Table: table, Column: path, Type: typ, Description: bqerr.Truncate(desc, 120)}, rank: rank}, true
}
