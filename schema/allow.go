package schema

// The dataset allowlist (--datasets) in the metadata tools: every name an
// agent passes is checked after parsing, on the project and dataset the
// request would use, and before the metadata cache, so neither a spelling
// nor a cached answer gets around it.

import (
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// SetAllowlist restricts every metadata tool to the datasets a allows; nil
// allows every dataset. Set it before serving, as with SetRowLimits.
func (s *Service) SetAllowlist(a *governance.Allowlist) { s.allow = a }

// Allowlist is the dataset allowlist in force (nil: none), for the other
// ways of reaching metadata (resource completion).
func (s *Service) Allowlist() *governance.Allowlist { return s.allow }

// checkProject refuses, without a request, a project of which no dataset
// may be read.
func (s *Service) checkProject(project string) error {
	if s.allow.AllowsProject(project) {
		return nil
	}
	return s.allow.Denied("project " + project + " has no dataset in this server's dataset allowlist")
}

// SetBudget makes search_columns' INFORMATION_SCHEMA queries count against
// the callers' bytes budgets and show in their usage, like the queries
// agents write; nil counts nothing.
func (s *Service) SetBudget(b *governance.Budget) { s.budget = b }
