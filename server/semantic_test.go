package server

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/auth"
	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
)

const shopManifest = "../semantic/testdata/shop/semantic_manifest.json"

// semanticServer builds a server over fake with the sample manifest and
// returns a connected client.
func semanticServer(t *testing.T, fake *bqfake.Fake, edit func(*Config)) *mcp.ClientSession {
	t.Helper()
	cfg := Defaults()
	cfg.Project, cfg.Endpoint, cfg.Auth = "demo-project", fake.URL, auth.None
	cfg.SemanticManifest = shopManifest
	if edit != nil {
		edit(&cfg)
	}
	b, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := b.MCP.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callJSON(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out); err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return out, res.IsError
}

// query_metrics compiles the metric query and runs it as execute_sql
// does: the rows come back in execute_sql's shape, with the SQL, the
// metrics' provenance, the manifest's hash, and the metric names among
// the job's labels.
func TestQueryMetricsRunsThroughExecuteSQL(t *testing.T) {
	fake := bqfake.New(t)
	schema := bqfake.Columns("metric_time__month TIMESTAMP", "customer__region STRING", "revenue FLOAT")
	fake.QueryResult(schema, bqfake.Row("1767225600", "EU", "120.5"))
	fake.OnJob(func(j *bq.Job) { j.Statistics.Query.Schema = schema })
	cs := semanticServer(t, fake, nil)

	out, isErr := callJSON(t, cs, "query_metrics", map[string]any{
		"metrics": []string{"revenue"}, "group_by": []string{"metric_time__month", "customer__region"},
		"where": "{{ Dimension('customer__region') }} = 'EU'", "order_by": []string{"-revenue"}, "limit": 10,
	})
	if isErr {
		t.Fatalf("query_metrics: %v", out)
	}
	if out["jobComplete"] != true || len(out["rows"].([]any)) != 1 {
		t.Errorf("result = %v, want execute_sql's complete result with one row", out)
	}
	sql, _ := out["sql"].(string)
	if !strings.Contains(sql, "`demo-project.mf_shop.orders`") || !strings.Contains(sql, "= 'EU'") || !strings.HasSuffix(sql, "LIMIT 10") {
		t.Errorf("sql = %s", sql)
	}
	if m := out["manifest"].(map[string]any); len(m["sha256"].(string)) != 64 {
		t.Errorf("manifest = %v, want its sha256", m)
	}
	if p := out["metrics"].([]any)[0].(map[string]any); p["name"] != "revenue" || p["certified"] != true {
		t.Errorf("provenance = %v", p)
	}
	var ran string
	for _, r := range fake.Requests(bqfake.JobsQuery) {
		if r.QueryRequest.Labels["mcp_metrics"] == "revenue" && r.QueryRequest.Labels["mcp_tool"] == "query_metrics" {
			ran = r.QueryRequest.Query
		}
	}
	if ran != sql {
		t.Errorf("the job ran %q with labels, want the compiled SQL", ran)
	}
}

// A metric over a dataset outside the allowlist is refused like the SQL
// it compiles to: no job reaches the wire.
func TestQueryMetricsOutsideAllowlistStartsNoJob(t *testing.T) {
	fake := bqfake.New(t)
	cs := semanticServer(t, fake, func(c *Config) { c.Governance.Datasets = "demo-project.other" })
	out, isErr := callJSON(t, cs, "query_metrics", map[string]any{"metrics": []string{"revenue"}})
	if !isErr || out["code"] != "PERMISSION_DENIED" {
		t.Errorf("query_metrics = %v, want PERMISSION_DENIED", out)
	}
	if n := len(fake.Requests(bqfake.JobsQuery)) + len(fake.Requests(bqfake.JobsInsert)); n != 0 {
		t.Errorf("%d job requests reached BigQuery, want none", n)
	}
}

// Unknown names and pasted SQL are refused before any request, with the
// closest names.
func TestQueryMetricsRefusals(t *testing.T) {
	fake := bqfake.New(t)
	cs := semanticServer(t, fake, nil)
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"metrics": []string{"revenu"}}, "closest: revenue"},
		{map[string]any{"metrics": []string{"revenue"}, "group_by": []string{"customer__regoin"}}, "customer__region"},
		{map[string]any{"metrics": []string{"revenue"}, "where": []string{"{{ Dimension('customer__region') }} IN (SELECT region FROM secrets.t)"}}, "refused"},
		{map[string]any{"metrics": []string{"signup_to_order"}}, "conversion"},
	} {
		out, isErr := callJSON(t, cs, "query_metrics", c.args)
		if !isErr || out["code"] != "INVALID_ARGUMENT" || !strings.Contains(out["message"].(string)+" "+out["hint"].(string), c.want) {
			t.Errorf("%v: %v, want INVALID_ARGUMENT mentioning %q", c.args, out, c.want)
		}
	}
	if n := len(fake.Requests(bqfake.Any)); n != 0 {
		t.Errorf("%d requests reached BigQuery, want none", n)
	}
}

// list_metrics and describe_metrics answer from the manifest alone.
func TestListAndDescribeMetrics(t *testing.T) {
	fake := bqfake.New(t)
	cs := semanticServer(t, fake, nil)
	out, isErr := callJSON(t, cs, "list_metrics", map[string]any{"search": "revenue"})
	if isErr {
		t.Fatal(out)
	}
	metrics := out["metrics"].([]any)
	if first := metrics[0].(map[string]any); first["certified"] != true {
		t.Errorf("first metric %v is not certified", first)
	}
	out, isErr = callJSON(t, cs, "describe_metrics", map[string]any{"metrics": []string{"revenue", "customers"}})
	if isErr {
		t.Fatal(out)
	}
	if tables := out["models"].([]any); len(tables) < 2 {
		t.Errorf("models = %v", tables)
	}
	if n := len(fake.Requests(bqfake.Any)); n != 0 {
		t.Errorf("%d requests reached BigQuery, want none", n)
	}
}

// Without a manifest no semantic tool is listed; with one, all four.
func TestSemanticToolsetListedOnlyWithManifest(t *testing.T) {
	for _, with := range []bool{false, true} {
		fake := bqfake.New(t)
		cs := semanticServer(t, fake, func(c *Config) {
			if !with {
				c.SemanticManifest = ""
			}
		})
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tool := range res.Tools {
			switch tool.Name {
			case "list_metrics", "describe_metrics", "query_metrics", "get_dimension_values":
				n++
			}
		}
		if want := map[bool]int{false: 0, true: 4}[with]; n != want {
			t.Errorf("manifest=%v: %d semantic tools listed, want %d", with, n, want)
		}
	}
}

// A manifest that does not load stops the server, naming the file and
// the place.
func TestBadManifestStopsBuild(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/m.json"
	if err := os.WriteFile(path, []byte(`{"semantic_models": [{"name": "o", "node_relation": {"alias": "t; DROP", "schema_name": "d"}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := Defaults()
	cfg.Project, cfg.Endpoint, cfg.Auth, cfg.SemanticManifest = "p", "http://127.0.0.1:1", auth.None, path
	_, err := Build(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "semantic_models[0] (o): node_relation: alias") {
		t.Errorf("Build = %v, want an error naming the file and the place", err)
	}
}

// get_dimension_values runs its SELECT DISTINCT as execute_sql does, once:
// the same question again is answered from the cache, with no job.
func TestDimensionValuesAreCached(t *testing.T) {
	fake := bqfake.New(t)
	schema := bqfake.Columns("customer__region STRING")
	fake.QueryResult(schema, bqfake.Row("APAC"), bqfake.Row("EU"))
	fake.OnJob(func(j *bq.Job) { j.Statistics.Query.Schema = schema })
	cs := semanticServer(t, fake, nil)
	for i, cached := range []bool{false, true} {
		out, isErr := callJSON(t, cs, "get_dimension_values", map[string]any{"dimension": "customer__region"})
		if isErr {
			t.Fatalf("call %d: %v", i, out)
		}
		if vals := out["values"].([]any); len(vals) != 2 || vals[1] != "EU" || (out["cached"] == true) != cached {
			t.Errorf("call %d: %v, want APAC and EU, cached %v", i, out, cached)
		}
		if sql := out["sql"].(string); !strings.Contains(sql, "SELECT DISTINCT") || !strings.Contains(sql, "`demo-project.mf_shop.customers`") {
			t.Errorf("sql = %s", sql)
		}
	}
	if n := len(fake.Requests(bqfake.JobsQuery)); n != 1 {
		t.Errorf("%d jobs.query requests, want 1", n)
	}
}
