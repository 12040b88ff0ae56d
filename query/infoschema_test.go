package query

import (
	"context"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
)

// TestAllowlistInformationSchemaScopes: an INFORMATION_SCHEMA qualifier is
// read as BigQuery reads it for the view (issue 35). For the views of a
// project's datasets (SCHEMATA and its kin) the one qualifier is a project,
// allowed only when the allowlist allows all of it (p.*); for the views of
// one dataset's objects it is a dataset, and a spelling only a project can
// have is refused; a view of neither kind is refused. No refusal runs a
// job or a dry run.
func TestAllowlistInformationSchemaScopes(t *testing.T) {
	for _, tc := range []struct {
		allow, sql, defaultDataset string
		allowed                    bool
	}{
		{"p.*", "SELECT * FROM `other-proj`.INFORMATION_SCHEMA.SCHEMATA", "", false},
		{"p.*", "SELECT * FROM `other-proj.INFORMATION_SCHEMA.SCHEMATA`", "", false},
		{"p.*", "SELECT * FROM other-proj.INFORMATION_SCHEMA.SCHEMATA_OPTIONS", "", false},
		{"p.*", "SELECT * FROM `example.com:other`.INFORMATION_SCHEMA.SCHEMATA_LINKS", "", false},
		{"p.*", "SELECT * FROM secret.INFORMATION_SCHEMA.SCHEMATA_REPLICAS", "", false},
		{"p.*", "SELECT * FROM other_proj.INFORMATION_SCHEMA.SHARED_DATASET_USAGE", "", false},
		{"p.*", "SELECT * FROM p.INFORMATION_SCHEMA.SCHEMATA", "", true},
		{"p.*", "SELECT * FROM `p`.INFORMATION_SCHEMA.SCHEMATA", "", true},
		{"p.*", "SELECT * FROM INFORMATION_SCHEMA.SCHEMATA", "", true},
		{"p.*", "SELECT * FROM INFORMATION_SCHEMA.SCHEMATA", "sales", true},
		{"p.*, q.ds", "SELECT * FROM INFORMATION_SCHEMA.SCHEMATA", "q.ds", false},
		{"p.*, q.*", "SELECT * FROM INFORMATION_SCHEMA.SCHEMATA", "q.ds", true},
		{"p.*", "SELECT * FROM p.sales.INFORMATION_SCHEMA.SCHEMATA", "", false},
		{"p.*", "SELECT * FROM `p`.`region-us`.INFORMATION_SCHEMA.SCHEMATA", "", false},
		// A dataset's views: a qualifier only a project can have.
		{"p.*", "SELECT * FROM `other-proj`.INFORMATION_SCHEMA.TABLES", "", false},
		{"p.*", "SELECT * FROM sales.INFORMATION_SCHEMA.TABLES", "", true},
		// A plain list: an allowed dataset's ID is also a valid project ID.
		{"sales", "SELECT * FROM sales.INFORMATION_SCHEMA.SCHEMATA", "", false},
		{"sales", "SELECT * FROM INFORMATION_SCHEMA.SCHEMATA", "sales", false},
		{"sales", "SELECT * FROM sales.INFORMATION_SCHEMA.JOBS", "", false},
		{"sales", "SELECT * FROM sales.INFORMATION_SCHEMA.NEW_VIEW", "", false},
		{"sales", "SELECT * FROM sales.INFORMATION_SCHEMA", "", false},
		{"sales", "SELECT * FROM sales.INFORMATION_SCHEMA.TABLES", "", true},
		{"sales", "SELECT * FROM sales.INFORMATION_SCHEMA.COLUMN_FIELD_PATHS", "", true},
		{"sales", "SELECT * FROM INFORMATION_SCHEMA.TABLES", "sales", true},
	} {
		t.Run(tc.allow+" "+tc.sql, func(t *testing.T) {
			s, fake := newGovernedService(t, nil, false, func(c *Config) {
				c.Datasets, _ = governance.ParseAllowlist(tc.allow, "p")
			})
			_, err := s.Execute(context.Background(), ExecuteInput{SQL: tc.sql, DefaultDataset: tc.defaultDataset})
			d, q, _ := fake.counts()
			if tc.allowed {
				if err != nil || q != 1 {
					t.Fatalf("Execute = %v with %d jobs, want it to run", err, q)
				}
				return
			}
			if e, ok := bqerr.As(err); !ok || e.Code != bqerr.PermissionDenied {
				t.Fatalf("Execute = %v, want PERMISSION_DENIED", err)
			}
			if d != 0 || q != 0 {
				t.Errorf("%d dry runs and %d jobs, want none", d, q)
			}
		})
	}
}
