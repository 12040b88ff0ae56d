package integration_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
)

// governedBigQuery is a fake of the BigQuery REST API for the governance
// controls, which the emulator cannot drive: its dry runs report no
// referencedTables. Project p has datasets sales (allowed in these tests),
// secret and hr; sales.v_orders is an authorized view over
// secret.orders. Dry runs answer from plans; every other request is
// recorded, so a test can prove that nothing but dry runs reached BigQuery
// for a refused read.
type governedBigQuery struct {
	t     *testing.T
	plans map[string]governedPlan

	mu       sync.Mutex
	requests []string // "METHOD path" of every request but dry runs
	jobs     int      // query jobs started (jobs.query, or jobs.insert not dry)
	dryRuns  []string // the SQL of every dry run
}

type governedPlan struct {
	tables []string // project.dataset.table
	bytes  int64
}

func (f *governedBigQuery) record(r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
}

func (f *governedBigQuery) snapshot() (requests []string, jobs int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...), f.jobs
}

func (f *governedBigQuery) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	path := strings.TrimPrefix(r.URL.Path, "/bigquery/v2")
	schema := map[string]any{"fields": []any{map[string]any{"name": "id", "type": "INTEGER"}}}
	rows := []any{map[string]any{"f": []any{map[string]any{"v": "7"}}}}
	var out any
	switch {
	case r.Method == http.MethodPost && path == "/projects/p/jobs":
		var job struct {
			Configuration struct {
				DryRun bool `json:"dryRun"`
				Query  struct {
					Query string `json:"query"`
				} `json:"query"`
			} `json:"configuration"`
		}
		json.NewDecoder(r.Body).Decode(&job)
		if !job.Configuration.DryRun {
			f.record(r)
			f.mu.Lock()
			f.jobs++
			f.mu.Unlock()
			w.WriteHeader(http.StatusBadRequest)
			out = map[string]any{"error": map[string]any{"code": 400, "message": "the fake runs no inserted jobs", "errors": []any{map[string]any{"reason": "invalid"}}}}
			break
		}
		f.mu.Lock()
		f.dryRuns = append(f.dryRuns, job.Configuration.Query.Query)
		f.mu.Unlock()
		p := f.plans[job.Configuration.Query.Query]
		var refs []any
		for _, t := range p.tables {
			parts := strings.Split(t, ".")
			refs = append(refs, map[string]any{"projectId": parts[0], "datasetId": parts[1], "tableId": parts[2]})
		}
		out = map[string]any{"jobReference": map[string]any{"projectId": "p", "location": "US"}, "status": map[string]any{"state": "DONE"},
			"configuration": map[string]any{"dryRun": true},
			"statistics": map[string]any{"totalBytesProcessed": fmt.Sprint(p.bytes), "query": map[string]any{
				"statementType": "SELECT", "totalBytesProcessed": fmt.Sprint(p.bytes), "referencedTables": refs, "schema": schema}}}
	case r.Method == http.MethodPost && path == "/projects/p/queries":
		f.record(r)
		f.mu.Lock()
		f.jobs++
		n := f.jobs
		f.mu.Unlock()
		out = map[string]any{"jobReference": map[string]any{"projectId": "p", "jobId": fmt.Sprintf("job_%d", n), "location": "US"},
			"jobComplete": true, "totalRows": "1", "schema": schema, "rows": rows, "totalBytesProcessed": "1048576", "totalBytesBilled": "10485760"}
	case r.Method == http.MethodGet && path == "/projects/p/jobs/foreign_secret_job":
		f.record(r)
		out = map[string]any{"jobReference": map[string]any{"projectId": "p", "jobId": "foreign_secret_job", "location": "US"},
			"status": map[string]any{"state": "DONE"}, "configuration": map[string]any{"query": map[string]any{"query": "SELECT 1"}},
			"statistics": map[string]any{"query": map[string]any{"statementType": "SELECT",
				"referencedTables": []any{map[string]any{"projectId": "p", "datasetId": "secret", "tableId": "orders"}}}}}
	case r.Method == http.MethodGet && path == "/projects/p/datasets":
		f.record(r)
		var ds []any
		for _, id := range []string{"hr", "sales", "secret"} {
			ds = append(ds, map[string]any{"id": "p:" + id, "location": "US", "datasetReference": map[string]any{"projectId": "p", "datasetId": id}})
		}
		out = map[string]any{"datasets": ds}
	case r.Method == http.MethodGet && strings.HasPrefix(path, "/projects/p/datasets/"):
		f.record(r)
		parts := strings.Split(strings.TrimPrefix(path, "/projects/p/datasets/"), "/")
		switch {
		case len(parts) == 1:
			out = map[string]any{"id": "p:" + parts[0], "location": "US", "datasetReference": map[string]any{"projectId": "p", "datasetId": parts[0]}}
		case len(parts) == 2: // tables.list
			out = map[string]any{"tables": []any{map[string]any{"type": "TABLE", "tableReference": map[string]any{"projectId": "p", "datasetId": parts[0], "tableId": "orders"}}}}
		case len(parts) == 3: // tables.get
			typ := "TABLE"
			if strings.HasPrefix(parts[2], "v_") {
				typ = "VIEW"
			}
			out = map[string]any{"type": typ, "location": "US", "schema": schema, "numRows": "1",
				"tableReference": map[string]any{"projectId": "p", "datasetId": parts[0], "tableId": parts[2]}}
		default: // tabledata.list
			out = map[string]any{"totalRows": "1", "rows": rows}
		}
	default:
		f.record(r)
		w.WriteHeader(http.StatusNotFound)
		out = map[string]any{"error": map[string]any{"code": 404, "message": "no fake for " + r.Method + " " + path, "errors": []any{map[string]any{"reason": "notFound"}}}}
	}
	json.NewEncoder(w).Encode(out)
}

var governedPlans = map[string]governedPlan{
	"SELECT * FROM sales.orders":                                         {[]string{"p.sales.orders"}, 1 << 20},
	"SELECT * FROM sales.v_orders":                                       {[]string{"p.secret.orders"}, 1 << 20},
	"SELECT * FROM `p.sales.v_orders`":                                   {[]string{"p.secret.orders"}, 1 << 20},
	"SELECT * FROM secret.orders":                                        {[]string{"p.secret.orders"}, 1 << 20},
	"SELECT * FROM `p.secret.orders`":                                    {[]string{"p.secret.orders"}, 1 << 20},
	"SELECT * FROM `p`.secret.`orders`":                                  {[]string{"p.secret.orders"}, 1 << 20},
	"SELECT * FROM orders":                                               {[]string{"p.secret.orders"}, 1 << 20},
	"SELECT * FROM sales.orders JOIN secret.orders USING (id)":           {[]string{"p.sales.orders", "p.secret.orders"}, 1 << 20},
	"SELECT * FROM sales.orders WHERE id IN (SELECT id FROM secret.x)":   {[]string{"p.sales.orders", "p.secret.x"}, 1 << 20},
	"WITH s AS (SELECT * FROM secret.orders) SELECT * FROM s":            {[]string{"p.secret.orders"}, 1 << 20},
	"SELECT * FROM secret.orders_*":                                      {[]string{"p.secret.orders_2024"}, 1 << 20},
	"SELECT * FROM sales.v_orders UNION ALL SELECT * FROM secret.orders": {[]string{"p.secret.orders"}, 1 << 20},
	"SELECT * FROM sales.v_orders UNION ALL SELECT * FROM hr.v_all":      {[]string{"p.secret.orders"}, 1 << 20},
	"SELECT * FROM `region-us`.INFORMATION_SCHEMA.COLUMNS":               {nil, 0},
	"SELECT * FROM EXTERNAL_QUERY('p.us.c', 'SELECT 1')":                 {nil, 0},
	"SELECT * FROM sales.big":                                            {[]string{"p.sales.big"}, 3 << 30},
}

// startGovernedBinary runs the built binary over stdio against a fresh
// governedBigQuery, with the dataset allowlist and budget flags given.
func startGovernedBinary(t *testing.T, protocol string, copts *mcp.ClientOptions, args ...string) (*mcp.ClientSession, *governedBigQuery) {
	t.Helper()
	fake := &governedBigQuery{t: t, plans: governedPlans}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	cmd := exec.Command(serverBin, append([]string{"stdio", "--endpoint", srv.URL, "--project", "p", "--auth", "none"}, args...)...)
	cmd.Stderr = &logBuffer{t: t}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "governance-test", Version: "1"}, copts).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, fake
}

// TestDatasetAllowlistHoldsForEveryTool: started with --datasets sales, the
// binary lets no tool read dataset secret through any form of the corpus,
// and sends BigQuery nothing about secret but dry runs; reads of sales,
// the authorized view included, work.
func TestDatasetAllowlistHoldsForEveryTool(t *testing.T) {
	cs, fake := startGovernedBinary(t, "", nil, "--datasets", "sales")

	for _, sql := range []string{"SELECT * FROM sales.orders", "SELECT * FROM sales.v_orders", "SELECT * FROM `p.sales.v_orders`"} {
		ok[map[string]any](t, cs, "execute_sql", map[string]any{"sql": sql})
	}
	if _, jobs := fake.snapshot(); jobs != 3 {
		t.Fatalf("%d jobs for 3 allowed queries", jobs)
	}
	ok[map[string]any](t, cs, "get_table_schema", map[string]any{"table": "sales.v_orders"})
	ok[map[string]any](t, cs, "preview_table", map[string]any{"table": "sales.orders"})
	listed := ok[struct {
		Datasets []struct{ ID string } `json:"datasets"`
	}](t, cs, "list_datasets", nil)
	if len(listed.Datasets) != 1 || listed.Datasets[0].ID != "sales" {
		t.Errorf("list_datasets = %+v, want only sales", listed.Datasets)
	}

	before, jobsBefore := fake.snapshot()
	refused := 0
	for _, sql := range []string{
		"SELECT * FROM secret.orders",
		"SELECT * FROM `p.secret.orders`",
		"SELECT * FROM `p`.secret.`orders`",
		"SELECT * FROM sales.orders JOIN secret.orders USING (id)",
		"SELECT * FROM sales.orders WHERE id IN (SELECT id FROM secret.x)",
		"WITH s AS (SELECT * FROM secret.orders) SELECT * FROM s",
		"SELECT * FROM secret.orders_*",
		"SELECT * FROM sales.v_orders UNION ALL SELECT * FROM secret.orders",
		"SELECT * FROM sales.v_orders UNION ALL SELECT * FROM hr.v_all",
		"SELECT * FROM `region-us`.INFORMATION_SCHEMA.COLUMNS",
		"SELECT * FROM EXTERNAL_QUERY('p.us.c', 'SELECT 1')",
	} {
		for _, tool := range []string{"execute_sql", "dry_run_sql"} {
			if e := fails(t, cs, tool, map[string]any{"sql": sql}); e.Code != bqerr.PermissionDenied || !strings.Contains(e.Hint, "p.sales") {
				t.Errorf("%s %q: %s %q (hint %q), want PERMISSION_DENIED naming p.sales", tool, sql, e.Code, e.Message, e.Hint)
			}
			refused++
		}
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"execute_sql", map[string]any{"sql": "SELECT * FROM orders", "defaultDataset": "secret"}},
		{"get_table_schema", map[string]any{"table": "secret.orders"}},
		{"get_table_schema", map[string]any{"table": "`p.secret.orders`"}},
		{"preview_table", map[string]any{"table": "p.secret.orders"}},
		{"list_tables", map[string]any{"dataset": "secret"}},
		{"search_columns", map[string]any{"query": "id", "datasets": []string{"secret"}}},
	} {
		if e := fails(t, cs, c.tool, c.args); e.Code != bqerr.PermissionDenied {
			t.Errorf("%s %v: %s %q, want PERMISSION_DENIED", c.tool, c.args, e.Code, e.Message)
		}
		refused++
	}
	// Under an allowlist a job this server did not start is unknown to it,
	// and nothing is asked about it (docs/governance.md).
	if e := fails(t, cs, "get_query_results", map[string]any{"jobId": "foreign_secret_job"}); e.Code != bqerr.NotFound {
		t.Errorf("get_query_results of a foreign job: %s %q, want NOT_FOUND", e.Code, e.Message)
	}
	refused++
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "bigquery://p/secret/orders"}); err == nil {
		t.Error("reading the schema resource of secret.orders succeeded")
	}
	after, jobsAfter := fake.snapshot()
	if jobsAfter != jobsBefore {
		t.Errorf("%d jobs ran for %d refused reads", jobsAfter-jobsBefore, refused)
	}
	for _, r := range after[len(before):] {
		if strings.Contains(r, "/datasets/secret") || strings.Contains(r, "/queries") || strings.Contains(r, "foreign_secret_job") {
			t.Errorf("a refused read reached BigQuery: %s", r)
		}
	}
}

// TestBudgetAndUsageOverStdio: --max-bytes-per-session refuses a query
// whose estimate passes what is left, before it runs, and usage reports
// what was spent.
func TestBudgetAndUsageOverStdio(t *testing.T) {
	cs, fake := startGovernedBinary(t, "", nil, "--max-bytes-per-session", fmt.Sprint(15<<20))
	ok[map[string]any](t, cs, "execute_sql", map[string]any{"sql": "SELECT * FROM sales.orders"}) // billed 10 MiB
	e := fails(t, cs, "execute_sql", map[string]any{"sql": "SELECT * FROM sales.big"})
	if e.Code != bqerr.ResourceExhausted || !strings.Contains(e.Message, "3.0 GiB") || !strings.Contains(e.Message, "5.0 MiB is left") {
		t.Errorf("over budget: %s %q, want RESOURCE_EXHAUSTED with the estimate and what is left", e.Code, e.Message)
	}
	if _, jobs := fake.snapshot(); jobs != 1 {
		t.Errorf("%d jobs ran, want 1", jobs)
	}
	u := ok[struct {
		Session struct {
			Jobs        int   `json:"jobs"`
			BytesBilled int64 `json:"bytesBilled"`
		} `json:"session"`
		Left *int64 `json:"leftBytes"`
	}](t, cs, "usage", nil)
	if u.Session.Jobs != 1 || u.Session.BytesBilled != 10<<20 || u.Left == nil || *u.Left != 5<<20 {
		t.Errorf("usage = %+v, want 1 job, 10 MiB billed, 5 MiB left", u)
	}
}

// TestConfirmationOverStdio: a go-sdk client that implements elicitation
// is asked before a query above --confirm-above-bytes, on both protocol
// eras; the query runs only on accept.
func TestConfirmationOverStdio(t *testing.T) {
	for _, protocol := range protocolVersions {
		for _, action := range []string{"accept", "decline"} {
			t.Run(protocol+"/"+action, func(t *testing.T) {
				var asked []string
				var mu sync.Mutex
				cs, fake := startGovernedBinary(t, protocol, &mcp.ClientOptions{
					ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						mu.Lock()
						asked = append(asked, req.Params.Message)
						mu.Unlock()
						return &mcp.ElicitResult{Action: action, Content: map[string]any{"run": true}}, nil
					},
				}, "--confirm-above-bytes", fmt.Sprint(1<<30))
				res := call(t, cs, "execute_sql", map[string]any{"sql": "SELECT * FROM sales.big"})
				_, jobs := fake.snapshot()
				mu.Lock()
				defer mu.Unlock()
				if len(asked) != 1 || !strings.Contains(asked[0], "3.0 GiB") {
					t.Fatalf("asked %q, want one question naming 3.0 GiB", asked)
				}
				if want := map[string]int{"accept": 1, "decline": 0}[action]; jobs != want || res.IsError == (action == "accept") {
					t.Errorf("%s: %d jobs, isError %v: %s", action, jobs, res.IsError, text(res))
				}
			})
		}
	}
}

// TestConfirmationOverStatelessHTTP: over stateless HTTP a 2026-07-28
// client is asked through an input-required result; a 2025-06-18 client,
// which the server cannot send requests to, gets RESOURCE_EXHAUSTED.
func TestConfirmationOverStatelessHTTP(t *testing.T) {
	fake := &governedBigQuery{t: t, plans: governedPlans}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	in := startInstance(t, srv.URL, "--project", "p", "--auth", "none", "--confirm-above-bytes", fmt.Sprint(1<<30))
	for _, protocol := range protocolVersions {
		asked := 0
		c := mcp.NewClient(&mcp.Implementation{Name: "http-elicit", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked++
				return &mcp.ElicitResult{Action: "accept"}, nil
			},
		})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + in.addr + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
		cancel()
		if err != nil {
			t.Fatalf("%q: connect: %v", protocol, err)
		}
		res := call(t, cs, "execute_sql", map[string]any{"sql": "SELECT * FROM sales.big"})
		cs.Close()
		if protocol == "" {
			if asked != 1 || res.IsError {
				t.Errorf("2026-07-28: asked %d times, isError %v: %s", asked, res.IsError, text(res))
			}
			continue
		}
		var e bqerr.Error
		json.Unmarshal([]byte(text(res)), &e)
		if asked != 0 || e.Code != bqerr.ResourceExhausted {
			t.Errorf("%s: asked %d times, result %s; want RESOURCE_EXHAUSTED without asking", protocol, asked, text(res))
		}
	}
	if _, jobs := fake.snapshot(); jobs != 1 {
		t.Errorf("%d jobs ran, want 1 (the accepted one)", jobs)
	}
}
