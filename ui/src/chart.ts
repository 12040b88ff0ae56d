// A line chart (time on x) or a bar chart (categories on x) of up to four
// numeric columns, drawn as inline SVG.

import { h, svg } from "./format";
import { type Column, isNumeric, TIME_TYPES } from "./types";

const W = 640;
const H = 260;
const PAD = { l: 56, r: 12, t: 12, b: 40 };
const MAX_SERIES = 4;
const MAX_BARS = 40;
const MAX_POINTS = 2000;

export interface ChartPlan {
  kind: "line" | "bar";
  x: number;
  ys: number[];
}

// plan says whether the columns suit a chart: a date/time column (a line)
// or a string column (bars) with one or more numeric columns.
export function plan(cols: Column[]): ChartPlan | null {
  const ys = cols.map((c, i) => (isNumeric(c) ? i : -1)).filter((i) => i >= 0).slice(0, MAX_SERIES);
  if (ys.length === 0) return null;
  const t = cols.findIndex((c) => TIME_TYPES.has(c.type) && c.mode !== "REPEATED");
  if (t >= 0) return { kind: "line", x: t, ys };
  const s = cols.findIndex((c) => c.type === "STRING" && c.mode !== "REPEATED");
  if (s >= 0) return { kind: "bar", x: s, ys };
  return null;
}

export function chart(cols: Column[], rows: unknown[][], p: ChartPlan): HTMLElement {
  let pts = rows.filter((r) => r[p.x] !== null && r[p.x] !== undefined);
  if (p.kind === "line") {
    pts = [...pts].sort((a, b) => String(a[p.x]).localeCompare(String(b[p.x]))).slice(0, MAX_POINTS);
  } else {
    // The largest categories by the first series, in that order.
    const sums = new Map<string, number[]>();
    for (const r of pts) {
      const k = String(r[p.x]);
      const s = sums.get(k) ?? p.ys.map(() => 0);
      p.ys.forEach((y, j) => (s[j] += Number(r[y]) || 0));
      sums.set(k, s);
    }
    pts = [...sums.entries()].sort((a, b) => b[1][0] - a[1][0]).slice(0, MAX_BARS).map(([k, s]) => {
      const r: unknown[] = [];
      r[p.x] = k;
      p.ys.forEach((y, j) => (r[y] = s[j]));
      return r;
    });
  }
  const vals = pts.flatMap((r) => p.ys.map((y) => Number(r[y]))).filter(Number.isFinite);
  let lo = Math.min(0, ...vals);
  let hi = Math.max(0, ...vals);
  if (lo === hi) hi = lo + 1;
  const iw = W - PAD.l - PAD.r;
  const ih = H - PAD.t - PAD.b;
  const yAt = (v: number) => PAD.t + ih - ((v - lo) / (hi - lo)) * ih;
  const g = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: `chart ${p.kind}`, role: "img", "aria-label": `${p.kind === "line" ? "Line" : "Bar"} chart of ${p.ys.map((y) => cols[y].name).join(", ")} by ${cols[p.x].name}` });
  // Axes and five gridlines with their values.
  for (let i = 0; i <= 4; i++) {
    const v = lo + ((hi - lo) * i) / 4;
    const y = yAt(v);
    g.append(svg("line", { x1: PAD.l, x2: W - PAD.r, y1: y, y2: y, class: "grid" }));
    g.append(svg("text", { x: PAD.l - 6, y: y + 4, "text-anchor": "end", class: "tick" }, short(v)));
  }
  const n = pts.length;
  const label = (i: number, x: number) => {
    // A line's first and last labels stay inside the chart.
    const edge = p.kind === "line" && n > 1;
    const anchor = edge && i === 0 ? "start" : edge && i === n - 1 ? "end" : "middle";
    g.append(svg("text", { x, y: H - PAD.b + 16, "text-anchor": anchor, class: "tick" }, String(pts[i][p.x]).slice(0, 16)));
  };
  if (p.kind === "line") {
    const xAt = (i: number) => PAD.l + (n === 1 ? iw / 2 : (i * iw) / (n - 1));
    p.ys.forEach((y, j) => {
      const d = pts.map((r, i) => `${i === 0 ? "M" : "L"}${xAt(i).toFixed(1)},${yAt(Number(r[y]) || 0).toFixed(1)}`).join("");
      g.append(svg("path", { d, class: `series s${j}`, fill: "none" }));
    });
    for (const i of n > 1 ? [0, Math.floor((n - 1) / 2), n - 1] : [0]) label(i, xAt(i));
  } else {
    const band = iw / Math.max(1, n);
    const bw = (band * 0.8) / p.ys.length;
    pts.forEach((r, i) => {
      p.ys.forEach((y, j) => {
        const v = Number(r[y]) || 0;
        const y0 = yAt(Math.max(0, v));
        g.append(svg("rect", { x: (PAD.l + i * band + band * 0.1 + j * bw).toFixed(1), y: y0.toFixed(1), width: Math.max(1, bw - 1).toFixed(1), height: Math.max(0.5, Math.abs(yAt(v) - yAt(0))).toFixed(1), class: `series s${j}` },
          svg("title", {}, `${String(r[p.x])}: ${cols[y].name} ${v}`)));
      });
      if (n <= 12 || i % Math.ceil(n / 8) === 0) label(i, PAD.l + i * band + band / 2);
    });
  }
  const legend = h("ul", { class: "legend" }, ...p.ys.map((y, j) => h("li", { class: `s${j}` }, cols[y].name)));
  const note = rows.length > pts.length && p.kind === "line" ? h("p", { class: "muted" }, `First ${pts.length} of ${rows.length} points.`) : null;
  return h("figure", { class: "chartbox" }, g, legend, note);
}

function short(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e9) return `${+(v / 1e9).toFixed(1)}G`;
  if (a >= 1e6) return `${+(v / 1e6).toFixed(1)}M`;
  if (a >= 1e3) return `${+(v / 1e3).toFixed(1)}k`;
  return `${+v.toFixed(2)}`;
}
