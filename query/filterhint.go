package query

// A table may require a partition filter: BigQuery refuses a query over it
// that has none. The server does not check that before the job, because
// BigQuery's own dry run (free, and made anyway when a check needs one)
// or the job refuses such a query at once, and a check made first would
// cost a tables.get on every cold query and, against a BigQuery that
// hangs, spend the call's deadline where no breaker counts it (issue 36).
// The refusal is explained instead: the table it names is looked up then,
// under the call's remaining time, through the Catalog's cached tables.get
// (whose failures count like any call's), for its partition column's type
// and range, so that the hint's example filter is one BigQuery accepts.

import (
	"context"
	"fmt"
	"strings"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
)

// partitionFilterRefusal reads BigQuery's refusal of a query without a
// required partition filter ("Cannot query over table 'p.d.t' without a
// filter over column(s) 'ts' that can be used for partition elimination"):
// the table and the column(s) it names.
func partitionFilterRefusal(msg string) (table, columns string, ok bool) {
	_, rest, ok := strings.Cut(msg, "Cannot query over table '")
	if !ok {
		return "", "", false
	}
	table, rest, ok = strings.Cut(rest, "' without a filter over column(s) '")
	if !ok {
		return "", "", false
	}
	columns, _, ok = strings.Cut(rest, "'")
	return table, columns, ok
}

// splitTable reads BigQuery's project.dataset.table (a domain-scoped
// project, example.com:p, has dots of its own); a name without a project
// is in defaultProject.
func splitTable(name, defaultProject string) (tableRef, bool) {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 {
		return tableRef{}, false
	}
	head, table := name[:i], name[i+1:]
	project, dataset := defaultProject, head
	if j := strings.LastIndexByte(head, '.'); j >= 0 {
		project, dataset = head[:j], head[j+1:]
	}
	if project == "" || dataset == "" || table == "" {
		return tableRef{}, false
	}
	return tableRef{project, dataset, table}, true
}

// explainPartitionFilter puts a hint with a filter BigQuery accepts on e
// when it is BigQuery's refusal of a query without a required partition
// filter; any other error comes back unchanged. The table is looked up
// only when the call has time left and the dataset allowlist lets the
// caller see it; without its layout the hint names the column alone.
func (s *Service) explainPartitionFilter(ctx context.Context, r *request, e *bqerr.Error) *bqerr.Error {
	if e.Code != bqerr.QueryError {
		return e
	}
	name, columns, ok := partitionFilterRefusal(e.Message)
	if !ok {
		return e
	}
	hint := fmt.Sprintf("The table requires a filter on its partition column %s: add one to WHERE (a recent range keeps the query small); dry_run_sql shows what it reads.", columns)
	t, ok := splitTable(name, s.cfg.Project)
	if !ok || s.cfg.Catalog == nil || ctx.Err() != nil || (s.cfg.Datasets.Enabled() && !s.cfg.Datasets.Allows(t.project, t.dataset)) {
		return e.WithHint(hint)
	}
	l, err := s.cfg.Catalog.TableLayout(ctx, t.project, t.dataset, t.table)
	if err != nil || l == nil || l.Partitioning == nil {
		if err != nil {
			s.log.DebugContext(ctx, "partitioned table not looked up", "table", t.String(), "error", bqerr.Redact(err.Error()))
		}
		return e.WithHint(hint)
	}
	return e.WithHint(filterHint(l.Partitioning))
}

// filterHint is the hint for a query over a table partitioned as p that
// lacks the filter the table requires: an example over the last 7 days,
// or the integer range's bounds.
func filterHint(p *bqtype.PartitionLayout) string {
	col := p.Column
	if p.ColumnType != "" {
		col += " (" + p.ColumnType + ")"
	}
	if p.Type == "RANGE" {
		return fmt.Sprintf("The table requires a filter on its partition column %s: filter it to part of [%d, %d); dry_run_sql shows what the query reads.", col, p.RangeStart, p.RangeEnd)
	}
	return fmt.Sprintf("The table requires a filter on its partition column %s, e.g. WHERE %s for the last 7 days; dry_run_sql shows what each range reads.", col, recentFilter(p, 7))
}
