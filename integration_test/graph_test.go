package integration_test

import (
	"strings"
	"testing"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
	"github.com/bigquery-mcp/bigquery-mcp/integration_test/faults"
)

// shopGraph is the definition of demo-project.shop.g as BigQuery's
// INFORMATION_SCHEMA.PROPERTY_GRAPHS gives it: a node table in shop and an
// edge table in telemetry, a dataset outside --datasets shop.
const shopGraph = `{
  "propertyGraphReference": {"projectId": "demo-project", "datasetId": "shop", "propertyGraphId": "g"},
  "nodeTables": [{"name": "orders", "dataSourceTable": {"projectId": "demo-project", "datasetId": "shop", "tableId": "orders"},
    "keyColumns": ["order_id"], "labelAndProperties": [{"label": "orders", "properties": []}]}],
  "edgeTables": [{"name": "events", "dataSourceTable": {"projectId": "demo-project", "datasetId": "telemetry", "tableId": "events"},
    "keyColumns": ["event_id"],
    "sourceNodeReference": {"nodeTable": "orders", "nodeTableColumns": ["order_id"], "edgeTableColumns": ["order_id"]},
    "destinationNodeReference": {"nodeTable": "orders", "nodeTableColumns": ["order_id"], "edgeTableColumns": ["next_order_id"]},
    "labelAndProperties": [{"label": "events", "properties": []}]}],
  "creationTime": "2026-02-14T23:25:51.378016Z", "lastModifiedTime": "2026-02-14T23:25:51.378016Z", "etag": "x"
}`

// TestGraphOverOutsideTableOverStdio: the built binary, started with
// --datasets shop (read-only and with --allow-writes), against the
// emulator behind the faults proxy, which serves shop.g's definition (the
// emulator has neither graphs nor INFORMATION_SCHEMA): a graph of an
// allowed dataset built on a table outside. Every query of it, in every
// position and through execute_sql, dry_run_sql and export_results, is
// refused with PERMISSION_DENIED naming the outside table, after one
// lookup of the definition (remembered) and with no dry run or job at the
// wire; a graph of telemetry is refused with no lookup at all. (The
// emulator runs no graph query, so the allowed case is query's unit
// tests'.)
func TestGraphOverOutsideTableOverStdio(t *testing.T) {
	p, err := faults.New(emu.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.SetPropertyGraph(emulator.Project, "shop", "g", shopGraph)
	queries := []string{
		"SELECT * FROM GRAPH_TABLE(shop.g MATCH (o:orders)-[e:events]->(n:orders) COLUMNS (o.order_id, n.order_id AS next_id))",
		"GRAPH shop.g MATCH (o:orders)-[:events]->(n:orders) RETURN o.order_id, COUNT(n) AS n GROUP BY o.order_id",
		"SELECT * FROM shop.orders WHERE order_id IN (SELECT order_id FROM GRAPH_TABLE(`demo-project.shop.g` MATCH (o:orders) COLUMNS (o.order_id)))",
		"WITH x AS (SELECT * FROM GRAPH_TABLE(shop.g MATCH (o) COLUMNS (o.order_id))) SELECT * FROM x",
		"SELECT * FROM GRAPH_EXPAND('shop.g')",
		"FROM shop.orders |> JOIN GRAPH_TABLE(shop.g MATCH (o:orders) COLUMNS (o.order_id)) USING (order_id)",
	}
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"read-only", nil},
		{"allow-writes", []string{"--allow-writes"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			cs := connectStdio(t, "2025-06-18", append([]string{"--endpoint", p.URL, "--datasets", "shop", "--toolsets", "all", "--export-dir", t.TempDir()}, mode.args...)...)
			before := len(p.Requests())
			refuse := func(sql, says string) {
				for _, tool := range []string{"execute_sql", "dry_run_sql", "export_results"} {
					args := map[string]any{"sql": sql}
					if tool == "export_results" {
						args["format"] = "jsonl"
					}
					if e := fails(t, cs, tool, args); e.Code != bqerr.PermissionDenied || !strings.Contains(e.Message, says) {
						t.Errorf("%s %q: %s %q, want PERMISSION_DENIED saying %q", tool, sql, e.Code, e.Message, says)
					}
				}
			}
			for _, sql := range queries {
				refuse(sql, "demo-project.telemetry.events")
			}
			lookups := 0
			for _, r := range p.Requests()[before:] {
				switch {
				case r.Fault == "planned" && strings.Contains(r.Query, "`demo-project.shop`.INFORMATION_SCHEMA.PROPERTY_GRAPHS"):
					lookups++
				case r.Op == "jobs.insert" || r.Op == "jobs.query":
					t.Errorf("a dry run or job reached the wire: %s %q", r.Op, r.Query)
				}
			}
			if lookups != 1 {
				t.Errorf("%d lookups of shop.g, want 1 (remembered for every later call)", lookups)
			}
			before = len(p.Requests())
			refuse("GRAPH telemetry.g MATCH (n) RETURN n.id", "outside this server's dataset allowlist")
			if n := len(p.Requests()) - before; n != 0 {
				t.Errorf("a graph of telemetry sent %d requests, want none: %+v", n, p.Requests()[before:])
			}
		})
	}
}
