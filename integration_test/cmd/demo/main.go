// Command demo starts the BigQuery emulator with the sample data (and the
// semantic layer's sample shop), launches the real bigquery-mcp binary
// against it over stdio with the shop's semantic manifest, and runs a
// scripted MCP session that prints every tool's output, a metric query and
// a few structured errors.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

type step struct {
	title string
	tool  string
	args  map[string]any
}

var script = []step{
	{"Which datasets exist?", "list_datasets", nil},
	{"What is in the shop dataset?", "list_tables", map[string]any{"dataset": "shop", "includeDetails": true}},
	{"What does an order look like?", "get_table_schema", map[string]any{"table": "`demo-project.shop.orders`"}},
	{"What does the view compute?", "get_table_schema", map[string]any{"table": "shop.customer_revenue"}},
	{"How much would this query cost?", "dry_run_sql", map[string]any{
		"sql":        "SELECT name, tier FROM shop.customers WHERE signup_date >= @since",
		"parameters": []any{map[string]any{"name": "since", "type": "DATE", "value": "2023-03-01"}},
	}},
	{"Run it with typed parameters (nested and repeated fields come back as JSON)", "execute_sql", map[string]any{
		"sql": "SELECT o.order_id, c.name, o.ordered_at, o.total, o.items, o.tags FROM shop.orders o JOIN shop.customers c USING (customer_id) " +
			"WHERE c.tier = @tier AND o.total >= @min_total ORDER BY o.order_id",
		"parameters": []any{
			map[string]any{"name": "tier", "type": "STRING", "value": "gold"},
			map[string]any{"name": "min_total", "type": "NUMERIC", "value": "10.00"},
		},
	}},
	{"Big integers, bytes and dates keep their meaning", "execute_sql", map[string]any{"sql": "SELECT * FROM telemetry.events ORDER BY event_id"}},
	{"A result cut by maxRows says so and where to continue", "execute_sql", map[string]any{"sql": "SELECT order_id, status FROM shop.orders ORDER BY order_id", "maxRows": 2}},
	{"Which certified metrics are there about revenue?", "list_metrics", map[string]any{"search": "revenue"}},
	{"What can revenue and orders be grouped by, and where do they come from?", "describe_metrics", map[string]any{"metrics": []any{"revenue", "orders"}}},
	{"Revenue and orders by quarter and region, returns left out (compiled from the manifest, run as execute_sql)", "query_metrics", map[string]any{
		"metrics": []any{"revenue", "orders"}, "group_by": []any{"metric_time__quarter", "customer__region"},
		"where": "{{ Dimension('order_id__status') }} != 'returned'", "order_by": []any{"metric_time__quarter", "-revenue"}, "limit": 8,
	}},
	{"Error: a metric filter that pastes a subquery (refused before any job runs)", "query_metrics", map[string]any{
		"metrics": []any{"revenue"}, "where": "{{ Dimension('customer__region') }} IN (SELECT region FROM shop.customers)",
	}},
	{"Error: a typo in the SQL (QUERY_ERROR with line and column)", "execute_sql", map[string]any{"sql": "SELECT order_id\nFROM shop.orders\nWHER status = 'shipped'"}},
	{"Error: a table that does not exist (NOT_FOUND, hint names list_tables)", "execute_sql", map[string]any{"sql": "SELECT * FROM shop.invoices"}},
	{"Error: a DELETE on a read-only server (refused before any job runs)", "execute_sql", map[string]any{"sql": "DELETE FROM shop.orders WHERE TRUE"}},
	{"Error: a parameter that does not match its type", "execute_sql", map[string]any{
		"sql": "SELECT * FROM shop.orders WHERE order_id = @id", "parameters": []any{map[string]any{"name": "id", "type": "INT64", "value": "one"}},
	}},
}

// shopDir is the semantic layer's sample shop, from the main module.
const shopDir = "semantic/testdata/shop"

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	fmt.Println("Starting the BigQuery emulator with the sample data…")
	// The semantic layer's sample shop (dataset mf_shop), beside the sample.
	shop, err := os.ReadFile(filepath.Join("..", shopDir, "data.yaml"))
	if err != nil {
		return err
	}
	emu, err := emulator.Start(ctx, shop)
	if err != nil {
		return err
	}
	defer emu.Close()

	dir, err := os.MkdirTemp("", "bqmcp-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "bigquery-mcp")
	// Built from the main module (the parent of integration_test), as users build it.
	build := exec.Command("go", "build", "-o", bin, "./cmd/bigquery-mcp")
	build.Dir = ".."
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building bigquery-mcp: %v\n%s", err, out)
	}

	var serverLog bytes.Buffer
	cmd := exec.Command(bin, "--endpoint", emu.URL, "--project", emulator.Project, "--log-level", "warn",
		"--semantic-manifest", filepath.Join("..", shopDir, "semantic_manifest.json"))
	cmd.Stderr = &serverLog
	client := mcp.NewClient(&mcp.Implementation{Name: "bigquery-mcp-demo", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return fmt.Errorf("connecting to bigquery-mcp: %w\n%s", err, serverLog.String())
	}
	defer cs.Close() // no-op after the explicit Close below
	init := cs.InitializeResult()
	fmt.Printf("Connected to %s %s over stdio (protocol %s)\n", init.ServerInfo.Name, init.ServerInfo.Version, init.ProtocolVersion)

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(tools.Tools))
	for _, t := range tools.Tools {
		names = append(names, t.Name)
	}
	fmt.Printf("Tools: %s\n", strings.Join(names, ", "))

	for i, s := range script {
		fmt.Printf("\n── %d. %s\n→ %s %s\n", i+1, s.title, s.tool, compact(s.args))
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: s.tool, Arguments: s.args})
		if err != nil {
			return fmt.Errorf("%s: %w", s.tool, err)
		}
		label := "result"
		if res.IsError {
			label = "isError: true"
		}
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				fmt.Printf("← %s\n%s\n", label, pretty(tc.Text))
			}
		}
	}
	// Closing stdin ends the server, which flushes its telemetry: with
	// OTEL_METRICS_EXPORTER=console the metrics appear in its stderr.
	if err := cs.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "closing the session:", err)
	}
	if serverLog.Len() > 0 {
		fmt.Printf("\n── The server's own output on stderr (JSON logs; metrics and spans when OTEL_*_EXPORTER=console):\n%s", serverLog.String())
	}
	return nil
}

func compact(v any) string {
	if v == nil {
		return "{}"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func pretty(s string) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(s), "   ", "  "); err != nil {
		return s
	}
	out := "   " + buf.String()
	const max = 2500
	if len(out) > max {
		out = out[:max] + "\n   … (cut for the demo)"
	}
	return out
}
