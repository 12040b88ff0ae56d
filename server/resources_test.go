package server

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	bq "google.golang.org/api/bigquery/v2"

	"github.com/bigquery-mcp/bigquery-mcp/bqfake"
	"github.com/bigquery-mcp/bigquery-mcp/governance"
	"github.com/bigquery-mcp/bigquery-mcp/resilience"
	"github.com/bigquery-mcp/bigquery-mcp/schema"
)

// shopBigQuery answers the listing and tables.get calls of resources and
// completion for project p: datasets sales_eu (table orders) and hr (table
// salaries).
func shopBigQuery(t *testing.T) *bqfake.Fake {
	t.Helper()
	fake := bqfake.New(t)
	for _, d := range [][2]string{{"hr", "salaries"}, {"sales_eu", "orders"}} {
		fake.AddDataset(d[0], "")
		fake.AddTable(&bq.Table{TableReference: &bq.TableReference{DatasetId: d[0], TableId: d[1]}, Type: "TABLE",
			Schema: &bq.TableSchema{Fields: []*bq.TableFieldSchema{{Name: "email", Type: "STRING"}}}})
	}
	return fake
}

// connectShop serves the resources and completion of a schema service on
// shopBigQuery with the allowlist spec, to an in-memory client.
func connectShop(t *testing.T, spec string) (*mcp.ClientSession, *bqfake.Fake) {
	t.Helper()
	svc, fake := shopSchema(t, spec)
	return connect(t, New(Services{Schema: svc}, Config{Logger: discardLogger()}), "", nil), fake
}

// shopSchema is a schema service on shopBigQuery with the allowlist spec.
func shopSchema(t *testing.T, spec string) (*schema.Service, *bqfake.Fake) {
	t.Helper()
	fake := shopBigQuery(t)
	hc := &http.Client{Transport: &resilience.Transport{Base: http.DefaultTransport}}
	client, rest := fake.Client(t, hc), fake.REST(t, hc)
	exec, err := resilience.NewExecutor(resilience.Defaults(), resilience.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	allow, err := governance.ParseAllowlist(spec, "p")
	if err != nil {
		t.Fatal(err)
	}
	return schema.NewService(schema.Config{Client: client, REST: rest, Executor: exec, Cache: resilience.NewCache(resilience.CacheConfig{}), Identity: "test", Project: "p", Datasets: allow}), fake
}

func complete(t *testing.T, cs *mcp.ClientSession, arg, value string, args map[string]string) []string {
	t.Helper()
	ref := &mcp.CompleteReference{Type: "ref/resource", URI: schemaTemplate}
	res, err := cs.Complete(context.Background(), &mcp.CompleteParams{Ref: ref,
		Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}, Context: &mcp.CompleteContext{Arguments: args}})
	if err != nil {
		t.Fatalf("complete %s: %v", arg, err)
	}
	return res.Completion.Values
}

// Schema resources and completion honour the dataset allowlist: another
// dataset's table is refused as get_table_schema refuses it, without a
// request, and completion offers only allowed names.
func TestResourcesAndCompletionHonourTheAllowlist(t *testing.T) {
	cs, fake := connectShop(t, "sales_*")
	ctx := context.Background()

	r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "bigquery://p/sales_eu/orders"})
	if err != nil || len(r.Contents) != 1 || !strings.Contains(r.Contents[0].Text, `"email"`) {
		t.Fatalf("allowed resource = %+v, %v", r, err)
	}
	before := fake.Count(bqfake.Any)
	for _, uri := range []string{"bigquery://p/hr/salaries", "bigquery://q/sales_eu/orders"} {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) || !strings.Contains(string(rpc.Data), `"PERMISSION_DENIED"`) || !strings.Contains(string(rpc.Data), "p.sales_*") {
			t.Errorf("%s: error %v (data %s), want PERMISSION_DENIED naming p.sales_*", uri, err, dataOf(rpc))
		}
	}
	if n := fake.Count(bqfake.Any) - before; n != 0 {
		t.Errorf("refused reads sent %d requests", n)
	}
	if got := complete(t, cs, "project", "", nil); !slices.Equal(got, []string{"p"}) {
		t.Errorf("project completion = %v", got)
	}
	if got := complete(t, cs, "dataset", "", nil); !slices.Equal(got, []string{"sales_eu"}) {
		t.Errorf("dataset completion = %v, want only sales_eu", got)
	}
	if got := complete(t, cs, "table", "", map[string]string{"dataset": "sales_eu"}); !slices.Equal(got, []string{"orders"}) {
		t.Errorf("table completion = %v", got)
	}
	mid := fake.Count(bqfake.Any)
	if got := complete(t, cs, "table", "", map[string]string{"dataset": "hr"}); len(got) != 0 {
		t.Errorf("table completion of hr = %v, want none", got)
	}
	if got := complete(t, cs, "dataset", "", map[string]string{"project": "q"}); len(got) != 0 {
		t.Errorf("dataset completion of project q = %v, want none", got)
	}
	if n := fake.Count(bqfake.Any) - mid; n != 0 {
		t.Errorf("refused completions sent %d requests", n)
	}

	// A default project of which nothing is allowed is not offered.
	other, _ := connectShop(t, "q.sales")
	if got := complete(t, other, "project", "", nil); len(got) != 0 {
		t.Errorf("project completion = %v, want none", got)
	}
}

func dataOf(e *jsonrpc.Error) string {
	if e == nil {
		return ""
	}
	return string(e.Data)
}
