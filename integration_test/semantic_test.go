package integration_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/bqerr"
	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
	"github.com/bigquery-mcp/bigquery-mcp/integration_test/faults"
	"github.com/bigquery-mcp/bigquery-mcp/server"
)

// The MetricFlow comparison test: the semantic layer is held to MetricFlow
// as the SQL reader is held to ZetaSQL. semantic/testdata/shop holds a
// manifest, its data, a list of queries and, for each, the rows MetricFlow
// (the tag in METRICFLOW_VERSION) gives: its BigQuery SQL run on this
// emulator, or its DuckDB SQL where the emulator cannot run it or runs it
// wrong (reference/*.json say which; regen.sh makes them again).

// shopDir is the sample shop, relative to integration_test/.
var shopDir = filepath.Join("..", "semantic", "testdata", "shop")

// shopEmulatorEnv makes the test binary serve the shop's emulator instead
// of running tests (serveShopEmulator).
const shopEmulatorEnv = "BQMCP_SHOP_EMULATOR"

// shopEmulator starts an emulator loaded with the sample data and the shop
// in a process of its own (this test binary again) and returns its URL.
// The process is killed when the test ends: a query the emulator grinds
// through for hours (window functions, see windowLast) then stops with it
// instead of taking the CPU from the tests after.
func shopEmulator(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), shopEmulatorEnv+"="+filepath.Join(shopDir, "data.yaml"))
	cmd.Stderr = &logBuffer{t: t}
	stdin, stdout := startPiped(t, cmd)
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http") {
		t.Fatalf("the shop's emulator did not start: %q %v", line, err)
	}
	return strings.TrimSpace(line)
}

// serveShopEmulator is the test binary run by shopEmulator: it loads the
// emulator YAML named by $BQMCP_SHOP_EMULATOR beside the sample data,
// writes the emulator's URL on a line, and serves until stdin closes.
func serveShopEmulator(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	e, err := emulator.Start(context.Background(), data)
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the shop's emulator:", err)
		return 1
	}
	fmt.Println(e.URL)
	io.Copy(io.Discard, os.Stdin)
	return 0 // exits without Close, which would wait for a query in flight
}

// connectSemantic starts the built binary over stdio against endpoint with
// the shop's manifest and args.
func connectSemantic(t *testing.T, endpoint string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(serverBin, append([]string{"stdio", "--endpoint", endpoint, "--project", emulator.Project,
		"--semantic-manifest", filepath.Join(shopDir, "semantic_manifest.json")}, args...)...)
	cmd.Stderr = &logBuffer{t: t}
	return clientSession(t, &mcp.CommandTransport{Command: cmd}, "2025-06-18")
}

// metricQuery is one query of queries.json.
type metricQuery struct {
	Name       string   `json:"name"`
	Metrics    []string `json:"metrics"`
	GroupBy    []string `json:"group_by"`
	Where      string   `json:"where"`
	OrderBy    []string `json:"order_by"`
	Limit      int      `json:"limit"`
	SavedQuery string   `json:"saved_query"`
	Refused    bool     `json:"refused"`
}

func (q metricQuery) args() map[string]any {
	a := map[string]any{"maxRows": 1000}
	if q.SavedQuery != "" {
		a["saved_query"] = q.SavedQuery
	}
	if len(q.Metrics) > 0 {
		a["metrics"] = q.Metrics
	}
	if len(q.GroupBy) > 0 {
		a["group_by"] = q.GroupBy
	}
	if q.Where != "" {
		a["where"] = q.Where
	}
	if len(q.OrderBy) > 0 {
		a["order_by"] = q.OrderBy
	}
	if q.Limit > 0 {
		a["limit"] = q.Limit
	}
	return a
}

// reference is MetricFlow's answer to a query (reference/<name>.json).
type reference struct {
	SQL     string `json:"metricflow_sql"`
	Columns []struct {
		Name string `json:"name"`
	} `json:"columns"`
	Rows [][]any `json:"rows"`
	// EmulatorRows are what MetricFlow's own BigQuery SQL gets on this
	// emulator where the emulator is wrong (Rows are then DuckDB's): a
	// server whose SQL meets the same emulator bug gets these.
	EmulatorRows [][]any `json:"emulator_rows"`
	Ordered      bool    `json:"ordered"`
	ComputedBy   string  `json:"computed_by"`
	Refused      bool    `json:"refused"`
}

func loadShopQueries(t *testing.T) []metricQuery {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(shopDir, "queries.json"))
	if err != nil {
		t.Fatal(err)
	}
	var qs []metricQuery
	if err := json.Unmarshal(b, &qs); err != nil {
		t.Fatalf("queries.json: %v", err)
	}
	return qs
}

func loadReference(t *testing.T, name string) reference {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(shopDir, "reference", name+".json"))
	if err != nil {
		t.Fatalf("no reference for %s (run semantic/testdata/shop/regen.sh): %v", name, err)
	}
	var r reference
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("reference/%s.json: %v", name, err)
	}
	return r
}

// TestQueryMetricsOutsideAllowlistIsRefusedWithoutAJob: started with
// --datasets shop, the server refuses a metric whose tables are in
// mf_shop as it refuses the SQL the metric compiles to, for a run and a dry
// run, with no request at all reaching BigQuery; with mf_shop allowed the
// same call reaches BigQuery.
func TestQueryMetricsOutsideAllowlistIsRefusedWithoutAJob(t *testing.T) {
	p, err := faults.New(shopEmulator(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	args := map[string]any{"metrics": []string{"revenue"}, "group_by": []string{"metric_time__month"}}
	dry := map[string]any{"metrics": []string{"revenue"}, "dry_run": true}

	cs := connectSemantic(t, p.URL, "--datasets", "shop")
	before := len(p.Requests())
	for _, a := range []map[string]any{args, dry} {
		e := fails(t, cs, "query_metrics", a)
		if e.Code != bqerr.PermissionDenied || !strings.Contains(e.Message+e.Hint, "mf_shop") {
			t.Errorf("query_metrics(%v) outside the allowlist = %s %q (hint %q), want PERMISSION_DENIED naming mf_shop",
				a, e.Code, e.Message, e.Hint)
		}
	}
	if reqs := p.Requests()[before:]; len(reqs) != 0 {
		t.Errorf("refused metric queries sent %d requests to BigQuery: %+v", len(reqs), reqs)
	}

	// With mf_shop allowed the same call goes to BigQuery: the refusal
	// above was the allowlist's. (The emulator lists no referenced tables
	// in a dry run, so the server then fails closed after it; BigQuery
	// lists them.)
	allowed := connectSemantic(t, p.URL, "--datasets", "mf_shop")
	before = len(p.Requests())
	call(t, allowed, "query_metrics", args)
	if len(p.Requests()) == before {
		t.Error("query_metrics with mf_shop allowed sent no request to BigQuery")
	}
}

// TestQueryMetricsEqualsMetricFlow runs every query of the shop's
// queries.json through query_metrics on the built binary and compares its
// rows with MetricFlow's: the same columns (by name), the same rows (in
// order where the query orders them), numbers within a relative 1e-9,
// dates and datetimes at midnight compared as dates. A query MetricFlow's
// subset excludes (a conversion metric) must be refused with no job.
func TestQueryMetricsEqualsMetricFlow(t *testing.T) {
	p, err := faults.New(shopEmulator(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	cs := connectSemantic(t, p.URL)
	for _, q := range windowLast(t, loadShopQueries(t)) {
		t.Run(q.Name, func(t *testing.T) {
			ref := loadReference(t, q.Name)
			if q.Refused || ref.Refused {
				before := len(p.Requests())
				e := fails(t, cs, "query_metrics", q.args())
				if e.Code != bqerr.InvalidArgument {
					t.Errorf("%s: %s %q, want INVALID_ARGUMENT", q.Name, e.Code, e.Message)
				}
				for _, r := range p.Requests()[before:] {
					if r.Op == "jobs.insert" || r.Op == "jobs.query" {
						t.Errorf("%s: the refusal sent a job to BigQuery: %+v", q.Name, r)
					}
				}
				return
			}
			if len(ref.Rows) == 0 {
				t.Fatalf("%s: MetricFlow's answer has no rows: the query tests nothing (change it in queries.json)", q.Name)
			}
			out, err := queryMetricsWithin(cs, q.args(), 3*time.Minute)
			if err != nil {
				t.Fatalf("%s: %v (MetricFlow's rows: %s)", q.Name, err, ref.ComputedBy)
			}
			if out.ExecuteOutput == nil || !out.JobComplete {
				t.Fatalf("%s: no complete result: %+v", q.Name, out)
			}
			got, err := alignRows(out, ref)
			if err != nil {
				t.Fatalf("%s: %v\nserver SQL:\n%s", q.Name, err, out.SQL)
			}
			diff := rowsDiffer(ref.Rows, got, ref.Ordered)
			if diff != "" && ref.EmulatorRows != nil && rowsDiffer(ref.EmulatorRows, got, ref.Ordered) == "" {
				diff = ""
			}
			if diff != "" {
				t.Errorf("%s: rows differ from MetricFlow's (%s): %s\nserver SQL:\n%s\nMetricFlow SQL:\n%s",
					q.Name, ref.ComputedBy, diff, out.SQL, ref.SQL)
			}
		})
	}
}

// windowLast puts the refused queries first and last those whose
// MetricFlow SQL has window functions: the emulator runs each window call
// as a correlated subquery over its whole input, so such SQL can take it
// hours, and it serves the queries after one only when it is done.
func windowLast(t *testing.T, qs []metricQuery) []metricQuery {
	t.Helper()
	var first, rest, last []metricQuery
	for _, q := range qs {
		switch ref := loadReference(t, q.Name); {
		case q.Refused || ref.Refused:
			first = append(first, q)
		case strings.Contains(ref.SQL, " OVER ("):
			last = append(last, q)
		default:
			rest = append(rest, q)
		}
	}
	return append(append(first, rest...), last...)
}

// queryMetricsWithin calls query_metrics and decodes its answer, giving up
// after d.
func queryMetricsWithin(cs *mcp.ClientSession, args map[string]any, d time.Duration) (server.QueryMetricsOutput, error) {
	var out server.QueryMetricsOutput
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "query_metrics", Arguments: args})
	if err != nil {
		return out, fmt.Errorf("no answer within %s on the emulator: %w", d, err)
	}
	if res.IsError {
		return out, fmt.Errorf("query_metrics failed: %s", text(res))
	}
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil {
		return out, fmt.Errorf("answer is not query_metrics' JSON: %w", err)
	}
	return out, nil
}

// alignRows decodes the server's rows and puts their values in the
// reference's column order, matching columns by name.
func alignRows(out server.QueryMetricsOutput, ref reference) ([][]any, error) {
	index := map[string]int{}
	for i, c := range out.Schema {
		index[c.Name] = i
	}
	if len(out.Schema) != len(ref.Columns) {
		return nil, fmt.Errorf("columns %v, MetricFlow's %v", out.Schema, ref.Columns)
	}
	order := make([]int, len(ref.Columns))
	for i, c := range ref.Columns {
		j, found := index[c.Name]
		if !found {
			return nil, fmt.Errorf("no column %s (MetricFlow's name) among %v", c.Name, out.Schema)
		}
		order[i] = j
	}
	rows := make([][]any, len(out.Rows))
	for r, raw := range out.Rows {
		var cells []any
		if err := json.Unmarshal(raw, &cells); err != nil {
			return nil, fmt.Errorf("row %d is not a compact row: %s", r, raw)
		}
		if len(cells) != len(order) {
			return nil, fmt.Errorf("row %d has %d values for %d columns", r, len(cells), len(order))
		}
		rows[r] = make([]any, len(order))
		for i, j := range order {
			rows[r][i] = cells[j]
		}
	}
	return rows, nil
}

// rowsDiffer says how got differs from want, or "" when they are equal:
// in order when ordered, else as multisets.
func rowsDiffer(want, got [][]any, ordered bool) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d rows, want %d\ngot  %v\nwant %v", len(got), len(want), got, want)
	}
	if ordered {
		for i := range want {
			if !rowEqual(want[i], got[i]) {
				return fmt.Sprintf("row %d is %v, want %v", i, got[i], want[i])
			}
		}
		return ""
	}
	used := make([]bool, len(got))
	var missing [][]any
	for _, w := range want {
		found := false
		for j, g := range got {
			if !used[j] && rowEqual(w, g) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			missing = append(missing, w)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	var extra [][]any
	for j, g := range got {
		if !used[j] {
			extra = append(extra, g)
		}
	}
	return fmt.Sprintf("missing %v; unexpected %v", missing, extra)
}

func rowEqual(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !valueEqual(normalise(a[i]), normalise(b[i])) {
			return false
		}
	}
	return true
}

// midnight matches a DATETIME or TIMESTAMP at midnight, which compares as
// its date (BigQuery's DATETIME_TRUNC of a DATE is a DATETIME; a server may
// keep the DATE).
var midnight = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})[T ]00:00:00(\.0+)?(Z|[+-]00:?00)?$`)

// normalise turns a JSON value into a float64 (numbers, and NUMERIC or
// INT64 written as strings), a string (dates at midnight as the date), a
// bool or nil.
func normalise(v any) any {
	s, isString := v.(string)
	if !isString {
		return v
	}
	if m := midnight.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xXpPnN_") {
		return f
	}
	return s
}

func valueEqual(a, b any) bool {
	fa, aNum := a.(float64)
	fb, bNum := b.(float64)
	if aNum && bNum {
		return math.Abs(fa-fb) <= 1e-9*math.Max(1, math.Max(math.Abs(fa), math.Abs(fb)))
	}
	return a == b
}
