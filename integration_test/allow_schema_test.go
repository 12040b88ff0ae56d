package integration_test

import (
	"strings"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/integration_test/faults"
	"github.com/bigquery-mcp/bigquery-mcp/schema"
)

// TestMetadataToolsHonourDatasetAllowlist: the built binary, started with
// --datasets shop against the emulator, lists, describes (tables and the
// view), previews and searches shop, and refuses the sample's other
// dataset, telemetry, in every spelling, with no request about it at the
// wire (counted at a proxy between the server and the emulator).
func TestMetadataToolsHonourDatasetAllowlist(t *testing.T) {
	p, err := faults.New(emu.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, pv := range protocolVersions {
		t.Run("protocol="+pv, func(t *testing.T) {
			p.Reset()
			cs := connectStdio(t, pv, "--endpoint", p.URL, "--datasets", "shop")

			listed := ok[schema.ListDatasetsOutput](t, cs, "list_datasets", nil)
			if ids := datasetIDs(listed); len(ids) != 1 || !ids["shop"] {
				t.Errorf("list_datasets = %+v, want only shop", listed.Datasets)
			}
			tables := ok[schema.ListTablesOutput](t, cs, "list_tables", map[string]any{"dataset": "shop"})
			if len(tables.Tables) < 3 {
				t.Errorf("list_tables shop = %+v", tables.Tables)
			}
			for _, name := range []string{"shop.orders", "`demo-project.shop.customer_revenue`"} {
				ok[schema.TableSchema](t, cs, "get_table_schema", map[string]any{"table": name})
			}
			if out := ok[schema.PreviewOutput](t, cs, "preview_table", map[string]any{"table": "demo-project.shop.orders"}); out.RowCount == 0 {
				t.Error("preview_table shop.orders: no rows")
			}
			found := ok[schema.SearchOutput](t, cs, "search_columns", map[string]any{"query": "id", "method": "metadata"})
			if len(found.Matches) == 0 || found.DatasetsScanned != 1 {
				t.Errorf("search_columns = %+v, want matches from shop alone", found)
			}
			for _, m := range found.Matches {
				if !strings.HasPrefix(m.Table, "shop.") {
					t.Errorf("search_columns found %s.%s outside the allowlist", m.Table, m.Column)
				}
			}

			before := len(p.Requests())
			refused := []struct {
				tool string
				args map[string]any
			}{
				{"list_tables", map[string]any{"dataset": "telemetry"}},
				{"list_tables", map[string]any{"dataset": "demo-project.telemetry"}},
				{"list_tables", map[string]any{"dataset": "shop", "project": "other-project"}},
				{"get_table_schema", map[string]any{"table": "telemetry.events"}},
				{"get_table_schema", map[string]any{"table": "`demo-project`.`telemetry`.`events`"}},
				{"get_table_schema", map[string]any{"table": "demo-project:telemetry.events"}},
				{"preview_table", map[string]any{"table": "telemetry.events"}},
				{"preview_table", map[string]any{"table": "other-project.shop.orders"}},
				{"search_columns", map[string]any{"query": "id", "datasets": []string{"telemetry"}, "method": "metadata"}},
				{"list_datasets", map[string]any{"project": "other-project"}},
			}
			for _, c := range refused {
				e := fails(t, cs, c.tool, c.args)
				if e.Code != bqerr.PermissionDenied || e.Retryable || !strings.Contains(e.Hint, "demo-project.shop") {
					t.Errorf("%s(%v) = %s %q (hint %q), want PERMISSION_DENIED naming demo-project.shop", c.tool, c.args, e.Code, e.Message, e.Hint)
				}
			}
			if n := len(p.Requests()) - before; n != 0 {
				t.Errorf("refused calls sent %d requests: %+v", n, p.Requests()[before:])
			}
			for _, r := range p.Requests() {
				if strings.Contains(r.Path, "/datasets/telemetry") {
					t.Errorf("request about telemetry reached the wire: %s %s", r.Method, r.Path)
				}
			}
		})
	}
}
