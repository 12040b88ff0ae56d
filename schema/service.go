// Package schema answers the metadata questions agents ask before they write
// SQL: which datasets and tables exist, what a table looks like (cut to the
// columns, depth and bytes asked for), which columns match a name, and a
// first page of a table's rows, read without running a query.
//
// It owns the metadata side of BigQuery for the tools: dataset lists, table
// lists and schemas go through the metadata cache, so that an agent
// exploring a warehouse does not pay a round trip per question and still
// gets an answer, marked stale, while BigQuery is unreachable; every answer
// is filtered by the dataset allowlist, so that a dataset an agent may not
// read is not even named. It also answers the questions other packages
// have about metadata (dataset locations, the catalog of table types the
// query allowlist consults for authorized views), so that those are asked
// and cached in one place. Table rows come from tabledata.list, which bills
// nothing, and are shaped by package rows exactly as query results are, so
// this package needs nothing from query. A Service is built once from a
// Config.
package schema

import (
	"context"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/bigquery"
	"golang.org/x/sync/errgroup"
	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/job"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
)

// Service lists datasets and tables and reads table metadata.
//
// Listing uses the REST service directly because the Go client's iterators
// drop the table type and dataset location that the list calls return for
// free; table metadata uses the Go client for its typed schema.
type Service struct {
	client *bigquery.Client
	rest   *bq.Service
	exec   *resilience.Executor
	cache  *resilience.Cache
	// jobs runs search_columns' INFORMATION_SCHEMA queries (search.go).
	jobs *job.Runner
	// cfg is the Config given to NewService, with its defaults filled in.
	cfg Config
}

// cached serves key from the cache, or computes it with fetch.
func cached[T any](ctx context.Context, s *Service, key string, fetch func(context.Context) (*T, error), fresh func(*T, bqtype.Freshness) *T) (*T, error) {
	// A user caller (oauth mode) gets a cache of their own.
	v, f, err := s.cache.Get(ctx, s.cfg.Identity+auth.CallerFrom(ctx).CredentialKey()+"\x00"+key, func(ctx context.Context) (any, error) { return fetch(ctx) })
	if err != nil {
		return nil, bqerr.From(err)
	}
	return fresh(v.(*T), bqtype.Freshness(f)), nil
}

// Paging limits shared by the list tools.
const (
	DefaultPageSize = 100
	MaxPageSize     = 1000
	// maxListPages bounds the BigQuery pages one filtered listing reads, so
	// a filter or allowlist matching little costs a few requests per call,
	// not one per page of a large project.
	maxListPages = 10
)

// ListDatasetsInput is list_datasets' input.
type ListDatasetsInput struct {
	Project    string `json:"project,omitempty"`
	Filter     string `json:"filter,omitempty" jsonschema:"Substring of the ID."`
	PageToken  string `json:"pageToken,omitempty" jsonschema:"From nextPageToken."`
	MaxResults int    `json:"maxResults,omitempty" jsonschema:"Default 100, max 1000."`
}

// Dataset is one entry of a dataset listing.
type Dataset struct {
	ID           string            `json:"id"`
	Project      string            `json:"project"`
	Location     string            `json:"location,omitempty"`
	FriendlyName string            `json:"friendlyName,omitempty"`
	Labels       map[string]string `json:"labels,omitempty"`
}

// ListDatasetsOutput is list_datasets' result.
type ListDatasetsOutput struct {
	Project       string    `json:"project"`
	Datasets      []Dataset `json:"datasets"`
	NextPageToken string    `json:"nextPageToken,omitempty"`
	// Hint says why a page is short although more may follow.
	Hint string `json:"hint,omitempty"`
	bqtype.Freshness
}

// ListDatasets lists a project's datasets, one page at a time, only those
// the dataset allowlist allows. With a filter or an allowlist it reads
// further pages (up to maxListPages) until it has a page's worth of
// matches, so a sparse match does not hand the agent a string of empty
// pages.
func (s *Service) ListDatasets(ctx context.Context, in ListDatasetsInput) (*ListDatasetsOutput, error) {
	project := s.projectOr(in.Project)
	if project == "" {
		return nil, noProject()
	}
	if err := bqtype.ValidateProjectID(project); err != nil {
		return nil, err
	}
	if err := s.checkProject(project); err != nil {
		return nil, err
	}
	size, err := pageSize(in.MaxResults)
	if err != nil {
		return nil, err
	}
	// The allowlist is part of the key: a listing filtered for one
	// allowlist is never served under another.
	key := strings.Join([]string{"datasets", project, in.Filter, in.PageToken, strconv.Itoa(size), s.cfg.Datasets.String()}, "\x00")
	return cached(ctx, s, key, func(ctx context.Context) (*ListDatasetsOutput, error) {
		return s.listDatasets(ctx, project, in.Filter, in.PageToken, size)
	}, func(o *ListDatasetsOutput, f bqtype.Freshness) *ListDatasetsOutput {
		c := *o
		c.Freshness = f
		return &c
	})
}

func (s *Service) listDatasets(ctx context.Context, project, filter, token string, size int) (*ListDatasetsOutput, error) {
	out := &ListDatasetsOutput{Project: project, Datasets: []Dataset{}}
	sparse := filter != "" || s.cfg.Datasets.Enabled()
	for pages := 1; ; pages++ {
		var page *bq.DatasetList
		err := s.exec.Do(ctx, resilience.Metadata, project, func(ctx context.Context) error {
			var err error
			page, err = s.rest.Datasets.List(project).MaxResults(int64(size)).PageToken(token).Context(ctx).Do()
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, d := range page.Datasets {
			if d.DatasetReference == nil || !contains(d.DatasetReference.DatasetId, filter) ||
				!s.cfg.Datasets.Allows(project, d.DatasetReference.DatasetId) {
				continue
			}
			out.Datasets = append(out.Datasets, Dataset{
				ID:           d.DatasetReference.DatasetId,
				Project:      d.DatasetReference.ProjectId,
				Location:     d.Location,
				FriendlyName: d.FriendlyName,
				Labels:       d.Labels,
			})
		}
		token = page.NextPageToken
		if token == "" || len(out.Datasets) >= size || !sparse || pages == maxListPages {
			break
		}
	}
	out.NextPageToken = token
	if sparse && token != "" && len(out.Datasets) < size {
		out.Hint = "Fewer than maxResults datasets on this page: the filter or the dataset allowlist hides most of this project. Follow nextPageToken for the rest."
	}
	return out, nil
}

// ListTablesInput is list_tables' input.
type ListTablesInput struct {
	Dataset        string `json:"dataset" jsonschema:"[project.]dataset"`
	Project        string `json:"project,omitempty"`
	Filter         string `json:"filter,omitempty" jsonschema:"Substring of the ID."`
	PageToken      string `json:"pageToken,omitempty" jsonschema:"From nextPageToken."`
	MaxResults     int    `json:"maxResults,omitempty" jsonschema:"Default 100, max 1000."`
	IncludeDetails bool   `json:"includeDetails,omitempty" jsonschema:"Add row counts and sizes (a call per table)."`
}

// Table is one entry of a table listing.
type Table struct {
	ID string `json:"id"`
	// Type is TABLE, VIEW, MATERIALIZED_VIEW, EXTERNAL or SNAPSHOT.
	Type         string            `json:"type"`
	Created      string            `json:"created,omitempty"`
	Expires      string            `json:"expires,omitempty"`
	Partitioning *Partitioning     `json:"partitioning,omitempty"`
	Clustering   []string          `json:"clustering,omitempty"`
	Labels       map[string]string `json:"labels,omitempty"`
	NumRows      *uint64           `json:"numRows,omitempty"`
	NumBytes     *int64            `json:"numBytes,omitempty"`
}

// ListTablesOutput is list_tables' result.
type ListTablesOutput struct {
	Project       string  `json:"project"`
	Dataset       string  `json:"dataset"`
	Tables        []Table `json:"tables"`
	NextPageToken string  `json:"nextPageToken,omitempty"`
	bqtype.Freshness
}

// ListTables lists a dataset's tables with their type, partitioning and
// clustering (free with the listing), and optionally their size.
func (s *Service) ListTables(ctx context.Context, in ListTablesInput) (*ListTablesOutput, error) {
	project, dataset := s.projectOr(in.Project), strings.ReplaceAll(strings.TrimSpace(in.Dataset), "`", "")
	if p, d, ok := strings.Cut(dataset, "."); ok && !strings.Contains(d, ".") {
		project, dataset = p, d
	}
	if err := bqtype.ValidateDatasetID(dataset); err != nil {
		return nil, err
	}
	if project == "" {
		return nil, noProject()
	}
	if err := bqtype.ValidateProjectID(project); err != nil {
		return nil, err
	}
	if err := s.cfg.Datasets.Check(project, dataset); err != nil {
		return nil, err
	}
	size, err := pageSize(in.MaxResults)
	if err != nil {
		return nil, err
	}
	key := strings.Join([]string{"tables", project, dataset, in.Filter, in.PageToken, strconv.Itoa(size), strconv.FormatBool(in.IncludeDetails)}, "\x00")
	return cached(ctx, s, key, func(ctx context.Context) (*ListTablesOutput, error) {
		return s.listTables(ctx, project, dataset, in.Filter, in.PageToken, size, in.IncludeDetails)
	}, func(o *ListTablesOutput, f bqtype.Freshness) *ListTablesOutput {
		c := *o
		c.Freshness = f
		return &c
	})
}

func (s *Service) listTables(ctx context.Context, project, dataset, filter, token string, size int, details bool) (*ListTablesOutput, error) {
	out := &ListTablesOutput{Project: project, Dataset: dataset, Tables: []Table{}}
	for {
		var page *bq.TableList
		err := s.exec.Do(ctx, resilience.Metadata, project, func(ctx context.Context) error {
			var err error
			page, err = s.rest.Tables.List(project, dataset).MaxResults(int64(size)).PageToken(token).Context(ctx).Do()
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, t := range page.Tables {
			if t.TableReference == nil || !contains(t.TableReference.TableId, filter) {
				continue
			}
			out.Tables = append(out.Tables, listedTable(t))
		}
		token = page.NextPageToken
		if token == "" || len(out.Tables) >= size || filter == "" {
			break
		}
	}
	out.NextPageToken = token
	if details {
		if err := s.addSizes(ctx, project, dataset, out.Tables); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func listedTable(t *bq.TableListTables) Table {
	tab := Table{ID: t.TableReference.TableId, Type: t.Type, Labels: t.Labels}
	if tab.Type == "" {
		tab.Type = "TABLE"
	}
	if t.CreationTime > 0 {
		tab.Created = millisTime(t.CreationTime)
	}
	if t.ExpirationTime > 0 {
		tab.Expires = millisTime(t.ExpirationTime)
	}
	if tp := t.TimePartitioning; tp != nil {
		tab.Partitioning = &Partitioning{Type: tp.Type, Field: tp.Field, ExpirationMs: tp.ExpirationMs}
	}
	if rp := t.RangePartitioning; rp != nil {
		tab.Partitioning = &Partitioning{Type: "RANGE", Field: rp.Field}
	}
	if t.Clustering != nil {
		tab.Clustering = t.Clustering.Fields
	}
	return tab
}

// sizeReaders bounds the concurrent metadata calls of one listing: enough to
// hide latency, few enough not to look like a burst to BigQuery's rate limits.
const sizeReaders = 8

// addSizes reads row counts and sizes with a few concurrent metadata calls.
// A table that vanished between listing and reading keeps no size rather than
// failing the whole listing. Any other failure fails it: the calls in flight
// are cancelled and no further call starts.
func (s *Service) addSizes(ctx context.Context, project, dataset string, tables []Table) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(sizeReaders)
	started := 0
	for i := range tables {
		if gctx.Err() != nil {
			break // a call failed (or the caller gave up): start no more
		}
		started++
		t := &tables[i]
		g.Go(func() error {
			var md *bigquery.TableMetadata
			err := s.exec.Do(gctx, resilience.Metadata, project, func(ctx context.Context) error {
				var err error
				md, err = s.client.DatasetInProject(project, dataset).Table(t.ID).Metadata(ctx)
				return err
			})
			if err != nil {
				if e := bqerr.From(err); e.Code != bqerr.NotFound {
					return e
				}
				return nil
			}
			rows, bytes := md.NumRows, md.NumBytes
			t.NumRows, t.NumBytes = &rows, &bytes
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if started < len(tables) {
		return ctx.Err() // the caller gave up before every size was read
	}
	return nil
}

func (s *Service) projectOr(p string) string {
	if p = strings.TrimSpace(p); p != "" {
		return p
	}
	return s.cfg.Project
}

func pageSize(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultPageSize, nil
	case n < 0 || n > MaxPageSize:
		return 0, bqerr.Invalid("maxResults must be between 1 and 1000", "Leave maxResults out for 100 per page, and follow nextPageToken for more.")
	}
	return n, nil
}

func noProject() error {
	return bqerr.Invalid("no project given and the server has no default project",
		"Pass project explicitly, or ask the user to start the server with --project (BIGQUERY_PROJECT).")
}

func contains(id, filter string) bool {
	return filter == "" || strings.Contains(strings.ToLower(id), strings.ToLower(filter))
}

func millisTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format(time.RFC3339)
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
