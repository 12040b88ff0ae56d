package governance

import (
	"fmt"
	"path"
	"strings"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// Allowlist is the set of datasets agents may read (--datasets). A nil
// *Allowlist allows every dataset: every method is safe to call on it.
type Allowlist struct {
	patterns []datasetPattern
	// spec is the allowlist as configured, for hints.
	spec string
}

// datasetPattern is one entry: a project and a dataset, each a
// path.Match pattern ("*" matches any run of characters).
type datasetPattern struct{ project, dataset string }

// ParseAllowlist reads a comma-separated list of "project.dataset" or
// "dataset" entries; a bare dataset belongs to defaultProject. "*" is a
// wildcard within either part ("sales_*", "*.public", "*"). An empty spec
// returns nil: no allowlist.
func ParseAllowlist(spec, defaultProject string) (*Allowlist, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, nil
	}
	a := &Allowlist{}
	var shown []string
	for _, entry := range strings.Split(spec, ",") {
		entry = strings.Trim(strings.TrimSpace(entry), "`")
		if entry == "" {
			continue
		}
		p := datasetPattern{project: defaultProject, dataset: entry}
		// Dataset IDs have no dots; a domain-scoped project
		// ("example.com:proj") may.
		if i := strings.LastIndex(entry, "."); i >= 0 {
			p = datasetPattern{project: entry[:i], dataset: entry[i+1:]}
		}
		if p.project == "" {
			return nil, fmt.Errorf("datasets: %q names no project and the server has none (set --project or write project.dataset)", entry)
		}
		if p.dataset == "" {
			return nil, fmt.Errorf("datasets: %q is not a dataset or project.dataset", entry)
		}
		for _, part := range []string{p.project, p.dataset} {
			if _, err := path.Match(part, ""); err != nil {
				return nil, fmt.Errorf("datasets: %q is not a valid pattern: %v", entry, err)
			}
		}
		a.patterns = append(a.patterns, p)
		shown = append(shown, p.project+"."+p.dataset)
	}
	if len(a.patterns) == 0 {
		return nil, fmt.Errorf("datasets: %q lists no dataset", spec)
	}
	a.spec = strings.Join(shown, ", ")
	return a, nil
}

// Enabled reports whether an allowlist is in force.
func (a *Allowlist) Enabled() bool { return a != nil }

// String lists the allowed datasets as project.dataset patterns.
func (a *Allowlist) String() string {
	if a == nil {
		return "*"
	}
	return a.spec
}

// Allows reports whether project.dataset may be read.
func (a *Allowlist) Allows(project, dataset string) bool {
	if a == nil {
		return true
	}
	for _, p := range a.patterns {
		if match(p.project, project) && match(p.dataset, dataset) {
			return true
		}
	}
	return false
}

// AllowsProject reports whether any dataset of project may be read, so a
// listing of another project can be refused without a request.
func (a *Allowlist) AllowsProject(project string) bool {
	if a == nil {
		return true
	}
	for _, p := range a.patterns {
		if match(p.project, project) {
			return true
		}
	}
	return false
}

// AllowsWholeProject reports whether every dataset of project may be read:
// some pattern names the project and any dataset (project.*), so that a
// view of all its datasets (INFORMATION_SCHEMA.SCHEMATA) shows nothing
// outside the allowlist.
func (a *Allowlist) AllowsWholeProject(project string) bool {
	if a == nil {
		return true
	}
	for _, p := range a.patterns {
		if p.dataset == "*" && match(p.project, project) {
			return true
		}
	}
	return false
}

// Check returns nil when project.dataset may be read, and otherwise the
// PERMISSION_DENIED error an agent receives, naming the allowed datasets.
func (a *Allowlist) Check(project, dataset string) error {
	if a.Allows(project, dataset) {
		return nil
	}
	return a.Denied(fmt.Sprintf("dataset %s.%s is not in this server's dataset allowlist", project, dataset))
}

// Denied is the PERMISSION_DENIED error for a read the allowlist refuses.
func (a *Allowlist) Denied(message string) *bqerr.Error {
	return bqerr.New(bqerr.PermissionDenied, message).
		WithRetryable(false).
		WithHint("This server only reads the datasets " + a.String() + " (--datasets). Use tables from those, or ask the user to allow the dataset.")
}

func match(pattern, name string) bool {
	if pattern == "*" {
		return true
	}
	ok, _ := path.Match(pattern, name)
	return ok
}
