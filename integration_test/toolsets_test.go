package integration_test

import (
	"context"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/insert"
	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
	"github.com/bigquery-mcp/bigquery-mcp/query"
	"github.com/bigquery-mcp/bigquery-mcp/server"
)

// TestInsertRowsLandOnTheEmulator streams rows with insert_rows and reads
// them back with a query. The emulator implements tabledata.insertAll but
// not BigQuery's insertId deduplication, nor per-row insertErrors (a bad
// row fails its whole request there): retries and per-row errors are
// proven against a fake in package insert.
func TestInsertRowsLandOnTheEmulator(t *testing.T) {
	rec := &recorder{base: http.DefaultTransport}
	cfg := testConfig()
	cfg.AllowWrites = true
	cfg.Toolsets = []server.Toolset{server.ToolsetQuery, server.ToolsetWrite}
	cfg.Transport = rec
	cs := connect(t, cfg, "")
	ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": "CREATE TABLE shop.streamed (id INT64, name STRING, amount NUMERIC)"})

	out := ok[insert.Output](t, cs, "insert_rows", map[string]any{"table": "shop.streamed", "rows": []any{
		map[string]any{"id": 1, "name": "first", "amount": "10.25"},
		map[string]any{"id": 2, "name": "second", "amount": 3.5},
		map[string]any{"id": 3, "name": nil},
	}})
	if out.InsertedRows != 3 || out.FailedRows != 0 || out.Table != emulator.Project+".shop.streamed" {
		t.Errorf("insert_rows = %+v", out)
	}
	body := rec.lastBody("/tables/streamed/insertAll")
	if strings.Count(body, `"insertId":"`) != 3 || !strings.Contains(body, `"amount":3.5`) {
		t.Errorf("insertAll body = %s", body)
	}
	got := ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": "SELECT id, name, amount FROM shop.streamed ORDER BY id", "format": "objects"})
	var rows []string
	for _, r := range got.Rows {
		rows = append(rows, string(r))
	}
	want := []string{`{"id":1,"name":"first","amount":"10.25"}`, `{"id":2,"name":"second","amount":"3.5"}`, `{"id":3,"name":null,"amount":null}`}
	if !slices.Equal(rows, want) {
		t.Errorf("rows after insert_rows:\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}

	// The allowlist gates writes: refused with no request at the wire.
	// (Queries under an allowlist fail closed on the emulator, whose dry
	// runs list no tables, so this server only inserts.)
	governed := &recorder{base: http.DefaultTransport}
	cfg.Governance.Datasets, cfg.Transport = "shop", governed
	gs := connect(t, cfg, "")
	e := fails(t, gs, "insert_rows", map[string]any{"table": "telemetry.events", "rows": []any{map[string]any{"id": 1}}})
	if n := governed.count("POST", "/insertAll"); e.Code != bqerr.PermissionDenied || n != 0 {
		t.Errorf("insert outside --datasets: %+v, %d requests", e, n)
	}
	ok[insert.Output](t, gs, "insert_rows", map[string]any{"table": "shop.streamed", "rows": []any{map[string]any{"id": 4}}})
	if n := governed.count("POST", "/insertAll"); n != 1 {
		t.Errorf("insert inside --datasets: %d requests, want 1", n)
	}
}

// TestBinaryListsTheChosenToolsets starts the built binary with each
// toolset setting and compares tools/list over stdio.
func TestBinaryListsTheChosenToolsets(t *testing.T) {
	schemaTools := []string{"get_table_schema", "list_datasets", "list_tables", "preview_table", "search_columns"}
	queryTools := []string{"dry_run_sql", "execute_sql", "get_query_results"}
	always := []string{"health", "usage"}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{nil, sortedNames(schemaTools, queryTools, []string{"cancel_job", "get_job"}, always)},
		{[]string{"--toolsets", "query"}, sortedNames(queryTools, always)},
		{[]string{"--read-only"}, sortedNames(schemaTools, queryTools, []string{"get_job"}, always)},
		// export_results stays under --read-only: only SELECTs, written only
		// to the --export-* places.
		{[]string{"--toolsets", "all", "--read-only"}, sortedNames(schemaTools, queryTools, []string{"get_job", "export_results"}, always)},
		{[]string{"--toolsets", "all", "--allow-writes"}, sortedNames(schemaTools, queryTools, []string{"cancel_job", "get_job", "insert_rows", "export_results"}, always)},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			cs := connectStdio(t, "2025-06-18", c.args...)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tool := range res.Tools {
				got = append(got, tool.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("listed %v\nwant   %v", got, c.want)
			}
			if !slices.Contains(got, "insert_rows") {
				if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "insert_rows", Arguments: map[string]any{}}); err == nil {
					t.Errorf("insert_rows is not listed but could be called")
				}
				return
			}
			// Listed, it works over stdio too.
			ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": "CREATE TABLE shop.streamed_stdio (id INT64)"})
			out := ok[insert.Output](t, cs, "insert_rows", map[string]any{"table": "shop.streamed_stdio", "rows": []any{map[string]any{"id": 1}, map[string]any{"id": 2}}})
			n := ok[query.ExecuteOutput](t, cs, "execute_sql", map[string]any{"sql": "SELECT COUNT(*) AS n FROM shop.streamed_stdio", "format": "objects"})
			if out.InsertedRows != 2 || string(n.Rows[0]) != `{"n":2}` {
				t.Errorf("insert_rows over stdio: %+v, then %s", out, n.Rows[0])
			}
		})
	}
}

// TestBinaryRefusesContradictoryToolsets: settings that cannot both hold
// stop the binary at startup with a message saying what to change.
func TestBinaryRefusesContradictoryToolsets(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--read-only", "--allow-writes"}, "read-only and allow-writes contradict"},
		{[]string{"--toolsets", "write"}, "needs allow-writes"},
		{[]string{"--toolsets", "schema,admin"}, "valid: schema, query, jobs, write, export, semantic, or all"},
		{[]string{"--toolsets", "schema,semantic"}, "semantic needs a semantic manifest"},
	} {
		cmd := exec.Command(serverBin, append([]string{"stdio", "--endpoint", emu.URL, "--project", emulator.Project}, c.args...)...)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%v: %v, output %q; want a failed start saying %q", c.args, err, out, c.want)
		}
	}
}

func sortedNames(groups ...[]string) []string {
	out := slices.Concat(groups...)
	slices.Sort(out)
	return out
}
