// The bigquery-mcp app: the host hands it a tool's result and it shows
// the result as a table (execute_sql, get_query_results, preview_table), a
// schema tree (get_table_schema) or a cost card (dry_run_sql). It talks to
// nothing but the host, through @modelcontextprotocol/ext-apps.

import { App, applyDocumentTheme, applyHostStyleVariables, type McpUiHostContext } from "@modelcontextprotocol/ext-apps";
import { chart, plan } from "./chart";
import { ago, bytes, count, delimited, duration, h, usd } from "./format";
import { ResultTable, tree } from "./table";
import { type Column, type DryRunSQLResult, type GetTableSchemaResult, type Price, type Rows, type ToolResults, typeName } from "./types";

// Why a page was cut, by truncatedBy.
const WHY: Record<string, string> = {
  maxRows: "the rows asked for in one answer",
  maxResultBytes: "the server's size limit for one answer",
  cellBytes: "a value too large for one answer was shortened",
};

const root = document.getElementById("app") as HTMLElement;
const app = new App({ name: "bigquery-mcp", version: "1.0.0" }, {}, { autoResize: true });
let input: Record<string, unknown> = {};

app.ontoolinput = (p) => {
  input = (p.arguments ?? {}) as Record<string, unknown>;
};
// The host says which tool's call this is in the host context's toolInfo.
app.ontoolresult = (r) => show(r as Result, app.getHostContext()?.toolInfo?.tool.name);
app.onhostcontextchanged = (ctx) => theme(ctx);
app.ontoolcancelled = () => root.replaceChildren(h("p", { class: "muted" }, "The call was cancelled."));

function theme(ctx: McpUiHostContext | undefined) {
  if (!ctx) return;
  if (ctx.theme) {
    applyDocumentTheme(ctx.theme);
    document.documentElement.dataset.theme = ctx.theme;
  }
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
}

type Result = { structuredContent?: unknown; content?: { type: string; text?: string }[]; isError?: boolean };

// show shows a result by the tool that produced it, as the host names it.
// Only when the host names none (toolInfo is optional in the host context)
// does sniff guess the tool from the result's fields.
function show(r: Result, tool: string | undefined) {
  // Marks for benchmarks (make bench): when the result arrived, when it showed.
  performance.mark("bqmcp-result");
  let v = r.structuredContent as Record<string, unknown> | undefined;
  if (!v) {
    const t = r.content?.find((c) => c.type === "text")?.text;
    try {
      v = t ? JSON.parse(t) : undefined;
    } catch {
      v = undefined;
    }
  }
  if (r.isError || !v) {
    const e = v as { code?: string; message?: string } | undefined;
    root.replaceChildren(h("div", { class: "error", role: "alert" }, h("strong", null, e?.code ?? "Error"), " ", e?.message ?? r.content?.map((c) => c.text ?? "").join(" ") ?? ""));
    return;
  }
  const res = v as unknown;
  switch (tool ?? sniff(v)) {
    case "execute_sql":
      resultView(res as ToolResults["execute_sql"]);
      break;
    case "get_query_results":
      resultView(res as ToolResults["get_query_results"]);
      break;
    case "preview_table":
      resultView(res as ToolResults["preview_table"]);
      break;
    case "get_table_schema":
      schemaView(res as ToolResults["get_table_schema"]);
      break;
    case "dry_run_sql":
      costView(res as ToolResults["dry_run_sql"]);
      break;
    case "query_metrics": {
      // execute_sql's result with the SQL and provenance beside it, or
      // the dry run's: shown as those are.
      const q = res as ToolResults["query_metrics"];
      if (q.dryRun) costView(q.dryRun);
      else resultView(q as ToolResults["execute_sql"]);
      break;
    }
    default:
      root.replaceChildren(h("pre", { class: "raw" }, JSON.stringify(v, null, 2)));
  }
  performance.mark("bqmcp-shown");
}

// sniff guesses which tool gave a result from its fields; see show.
function sniff(v: Record<string, unknown>): keyof ToolResults | undefined {
  if ("rows" in v && "schema" in v) return "jobId" in v ? "execute_sql" : "preview_table";
  if ("columns" in v && "numBytes" in v) return "get_table_schema";
  if ("estimatedCostUSD" in v) return "dry_run_sql";
  return undefined;
}

// asArrays gives rows in schema order whatever format the tool used.
function asArrays(schema: Column[], rows: Rows["rows"]): unknown[][] {
  return (rows ?? []).map((r) => (Array.isArray(r) ? r : schema.map((c) => (r as Record<string, unknown>)[c.name] ?? null)));
}

function stat(label: string, value: string | Node, cls?: string): HTMLElement {
  return h("div", { class: `stat ${cls ?? ""}`.trim() }, h("dt", null, label), h("dd", null, value));
}

function resultView(res: Rows) {
  if (res.jobComplete === false && res.jobId) {
    runningView(res);
    return;
  }
  const schema = res.schema ?? [];
  let last = res;
  const detail = h("section", { class: "detail", hidden: true, "aria-label": "Cell value" });
  const table = new ResultTable(schema, (title, value, col) => openDetail(detail, title, value, col));
  const shown = h("span", { class: "shown" });
  const header = h("dl", { class: "stats" });
  const banner = h("div", { class: "banner", role: "status", hidden: true });
  const more = h("button", { type: "button", class: "more" }, "Load more");
  const bannerText = h("span", null);
  banner.append(bannerText, more);

  const jobLink = () => {
    if (!res.jobId) return res.table ?? "";
    const a = h("a", { href: consoleURL(res.jobId, res.location), class: "job", title: "Open the job in the BigQuery console" }, res.jobId);
    a.addEventListener("click", (e) => {
      e.preventDefault();
      void app.openLink({ url: a.href });
    });
    return a;
  };
  const update = () => {
    shown.textContent = `${count(table.loaded)} of ${count(Math.max(last.totalRows ?? 0, table.loaded))} rows`;
    const billed = res.bytesBilled ?? undefined;
    const items: (HTMLElement | null)[] = [
      stat("Rows", shown),
      res.bytesProcessed !== undefined ? stat("Processed", bytes(res.bytesProcessed)) : null,
      res.estimateBytes ? stat("Estimate", bytes(res.estimateBytes)) : null,
      billed !== undefined ? stat("Billed", bytes(billed)) : null,
      res.costUSD !== undefined && res.costUSD !== null ? stat("Cost", usd(res.costUSD)) : null,
      res.cacheHit !== undefined ? stat("Cache", res.cacheHit ? "hit" : "miss") : null,
      res.durationMs !== undefined ? stat("Duration", duration(res.durationMs)) : null,
      res.location ? stat("Location", res.location) : null,
      stat(res.jobId ? "Job" : "Table", jobLink()),
    ];
    header.replaceChildren(...items.filter((x): x is HTMLElement => x !== null));
    const cut = last.truncated && last.nextStartIndex !== undefined;
    banner.hidden = !cut;
    if (cut) {
      const why = WHY[last.truncatedBy ?? ""] ?? "the server's limits";
      bannerText.textContent = `Result cut at ${count(table.loaded)} rows: ${why}. `;
    }
  };

  more.addEventListener("click", async () => {
    if (last.nextStartIndex === undefined) return;
    more.disabled = true;
    more.textContent = "Loading…";
    try {
      const args: Record<string, unknown> = { startIndex: last.nextStartIndex, format: "compact" };
      if (typeof input.maxRows === "number") args.maxRows = input.maxRows;
      let name = "get_query_results";
      if (res.jobId) {
        args.jobId = res.jobId;
        if (res.location) args.location = res.location;
      } else {
        name = "preview_table";
        args.table = res.table;
        if (Array.isArray(input.columns)) args.columns = input.columns;
      }
      const r = await app.callServerTool({ name, arguments: args });
      const page = r.structuredContent as ToolResults["get_query_results" | "preview_table"] | undefined;
      if (r.isError || !page || !Array.isArray(page.rows)) {
        bannerText.textContent = `Loading more failed: ${r.content?.map((c) => ("text" in c ? c.text : "")).join(" ") ?? "no rows"} `;
        return;
      }
      table.append(asArrays(schema, page.rows), page.cutCells);
      last = page;
      update();
      refreshChart();
    } catch (e) {
      bannerText.textContent = `Loading more failed: ${String(e)} `;
    } finally {
      more.disabled = false;
      more.textContent = "Load more";
    }
  });

  // Table or chart.
  const p = plan(schema);
  const chartBox = h("div", { class: "chart-wrap", hidden: true });
  const tabs = h("div", { class: "tabs", role: "group", "aria-label": "View" });
  const tTable = h("button", { type: "button", "aria-pressed": "true" }, "Table");
  const tChart = h("button", { type: "button", "aria-pressed": "false" }, p?.kind === "line" ? "Line chart" : "Bar chart");
  const setView = (c: boolean) => {
    tTable.setAttribute("aria-pressed", String(!c));
    tChart.setAttribute("aria-pressed", String(c));
    chartBox.hidden = !c;
    table.el.hidden = c;
    if (c) refreshChart();
    else table.render(true);
  };
  const refreshChart = () => {
    if (p && !chartBox.hidden) chartBox.replaceChildren(chart(schema, table.rowsInOrder(), p));
  };
  tTable.addEventListener("click", () => setView(false));
  tChart.addEventListener("click", () => setView(true));
  if (p && (res.rows?.length ?? 0) > 1) tabs.append(tTable, tChart);

  // Copy and download the loaded rows.
  const names = schema.map((c) => c.name);
  const copyCSV = h("button", { type: "button" }, "Copy CSV");
  const copyTSV = h("button", { type: "button" }, "Copy TSV");
  const download = h("button", { type: "button" }, "Download CSV");
  copyCSV.addEventListener("click", () => copy(delimited(names, table.rowsInOrder(), ","), copyCSV));
  copyTSV.addEventListener("click", () => copy(delimited(names, table.rowsInOrder(), "\t"), copyTSV));
  download.addEventListener("click", () => {
    const csv = delimited(names, table.rowsInOrder(), ",");
    void app.downloadFile({ contents: [{ type: "resource", resource: { uri: `file:///${res.jobId ?? res.table ?? "result"}.csv`, mimeType: "text/csv", text: csv } }] });
  });
  const tools = h("div", { class: "toolbar" }, tabs, h("span", { class: "spring" }), copyCSV, copyTSV, download);

  const notes = [res.warning, res.hint].filter(Boolean).map((t) => h("p", { class: "muted note" }, t as string));
  root.replaceChildren(header, banner, tools, table.el, chartBox, detail, ...notes);
  table.append(asArrays(schema, res.rows), res.cutCells);
  update();
}

// priceText is the server's price as a person reads it, with its source:
// "$6.25/TiB on demand in US [table 2026-11]".
function priceText(p: Price | undefined): string {
  if (!p) return "";
  const where = p.location ? ` in ${p.location}` : "";
  return p.billing === "editions" ? `$${p.slotHourUSD}/slot-hour under editions${where} [${p.source}]` : `$${p.perTiBUSD}/TiB on demand${where} [${p.source}]`;
}

// atPrice is what bytes cost at an on-demand price, "" under editions.
function atPrice(n: number, p: Price | undefined): string {
  return p?.perTiBUSD ? ` (${usd((n / 2 ** 40) * p.perTiBUSD)})` : "";
}

// runningView stands in for a query still running when the call's wait
// ended: Check again asks get_query_results, which waits again.
function runningView(res: Rows) {
  const again = h("button", { type: "button", class: "more" }, "Check again");
  const msg = h("span", null, `The query is still running (${res.state ?? "RUNNING"}, job ${res.jobId}). `);
  again.addEventListener("click", async () => {
    again.disabled = true;
    again.textContent = "Waiting…";
    try {
      const args: Record<string, unknown> = { jobId: res.jobId, format: "compact" };
      if (res.location) args.location = res.location;
      if (typeof input.maxRows === "number") args.maxRows = input.maxRows;
      const r = await app.callServerTool({ name: "get_query_results", arguments: args });
      show(r as Result, "get_query_results");
    } catch (e) {
      msg.textContent = `Checking failed: ${String(e)} `;
      again.disabled = false;
      again.textContent = "Check again";
    }
  });
  root.replaceChildren(h("div", { class: "banner", role: "status" }, msg, again), ...(res.hint ? [h("p", { class: "muted note" }, res.hint)] : []));
}

function consoleURL(jobId: string, location?: string): string {
  return `https://console.cloud.google.com/bigquery?j=${encodeURIComponent(`bq:${location ?? "US"}:${jobId}`)}&page=queryresults`;
}

function openDetail(detail: HTMLElement, title: string, value: unknown, col: Column) {
  const full = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  const close = h("button", { type: "button", class: "close", "aria-label": "Close" }, "×");
  const cp = h("button", { type: "button" }, "Copy value");
  close.addEventListener("click", () => (detail.hidden = true));
  cp.addEventListener("click", () => copy(full, cp));
  const body = typeof value === "object" && value !== null ? tree(value) : h("pre", { class: "full" }, full);
  detail.replaceChildren(h("header", null, h("strong", null, title), " ", h("span", { class: "type" }, typeName(col)), h("span", { class: "spring" }), cp, close), body);
  detail.hidden = false;
  detail.scrollIntoView({ block: "nearest" });
}

// copy writes text to the clipboard, by the async API when the host's
// sandbox allows it, else through a selected text area.
async function copy(text: string, button: HTMLButtonElement) {
  const label = button.textContent;
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch {
    const ta = h("textarea", { class: "offscreen", "aria-hidden": "true" });
    ta.value = text;
    document.body.append(ta);
    ta.select();
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    ta.remove();
  }
  button.textContent = ok ? "Copied" : "Copy failed";
  setTimeout(() => (button.textContent = label), 1500);
}

function columnTree(cols: Column[], top = true): HTMLElement {
  const ul = h("ul", { role: top ? "tree" : "group", class: top ? "tree" : undefined, "aria-label": top ? "Columns" : undefined });
  for (const c of cols) {
    const line = h("span", { class: "col" }, h("span", { class: "name" }, c.name), " ", h("span", { class: "type" }, c.fields?.length ? (c.mode === "REPEATED" ? "ARRAY<STRUCT>" : "STRUCT") : typeName(c)),
      c.mode === "REQUIRED" ? h("span", { class: `mode ${c.mode.toLowerCase()}` }, c.mode) : null,
      c.description ? h("span", { class: "desc" }, c.description) : null);
    if (c.fields?.length) {
      const d = h("details", { open: true }, h("summary", null, line), columnTree(c.fields, false));
      ul.append(h("li", { role: "treeitem", "aria-expanded": "true" }, d));
      d.addEventListener("toggle", () => d.parentElement?.setAttribute("aria-expanded", String(d.open)));
    } else {
      ul.append(h("li", { role: "treeitem" }, line));
    }
  }
  return ul;
}

function schemaView(s: GetTableSchemaResult) {
  const part = s.partitioning
    ? `${s.partitioning.type}${s.partitioning.field ? ` on ${s.partitioning.field}` : " (ingestion time)"}${s.partitioning.requireFilter ? ", filter required" : ""}`
    : "none";
  const items = [
    stat("Type", s.type),
    stat("Rows", count(s.numRows)),
    stat("Size", bytes(s.numBytes)),
    s.location ? stat("Location", s.location) : null,
    stat("Partitioning", part),
    stat("Clustering", s.clustering?.length ? s.clustering.join(", ") : "none"),
    s.lastModified ? stat("Modified", ago(s.lastModified)) : null,
    s.created ? stat("Created", s.created.slice(0, 10)) : null,
    s.expires ? stat("Expires", s.expires.slice(0, 10)) : null,
  ].filter((x): x is HTMLElement => x !== null);
  const labels = s.labels && Object.keys(s.labels).length ? h("p", { class: "labels" }, ...Object.entries(s.labels).map(([k, v]) => h("span", { class: "label" }, `${k}: ${v}`))) : null;
  root.replaceChildren(
    h("h1", null, s.table),
    ...(s.description ? [h("p", { class: "desc" }, s.description)] : []),
    h("dl", { class: "stats" }, ...items),
    ...(labels ? [labels] : []),
    h("section", { class: "schema" }, columnTree(s.columns ?? [])),
    ...(s.viewQuery ? [h("details", null, h("summary", null, "View SQL"), h("pre", { class: "sql" }, s.viewQuery))] : []),
    ...[s.hint, s.stale ? `Served from cache (${s.cacheAgeSeconds ?? "?"} s old): BigQuery did not answer.` : ""].filter(Boolean).map((t) => h("p", { class: "muted note" }, t as string)),
  );
}

function costView(d: DryRunSQLResult) {
  const verdict = !d.valid ? ["bad", "The query is not valid."] : d.wouldExecute ? ["ok", "execute_sql would run it."] : ["bad", "execute_sql would refuse it."];
  const confirm = /confirm/i.test(d.note ?? "");
  const spend = h("section", { class: "spend", "aria-label": "Your spend" }, h("p", { class: "muted" }, "Your spend: loading…"));
  const headline = d.price?.billing === "editions" ? "cost after the run" : usd(d.estimatedCostUSD);
  root.replaceChildren(
    h("section", { class: "cost" },
      h("div", { class: "big" }, h("span", { class: "usd" }, headline), h("span", { class: "muted" }, ` to process ${bytes(d.bytesProcessed)} at ${priceText(d.price)}`)),
      h("dl", { class: "stats" }, stat("Statement", d.statementType || "–"), stat("Bytes", count(d.bytesProcessed)), d.location ? stat("Location", d.location) : stat("Location", "–"),
        stat("Confirmation", confirm ? "required" : "not needed", confirm ? "warn" : undefined)),
      h("p", { class: `verdict ${verdict[0]}` }, verdict[1]),
      d.advice?.length ? h("div", { class: "advice" }, h("h2", null, "To read less"),
        h("ul", null, ...d.advice.map((a) => h("li", null, h("code", null, a.change),
          a.readsBytes !== undefined ? h("span", { class: "reads" }, ` reads ${bytes(a.readsBytes)}${atPrice(a.readsBytes, d.price)}`) : null,
          a.method ? h("span", { class: "muted method" }, ` · ${a.method}`) : null)))) : null,
      d.referencedTables?.length ? h("div", null, h("h2", null, "Tables read"), h("ul", { class: "tables" }, ...d.referencedTables.map((t) => h("li", null, t)))) : null,
      d.note ? h("p", { class: "muted note" }, d.note) : null,
      spend,
      d.schema?.length ? h("details", null, h("summary", null, `Result columns (${d.schema.length}${d.schemaTruncated ? "+" : ""})`), columnTree(d.schema)) : null,
    ),
  );
  void showSpend(spend);
}

// showSpend fills the cost card's spend from the usage tool: what the
// caller spent today and what is left of the budgets.
async function showSpend(box: HTMLElement) {
  try {
    const r = await app.callServerTool({ name: "usage", arguments: {} });
    const u = r.structuredContent as ToolResults["usage"] | undefined;
    if (r.isError || !u) throw new Error("usage answered no report");
    const left = [
      u.leftBytes !== undefined ? `${bytes(u.leftBytes)} of the bytes budget` : "",
      u.leftUSD !== undefined ? `${usd(u.leftUSD)} of ${usd(u.dayLimitUSD)} a day` : "",
    ].filter(Boolean);
    box.replaceChildren(h("h2", null, "Your spend today"),
      h("dl", { class: "stats" }, stat("Jobs", count(u.today.jobs)), stat("Billed", bytes(u.today.bytesBilled)), stat("Cost", usd(u.todayCostUSD)),
        stat("Left", left.length ? left.join(", ") : "no budget")),
      h("p", { class: "muted note" }, `At ${priceText(u.price)}; ${u.scope}.`));
  } catch (e) {
    box.replaceChildren(h("p", { class: "muted" }, `Your spend could not be read: ${String(e)}`));
  }
}

void app.connect().then(() => theme(app.getHostContext()));
