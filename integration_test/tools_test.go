package integration_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/bqtype"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/schema"
)

func TestToolsAreListedWithAnnotations(t *testing.T) {
	for _, pv := range protocolVersions {
		t.Run("protocol="+pv, func(t *testing.T) {
			cs := connect(t, testConfig(), pv)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{"list_datasets": true, "list_tables": true, "get_table_schema": true, "execute_sql": true,
				"dry_run_sql": true, "get_query_results": true, "get_job": true, "cancel_job": true}
			for _, tool := range res.Tools {
				delete(want, tool.Name)
				a := tool.Annotations
				if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil || tool.Description == "" || tool.InputSchema == nil {
					t.Errorf("%s: annotations, description or schema missing", tool.Name)
				}
				if tool.Name == "execute_sql" && (!a.ReadOnlyHint || *a.DestructiveHint) {
					t.Errorf("execute_sql on a read-only server must be annotated read-only and non-destructive")
				}
			}
			if len(want) > 0 {
				t.Errorf("tools missing: %v", want)
			}
		})
	}
}

func TestListDatasets(t *testing.T) {
	cs := connect(t, testConfig(), "")
	out := ok[schema.ListDatasetsOutput](t, cs, "list_datasets", nil)
	ids := datasetIDs(out)
	if !ids["shop"] || !ids["telemetry"] || out.Project != "demo-project" {
		t.Fatalf("datasets = %+v", out)
	}
	filtered := ok[schema.ListDatasetsOutput](t, cs, "list_datasets", map[string]any{"filter": "TELE"})
	if ids := datasetIDs(filtered); len(ids) != 1 || !ids["telemetry"] {
		t.Errorf("filter TELE gave %+v", filtered.Datasets)
	}
	e := fails(t, cs, "list_datasets", map[string]any{"maxResults": 5000})
	if e.Code != bqerr.InvalidArgument {
		t.Errorf("maxResults 5000: code %s", e.Code)
	}
	e = fails(t, cs, "list_datasets", map[string]any{"project": "no-such-project"})
	if e.Code != bqerr.NotFound && e.Code != bqerr.PermissionDenied {
		t.Errorf("unknown project: code %s (%s)", e.Code, e.Message)
	}
}

func datasetIDs(out schema.ListDatasetsOutput) map[string]bool {
	ids := map[string]bool{}
	for _, d := range out.Datasets {
		ids[d.ID] = true
	}
	return ids
}

func TestListTables(t *testing.T) {
	cs := connect(t, testConfig(), "")
	out := ok[schema.ListTablesOutput](t, cs, "list_tables", map[string]any{"dataset": "shop", "includeDetails": true})
	types := map[string]schema.Table{}
	for _, tab := range out.Tables {
		types[tab.ID] = tab
	}
	if types["customers"].Type != "TABLE" || types["orders"].Type != "TABLE" || types["customer_revenue"].Type != "VIEW" {
		t.Fatalf("tables = %+v", out.Tables)
	}
	if n := types["customers"].NumRows; n == nil || *n != 4 {
		t.Errorf("customers numRows = %v, want 4", n)
	}
	filtered := ok[schema.ListTablesOutput](t, cs, "list_tables", map[string]any{"dataset": "demo-project.shop", "filter": "order"})
	if len(filtered.Tables) != 1 || filtered.Tables[0].ID != "orders" {
		t.Errorf("filter order gave %+v", filtered.Tables)
	}
	e := fails(t, cs, "list_tables", map[string]any{"dataset": "nope"})
	if e.Code != bqerr.NotFound || !strings.Contains(e.Hint, "list_datasets") {
		t.Errorf("unknown dataset: %+v", e)
	}
	e = fails(t, cs, "list_tables", map[string]any{"dataset": "bad-name!"})
	if e.Code != bqerr.InvalidArgument {
		t.Errorf("bad dataset name: %+v", e)
	}
	e = fails(t, cs, "list_tables", nil)
	if e.Code != bqerr.InvalidArgument {
		t.Errorf("missing dataset: %+v", e)
	}
}

func TestGetTableSchema(t *testing.T) {
	cs := connect(t, testConfig(), "")
	for _, name := range []string{"shop.orders", "demo-project.shop.orders", "`demo-project.shop.orders`", "`demo-project`.`shop`.`orders`"} {
		out := ok[schema.TableSchema](t, cs, "get_table_schema", map[string]any{"table": name})
		if out.Table != "demo-project.shop.orders" || out.Type != "TABLE" || out.NumRows != 5 {
			t.Fatalf("%s: %+v", name, out)
		}
		cols := map[string]bqtype.Column{}
		for _, c := range out.Columns {
			cols[c.Name] = c
		}
		items := cols["items"]
		if items.Type != "STRUCT" || items.Mode != "REPEATED" || len(items.Fields) != 3 || items.Fields[1].Type != "INT64" {
			t.Errorf("%s: items column = %+v", name, items)
		}
		if cols["order_id"].Mode != "REQUIRED" || cols["total"].Type != "NUMERIC" || cols["ordered_at"].Type != "TIMESTAMP" || cols["tags"].Mode != "REPEATED" {
			t.Errorf("%s: columns = %+v", name, out.Columns)
		}
	}
	view := ok[schema.TableSchema](t, cs, "get_table_schema", map[string]any{"table": "shop.customer_revenue"})
	if view.Type != "VIEW" || !strings.Contains(view.ViewQuery, "SUM(o.total)") {
		t.Errorf("view = %+v", view)
	}
	e := fails(t, cs, "get_table_schema", map[string]any{"table": "shop.no_such_table"})
	if e.Code != bqerr.NotFound || !strings.Contains(e.Hint, "list_tables") || e.Retryable {
		t.Errorf("unknown table: %+v", e)
	}
	e = fails(t, cs, "get_table_schema", map[string]any{"table": "orders"})
	if e.Code != bqerr.InvalidArgument || e.Hint == "" {
		t.Errorf("name without dataset: %+v", e)
	}
}

func TestExecuteSQLTypesAndParameters(t *testing.T) {
	for _, pv := range protocolVersions {
		t.Run("protocol="+pv, func(t *testing.T) {
			cs := connect(t, testConfig(), pv)
			out := ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{
				"sql":    "SELECT order_id, customer_id, ordered_at, total, items, tags FROM `demo-project.shop.orders` WHERE customer_id = @cust AND status IN UNNEST(@statuses) ORDER BY order_id",
				"format": "objects",
				"parameters": []any{
					map[string]any{"name": "cust", "type": "INT64", "value": "1"},
					map[string]any{"name": "statuses", "type": "ARRAY<STRING>", "value": []any{"shipped", "processing"}},
				},
			})
			if out.JobID == "" || out.TotalRows != 2 || out.RowCount != 2 || out.Truncated {
				t.Fatalf("result = %+v", out)
			}
			var first map[string]any
			if err := json.Unmarshal(out.Rows[0], &first); err != nil {
				t.Fatal(err)
			}
			if first["order_id"] != float64(1001) || first["total"] != "59.97" && !strings.HasPrefix(first["total"].(string), "59.97") {
				t.Errorf("row = %v", first)
			}
			if ts, _ := first["ordered_at"].(string); ts != "2024-05-01T09:30:00Z" {
				t.Errorf("ordered_at = %v, want RFC 3339", first["ordered_at"])
			}
			items, _ := first["items"].([]any)
			if len(items) != 2 {
				t.Fatalf("items = %v", first["items"])
			}
			if item := items[0].(map[string]any); item["sku"] != "BOOK-001" || item["quantity"] != float64(2) {
				t.Errorf("items[0] = %v", item)
			}
			// Column order follows the SELECT list.
			if !strings.HasPrefix(string(out.Rows[0]), `{"order_id":1001,"customer_id":1,`) {
				t.Errorf("row key order: %s", out.Rows[0])
			}
			if len(out.Schema) != 6 || out.Schema[4].Name != "items" || out.Schema[4].Mode != "REPEATED" {
				t.Errorf("schema = %+v", out.Schema)
			}
		})
	}
}

func TestExecuteSQLKeepsBigQueryMeaning(t *testing.T) {
	cs := connect(t, testConfig(), "")
	out := ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{
		"sql":    "SELECT device_counter, payload, score, happened_on, is_test FROM telemetry.events WHERE event_id = @id",
		"format": "objects",
		"parameters": []any{
			map[string]any{"name": "id", "type": "INT64", "value": 1},
		},
	})
	if out.RowCount != 1 {
		t.Fatalf("result = %+v", out)
	}
	want := `{"device_counter":"9007199254740993","payload":"aGVsbG8=","score":0.5,"happened_on":"2024-05-01","is_test":false}`
	if string(out.Rows[0]) != want {
		t.Errorf("row = %s\nwant  %s", out.Rows[0], want)
	}
	// The emulator infers a parameter's type from where it is used (and
	// calls a bare @p INT64), so each parameter is compared with a column of
	// its type; what real BigQuery receives is asserted on the wire below.
	rec := &recorder{base: httpDefault()}
	cfg := testConfig()
	cfg.Transport = rec
	cs = connect(t, cfg, "")
	typed := ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{
		"sql":    "SELECT order_id FROM shop.orders WHERE total >= @min_total AND ordered_at < @before AND status IN UNNEST(@statuses) ORDER BY order_id",
		"format": "objects",
		"parameters": []any{
			map[string]any{"name": "min_total", "type": "NUMERIC", "value": "100.5"},
			map[string]any{"name": "before", "type": "TIMESTAMP", "value": "2024-05-04T10:00:00+02:00"},
			map[string]any{"name": "statuses", "type": "ARRAY<STRING>", "value": []any{"delivered", "shipped"}},
		},
	})
	// At least 100.50, before 08:00Z on 4 May, delivered or shipped: 1002.
	if typed.RowCount != 1 || string(typed.Rows[0]) != `{"order_id":1002}` {
		t.Errorf("typed parameters selected %s", typed.Rows)
	}
	body := rec.lastBody("/queries")
	for _, want := range []string{`"name":"min_total","parameterType":{"type":"NUMERIC"},"parameterValue":{"value":"100.500000000"}`,
		`"name":"before","parameterType":{"type":"TIMESTAMP"},"parameterValue":{"value":"2024-05-04 08:00:00+00:00"}`,
		`"parameterType":{"arrayType":{"type":"STRING"},"type":"ARRAY"}`,
		`"arrayValues":[{"value":"delivered"},{"value":"shipped"}]`} {
		if !strings.Contains(body, want) {
			t.Errorf("jobs.query body lacks %s\n%s", want, body)
		}
	}
}

func TestExecuteSQLTruncatesAndPages(t *testing.T) {
	rec := &recorder{base: httpDefault()}
	cfg := testConfig()
	cfg.Transport = rec
	cs := connect(t, cfg, "")
	out := ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{
		"sql": "SELECT order_id FROM shop.orders ORDER BY order_id", "maxRows": 2, "defaultDataset": "shop",
	})
	if !out.Truncated || out.TruncatedBy != "maxRows" || out.RowCount != 2 || out.TotalRows != 5 || out.NextStartIndex != 2 {
		t.Fatalf("truncated result = %+v", out)
	}
	// The emulator ignores startIndex (real BigQuery honours it), so assert
	// what reached the wire, and that the page reads cleanly.
	next := ok[query.ExecuteOutput](t, cs, "get_query_results", map[string]any{"jobId": out.JobID, "location": out.Location, "startIndex": 2, "maxRows": 10})
	if next.RowCount == 0 || next.JobID != out.JobID || next.TotalRows != 5 {
		t.Fatalf("next page = %+v", next)
	}
	if !rec.withQuery(out.JobID, "startIndex", "2") {
		t.Errorf("get_query_results did not ask BigQuery for startIndex=2: %v", rec.reqs)
	}
	job := ok[query.JobOutput](t, cs, "get_job", map[string]any{"jobId": out.JobID, "location": out.Location})
	if job.State != "DONE" || job.JobID != out.JobID {
		t.Errorf("job = %+v", job)
	}

	cfg = testConfig()
	cfg.MaxResultBytes = 1024
	small := connect(t, cfg, "")
	cut := ok[query.ExecuteOutput](t, small, "execute_sql", map[string]any{"sql": "SELECT REPEAT('x', 300) AS pad, order_id FROM shop.orders"})
	if !cut.Truncated || cut.TruncatedBy != "maxResultBytes" || cut.RowCount == 0 || cut.RowCount >= 5 || cut.TotalRows != 5 {
		t.Errorf("byte-capped result = %+v", cut)
	}
}

func TestExecuteSQLErrors(t *testing.T) {
	cs := connect(t, testConfig(), "")

	e := fails(t, cs, "execute_sql", map[string]any{"sql": "SELECT order_id,\n  FROM shop.orders WHER order_id = 1"})
	if e.Code != bqerr.QueryError || e.Retryable || e.Details.Location == nil || e.Details.Location.Line != 2 || e.Details.Location.Column == 0 {
		t.Errorf("invalid SQL: %+v (location %+v)", e, e.Details.Location)
	}
	if e.Details.Query == "" || !strings.Contains(e.Hint, "line 2") {
		t.Errorf("invalid SQL error should echo the query and point at the line: %+v", e)
	}

	// A typo in the first keyword is a syntax error to fix, not a write to refuse.
	e = fails(t, cs, "execute_sql", map[string]any{"sql": "SELEC order_id FROM shop.orders"})
	if e.Code != bqerr.QueryError || e.Details.Location == nil || e.Details.Location.Line != 1 {
		t.Errorf("typo SELEC: %+v", e)
	}

	e = fails(t, cs, "execute_sql", map[string]any{"sql": "SELECT * FROM shop.no_such_table"})
	if e.Code != bqerr.NotFound || !strings.Contains(e.Hint, "list_tables") {
		t.Errorf("unknown table: %+v", e)
	}

	e = fails(t, cs, "execute_sql", map[string]any{"sql": "SELECT @x", "parameters": []any{map[string]any{"name": "x", "type": "INT64", "value": "ten"}}})
	if e.Code != bqerr.InvalidArgument || !strings.Contains(e.Message, `"x"`) {
		t.Errorf("bad parameter: %+v", e)
	}
	e = fails(t, cs, "execute_sql", map[string]any{"sql": "SELECT 1", "maxRows": "lots"})
	if e.Code != bqerr.InvalidArgument {
		t.Errorf("maxRows of the wrong JSON type: %+v", e)
	}
	e = fails(t, cs, "execute_sql", map[string]any{"sql": "SELECT 1", "maxBytesBilled": int64(1) << 50})
	if e.Code != bqerr.InvalidArgument || !strings.Contains(e.Message, "cap") {
		t.Errorf("maxBytesBilled above the cap: %+v", e)
	}
	e = fails(t, cs, "execute_sql", map[string]any{"sql": "   "})
	if e.Code != bqerr.InvalidArgument {
		t.Errorf("empty SQL: %+v", e)
	}
}

func TestReadOnlyRefusesWritesBeforeAnyJob(t *testing.T) {
	rec := &recorder{base: httpDefault()}
	cfg := testConfig()
	cfg.Transport = rec
	cs := connect(t, cfg, "")
	for _, sql := range []string{
		"DELETE FROM shop.orders WHERE TRUE",
		"/* SELECT */ DELETE FROM shop.orders WHERE TRUE",
		"SELECT 1; DROP TABLE shop.orders",
		"UPDATE shop.orders SET status = 'x' WHERE TRUE",
		"CREATE TABLE shop.x AS SELECT 1 AS a",
	} {
		e := fails(t, cs, "execute_sql", map[string]any{"sql": sql})
		if e.Code != bqerr.InvalidArgument || !strings.Contains(e.Hint, "--allow-writes") {
			t.Errorf("%q: %+v", sql, e)
		}
	}
	if n := rec.count("POST", "/jobs"); n != 0 {
		t.Errorf("%d jobs were submitted for refused statements, want 0", n)
	}
	out := ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": "SELECT COUNT(*) AS n FROM shop.orders", "format": "objects"})
	if string(out.Rows[0]) != `{"n":5}` {
		t.Errorf("orders after refused DELETE: %s", out.Rows[0])
	}
	dry := ok[query.DryRunOutput](t, cs, "dry_run_sql", map[string]any{"sql": "DELETE FROM shop.orders WHERE TRUE"})
	if dry.WouldExecute || dry.Note == "" {
		t.Errorf("dry run of DELETE on a read-only server: %+v", dry)
	}
}

func TestAllowWritesRunsDML(t *testing.T) {
	cfg := testConfig()
	cfg.AllowWrites = true
	cs := connect(t, cfg, "")
	ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": "CREATE TABLE shop.scratch (id INT64)"})
	ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": "INSERT INTO shop.scratch (id) VALUES (1), (2)"})
	out := ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": "SELECT COUNT(*) AS n FROM shop.scratch", "format": "objects"})
	if string(out.Rows[0]) != `{"n":2}` {
		t.Errorf("count after insert: %s", out.Rows[0])
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "execute_sql" && (tool.Annotations.ReadOnlyHint || !*tool.Annotations.DestructiveHint) {
			t.Errorf("execute_sql with writes allowed must be annotated destructive")
		}
	}
}

func TestDryRun(t *testing.T) {
	cs := connect(t, testConfig(), "")
	out := ok[query.DryRunOutput](t, cs, "dry_run_sql", map[string]any{
		"sql":        "SELECT customer_id, name FROM shop.customers WHERE tier = @tier",
		"parameters": []any{map[string]any{"name": "tier", "type": "STRING", "value": "gold"}},
	})
	if !out.Valid || out.StatementType != "SELECT" || !out.WouldExecute || out.PricePerTiBUSD != 6.25 || out.EstimatedCostUSD < 0 {
		t.Errorf("dry run = %+v", out)
	}
	e := fails(t, cs, "dry_run_sql", map[string]any{"sql": "SELEC 1"})
	if e.Code != bqerr.QueryError || e.Details.Location == nil || e.Details.Location.Line != 1 {
		t.Errorf("dry run of bad SQL: %+v", e)
	}
}

func TestProtocolFaultsAreJSONRPCErrors(t *testing.T) {
	cs := connect(t, testConfig(), "")
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
	if err == nil {
		t.Fatal("unknown tool: want a JSON-RPC error")
	}
}

func TestStdioBinary(t *testing.T) {
	for _, pv := range protocolVersions {
		t.Run("protocol="+pv, func(t *testing.T) {
			cs := connectStdio(t, pv)
			ds := ok[schema.ListDatasetsOutput](t, cs, "list_datasets", nil)
			if !datasetIDs(ds)["shop"] {
				t.Errorf("datasets = %+v", ds)
			}
			out := ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": "SELECT name FROM shop.customers WHERE customer_id = 1", "format": "objects"})
			if string(out.Rows[0]) != `{"name":"Ada Lovelace"}` {
				t.Errorf("row = %s", out.Rows[0])
			}
			e := fails(t, cs, "execute_sql", map[string]any{"sql": "DELETE FROM shop.orders WHERE TRUE"})
			if e.Code != bqerr.InvalidArgument {
				t.Errorf("DELETE over stdio: %+v", e)
			}
		})
	}
}
