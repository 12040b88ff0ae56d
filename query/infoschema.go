package query

import (
	"fmt"
	"strings"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// INFORMATION_SCHEMA paths resolved as BigQuery resolves them (issue 35).
// The qualifier before INFORMATION_SCHEMA means what the view says it
// means: a dataset for the views of one dataset's objects
// (sales.INFORMATION_SCHEMA.TABLES), a project for the views of a
// project's datasets (`other-proj`.INFORMATION_SCHEMA.SCHEMATA lists every
// dataset of other-proj), a region for region-level views. Both lists are
// taken from BigQuery's INFORMATION_SCHEMA reference (the introduction's
// table of views, "Dataset qualifier", and each view's "Scope and
// syntax"); a view in neither is refused, since its qualifier's meaning is
// not known.

// datasetViews take a dataset qualifier:
// [PROJECT_ID.]DATASET_ID.INFORMATION_SCHEMA.VIEW.
var datasetViews = setOf(`COLUMNS COLUMN_FIELD_PATHS CONSTRAINT_COLUMN_USAGE KEY_COLUMN_USAGE
	MATERIALIZED_VIEWS PARAMETERS PARTITIONS ROUTINES ROUTINE_OPTIONS SEARCH_INDEXES SEARCH_INDEX_COLUMNS
	SEARCH_INDEX_COLUMN_OPTIONS SEARCH_INDEX_OPTIONS TABLES TABLE_CONSTRAINTS TABLE_OPTIONS TABLE_SNAPSHOTS
	VECTOR_INDEXES VECTOR_INDEX_COLUMNS VECTOR_INDEX_OPTIONS VIEWS PROPERTY_GRAPHS`)

// projectViews are the views of a project's datasets whose one optional
// qualifier is the project: [PROJECT_ID.]INFORMATION_SCHEMA.VIEW.
var projectViews = setOf(`SCHEMATA SCHEMATA_OPTIONS SCHEMATA_LINKS SCHEMATA_REPLICAS
	SCHEMATA_REPLICAS_BY_FAILOVER_RESERVATION SHARED_DATASET_USAGE`)

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// checkInformationSchema refuses an INFORMATION_SCHEMA path that describes
// a dataset the allowlist does not allow, or more than one dataset: a
// region-level view, a project-level view of a project the allowlist does
// not allow whole (project.*), or a path whose qualifier may be a project
// where a dataset is asked for.
func (s *Service) checkInformationSchema(r *request, path []string) error {
	a := s.cfg.Datasets
	i := 0
	for ; i < len(path) && !strings.EqualFold(path[i], "INFORMATION_SCHEMA"); i++ {
	}
	qualifiers, view := path[:i], ""
	if i+1 < len(path) {
		view = bqerr.Truncate(strings.ToUpper(strings.Join(path[i+1:], ".")), 80)
	}
	hint := "Use dataset.INFORMATION_SCHEMA.<view> (TABLES, COLUMNS, PARTITIONS, …) for one of " + a.String() + ", or the list_tables, get_table_schema and search_columns tools."
	for _, q := range qualifiers {
		if strings.HasPrefix(strings.ToLower(q), "region-") {
			return a.Denied("region- and project-level INFORMATION_SCHEMA views describe every dataset; only a listed dataset's own INFORMATION_SCHEMA can be read").WithHint(hint)
		}
	}
	notOneDataset := a.Denied("INFORMATION_SCHEMA." + view + " here does not name one dataset's view (a region- or project-level view, a qualifier only a project can be, or a view this server does not know); only a listed dataset's own INFORMATION_SCHEMA can be read").
		WithHint(hint)
	switch {
	case projectViews[view]:
		// Without a qualifier the view is the default project's: the
		// job's, or the default dataset's where that differs (both are
		// checked rather than guessed between).
		projects := []string{s.cfg.Project}
		switch len(qualifiers) {
		case 0:
			if r.defaultProject != "" && r.defaultProject != s.cfg.Project {
				projects = append(projects, r.defaultProject)
			}
		case 1:
			projects = []string{qualifiers[0]}
		default:
			return notOneDataset
		}
		for _, project := range projects {
			if !a.AllowsWholeProject(project) {
				return a.Denied(fmt.Sprintf("INFORMATION_SCHEMA.%s describes every dataset of project %s, and this server's dataset allowlist does not allow all of them", view, project)).
					WithHint(hint + " list_datasets lists the allowed datasets.")
			}
		}
		return nil
	case datasetViews[view]:
		var ref tableRef
		switch len(qualifiers) {
		case 0:
			// INFORMATION_SCHEMA.X resolves in the default dataset.
			if r.defaultDataset == "" {
				return notOneDataset
			}
			ref = tableRef{project: r.defaultProject, dataset: r.defaultDataset}
		case 1:
			if !datasetID(qualifiers[0]) {
				// Only a project can be spelt so: the path does not
				// name one dataset.
				return notOneDataset
			}
			ref = tableRef{project: s.cfg.Project, dataset: qualifiers[0]}
		case 2:
			ref = tableRef{project: qualifiers[0], dataset: qualifiers[1]}
		default:
			return notOneDataset
		}
		if !a.Allows(ref.project, ref.dataset) {
			return a.Denied(fmt.Sprintf("dataset %s is not in this server's dataset allowlist", ref))
		}
		return nil
	}
	return notOneDataset
}

// datasetID reports whether id can be a dataset ID: letters, digits and
// underscores (a project ID may hold '-', a domain-scoped one ':' and '.').
func datasetID(id string) bool {
	if id == "" {
		return false
	}
	for _, c := range id {
		if !(c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}
