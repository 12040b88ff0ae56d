package integration_test

// The MCP App (package ui) in a real browser: headless Chromium, driven by
// chromedp, loads a small host page built on ext-apps' AppBridge
// (ui/src/host.ts). The host finds each tool's view through tools/list and
// resources/read and calls tools through /rpc, which forwards to an MCP
// client session, with the extension declared, on the real server binary
// on the emulator. The app itself reaches nothing but the host.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bigquery-mcp/bigquery-mcp/integration_test/emulator"
	"github.com/bigquery-mcp/bigquery-mcp/ui"
)

// hundredByTen is a 100-row, 10-column result with every kind of value
// the table shows differently: numbers (INT64, FLOAT64, NUMERIC as a
// string), NULL, the empty string, a STRUCT, an ARRAY, dates and times.
const hundredByTen = `SELECT n AS id, CONCAT('name_', CAST(n AS STRING)) AS name,
  IF(MOD(n, 7) = 0, NULL, n * 1.5) AS score, CAST(n AS NUMERIC) AS amount,
  DATE_ADD(DATE '2024-01-01', INTERVAL n DAY) AS day, MOD(n, 2) = 0 AS even,
  IF(MOD(n, 5) = 0, '', CONCAT('c', CAST(MOD(n, 3) AS STRING))) AS category,
  STRUCT(n AS a, 'x' AS b) AS pair, [n, n + 1] AS arr,
  TIMESTAMP_ADD(TIMESTAMP '2024-01-01 00:00:00+00', INTERVAL n HOUR) AS ts
FROM UNNEST(GENERATE_ARRAY(1, 100)) AS n ORDER BY n`

var (
	wantNames = []string{"id", "name", "score", "amount", "day", "even", "category", "pair", "arr", "ts"}
	wantTypes = []string{"INT64", "STRING", "FLOAT64", "NUMERIC", "DATE", "BOOL", "STRING", "STRUCT", "ARRAY<INT64>", "TIMESTAMP"}
)

func TestAppInBrowser(t *testing.T) {
	t.Parallel() // its own server binary and client processes; the emulator only read
	chromium := browserPath(t)
	hostJS := buildHost(t)
	h := newAppHost(t, hostJS)
	b := newBrowser(t, chromium)
	shots := artefactsDir(t)
	b.open(t, h.srv.URL)

	t.Run("result table", func(t *testing.T) {
		b.load(t, "execute_sql", "light")
		b.run(t, "execute_sql", map[string]any{"sql": hundredByTen})
		b.waitApp(t, `document.querySelectorAll("tbody tr[data-row]").length > 0`)
		var got struct {
			Names, Types []string
			Shown        string
			First        []string
			NumAligned   []bool
			Null, Empty  bool
			Pair, Arr    string
			Banner       bool
		}
		b.evalApp(t, `(() => {
			const ths = [...document.querySelectorAll("thead th")];
			const first = [...document.querySelectorAll("tbody tr[data-row='0'] td")];
			const r7 = document.querySelector("tbody tr[data-row='6']"); // id 7: score is NULL
			const r5 = document.querySelector("tbody tr[data-row='4']"); // id 5: category is ''
			return {
				names: ths.map(th => th.querySelector(".name").textContent),
				types: ths.map(th => th.querySelector(".type").textContent),
				shown: document.querySelector(".shown").textContent,
				first: first.map(td => td.textContent),
				numAligned: first.map(td => getComputedStyle(td).textAlign === "right"),
				null: r7.children[2].querySelector(".null")?.textContent === "NULL",
				empty: r5.children[6].classList.contains("empty") && r5.children[6].textContent === "",
				pair: first[7].querySelector("button.nested")?.textContent ?? "",
				arr: first[8].querySelector("button.nested")?.textContent ?? "",
				banner: !document.querySelector(".banner").hidden,
			};
		})()`, &got)
		if !slices.Equal(got.Names, wantNames) || !slices.Equal(got.Types, wantTypes) {
			t.Errorf("headers %v %v, want %v %v", got.Names, got.Types, wantNames, wantTypes)
		}
		if got.Shown != "100 of 100 rows" || got.Banner {
			t.Errorf("header says %q, banner shown %v; want 100 of 100 and no banner", got.Shown, got.Banner)
		}
		if len(got.First) != 10 || got.First[0] != "1" || got.First[1] != "name_1" || got.First[3] != "1" || got.First[4] != "2024-01-02" {
			t.Errorf("first row %q", got.First)
		}
		if want := []bool{true, false, true, true, false, false, false, false, false, false}; !slices.Equal(got.NumAligned, want) {
			t.Errorf("right-aligned cells %v, want %v (INT64, FLOAT64, NUMERIC)", got.NumAligned, want)
		}
		if !got.Null || !got.Empty {
			t.Errorf("NULL shown as NULL: %v; empty string shown empty and marked: %v", got.Null, got.Empty)
		}
		if !strings.HasPrefix(got.Pair, "{2 fields}") || !strings.HasPrefix(got.Arr, "[2 items]") {
			t.Errorf("nested cells %q and %q", got.Pair, got.Arr)
		}
		// A STRUCT opens as a tree.
		b.evalApp(t, `document.querySelector("tbody tr[data-row='0'] td:nth-child(8) button").click()`, nil)
		var tree string
		b.evalApp(t, `document.querySelector(".detail:not([hidden])")?.textContent ?? ""`, &tree)
		if !strings.Contains(tree, "a: 1") || !strings.Contains(tree, `b: "x"`) {
			t.Errorf("the opened STRUCT reads %q", tree)
		}
		// The keyboard moves between cells (from the one clicked above to
		// the first, then down and right) and opens one.
		var opened string
		b.evalApp(t, `(() => { const s = document.querySelector(".scroller"); s.focus();
			for (const [key, ctrlKey] of [["Home", true], ["Home", false], ["ArrowDown"], ["ArrowRight"], ["Enter"]])
				s.dispatchEvent(new KeyboardEvent("keydown", {key, ctrlKey: !!ctrlKey, bubbles: true}));
			return document.querySelector("td.active").textContent + " | " + document.querySelector(".detail:not([hidden]) .full")?.textContent; })()`, &opened)
		if opened != "name_2 | name_2" {
			t.Errorf("ctrl+Home, Home, down, right, Enter: active cell and opened value %q, want name_2 | name_2", opened)
		}
		b.evalApp(t, `document.querySelector("tbody tr[data-row='0'] td:nth-child(8) button").click()`, nil)
		b.screenshot(t, filepath.Join(shots, "result.png"))
		// The job opens in the console, and the rows download, through the
		// host.
		b.evalApp(t, `document.querySelector("a.job").click(); [...document.querySelectorAll(".toolbar button")].find(b => b.textContent === "Download CSV").click()`, nil)
		var hostLog []map[string]any
		deadline := time.Now().Add(10 * time.Second)
		for len(hostLog) < 2 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			if err := chromedp.Run(b.ctx, chromedp.Evaluate(`hostLog.filter(e => e.openLink || e.download)`, &hostLog)); err != nil {
				t.Fatal(err)
			}
		}
		if len(hostLog) != 2 || !strings.HasPrefix(fmt.Sprint(hostLog[0]["openLink"]), "https://console.cloud.google.com/bigquery?j=bq") || hostLog[1]["download"] != float64(1) {
			t.Errorf("the host saw %v; want the job's console link opened and one file downloaded", hostLog)
		}
		// Sorting by id twice puts 100 first; by score, NULL last.
		b.evalApp(t, `document.querySelector("thead th[data-col='id'] button").click()`, nil)
		b.evalApp(t, `document.querySelector("thead th[data-col='id'] button").click()`, nil)
		var sorted struct {
			Sort  string
			First string
		}
		b.evalApp(t, `({sort: document.querySelector("thead th[data-col='id']").getAttribute("aria-sort"),
			first: document.querySelector("tbody tr[aria-rowindex='2'] td").textContent})`, &sorted)
		if sorted.Sort != "descending" || sorted.First != "100" {
			t.Errorf("after sorting id twice: aria-sort %q, first id %q; want descending, 100", sorted.Sort, sorted.First)
		}
		// Scrolling to the end renders the last rows (virtual scrolling).
		var last string
		b.evalApp(t, `(async () => { const s = document.querySelector(".scroller"); s.scrollTop = s.scrollHeight;
			await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
			return document.querySelector("tbody tr[aria-rowindex='101'] td")?.textContent ?? "missing"; })()`, &last)
		if last != "1" {
			t.Errorf("the last row after scrolling down reads %q, want id 1", last)
		}
	})

	t.Run("load more", func(t *testing.T) {
		b.load(t, "execute_sql", "light")
		b.run(t, "execute_sql", map[string]any{"sql": hundredByTen, "maxRows": 10})
		b.waitApp(t, `!document.querySelector(".banner").hidden`)
		var banner, shown string
		b.evalApp(t, `document.querySelector(".banner").textContent`, &banner)
		b.evalApp(t, `document.querySelector(".shown").textContent`, &shown)
		if !strings.Contains(banner, "cut at 10 rows") || shown != "10 of 100 rows" {
			t.Errorf("banner %q, header %q", banner, shown)
		}
		b.screenshot(t, filepath.Join(shots, "result-cut.png"))
		before := h.calls("get_query_results")
		b.evalApp(t, `document.querySelector(".banner button.more").click()`, nil)
		b.waitApp(t, `document.querySelector(".shown").textContent === "20 of 100 rows"`)
		calls := h.calls("get_query_results")
		if len(calls) != len(before)+1 {
			t.Fatalf("get_query_results calls at the server: %v", calls)
		}
		var args map[string]any
		if err := json.Unmarshal([]byte(calls[len(calls)-1]), &args); err != nil {
			t.Fatal(err)
		}
		if args["startIndex"] != float64(10) || args["maxRows"] != float64(10) || args["jobId"] == "" {
			t.Errorf("Load more asked for %v; want the job's rows from 10, 10 at most (what the agent asked for)", args)
		}
		var ids []string
		b.evalApp(t, `[...document.querySelectorAll("tbody tr[data-row] td:first-child")].map(td => td.textContent)`, &ids)
		if len(ids) != 20 || ids[10] != "11" || ids[19] != "20" {
			t.Errorf("ids after Load more %v", ids)
		}
	})

	t.Run("still running", func(t *testing.T) {
		b.load(t, "execute_sql", "light")
		var s string
		if err := chromedp.Run(b.ctx, chromedp.Evaluate(`runStillRunning("execute_sql", {sql: "SELECT n FROM UNNEST(GENERATE_ARRAY(1, 5)) AS n"})`, &s, awaitPromise)); err != nil || s != "ok" {
			t.Fatalf("%q %v", s, err)
		}
		b.waitApp(t, `document.querySelector(".banner")?.textContent.includes("still running")`)
		before := len(h.calls("get_query_results"))
		b.evalApp(t, `document.querySelector(".banner button").click()`, nil)
		b.waitApp(t, `document.querySelector(".shown")?.textContent === "5 of 5 rows"`)
		if n := len(h.calls("get_query_results")); n != before+1 {
			t.Errorf("Check again made %d get_query_results calls, want 1", n-before)
		}
	})

	t.Run("chart", func(t *testing.T) {
		b.load(t, "execute_sql", "light")
		b.run(t, "execute_sql", map[string]any{"sql": `SELECT DATE_ADD(DATE '2024-01-01', INTERVAL n DAY) AS day,
			n * n AS orders, 100 + MOD(n * 37, 50) AS revenue FROM UNNEST(GENERATE_ARRAY(0, 29)) AS n`})
		b.waitApp(t, `document.querySelectorAll(".tabs button").length === 2`)
		b.evalApp(t, `document.querySelectorAll(".tabs button")[1].click()`, nil)
		var chart struct {
			Series int
			Label  string
			Table  bool
		}
		b.evalApp(t, `({series: document.querySelectorAll("svg.chart.line path.series").length,
			label: document.querySelector("svg.chart")?.getAttribute("aria-label") ?? "",
			table: !document.querySelector(".scroller").hidden})`, &chart)
		if chart.Series != 2 || chart.Table || !strings.Contains(chart.Label, "orders, revenue by day") {
			t.Errorf("chart: %+v; want two lines, orders and revenue by day, in place of the table", chart)
		}
		b.screenshot(t, filepath.Join(shots, "chart.png"))
		// Categories with numbers draw bars.
		b.run(t, "execute_sql", map[string]any{"sql": "SELECT status, COUNT(*) AS orders, SUM(total) AS total FROM shop.orders GROUP BY status"})
		b.waitApp(t, `document.querySelectorAll(".tabs button").length === 2 && document.querySelector(".tabs button:last-child").textContent === "Bar chart"`)
		b.evalApp(t, `document.querySelectorAll(".tabs button")[1].click()`, nil)
		var bars int
		b.evalApp(t, `document.querySelectorAll("svg.chart.bar rect.series").length`, &bars)
		if bars < 2 {
			t.Errorf("%d bars for orders and total by status", bars)
		}
		b.screenshot(t, filepath.Join(shots, "chart-bar.png"))
	})

	t.Run("schema tree", func(t *testing.T) {
		b.load(t, "get_table_schema", "light")
		b.run(t, "get_table_schema", map[string]any{"table": emulator.Project + ".shop.orders"})
		b.waitApp(t, `document.querySelector("ul.tree") !== null`)
		var tree struct {
			Title  string
			Nested []string
		}
		b.evalApp(t, `({title: document.querySelector("h1").textContent,
			nested: [...document.querySelectorAll("ul.tree > li > details ul[role=group] .name")].map(e => e.textContent)})`, &tree)
		if tree.Title != emulator.Project+".shop.orders" || len(tree.Nested) == 0 {
			t.Errorf("schema view: %+v; want the table's nested fields under their STRUCT", tree)
		}
		b.screenshot(t, filepath.Join(shots, "schema.png"))
	})

	t.Run("cost card", func(t *testing.T) {
		b.load(t, "dry_run_sql", "light")
		b.run(t, "dry_run_sql", map[string]any{"sql": "SELECT order_id FROM shop.orders"})
		b.waitApp(t, `document.querySelector(".cost .usd") !== null`)
		// The caller's spend comes from the usage tool, after the card.
		b.waitApp(t, `document.querySelector(".cost .spend h2") !== null`)
		var card string
		b.evalApp(t, `document.querySelector(".cost").textContent`, &card)
		// The server's price and its source, not a figure of the app's.
		if !strings.Contains(card, "$") || !strings.Contains(card, "execute_sql would run it") ||
			!strings.Contains(card, "/TiB on demand") || !strings.Contains(card, "Your spend today") {
			t.Errorf("cost card reads %q", card)
		}
		b.screenshot(t, filepath.Join(shots, "cost.png"))
	})

	t.Run("dark theme", func(t *testing.T) {
		b.load(t, "execute_sql", "dark")
		b.run(t, "execute_sql", map[string]any{"sql": hundredByTen, "maxRows": 20})
		b.waitApp(t, `document.querySelectorAll("tbody tr[data-row]").length > 0`)
		var theme string
		b.evalApp(t, `document.documentElement.dataset.theme + " " + getComputedStyle(document.body).backgroundColor`, &theme)
		if !strings.HasPrefix(theme, "dark ") || strings.HasSuffix(theme, "rgb(255, 255, 255)") {
			t.Errorf("theme %q, want dark", theme)
		}
		b.screenshot(t, filepath.Join(shots, "result-dark.png"))
	})

	t.Run("10000 rows", func(t *testing.T) {
		b.load(t, "execute_sql", "light")
		// Record (in the DOM, which the test's worlds share) when the
		// first rows are in the table.
		b.evalApp(t, `new MutationObserver((_, o) => { if (document.querySelector("tbody tr[data-row]")) {
			document.documentElement.dataset.rendered = String(performance.timeOrigin + performance.now()); o.disconnect(); } })
			.observe(document.body, {childList: true, subtree: true})`, nil)
		b.run(t, "execute_sql", map[string]any{"maxRows": 10000, "sql": `SELECT n AS id, n * 2 AS b, n * 3 AS c, n / 7 AS d,
			CONCAT('row ', CAST(n AS STRING)) AS e, MOD(n, 10) AS f, n * 1.5 AS g, CAST(n AS STRING) AS h, n - 1 AS i, n + 1 AS j
			FROM UNNEST(GENERATE_ARRAY(1, 10000)) AS n`})
		b.waitApp(t, `document.querySelector(".shown")?.textContent === "10,000 of 10,000 rows"`)
		var rendered, sent float64
		b.evalApp(t, `Number(document.documentElement.dataset.rendered)`, &rendered)
		if err := chromedp.Run(b.ctx, chromedp.Evaluate(`window.sentAt`, &sent)); err != nil {
			t.Fatal(err)
		}
		var inDOM int
		b.evalApp(t, `document.querySelectorAll("tbody tr[data-row]").length`, &inDOM)
		// The app's own marks split that into the bridge (postMessage and
		// ext-apps' checks of the message) and the app's work.
		var marks struct{ Result, Shown float64 }
		b.evalApp(t, `(() => { const m = n => performance.timeOrigin + performance.getEntriesByName(n).at(-1).startTime;
			return {result: m("bqmcp-result"), shown: m("bqmcp-shown")}; })()`, &marks)
		t.Logf("10,000 rows x 10 columns: in the table %.0f ms after the host sent the result (bridge %.0f ms, app %.0f ms); %d rows in the DOM",
			rendered-sent, marks.Result-sent, marks.Shown-marks.Result, inDOM)
		if inDOM > 200 {
			t.Errorf("%d rows in the DOM: virtual scrolling should keep only those in view", inDOM)
		}
	})

	// Last: everything the browser fetched, the app's frames included.
	t.Run("no network outside the bridge", func(t *testing.T) {
		reqs, appFrames := b.requests()
		base, _ := url.Parse(h.srv.URL)
		for _, r := range reqs {
			u, err := url.Parse(r.url)
			if err != nil || u.Host != base.Host || !slices.Contains([]string{"/", "/host.js", "/rpc", "/favicon.ico"}, u.Path) {
				t.Errorf("the page fetched %s", r.url)
			}
			if appFrames[r.frame] {
				t.Errorf("the app fetched %s", r.url)
			}
		}
		if len(appFrames) == 0 || len(reqs) == 0 {
			t.Errorf("recorded %d requests and %d app frames", len(reqs), len(appFrames))
		}
	})
}

// browserPath finds Chromium; without it the test skips, unless
// BQMCP_REQUIRE_CLIENTS is set (CI installs it).
func browserPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("BQMCP_REQUIRE_CLIENTS") != "" {
		t.Fatal("no chromium on PATH (BQMCP_REQUIRE_CLIENTS is set): apt-get install chromium")
	}
	t.Skip("no chromium on PATH")
	return ""
}

// buildHost bundles the host page's script with the app's pinned tools.
func buildHost(t *testing.T) []byte {
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join("..", "ui", "node_modules", "esbuild"))
	}
	if err != nil {
		if os.Getenv("BQMCP_REQUIRE_CLIENTS") != "" {
			t.Fatalf("cannot build the host page (BQMCP_REQUIRE_CLIENTS is set): %v; run make clients", err)
		}
		t.Skipf("cannot build the host page (make clients): %v", err)
	}
	out := filepath.Join(t.TempDir(), "host.js")
	cmd := exec.Command(node, "build.mjs", "--host", out)
	cmd.Dir = filepath.Join("..", "ui")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the host page: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// artefactsDir is where screenshots go: $BQMCP_ARTEFACTS, else a folder
// in the system's temporary directory that outlives the test.
func artefactsDir(t *testing.T) string {
	dir := os.Getenv("BQMCP_ARTEFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "bqmcp-artefacts")
	}
	dir = filepath.Join(dir, "app")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

// appHost serves the host page and forwards its /rpc calls to the real
// binary over stdio, as a client that renders apps.
type appHost struct {
	srv *httptest.Server
	mu  sync.Mutex
	log []string // "tool {arguments}" of every tools/call forwarded
}

func newAppHost(t *testing.T, hostJS []byte) *appHost {
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(ui.ExtensionID, map[string]any{"mimeTypes": []string{ui.MIMEType}})
	cmd := exec.Command(serverBin, "stdio", "--endpoint", emu.URL, "--project", emulator.Project, "--max-result-bytes", "8388608")
	cmd.Stderr = &logBuffer{t: t}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "browser-test-host", Version: "1"}, &mcp.ClientOptions{Capabilities: caps}).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	h := &appHost{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		// The strict policy a host page might have; the app's srcdoc frame
		// inherits it.
		w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:")
		fmt.Fprint(w, `<!doctype html><html><head><meta charset="utf-8"><title>Test host</title></head>
<body style="margin:0"><style>iframe{display:block;width:1000px;height:640px;border:0}</style><script src="/host.js"></script></body></html>`)
	})
	mux.HandleFunc("GET /host.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		w.Write(hostJS)
	})
	mux.HandleFunc("POST /rpc", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 90*time.Second)
		defer cancel()
		var res any
		var err error
		switch req.Method {
		case "tools/list":
			res, err = cs.ListTools(ctx, nil)
		case "resources/read":
			var p mcp.ReadResourceParams
			if err = json.Unmarshal(req.Params, &p); err == nil {
				res, err = cs.ReadResource(ctx, &p)
			}
		case "tools/call":
			var p mcp.CallToolParams
			if err = json.Unmarshal(req.Params, &p); err == nil {
				args, _ := json.Marshal(p.Arguments)
				h.mu.Lock()
				h.log = append(h.log, p.Name+" "+string(args))
				h.mu.Unlock()
				res, err = cs.CallTool(ctx, &p)
			}
		default:
			err = fmt.Errorf("the test host forwards no %s", req.Method)
		}
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"result": res})
	})
	h.srv = httptest.NewServer(mux)
	t.Cleanup(h.srv.Close)
	return h
}

// calls returns the arguments of every call of tool the host forwarded.
func (h *appHost) calls(tool string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, l := range h.log {
		if args, ok := strings.CutPrefix(l, tool+" "); ok {
			out = append(out, args)
		}
	}
	return out
}

type request struct {
	url   string
	frame cdp.FrameID
}

// browser is headless Chromium with the host page open.
type browser struct {
	ctx       context.Context
	mu        sync.Mutex
	reqs      []request
	appFrames map[cdp.FrameID]bool
}

func newBrowser(t *testing.T, path string) *browser {
	// Not t.TempDir: Chromium's helper processes may still write to the
	// profile for a moment after the browser is stopped (seen with the
	// machine loaded), and t.TempDir's removal then fails the test.
	profile, err := os.MkdirTemp("", "bqmcp-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(profile), chromedp.WindowSize(1000, 700),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		// Keep the sandboxed app frame in the page's process, where the
		// test can read its DOM.
		chromedp.Flag("disable-features", "IsolateSandboxedIframes"), chromedp.Flag("disable-site-isolation-trials", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
		for range 50 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("Chromium's profile %s was left behind", profile)
	})
	b := &browser{ctx: ctx, appFrames: map[cdp.FrameID]bool{}}
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			b.mu.Lock()
			b.reqs = append(b.reqs, request{e.Request.URL, e.FrameID})
			b.mu.Unlock()
		case *runtime.EventExceptionThrown:
			t.Logf("browser exception: %s %s", e.ExceptionDetails.Text, exceptionText(e.ExceptionDetails))
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeWarning {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				t.Logf("browser console %s: %s", e.Type, strings.Join(parts, " "))
			}
		}
	})
	if err := chromedp.Run(ctx, network.Enable()); err != nil {
		t.Fatal(err)
	}
	return b
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil {
		return d.Exception.Description
	}
	return ""
}

func (b *browser) requests() ([]request, map[cdp.FrameID]bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.reqs), b.appFrames
}

func awaitPromise(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }

func (b *browser) open(t *testing.T, u string) {
	t.Helper()
	if err := chromedp.Run(b.ctx, chromedp.Navigate(u), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
}

// load has the host start tool's view; run has it call the tool and hand
// the app the result.
func (b *browser) load(t *testing.T, tool, theme string) {
	t.Helper()
	var s string
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(fmt.Sprintf("load(%q, %q)", tool, theme), &s, awaitPromise)); err != nil || s != "ready" {
		t.Fatalf("loading the %s view: %q %v", tool, s, err)
	}
	id, err := b.appFrame()
	if err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	b.appFrames[id] = true
	b.mu.Unlock()
}

func (b *browser) run(t *testing.T, tool string, args map[string]any) {
	t.Helper()
	a, _ := json.Marshal(args)
	var s string
	if err := chromedp.Run(b.ctx, chromedp.Evaluate(fmt.Sprintf("run(%q, %s)", tool, a), &s, awaitPromise)); err != nil || s != "ok" {
		t.Fatalf("%s: %s %v", tool, s, err)
	}
}

func (b *browser) appFrame() (cdp.FrameID, error) {
	var id cdp.FrameID
	err := chromedp.Run(b.ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		tree, err := page.GetFrameTree().Do(ctx)
		if err != nil {
			return err
		}
		if len(tree.ChildFrames) != 1 {
			return fmt.Errorf("%d frames in the host page, want the app's", len(tree.ChildFrames))
		}
		id = tree.ChildFrames[0].Frame.ID
		return nil
	}))
	return id, err
}

// evalApp evaluates expr in the app's frame (in a world of its own: the
// app's DOM, not its globals) and decodes the value into out.
func (b *browser) evalApp(t *testing.T, expr string, out any) {
	t.Helper()
	if err := b.tryEvalApp(expr, out); err != nil {
		t.Fatalf("in the app: %v\n%s", err, expr)
	}
}

func (b *browser) tryEvalApp(expr string, out any) error {
	id, err := b.appFrame()
	if err != nil {
		return err
	}
	return chromedp.Run(b.ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		world, err := page.CreateIsolatedWorld(id).WithWorldName("test").Do(ctx)
		if err != nil {
			return err
		}
		res, exc, err := runtime.Evaluate(expr).WithContextID(world).WithReturnByValue(true).WithAwaitPromise(true).Do(ctx)
		if err != nil {
			return err
		}
		if exc != nil {
			return errors.New(exc.Text + " " + exceptionText(exc))
		}
		if out == nil || len(res.Value) == 0 {
			return nil
		}
		return json.Unmarshal(res.Value, out)
	}))
}

// waitApp waits until cond is true in the app.
func (b *browser) waitApp(t *testing.T, cond string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var ok bool
		err := b.tryEvalApp("!!("+cond+")", &ok)
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			var text string
			b.tryEvalApp(`document.body.innerText.slice(0, 800)`, &text)
			t.Fatalf("the app never got to %s (%v); it reads:\n%s", cond, err, text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (b *browser) screenshot(t *testing.T, path string) {
	t.Helper()
	var png []byte
	if err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot(&png)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestToolsListWithAndWithoutApps: over stdio, the real binary lists every
// tool to a client that does not declare the extension exactly as its
// snapshot (server/__toolsnaps__) says, byte for byte on the wire; a client
// that declares it sees the same tools with the five result tools linked
// to the app.
func TestToolsListWithAndWithoutApps(t *testing.T) {
	appCaps := &mcp.ClientCapabilities{}
	appCaps.AddExtension(ui.ExtensionID, map[string]any{"mimeTypes": []string{ui.MIMEType}})
	for _, protocol := range protocolVersions {
		for _, caps := range []*mcp.ClientCapabilities{nil, appCaps} {
			var wire strings.Builder
			cmd := exec.Command(serverBin, "stdio", "--endpoint", emu.URL, "--project", emulator.Project)
			cmd.Stderr = &logBuffer{t: t}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{Capabilities: caps}).
				Connect(ctx, &mcp.LoggingTransport{Transport: &mcp.CommandTransport{Command: cmd}, Writer: &lockedWriter{w: &wire}}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
			if err != nil {
				cancel()
				t.Fatal(err)
			}
			_, err = cs.ListTools(ctx, nil)
			cs.Close()
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			var tools []json.RawMessage
			for line := range strings.Lines(wire.String()) {
				var msg struct {
					Result struct {
						Tools []json.RawMessage `json:"tools"`
					} `json:"result"`
				}
				if l, ok := strings.CutPrefix(line, "read: "); ok && json.Unmarshal([]byte(l), &msg) == nil && msg.Result.Tools != nil {
					tools = msg.Result.Tools
				}
			}
			if len(tools) < 10 {
				t.Fatalf("protocol %q: %d tools on the wire", protocol, len(tools))
			}
			var linked []string
			for _, raw := range tools {
				var tool struct {
					Name string         `json:"name"`
					Meta map[string]any `json:"_meta"`
				}
				if err := json.Unmarshal(raw, &tool); err != nil {
					t.Fatal(err)
				}
				if tool.Meta != nil {
					if link, _ := tool.Meta["ui"].(map[string]any); link["resourceUri"] == ui.URI {
						linked = append(linked, tool.Name)
					}
					continue
				}
				want, err := os.ReadFile(filepath.Join("..", "server", "__toolsnaps__", tool.Name+".snap"))
				if err != nil {
					t.Fatal(err)
				}
				var got bytes.Buffer
				if err := json.Indent(&got, raw, "", "  "); err != nil {
					t.Fatal(err)
				}
				got.WriteString("\n")
				if got.String() != string(want) {
					t.Errorf("protocol %q, app client %v: %s on the wire differs from its snapshot:\n%s", protocol, caps != nil, tool.Name, got.String())
				}
			}
			slices.Sort(linked)
			want := []string(nil)
			if caps != nil {
				want = []string{"dry_run_sql", "execute_sql", "get_query_results", "get_table_schema", "preview_table"}
			}
			if !slices.Equal(linked, want) {
				t.Errorf("protocol %q, app client %v: linked %v, want %v", protocol, caps != nil, linked, want)
			}
		}
	}
}

// lockedWriter serialises the logging transport's writes.
type lockedWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
