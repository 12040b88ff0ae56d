package bqtype

import (
	"strings"
	"unicode"
	"unicode/utf8"

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
// dataset are taken from the right. Every part is checked against
// BigQuery's rules, since each becomes a segment of a request URL.
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
	if ref.Project != "" {
		if err := ValidateProjectID(ref.Project); err != nil {
			return TableRef{}, err
		}
	}
	if err := ValidateDatasetID(ref.Dataset); err != nil {
		return TableRef{}, err
	}
	if err := ValidateTableID(ref.Table); err != nil {
		return TableRef{}, err
	}
	return ref, nil
}

// maxIDBytes is BigQuery's length limit for dataset, table and job IDs.
const maxIDBytes = 1024

// ValidateDatasetID checks a dataset ID against BigQuery's rules (letters,
// digits and underscores, at most 1024 characters), so a typo fails fast with
// a clear message instead of a round trip.
func ValidateDatasetID(id string) error {
	if id == "" {
		return bqerr.Invalid("dataset is empty", "Give a dataset ID; use list_datasets to see what exists.")
	}
	if len(id) > maxIDBytes {
		return bqerr.Invalid("dataset ID is longer than 1024 characters", "Use list_datasets to see what exists.")
	}
	for _, r := range id {
		if !(r == '_' || isASCIIAlnum(r)) {
			return bqerr.Invalid("dataset ID "+quote(id)+" may contain only letters, digits and underscores",
				"Use list_datasets to see the exact dataset IDs.")
		}
	}
	return nil
}

// ValidateTableID checks a table ID against BigQuery's rules: up to 1024
// bytes of Unicode letters, marks, numbers, connectors (such as _), dashes
// and spaces. A trailing wildcard (events_*) and a partition decorator
// (t$20240101) are accepted too; slashes, dots, quotes and control
// characters never are.
func ValidateTableID(id string) error {
	if id == "" {
		return bqerr.Invalid("table is empty", "Give a table ID; use list_tables to see what exists.")
	}
	if len(id) > maxIDBytes {
		return bqerr.Invalid("table ID is longer than 1024 bytes", "Use list_tables to see the exact table IDs.")
	}
	for _, r := range id {
		ok := r == '*' || r == '$' ||
			r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsNumber(r) ||
				unicode.In(r, unicode.M, unicode.Pc, unicode.Pd, unicode.Zs))
		if !ok {
			return bqerr.Invalid("table ID "+quote(id)+" may contain only letters, digits, underscores, dashes and spaces",
				"Use list_tables to see the exact table IDs.")
		}
	}
	return nil
}

// ValidateProjectID checks a project ID: letters, digits and hyphens, with
// the dots and colon of a domain-scoped project ("example.com:my-project").
// It must start with a letter or digit, so "." and ".." can never become a
// path segment.
func ValidateProjectID(id string) error {
	if id == "" {
		return bqerr.Invalid("project is empty", "Give a project ID, or leave it out to use the server's project.")
	}
	if len(id) > 255 {
		return bqerr.Invalid("project ID is longer than 255 characters", "Give the project ID as shown in the Google Cloud console.")
	}
	if !isASCIIAlnum(rune(id[0])) {
		return invalidProject(id)
	}
	for _, r := range id {
		if !(r == '-' || r == '.' || r == ':' || isASCIIAlnum(r)) {
			return invalidProject(id)
		}
	}
	return nil
}

func invalidProject(id string) error {
	return bqerr.Invalid("project ID "+quote(id)+" may contain only letters, digits and hyphens (and a domain prefix such as example.com:), starting with a letter or digit",
		"Give the project ID as shown in the Google Cloud console, for example my-project-123.")
}

// ValidateJobID checks a job ID against BigQuery's rules: letters, digits,
// underscores and dashes, at most 1024 characters.
func ValidateJobID(id string) error {
	if id == "" {
		return bqerr.Invalid("jobId is empty", "Pass the jobId returned by execute_sql.")
	}
	if len(id) > maxIDBytes {
		return bqerr.Invalid("jobId is longer than 1024 characters", "Pass the jobId exactly as execute_sql returned it.")
	}
	for _, r := range id {
		if !(r == '_' || r == '-' || isASCIIAlnum(r)) {
			return bqerr.Invalid("jobId "+quote(id)+" may contain only letters, digits, underscores and dashes",
				"Pass the jobId exactly as execute_sql returned it.")
		}
	}
	return nil
}

// ValidateLocation checks a location name (US, EU, us-central1,
// europe-west2): letters, digits and dashes. An empty location is valid: it
// leaves the choice to the server's default or to BigQuery.
func ValidateLocation(loc string) error {
	if len(loc) > 64 {
		return bqerr.Invalid("location is longer than 64 characters", "Pass the location exactly as execute_sql returned it, such as US or europe-west2.")
	}
	for _, r := range loc {
		if !(r == '-' || isASCIIAlnum(r)) {
			return bqerr.Invalid("location "+quote(loc)+" may contain only letters, digits and dashes",
				"Pass the location exactly as execute_sql returned it, such as US or europe-west2.")
		}
	}
	return nil
}

func isASCIIAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

func quote(s string) string {
	return "\"" + bqerr.Truncate(s, 200) + "\""
}
