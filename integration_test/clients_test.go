package integration_test

// Real MCP clients against the built binary at its default configuration:
// the official conformance suite over streamable HTTP, and the MCP Inspector
// CLI over stdio and HTTP. Both are npm packages pinned in clients/ (see
// clients/package.json); `make clients` or .ci/run installs them, Node 22
// included, so nothing is fetched while the tests run.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
)

// requireClientsEnv makes a missing Node or client install a failure instead
// of a skip. .ci/run sets it: in CI these tests must run.
const requireClientsEnv = "BQMCP_REQUIRE_CLIENTS"

// clients is the pinned Node toolchain: where to run npx and the environment
// it needs.
type clients struct {
	dir string   // integration_test/clients, holding node_modules
	env []string // PATH with the pinned Node 22 first
	npx string   // resolved npx
}

// requireClients finds the pinned clients, or skips the test (fails it when
// BQMCP_REQUIRE_CLIENTS=1) with what to do.
func requireClients(t *testing.T) *clients {
	t.Helper()
	missing := func(format string, args ...any) *clients {
		t.Helper()
		msg := fmt.Sprintf(format, args...) + " (install them with `make clients`; .ci/run does it in CI)"
		if os.Getenv(requireClientsEnv) == "1" {
			t.Fatalf("%s=1 but the real MCP clients are unusable: %s", requireClientsEnv, msg)
		}
		t.Skipf("real MCP clients not installed: %s", msg)
		return nil
	}
	dir, err := filepath.Abs("clients")
	if err != nil {
		t.Fatal(err)
	}
	path := os.Getenv("PATH")
	// The pinned Node goes first, so a developer need not change PATH after
	// `make clients`; .ci/run puts it first as well.
	if nodeBin := filepath.Join(dir, "node_modules", "node", "bin"); isFile(filepath.Join(nodeBin, "node")) {
		path = nodeBin + string(os.PathListSeparator) + path
	}
	c := &clients{dir: dir, env: append(os.Environ(), "PATH="+path,
		// Keep the Inspector's catalog and client config out of $HOME.
		"MCP_CATALOG_PATH="+filepath.Join(t.TempDir(), "catalog.json"),
		"MCP_CLIENT_CONFIG_PATH="+filepath.Join(t.TempDir(), "client.json"),
		"NO_COLOR=1")}
	node := lookPathIn("node", path)
	c.npx = lookPathIn("npx", path)
	if node == "" || c.npx == "" {
		return missing("node or npx is not on PATH")
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return missing("%s --version: %v", node, err)
	}
	version := strings.TrimSpace(string(out))
	if major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(version, "v"), ".", 2)[0]); major < 22 {
		return missing("%s is Node %s; the clients need Node 22", node, version)
	}
	for _, bin := range []string{"conformance", "mcp-inspector"} {
		if !isFile(filepath.Join(dir, "node_modules", ".bin", bin)) {
			return missing("%s is not installed in %s", bin, dir)
		}
	}
	return c
}

// command runs a pinned client through npx, which must never download
// anything (--no): what runs is what package-lock.json pins. Everything
// after "--" goes to the client, not to npm.
func (c *clients) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, c.npx, append([]string{"--no", "--"}, args...)...)
	cmd.Dir = c.dir
	cmd.Env = c.env
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

func lookPathIn(name, path string) string {
	for _, dir := range filepath.SplitList(path) {
		if p := filepath.Join(dir, name); isFile(p) {
			return p
		}
	}
	return ""
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// startHTTPBinary runs the built binary in http mode with its default
// configuration (only what reaching the emulator needs) and returns its
// address. The test fails if the process has died by the time it ends.
func startHTTPBinary(t *testing.T) string {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(serverBin, "http", "--addr", addr, "--endpoint", emu.URL, "--project", emulator.Project)
	cmd.Stderr = &logBuffer{t: t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case err := <-exited:
			t.Errorf("the server process exited during the test: %v", err)
		default:
			cmd.Process.Kill()
			<-exited
		}
	})
	waitListening(t, addr)
	return addr
}

// conformanceBaseline lists the scenarios that do not apply to this server,
// each with the reason.
const conformanceBaseline = "conformance-baseline.yaml"

// TestConformanceSuite runs every scenario of the official MCP conformance
// suite against the HTTP binary. The suite itself compares the outcome with
// the baseline: it fails on a scenario that fails (or warns) and is not
// listed, and on a listed scenario that now passes, so the list stays exact.
func TestConformanceSuite(t *testing.T) {
	t.Parallel() // its own server binary and client processes; the emulator only read
	c := requireClients(t)
	addr := startHTTPBinary(t)
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	cmd := c.command(ctx, "conformance", "server", "--url", "http://"+addr+"/mcp", "--suite", "all",
		"--expected-failures", conformanceBaseline, "-o", out)
	output, err := cmd.CombinedOutput()
	t.Logf("conformance suite took %v", time.Since(start).Round(time.Millisecond))
	results, rerr := conformanceResults(out)
	if rerr != nil {
		t.Fatalf("reading the suite's results: %v\n%s", rerr, output)
	}
	baseline, berr := readBaseline(filepath.Join(c.dir, conformanceBaseline))
	if berr != nil {
		t.Fatal(berr)
	}
	applicable, passed := 0, 0
	for name, checks := range results {
		if baseline[name] {
			continue
		}
		applicable++
		if failed := checks.failed(); len(failed) == 0 {
			passed++
		} else {
			t.Errorf("scenario %s: %s", name, strings.Join(failed, "; "))
		}
	}
	t.Logf("conformance: %d of %d applicable scenarios passed; %d of %d scenarios not applicable (see clients/%s)",
		passed, applicable, len(results)-applicable, len(results), conformanceBaseline)
	if len(results) == 0 || applicable == 0 {
		t.Errorf("the suite ran %d scenarios, %d applicable", len(results), applicable)
	}
	if err != nil {
		t.Errorf("conformance suite against the baseline: %v\n%s", err, output)
	}
}

// scenarioChecks are the checks of one scenario, as the suite writes them
// to <out>/server-<scenario>-<time>/checks.json.
type scenarioChecks []struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
	Description  string `json:"description"`
}

// failed lists the checks the suite counts against a scenario: failures and
// warnings.
func (s scenarioChecks) failed() []string {
	var out []string
	for _, c := range s {
		if c.Status == "FAILURE" || c.Status == "WARNING" {
			msg := c.ErrorMessage
			if msg == "" {
				msg = c.Description
			}
			out = append(out, fmt.Sprintf("%s %s: %s", c.Status, c.ID, msg))
		}
	}
	return out
}

var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)

func conformanceResults(dir string) (map[string]scenarioChecks, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]scenarioChecks{}
	for _, e := range entries {
		m := resultDir.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
		if err != nil {
			return nil, err
		}
		var checks scenarioChecks
		if err := json.Unmarshal(b, &checks); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		out[m[1]] = checks
	}
	return out, nil
}

// readBaseline reads the scenario names under `server:` in the baseline
// (a flat YAML list; the suite itself parses it fully).
func readBaseline(path string) (map[string]bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	inServer := false
	for _, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "#")
		switch trimmed := strings.TrimSpace(line); {
		case trimmed == "":
		case !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "-"):
			inServer = trimmed == "server:"
		case inServer && strings.HasPrefix(trimmed, "- "):
			out[strings.TrimSpace(strings.TrimPrefix(trimmed, "- "))] = true
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s lists no server scenarios", path)
	}
	return out, nil
}

// inspector runs the MCP Inspector CLI against one transport.
type inspector struct {
	c      *clients
	target []string // the server: a command line (stdio) or --transport http --server-url URL
}

// inspectorResult is what `--format json` prints on stdout.
type inspectorResult struct {
	Result         json.RawMessage `json:"result"`
	SchemaFindings []struct {
		ToolName string `json:"toolName"`
		Findings []struct {
			Rule     string `json:"rule"`
			Severity string `json:"severity"`
			Schema   string `json:"schema"`
			Path     string `json:"path"`
		} `json:"findings"`
	} `json:"schemaFindings"`
}

// run invokes the Inspector with args after the target and decodes its JSON
// output. Exit codes: 5 means the tool returned isError, 6 unportable schemas.
func (in inspector) run(t *testing.T, args ...string) (inspectorResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmdArgs := append([]string{"mcp-inspector", "--cli"}, in.target...)
	cmdArgs = append(cmdArgs, append(args, "--format", "json")...)
	cmd := in.c.command(ctx, cmdArgs...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("inspector %s: %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	var res inspectorResult
	if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil || len(res.Result) == 0 {
		return res, fmt.Errorf("inspector %s: %v; no JSON result (%v)\nstdout: %s\nstderr: %s", args, err, jerr, stdout.String(), stderr.String())
	}
	if err != nil {
		return res, fmt.Errorf("inspector %s: %w\nstdout: %s\nstderr: %s", args, err, stdout.String(), stderr.String())
	}
	return res, nil
}

// inspectorCalls gives every tool arguments that are valid for the emulator's
// sample data (integration_test/emulator/sample.yaml). The job tools get the
// job that execute_sql ran first.
var inspectorCalls = map[string]toolCall{
	"list_datasets":    {args: func(jobRef) map[string]any { return map[string]any{} }},
	"list_tables":      {args: func(jobRef) map[string]any { return map[string]any{"dataset": "shop", "includeDetails": true} }},
	"get_table_schema": {args: func(jobRef) map[string]any { return map[string]any{"table": "shop.orders"} }},
	"preview_table":    {args: func(jobRef) map[string]any { return map[string]any{"table": "shop.orders", "maxRows": 2} }},
	"search_columns":   {args: func(jobRef) map[string]any { return map[string]any{"query": "customer"} }},
	"execute_sql": {args: func(jobRef) map[string]any {
		return map[string]any{
			"sql":        "SELECT order_id, total, items FROM shop.orders WHERE customer_id = @customer ORDER BY order_id",
			"parameters": []any{map[string]any{"name": "customer", "type": "INT64", "value": 1}},
			"maxRows":    1,
		}
	}},
	"dry_run_sql": {args: func(jobRef) map[string]any {
		return map[string]any{
			"sql":        "SELECT name FROM shop.customers WHERE tier = @tier",
			"parameters": []any{map[string]any{"name": "tier", "type": "STRING", "value": "gold"}},
		}
	}},
	"get_query_results": {needsJob: true, args: func(j jobRef) map[string]any {
		return map[string]any{"jobId": j.ID, "location": j.Location, "startIndex": 1, "maxRows": 10}
	}},
	"get_job":    {needsJob: true, args: func(j jobRef) map[string]any { return map[string]any{"jobId": j.ID, "location": j.Location} }},
	"cancel_job": {needsJob: true, args: func(j jobRef) map[string]any { return map[string]any{"jobId": j.ID, "location": j.Location} }},
	"health":     {args: func(jobRef) map[string]any { return map[string]any{} }},
	"usage":      {args: func(jobRef) map[string]any { return map[string]any{} }},
}

type toolCall struct {
	needsJob bool
	args     func(job jobRef) map[string]any
}

type jobRef struct {
	ID       string `json:"jobId"`
	Location string `json:"location"`
}

// TestInspectorCLI drives the binary with the MCP Inspector CLI at its
// default settings (it sets a log level first, because the server
// advertises logging): tools/list, a portability check of every tool schema
// (--strict), and a call of every listed tool, over stdio and HTTP.
func TestInspectorCLI(t *testing.T) {
	t.Parallel() // its own server binary and client processes; the emulator only read
	c := requireClients(t)
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		exerciseInspector(t, inspector{c: c, target: []string{serverBin, "--endpoint", emu.URL, "--project", emulator.Project}})
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		addr := startHTTPBinary(t)
		exerciseInspector(t, inspector{c: c, target: []string{"--transport", "http", "--server-url", "http://" + addr + "/mcp"}})
	})
}

func exerciseInspector(t *testing.T, in inspector) {
	start := time.Now()
	defer func() { t.Logf("inspector session total: %v", time.Since(start).Round(time.Millisecond)) }()
	res, err := in.run(t, "--method", "tools/list", "--strict")
	if err != nil {
		t.Fatal(err)
	}
	for _, tf := range res.SchemaFindings {
		for _, f := range tf.Findings {
			t.Errorf("--strict: tool %s: %s %s at %s.%s", tf.ToolName, f.Severity, f.Rule, f.Schema, f.Path)
		}
	}
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res.Result, &list); err != nil || len(list.Tools) == 0 {
		t.Fatalf("tools/list: %v %s", err, res.Result)
	}
	// execute_sql first: the job tools need its job.
	names := []string{"execute_sql"}
	for _, tool := range list.Tools {
		if tool.Name != "execute_sql" {
			names = append(names, tool.Name)
		}
	}
	var job jobRef
	for _, name := range names {
		tc, ok := inspectorCalls[name]
		if !ok {
			t.Errorf("tool %s has no arguments in inspectorCalls: add valid arguments for the sample data", name)
			continue
		}
		if tc.needsJob && job.ID == "" {
			t.Errorf("tool %s not called: execute_sql gave no job to pass it", name)
			continue
		}
		argJSON, err := json.Marshal(tc.args(job))
		if err != nil {
			t.Fatal(err)
		}
		res, err := in.run(t, "--method", "tools/call", "--tool-name", name, "--tool-args-json", string(argJSON))
		if err != nil {
			t.Errorf("tools/call %s %s: %v", name, argJSON, err)
			continue
		}
		var call struct {
			IsError           bool              `json:"isError"`
			Content           []json.RawMessage `json:"content"`
			StructuredContent json.RawMessage   `json:"structuredContent"`
		}
		if err := json.Unmarshal(res.Result, &call); err != nil || call.IsError || len(call.Content) == 0 || len(call.StructuredContent) == 0 {
			t.Errorf("tools/call %s %s: %v %s", name, argJSON, err, res.Result)
			continue
		}
		if name == "execute_sql" {
			if err := json.Unmarshal(call.StructuredContent, &job); err != nil || job.ID == "" {
				t.Fatalf("execute_sql gave no job ID: %v %s", err, call.StructuredContent)
			}
		}
	}
}
