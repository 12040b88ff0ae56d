// Bundles the app (src/main.ts) into app.html: one self-contained HTML file
// with the script and styles inline, nothing fetched from anywhere.
//   node build.mjs            writes app.html
//   node build.mjs --check    fails when app.html is not a fresh build
//   node build.mjs --host F   bundles the browser tests' host page script
//                             (src/host.ts, with ext-apps' AppBridge) to F
import * as esbuild from "esbuild";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

// The MCP SDK and zod are large: zod/v4 resolves to zod-shim.js (see
// there), and every package module is side-effect free, so modules whose
// exports nobody uses (the SDK's OAuth, HTTP transports and JSON Schema
// validators) are left out.
const trim = {
  name: "trim",
  setup(b) {
    b.onResolve({ filter: /^zod\/v4$/ }, () => ({ path: path.join(here, "zod-shim.js"), sideEffects: false }));
    b.onResolve({ filter: /^zod-external$/ }, () => ({ path: path.join(here, "node_modules/zod/v4/classic/external.js"), sideEffects: false }));
    b.onResolve({ filter: /.*/ }, async (a) => {
      if (a.pluginData === "trim" || a.kind === "entry-point") return undefined;
      const r = await b.resolve(a.path, { resolveDir: a.resolveDir, kind: a.kind, importer: a.importer, pluginData: "trim" });
      if (r.errors.length > 0) return { errors: r.errors };
      return r.path.includes(`${path.sep}node_modules${path.sep}`) ? { ...r, sideEffects: false } : r;
    });
  },
};

async function bundle(entry) {
  const r = await esbuild.build({
    absWorkingDir: here, entryPoints: [entry], bundle: true, write: false, minify: true, format: "iife",
    target: "es2022", platform: "browser", charset: "utf8", legalComments: "none", logLevel: "warning",
    plugins: [trim],
  });
  return r.outputFiles[0].text;
}

async function app() {
  let js = await bundle("src/main.ts");
  // An inline script ends at the first "</script"; the bundle must not hold one.
  js = js.replace(/<\/(script)/gi, "<\\/$1");
  if (/<!--|<script/i.test(js)) throw new Error("the bundle holds <!-- or <script, which an inline script cannot");
  const css = (await esbuild.transform(await readFile(path.join(here, "src/style.css"), "utf8"), { loader: "css", minify: true, charset: "utf8" })).code.trim();
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="color-scheme" content="light dark"><title>BigQuery</title><style>${css}</style></head><body><main id="app" aria-live="polite"><p class="waiting">Waiting for the tool's result…</p></main><script>${js}</script></body></html>\n`;
}

const args = process.argv.slice(2);
if (args[0] === "--host") {
  await writeFile(args[1], await bundle("src/host.ts"));
} else {
  const html = await app();
  const file = path.join(here, "app.html");
  if (args[0] === "--check") {
    const old = await readFile(file, "utf8").catch(() => "");
    if (old !== html) {
      console.error("ui/app.html is not a fresh build of ui/src: run `make ui` and commit ui/app.html");
      process.exit(1);
    }
  } else {
    await writeFile(file, html);
  }
  console.log(`app.html: ${Buffer.byteLength(html)} bytes`);
}
