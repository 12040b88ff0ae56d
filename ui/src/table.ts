// The result table: typed headers, sortable columns, NULL apart from the
// empty string, nested and long values opened on demand, and virtual
// scrolling (only the rows in view are in the DOM).

import { h, text } from "./format";
import { type Column, type CutCell, NUMERIC_TYPES, shortType, typeName } from "./types";

export const ROW_HEIGHT = 28; // px; style.css gives every body row this height
const OVERSCAN = 12;
const CLIP = 120; // characters shown in a cell before "…"

type Dir = "ascending" | "descending";

export class ResultTable {
  readonly el: HTMLElement;
  private rows: unknown[][] = [];
  private order: number[] = [];
  private cut = new Map<string, CutCell>();
  private sortCol = -1;
  private sortDir: Dir = "ascending";
  private first = -1;
  private last = -1;
  private readonly scroller: HTMLElement;
  private readonly table: HTMLTableElement;
  private readonly tbody: HTMLTableSectionElement;
  private readonly headers: HTMLElement[] = [];
  private frame = 0;

  constructor(
    readonly cols: Column[],
    private readonly onOpen: (title: string, value: unknown, col: Column) => void,
  ) {
    const headRow = h("tr", { "aria-rowindex": 1 });
    cols.forEach((c, i) => {
      const b = h("button", { type: "button", class: "sort", title: `Sort by ${c.name}` },
        h("span", { class: "name" }, c.name), h("span", { class: "type", title: typeName(c) }, shortType(c)));
      b.addEventListener("click", () => this.sortBy(i));
      const th = h("th", { scope: "col", class: NUMERIC_TYPES.has(c.type) && c.mode !== "REPEATED" ? "num" : undefined, "aria-sort": "none", "data-col": c.name }, b);
      this.headers.push(th);
      headRow.append(th);
    });
    this.tbody = h("tbody", null);
    this.table = h("table", { class: "grid", "aria-label": "Query result" }, h("thead", null, headRow), this.tbody);
    this.scroller = h("div", { class: "scroller", tabindex: 0, "aria-label": "Rows: arrow keys move between cells, Enter opens one" }, this.table);
    this.scroller.addEventListener("scroll", () => this.schedule());
    this.scroller.addEventListener("keydown", (e) => this.key(e));
    this.tbody.addEventListener("click", (e) => {
      const td = (e.target as HTMLElement).closest("td[data-col]") as HTMLElement | null;
      const tr = td?.parentElement;
      if (!td || !tr?.dataset.k) return;
      this.activate(Number(tr.dataset.k), Number(td.dataset.col), false);
    });
    new ResizeObserver(() => this.schedule()).observe(this.scroller);
    this.el = this.scroller;
  }

  get loaded(): number {
    return this.rows.length;
  }

  // rowsInOrder are the loaded rows as shown (sorted when a column is).
  rowsInOrder(): unknown[][] {
    return this.order.map((i) => this.rows[i]);
  }

  append(rows: unknown[][], cut: CutCell[] = []) {
    const base = this.rows.length;
    for (const c of cut) this.cut.set(`${base + c.row}\u0000${c.column}`, c);
    for (const r of rows) {
      this.order.push(this.rows.length);
      this.rows.push(r);
    }
    if (this.sortCol >= 0) this.sortRows();
    this.table.setAttribute("aria-rowcount", String(this.rows.length + 1));
    this.render(true);
  }

  sortBy(col: number) {
    this.sortDir = this.sortCol === col && this.sortDir === "ascending" ? "descending" : "ascending";
    this.sortCol = col;
    this.headers.forEach((th, i) => th.setAttribute("aria-sort", i === col ? this.sortDir : "none"));
    this.sortRows();
    this.render(true);
  }

  private sortRows() {
    const c = this.cols[this.sortCol];
    const i = this.sortCol;
    const numeric = NUMERIC_TYPES.has(c.type) && c.mode !== "REPEATED";
    const key = (v: unknown): number | string => (numeric ? Number(v) : typeof v === "object" ? JSON.stringify(v) : String(v));
    const sign = this.sortDir === "ascending" ? 1 : -1;
    const keys = this.rows.map((r) => (r[i] === null || r[i] === undefined ? null : key(r[i])));
    this.order.sort((a, b) => {
      const x = keys[a];
      const y = keys[b];
      // NULL last in either direction, as BigQuery's ORDER BY … NULLS LAST.
      if (x === null || y === null) return x === y ? a - b : x === null ? 1 : -1;
      if (x < y) return -sign;
      if (x > y) return sign;
      return a - b;
    });
  }

  // The active cell (keyboard and click): its place in the shown order
  // and its column. -1: none yet.
  private activeK = -1;
  private activeCol = 0;

  private key(e: KeyboardEvent) {
    if (e.target !== this.scroller || this.order.length === 0) return;
    const page = Math.max(1, Math.floor(this.scroller.clientHeight / ROW_HEIGHT) - 1);
    let k = Math.max(0, this.activeK);
    let c = this.activeCol;
    switch (e.key) {
      case "ArrowDown": k = this.activeK < 0 ? 0 : k + 1; break;
      case "ArrowUp": k -= 1; break;
      case "ArrowRight": c += 1; break;
      case "ArrowLeft": c -= 1; break;
      case "PageDown": k += page; break;
      case "PageUp": k -= page; break;
      case "Home": if (e.ctrlKey) k = 0; else c = 0; break;
      case "End": if (e.ctrlKey) k = this.order.length - 1; else c = this.cols.length - 1; break;
      case "Enter":
      case " ":
        if (this.activeK >= 0) {
          const ri = this.order[this.activeK];
          const col = this.cols[this.activeCol];
          this.onOpen(`${col.name} (row ${ri + 1})`, this.rows[ri][this.activeCol], col);
          e.preventDefault();
        }
        return;
      default:
        return;
    }
    e.preventDefault();
    this.activate(Math.min(this.order.length - 1, Math.max(0, k)), Math.min(this.cols.length - 1, Math.max(0, c)), true);
  }

  // activate makes a cell the active one, scrolled into view when asked.
  private activate(k: number, col: number, scroll: boolean) {
    this.activeK = k;
    this.activeCol = col;
    if (scroll) {
      const top = k * ROW_HEIGHT;
      const head = this.table.tHead?.offsetHeight ?? 0;
      const view = this.scroller.clientHeight - head;
      if (top < this.scroller.scrollTop) this.scroller.scrollTop = top;
      else if (top + ROW_HEIGHT > this.scroller.scrollTop + view) this.scroller.scrollTop = top + ROW_HEIGHT - view;
    }
    this.render(true);
    const cell = this.tbody.querySelector(`tr[data-k="${k}"] td[data-col="${col}"]`) as HTMLElement | null;
    cell?.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  private schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render(false);
    });
  }

  // render puts the rows in view (and a few either side) in the DOM, with
  // spacer rows standing in for the others.
  render(force: boolean) {
    const view = this.scroller.clientHeight || 400;
    const top = Math.max(0, this.scroller.scrollTop - ROW_HEIGHT);
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.order.length, Math.ceil((top + view) / ROW_HEIGHT) + OVERSCAN);
    if (!force && first === this.first && last === this.last) return;
    this.first = first;
    this.last = last;
    const n = this.cols.length;
    const out: HTMLElement[] = [];
    if (first > 0) out.push(h("tr", { class: "spacer", "aria-hidden": "true", style: `height:${first * ROW_HEIGHT}px` }, h("td", { colspan: n })));
    for (let k = first; k < last; k++) out.push(this.row(k));
    const rest = this.order.length - last;
    if (rest > 0) out.push(h("tr", { class: "spacer", "aria-hidden": "true", style: `height:${rest * ROW_HEIGHT}px` }, h("td", { colspan: n })));
    this.tbody.replaceChildren(...out);
  }

  private row(k: number): HTMLElement {
    const ri = this.order[k];
    const r = this.rows[ri];
    const tr = h("tr", { "aria-rowindex": k + 2, "data-row": ri, "data-k": k });
    this.cols.forEach((c, i) => {
      const td = this.cell(ri, c, r[i]);
      td.dataset.col = String(i);
      if (k === this.activeK && i === this.activeCol) {
        td.id = "active-cell";
        td.classList.add("active");
        this.scroller.setAttribute("aria-activedescendant", td.id);
      }
      tr.append(td);
    });
    return tr;
  }

  private cell(ri: number, c: Column, v: unknown): HTMLElement {
    const numeric = NUMERIC_TYPES.has(c.type) && c.mode !== "REPEATED";
    const cut = this.cut.get(`${ri}\u0000${c.name}`);
    const td = h("td", { class: numeric ? "num" : undefined });
    if (v === null || v === undefined) {
      td.append(h("span", { class: "null", title: cut ? "NULL: cut by the server (too large for one answer)" : "NULL" }, "NULL"));
    } else if (typeof v === "object") {
      const label = Array.isArray(v) ? `[${v.length} item${v.length === 1 ? "" : "s"}]` : `{${Object.keys(v).length} fields}`;
      const b = h("button", { type: "button", class: "nested", title: `Open ${c.name}` }, label, " ", h("span", { class: "peek" }, clip(JSON.stringify(v), 60)));
      b.addEventListener("click", () => this.onOpen(`${c.name} (row ${ri + 1})`, v, c));
      td.append(b);
    } else {
      const s = text(v);
      if (s === "") {
        td.classList.add("empty");
        td.title = "empty string";
      } else if (s.length > CLIP || cut) {
        const b = h("button", { type: "button", class: "long", title: cut ? `Cut by the server: ${cut.keptBytes ?? 0} of ${cut.bytes} bytes kept` : "Show the whole value" }, clip(s, CLIP));
        if (cut) b.append(h("span", { class: "cut", "aria-label": "cut" }, " ✂"));
        b.addEventListener("click", () => this.onOpen(`${c.name} (row ${ri + 1})`, v, c));
        td.append(b);
      } else {
        td.textContent = s;
      }
    }
    return td;
  }
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

// tree renders a nested value as an expandable tree.
export function tree(v: unknown, open = true): Node {
  if (v === null || v === undefined) return h("span", { class: "null" }, "NULL");
  if (typeof v !== "object") return h("span", { class: typeof v === "string" ? "str" : "lit" }, typeof v === "string" ? JSON.stringify(v) : String(v));
  const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v as Record<string, unknown>);
  const d = h("details", { open }, h("summary", null, Array.isArray(v) ? `[${entries.length}]` : `{${entries.length}}`));
  const ul = h("ul", { role: "group" });
  for (const [k, x] of entries) ul.append(h("li", null, h("span", { class: "key" }, k), ": ", tree(x, false)));
  d.append(ul);
  return d;
}
