// Formatting helpers: sizes, money, durations, CSV.

export function bytes(n: number | undefined): string {
  if (n === undefined || n === null) return "–";
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0)} ${units[i]}`;
}

export function usd(n: number | undefined): string {
  if (n === undefined || n === null) return "–";
  if (n === 0) return "$0";
  if (n < 0.01) return "< $0.01";
  return `$${n.toFixed(2)}`;
}

export function duration(ms: number | undefined): string {
  if (ms === undefined || ms === null) return "–";
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

export function count(n: number): string {
  return n.toLocaleString("en-US");
}

// ago says how long before now an RFC 3339 time was.
export function ago(t: string | undefined): string {
  if (!t) return "";
  const ms = Date.now() - Date.parse(t);
  if (!Number.isFinite(ms)) return t;
  const m = Math.round(ms / 60000);
  if (m < 1) return "just now";
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.round(h / 24)} days ago`;
}

// text is a cell's value as text: strings as they are, NULL as empty,
// anything nested as JSON.
export function text(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

// delimited writes rows as CSV (RFC 4180) or TSV with a header line.
export function delimited(names: string[], rows: unknown[][], sep: "," | "\t"): string {
  const field = (s: string) => {
    if (sep === "\t") return s.replace(/[\t\r\n]/g, " ");
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const lines = [names.map(field).join(sep)];
  for (const r of rows) lines.push(r.map((v) => field(text(v))).join(sep));
  return lines.join("\r\n") + "\r\n";
}

// el builds an element: h("td", {class: "num"}, "12").
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean | undefined> | null,
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === false) continue;
      e.setAttribute(k, v === true ? "" : String(v));
    }
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

export function svg(tag: string, attrs: Record<string, string | number>, ...children: (Node | string)[]): SVGElement {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  for (const c of children) e.append(c);
  return e;
}
