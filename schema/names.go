package schema

import (
	"strings"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// TableRef names a table. Project is empty when the caller relied on the
// server's default project.
type TableRef struct {
	Project string
	Dataset string
	Table   string
}

// String returns the canonical project.dataset.table form.
func (r TableRef) String() string {
	if r.Project == "" {
		return r.Dataset + "." + r.Table
	}
	return r.Project + "." + r.Dataset + "." + r.Table
}

// ParseTableRef accepts the spellings agents copy from SQL and consoles:
// "dataset.table", "project.dataset.table", either wrapped in backticks as a
// whole or per part, and the legacy "project:dataset.table". Project IDs may
// contain dots when domain-scoped ("example.com:proj.ds.t"), so the table and
// dataset are taken from the right.
func ParseTableRef(name string) (TableRef, error) {
	s := strings.TrimSpace(name)
	s = strings.ReplaceAll(s, "`", "")
	if s == "" {
		return TableRef{}, bqerr.Invalid("table name is empty",
			"Give the table as dataset.table or project.dataset.table; use list_tables to see the tables of a dataset.")
	}
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		// Legacy project:dataset with no table, or a bare name.
		return TableRef{}, bqerr.Invalid("table name "+quote(name)+" must include its dataset",
			"Give the table as dataset.table or project.dataset.table; use list_tables to see the tables of a dataset.")
	}
	ref := TableRef{Table: parts[len(parts)-1], Dataset: parts[len(parts)-2]}
	if len(parts) > 2 {
		ref.Project = strings.Join(parts[:len(parts)-2], ".")
	} else if p, d, ok := strings.Cut(ref.Dataset, ":"); ok {
		ref.Project, ref.Dataset = p, d
	}
	for _, p := range []string{ref.Dataset, ref.Table} {
		if p == "" {
			return TableRef{}, bqerr.Invalid("table name "+quote(name)+" has an empty part",
				"Give the table as dataset.table or project.dataset.table.")
		}
	}
	if err := ValidateDatasetID(ref.Dataset); err != nil {
		return TableRef{}, err
	}
	return ref, nil
}

// ValidateDatasetID checks a dataset ID against BigQuery's rules (letters,
// digits and underscores, at most 1024 characters), so a typo fails fast with
// a clear message instead of a round trip.
func ValidateDatasetID(id string) error {
	if id == "" {
		return bqerr.Invalid("dataset is empty", "Give a dataset ID; use list_datasets to see what exists.")
	}
	if len(id) > 1024 {
		return bqerr.Invalid("dataset ID is longer than 1024 characters", "Use list_datasets to see what exists.")
	}
	for _, r := range id {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return bqerr.Invalid("dataset ID "+quote(id)+" may contain only letters, digits and underscores",
				"Use list_datasets to see the exact dataset IDs.")
		}
	}
	return nil
}

func quote(s string) string {
	return "\"" + bqerr.Truncate(s, 200) + "\""
}
