package query

import (
	"context"
	"fmt"
	"strings"

	"cloud.google.com/go/bigquery"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// Catalog answers, from cached metadata, what the dataset allowlist must
// know about the objects a query names. The schema service implements it.
type Catalog interface {
	// TableType is TABLE, VIEW, MATERIALIZED_VIEW, EXTERNAL, SNAPSHOT…
	TableType(ctx context.Context, project, dataset, table string) (string, error)
	// Datasets lists the IDs of a project's datasets.
	Datasets(ctx context.Context, project string) ([]string, error)
}

// maxReferencedTables is how many tables BigQuery lists in
// referencedTables at most; a query that reaches it may read more.
const maxReferencedTables = 50

// tableRef is one table as BigQuery reports it.
type tableRef struct{ project, dataset, table string }

func (t tableRef) String() string { return t.project + "." + t.dataset + "." + t.table }

// checkDatasets refuses, before any job runs, a statement that would read a
// dataset outside the allowlist. It combines what BigQuery's dry run reports
// (stats: the tables the statement reads, views resolved to the tables under
// them) with what the text names (names), so that neither alone decides:
//
//   - Every table BigQuery reports must be in an allowed dataset, except
//     the tables under a view of an allowed dataset that the query names
//     (an authorized view): then the query must name no dataset outside the
//     allowlist, and the reported table's dataset must not appear in the
//     text at all, so that it can only have been reached through the view.
//   - BigQuery leaves INFORMATION_SCHEMA and EXTERNAL_QUERY out of
//     referencedTables: the first is allowed for allowed datasets only, the
//     second never. Scripts and 50 or more tables are refused: BigQuery's
//     list is then incomplete.
//   - When BigQuery reports no table but a query's text names one, the list
//     is missing: refused (fail closed). DML and DDL may name only the
//     table they write, which must then be in an allowed dataset.
func (s *Service) checkDatasets(ctx context.Context, r *request, stats *bigquery.QueryStatistics) error {
	toks, _ := lexSQL(r.sql)
	names := readNames(toks)
	if err := s.checkNamesBeforeDryRun(r, names); err != nil {
		return err
	}
	if st := stats.StatementType; st == "SCRIPT" || len(splitSQLTokens(toks)) > 1 {
		return s.cfg.Datasets.Denied("a script's tables cannot all be checked against the dataset allowlist before it runs").
			WithHint("Send one statement per call; this server only reads the datasets " + s.cfg.Datasets.String() + ".")
	}
	if len(stats.ReferencedTables) >= maxReferencedTables {
		return s.cfg.Datasets.Denied(fmt.Sprintf("the query reads %d or more tables, more than BigQuery lists for the dataset allowlist check", maxReferencedTables))
	}
	var outside []tableRef
	for _, t := range stats.ReferencedTables {
		ref := tableRef{t.ProjectID, t.DatasetID, t.TableID}
		if !s.cfg.Datasets.Allows(ref.project, ref.dataset) {
			outside = append(outside, ref)
		}
	}
	named := s.namedTables(r, names)
	if len(stats.ReferencedTables) == 0 {
		if st := stats.StatementType; st != "" && st != "SELECT" {
			// DML and DDL may name only the table they write: BigQuery
			// lists the tables a statement reads.
			for _, t := range named {
				if !s.cfg.Datasets.Allows(t.project, t.dataset) {
					return s.cfg.Datasets.Denied(fmt.Sprintf("the statement names %s, outside this server's dataset allowlist", t))
				}
			}
			return nil
		}
		if len(named) > 0 {
			return s.cfg.Datasets.Denied("BigQuery did not report which tables the query reads, so the dataset allowlist cannot be checked").
				WithHint("This server fails closed when BigQuery's dry run lists no tables for a query that names one. Query tables of " + s.cfg.Datasets.String() + " directly.")
		}
		return nil
	}
	if len(outside) == 0 {
		return nil
	}
	return s.checkThroughViews(ctx, names, named, outside)
}

// checkNamesBeforeDryRun refuses what the text alone shows to be outside
// the allowlist, before any request: a default dataset, INFORMATION_SCHEMA
// of another dataset or of a whole region or project, and EXTERNAL_QUERY.
func (s *Service) checkNamesBeforeDryRun(r *request, names *sqlNames) error {
	a := s.cfg.Datasets
	if r.defaultDataset != "" && !a.Allows(r.defaultProject, r.defaultDataset) {
		return a.Denied(fmt.Sprintf("defaultDataset %s.%s is not in this server's dataset allowlist", r.defaultProject, r.defaultDataset))
	}
	if names.external {
		return a.Denied("EXTERNAL_QUERY reads outside BigQuery's datasets and cannot be checked against the dataset allowlist")
	}
	for _, path := range names.infoSchema {
		ref, ok := s.infoSchemaDataset(r, path)
		if !ok {
			return a.Denied("region- and project-level INFORMATION_SCHEMA views describe every dataset; only a listed dataset's own INFORMATION_SCHEMA can be read").
				WithHint("Use dataset.INFORMATION_SCHEMA.<view> for one of " + a.String() + ", or the list_tables, get_table_schema and search_columns tools.")
		}
		if !a.Allows(ref.project, ref.dataset) {
			return a.Denied(fmt.Sprintf("dataset %s.%s is not in this server's dataset allowlist", ref.project, ref.dataset))
		}
	}
	return nil
}

// infoSchemaDataset returns the dataset whose INFORMATION_SCHEMA path
// names: [project.]dataset.INFORMATION_SCHEMA.view. ok is false for a
// region- or project-level path.
func (s *Service) infoSchemaDataset(r *request, path []string) (tableRef, bool) {
	i := 0
	for ; i < len(path) && !strings.EqualFold(path[i], "INFORMATION_SCHEMA"); i++ {
	}
	switch {
	case i == 0:
		// INFORMATION_SCHEMA.X resolves in the default dataset.
		if r.defaultDataset == "" {
			return tableRef{}, false
		}
		return tableRef{project: r.defaultProject, dataset: r.defaultDataset}, true
	case strings.HasPrefix(strings.ToLower(path[i-1]), "region-"):
		return tableRef{}, false
	case i == 1:
		return tableRef{project: s.cfg.Project, dataset: path[0]}, true
	case i == 2:
		return tableRef{project: path[0], dataset: path[1]}, true
	}
	return tableRef{}, false
}

func hasInformationSchema(path []string) bool {
	for _, p := range path {
		if strings.EqualFold(p, "INFORMATION_SCHEMA") {
			return true
		}
	}
	return false
}

// namedTables resolves the paths the text names in table position, as
// BigQuery would: one part is a table of the default dataset, two are
// dataset.table in the job's project, three or more project.dataset.table.
// A one-part name without a default dataset is a CTE or alias BigQuery
// resolves otherwise, and is left out, as are INFORMATION_SCHEMA paths
// (checkNamesBeforeDryRun reads those).
func (s *Service) namedTables(r *request, names *sqlNames) []tableRef {
	var out []tableRef
	for _, p := range names.tables {
		switch {
		case hasInformationSchema(p):
		case len(p) == 1 && r.defaultDataset != "":
			out = append(out, tableRef{r.defaultProject, r.defaultDataset, p[0]})
		case len(p) == 2:
			out = append(out, tableRef{s.cfg.Project, p[0], p[1]})
			if r.defaultProject != "" && r.defaultProject != s.cfg.Project {
				out = append(out, tableRef{r.defaultProject, p[0], p[1]})
			}
		case len(p) >= 3:
			out = append(out, tableRef{p[0], p[1], strings.Join(p[2:], ".")})
		}
	}
	return out
}

// checkThroughViews decides a query BigQuery reports reading tables of
// datasets outside the allowlist (outside). That is allowed only when each
// such table is under a view of an allowed dataset that the query names
// (an authorized view), and the text gives no other way to reach it: it
// names no table, view or function of a dataset outside the allowlist, and
// never mentions the outside table's dataset.
func (s *Service) checkThroughViews(ctx context.Context, names *sqlNames, named []tableRef, outside []tableRef) error {
	a := s.cfg.Datasets
	refuse := func(t tableRef) error {
		return a.Denied(fmt.Sprintf("the query reads %s, outside this server's dataset allowlist", t))
	}
	for _, t := range named {
		if !a.Allows(t.project, t.dataset) {
			return refuse(t)
		}
	}
	for _, f := range names.functions {
		if len(f) < 2 || len(f) == 2 && !a.Allows(s.cfg.Project, f[0]) || len(f) >= 3 && !a.Allows(f[0], f[1]) {
			return a.Denied(fmt.Sprintf("the query calls %s, outside this server's dataset allowlist", strings.Join(f, ".")))
		}
	}
	for _, t := range outside {
		if names.words[strings.ToLower(t.dataset)] {
			return refuse(t)
		}
	}
	// A dataset of the project that is not allowed must not be named at all
	// (a view there could read the same tables as an authorized one).
	if s.catalog == nil {
		return refuse(outside[0])
	}
	if ids, err := s.catalog.Datasets(ctx, s.cfg.Project); err == nil {
		for _, id := range ids {
			if names.words[strings.ToLower(id)] && !a.Allows(s.cfg.Project, id) {
				return a.Denied(fmt.Sprintf("the query names dataset %s, outside this server's dataset allowlist", id))
			}
		}
	} else {
		return bqerr.From(err)
	}
	under := map[tableRef]bool{}
	for _, t := range named {
		typ, err := s.catalog.TableType(ctx, t.project, t.dataset, t.table)
		if err != nil || (typ != "VIEW" && typ != "MATERIALIZED_VIEW") {
			continue
		}
		tables, err := s.viewTables(ctx, t)
		if err != nil {
			return err
		}
		for _, u := range tables {
			under[u] = true
		}
	}
	for _, t := range outside {
		if !under[t] {
			return refuse(t)
		}
	}
	return nil
}

// viewTables returns the tables a view reads, from a dry run of a SELECT on
// it, remembered for a while: a view's definition rarely changes, and a
// changed one is still in an allowed dataset.
func (s *Service) viewTables(ctx context.Context, view tableRef) ([]tableRef, error) {
	if tables, ok := s.views.Get(view); ok {
		return tables, nil
	}
	r := &request{sql: "SELECT * FROM `" + view.String() + "`", maxBytesBilled: s.cfg.MaxBytesBilled, timeout: s.cfg.QueryTimeout}
	stats, err := s.dryRun(ctx, r)
	if err != nil {
		return nil, bqerr.From(err)
	}
	tables := make([]tableRef, 0, len(stats.ReferencedTables))
	for _, t := range stats.ReferencedTables {
		tables = append(tables, tableRef{t.ProjectID, t.DatasetID, t.TableID})
	}
	s.views.Add(view, tables)
	return tables, nil
}

// newViewCache remembers views' tables for viewTablesTTL.
func newViewCache() *ttlCache[tableRef, []tableRef] {
	return newTTLCache[tableRef, []tableRef](1024, viewTablesTTL)
}
