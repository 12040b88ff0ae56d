package integration_test

// Byte budgets: what an agent pays for the tool list, a wide table's schema
// and a page of rows, on the emulator's sample data and on a generated
// 100-column table; every cut answer says so.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	bq "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/option"

	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/schema"
)

const (
	toolListBudget = 8 << 10
	schemaBudget   = 6000
	rowsBudget     = 12 << 10
)

// createWideTable makes budget.wide100: 100 columns with 150-byte
// descriptions, through the emulator's datasets.insert and tables.insert.
func createWideTable(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	svc, err := bq.NewService(ctx, option.WithEndpoint(emu.URL), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Datasets.Insert(emulator.Project, &bq.Dataset{DatasetReference: &bq.DatasetReference{ProjectId: emulator.Project, DatasetId: "budget"}}).Context(ctx).Do(); err != nil && !strings.Contains(err.Error(), "lready") {
		t.Fatalf("datasets.insert: %v", err)
	}
	var fields []*bq.TableFieldSchema
	for i := range 100 {
		typ := []string{"STRING", "INTEGER", "NUMERIC", "TIMESTAMP", "BOOLEAN"}[i%5] // the REST API's names, as BigQuery stores them
		desc := strings.Repeat(fmt.Sprintf("What column %d holds, in words. ", i), 8)[:150]
		fields = append(fields, &bq.TableFieldSchema{Name: fmt.Sprintf("column_%03d", i), Type: typ, Description: desc})
	}
	_, err = svc.Tables.Insert(emulator.Project, "budget", &bq.Table{
		TableReference: &bq.TableReference{ProjectId: emulator.Project, DatasetId: "budget", TableId: "wide100"},
		Schema:         &bq.TableSchema{Fields: fields},
	}).Context(ctx).Do()
	if err != nil && !strings.Contains(err.Error(), "lready") {
		t.Fatalf("tables.insert: %v", err)
	}
}

func TestBudgets(t *testing.T) {
	createWideTable(t)
	cs := connect(t, testConfig(), "")
	ctx := context.Background()

	t.Run("tools/list", func(t *testing.T) {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		t.Logf("tools/list: %d bytes, %d tools", len(b), len(res.Tools))
		if len(b) > toolListBudget {
			t.Errorf("tools/list is %d bytes, budget %d", len(b), toolListBudget)
		}
		names := map[string]bool{}
		for _, tool := range res.Tools {
			names[tool.Name] = true
		}
		for _, want := range []string{"list_datasets", "list_tables", "get_table_schema", "search_columns", "preview_table", "execute_sql",
			"dry_run_sql", "get_query_results", "get_job", "cancel_job", "health"} {
			if !names[want] {
				t.Errorf("tool %s missing", want)
			}
		}
	})

	t.Run("100-column schema", func(t *testing.T) {
		res := call(t, cs, "get_table_schema", map[string]any{"table": "budget.wide100"})
		out := decode[schema.TableSchema](t, res)
		t.Logf("get_table_schema default: %d bytes", len(text(res)))
		if len(text(res)) > schemaBudget || len(out.Columns) != 100 || !out.Truncated || !strings.Contains(out.Hint, "descriptions") {
			t.Errorf("%d bytes, %d columns, truncated=%v hint=%q", len(text(res)), len(out.Columns), out.Truncated, out.Hint)
		}
		full := call(t, cs, "get_table_schema", map[string]any{"table": "budget.wide100", "includeDescriptions": true})
		fo := decode[schema.TableSchema](t, full)
		// Descriptions go (shortened, then left out) before any column does.
		if len(text(full)) > schemaBudget || fo.OmittedColumns != 0 || len(fo.Columns) != 100 || !fo.Truncated || !strings.Contains(fo.Hint, "descriptions") {
			t.Errorf("with descriptions: %d bytes, %d shown, %d omitted, hint %q", len(text(full)), len(fo.Columns), fo.OmittedColumns, fo.Hint)
		}
		ddl := call(t, cs, "get_table_schema", map[string]any{"table": "budget.wide100", "format": "ddl"})
		do := decode[schema.TableSchema](t, ddl)
		t.Logf("get_table_schema ddl: %d bytes", len(text(ddl)))
		if strings.Count(do.DDL, "\n") != 100 || !strings.Contains(do.DDL, "column_002 NUMERIC\n") {
			t.Errorf("ddl = %.300s", do.DDL)
		}
		some := decode[schema.TableSchema](t, call(t, cs, "get_table_schema", map[string]any{"table": "budget.wide100", "columns": []string{"column_09*"}, "includeDescriptions": true}))
		if len(some.Columns) != 10 || some.Truncated || some.Columns[0].Description == "" {
			t.Errorf("pattern with descriptions: %d columns, truncated=%v", len(some.Columns), some.Truncated)
		}
	})

	t.Run("100 rows x 10 columns", func(t *testing.T) {
		sql := "SELECT n AS id, CONCAT('customer-', CAST(n AS STRING)) AS name, CAST(n * 1.5 AS NUMERIC) AS amount, n * 0.25 AS score, MOD(n, 2) = 0 AS even, " +
			"DATE_ADD(DATE '2024-01-01', INTERVAL n DAY) AS day, TIMESTAMP_ADD(TIMESTAMP '2024-01-01 00:00:00+00', INTERVAL n MINUTE) AS placed, " +
			"CONCAT('tier-', CAST(MOD(n, 3) AS STRING)) AS tier, n * 1000 AS big, CAST(NULL AS STRING) AS note FROM UNNEST(GENERATE_ARRAY(1, 100)) AS n ORDER BY n"
		res := call(t, cs, "execute_sql", map[string]any{"sql": sql})
		out := decode[query.ExecuteOutput](t, res)
		objs := call(t, cs, "execute_sql", map[string]any{"sql": sql, "format": "objects"})
		t.Logf("100x10 rows: compact %d bytes, objects %d bytes", len(text(res)), len(text(objs)))
		if out.RowCount != 100 || len(out.Schema) != 10 || out.Truncated {
			t.Fatalf("rows %d, columns %d, truncated %v", out.RowCount, len(out.Schema), out.Truncated)
		}
		if len(text(res)) > rowsBudget {
			t.Errorf("100 rows x 10 columns: %d bytes, budget %d", len(text(res)), rowsBudget)
		}
		var first []any
		if err := json.Unmarshal(out.Rows[0], &first); err != nil || len(first) != 10 || first[2] != "1.5" {
			t.Errorf("first compact row = %s (NUMERIC want \"1.5\")", out.Rows[0])
		}
		cut := decode[query.ExecuteOutput](t, call(t, cs, "execute_sql", map[string]any{"sql": sql, "maxRows": 10}))
		if !cut.Truncated || cut.RowCount != 10 || cut.TotalRows != 100 || cut.NextStartIndex != 10 {
			t.Errorf("maxRows 10: truncated=%v rows=%d total=%d next=%d", cut.Truncated, cut.RowCount, cut.TotalRows, cut.NextStartIndex)
		}
	})

	t.Run("preview_table", func(t *testing.T) {
		res := call(t, cs, "preview_table", map[string]any{"table": "shop.orders"})
		out := decode[schema.PreviewOutput](t, res)
		t.Logf("preview_table shop.orders: %d bytes", len(text(res)))
		if out.RowCount != 5 || out.TotalRows != 5 || out.Truncated || len(out.Schema) == 0 {
			t.Fatalf("preview = rows %d of %d, truncated %v", out.RowCount, out.TotalRows, out.Truncated)
		}
		var row []any
		if err := json.Unmarshal(out.Rows[0], &row); err != nil || len(row) != len(out.Schema) {
			t.Errorf("compact row = %s for %d columns", out.Rows[0], len(out.Schema))
		}
		some := decode[schema.PreviewOutput](t, call(t, cs, "preview_table", map[string]any{"table": "shop.orders", "columns": []string{"order_id", "status"}, "maxRows": 2, "format": "objects"}))
		var obj map[string]any
		if err := json.Unmarshal(some.Rows[0], &obj); err != nil || len(obj) != 2 || obj["order_id"] == nil {
			t.Errorf("selected columns = %s", some.Rows[0])
		}
		if some.RowCount != 2 || !some.Truncated || some.NextStartIndex != 2 || some.TruncatedBy != "maxRows" {
			t.Errorf("maxRows 2: %+v", some)
		}
		if e := fails(t, cs, "preview_table", map[string]any{"table": "shop.orders", "columns": []string{"nope"}}); e.Code != "INVALID_ARGUMENT" {
			t.Errorf("unknown column: %+v", e)
		}
		// The server's byte cap holds for previews as for queries.
		cfg := testConfig()
		cfg.MaxResultBytes, cfg.AllowWrites = 1024, true
		wcs := connect(t, cfg, "")
		decode[query.ExecuteOutput](t, call(t, wcs, "execute_sql", map[string]any{"sql": "INSERT INTO `demo-project.budget.wide100` (column_000, column_001) VALUES (REPEAT('x', 600), 1), (REPEAT('y', 600), 2), (REPEAT('z', 600), 3)"}))
		small := decode[schema.PreviewOutput](t, call(t, wcs, "preview_table", map[string]any{"table": "budget.wide100", "columns": []string{"column_000", "column_001"}}))
		rowBytes := 0
		for _, r := range small.Rows {
			rowBytes += len(r) + 1
		}
		if rowBytes > 1024 || small.RowCount != 1 || small.TotalRows != 3 || !small.Truncated || small.TruncatedBy != "maxResultBytes" || small.NextStartIndex != uint64(small.RowCount) {
			t.Errorf("1 KiB cap: %d rows (%d bytes), truncated %v by %q", small.RowCount, rowBytes, small.Truncated, small.TruncatedBy)
		}
	})

	t.Run("search_columns", func(t *testing.T) {
		res := call(t, cs, "search_columns", map[string]any{"query": "customer_id"})
		out := decode[schema.SearchOutput](t, res)
		t.Logf("search_columns customer_id: %d bytes, %d matches, method %s, %d datasets, %d tables", len(text(res)), len(out.Matches), out.Method, out.DatasetsScanned, out.TablesScanned)
		if len(out.Matches) < 2 || out.Matches[0].Column != "customer_id" || out.Method != "metadata" {
			t.Fatalf("matches = %+v (method %s)", out.Matches, out.Method)
		}
		tables := map[string]bool{}
		for _, m := range out.Matches {
			tables[m.Table] = true
		}
		if !tables["shop.customers"] || !tables["shop.orders"] {
			t.Errorf("customer_id found in %v", tables)
		}
		one := decode[schema.SearchOutput](t, call(t, cs, "search_columns", map[string]any{"query": "column_0", "datasets": []string{"budget"}, "maxResults": 5}))
		if len(one.Matches) != 5 || !one.Truncated || one.Hint == "" {
			t.Errorf("capped search: %d matches, truncated %v, hint %q", len(one.Matches), one.Truncated, one.Hint)
		}
		desc := decode[schema.SearchOutput](t, call(t, cs, "search_columns", map[string]any{"query": "what column 42 holds", "datasets": []string{"budget"}}))
		if len(desc.Matches) != 1 || desc.Matches[0].Column != "column_042" {
			t.Errorf("description search: %+v", desc.Matches)
		}
	})

	t.Run("resources and completion", func(t *testing.T) {
		tmpl, err := cs.ListResourceTemplates(ctx, nil)
		if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "bigquery://{project}/{dataset}/{table}" {
			t.Fatalf("templates = %+v, %v", tmpl, err)
		}
		r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "bigquery://demo-project/shop/orders"})
		if err != nil || len(r.Contents) != 1 {
			t.Fatalf("read: %v", err)
		}
		var ts schema.TableSchema
		if err := json.Unmarshal([]byte(r.Contents[0].Text), &ts); err != nil || ts.Table != "demo-project.shop.orders" || len(ts.Columns) == 0 {
			t.Errorf("resource = %.200s (%v)", r.Contents[0].Text, err)
		}
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "bigquery://demo-project/shop/nope"}); err == nil {
			t.Error("missing table read without error")
		}
		ref := &mcp.CompleteReference{Type: "ref/resource", URI: "bigquery://{project}/{dataset}/{table}"}
		ds, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: "dataset", Value: "sh"}})
		if err != nil || len(ds.Completion.Values) == 0 || ds.Completion.Values[0] != "shop" {
			t.Errorf("dataset completion = %+v, %v", ds, err)
		}
		tb, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: "table", Value: "ord"},
			Context: &mcp.CompleteContext{Arguments: map[string]string{"dataset": "shop"}}})
		if err != nil || len(tb.Completion.Values) != 1 || tb.Completion.Values[0] != "orders" {
			t.Errorf("table completion = %+v, %v", tb, err)
		}
	})
}

// decode reads a successful result's JSON text.
func decode[T any](t *testing.T, res *mcp.CallToolResult) T {
	t.Helper()
	var out T
	if res.IsError {
		t.Fatalf("call failed: %s", text(res))
	}
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil {
		t.Fatalf("result is not JSON: %v", err)
	}
	return out
}
