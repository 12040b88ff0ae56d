package schema

import (
	"context"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
)

// TestIdentifiersCheckedBeforeAnyRequest: projects, datasets and tables
// that BigQuery would never accept are INVALID_ARGUMENT before any request
// is built, so a crafted name cannot steer a request URL.
func TestIdentifiersCheckedBeforeAnyRequest(t *testing.T) {
	fake := bqfake.New(t)
	s := newTestService(t, fake, serviceOptions{project: "p"})
	ctx := context.Background()
	calls := map[string]func() error{
		"list_datasets project": func() error {
			_, err := s.ListDatasets(ctx, ListDatasetsInput{Project: "../../projects/other"})
			return err
		},
		"list_tables project": func() error {
			_, err := s.ListTables(ctx, ListTablesInput{Project: "p?x=1", Dataset: "shop"})
			return err
		},
		"list_tables project in dataset": func() error {
			_, err := s.ListTables(ctx, ListTablesInput{Dataset: "evil/p.shop"})
			return err
		},
		"get_table_schema project": func() error {
			_, err := s.GetTableSchema(ctx, GetTableSchemaInput{Table: "../x.shop.orders"})
			return err
		},
		"get_table_schema table": func() error {
			_, err := s.GetTableSchema(ctx, GetTableSchemaInput{Table: "shop.orders/../../x"})
			return err
		},
	}
	for name, call := range calls {
		err := call()
		if e, ok := bqerr.As(err); !ok || e.Code != bqerr.InvalidArgument {
			t.Errorf("%s: error %v, want INVALID_ARGUMENT", name, err)
		}
	}
	if n := fake.Count(bqfake.Any); n != 0 {
		t.Errorf("%d requests reached BigQuery: %v", n, paths(fake))
	}
}
