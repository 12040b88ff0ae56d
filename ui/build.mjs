// Bundles the app (src/main.ts) into app.html: one self-contained HTML file
// with the script and styles inline, nothing fetched from anywhere.
//   node build.mjs            writes app.html
//   node build.mjs --check    fails when app.html is not a fresh build
//   node build.mjs --host F   bundles the browser tests' host page script
//                             (src/host.ts, with ext-apps' AppBridge) to F
import * as esbuild from "esbuild";
import { readFile, writeFile } from "node:fs/promises";
import { gunzipSync, gzipSync } from "node:zlib";
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

// The script ships gzip-compressed: the official library with the MCP SDK
// core and zod it needs is ~240 KB minified, ~65 KB compressed. The page
// holds it base64-encoded in an inert data block, and a few lines of inline
// script unpack it with the browser's own DecompressionStream and run it as
// an inline script: no eval, no blob: or data: URL, nothing fetched, so it
// needs only the 'unsafe-inline' that any single-file app needs.
const BOOT = `(async()=>{const m=document.getElementById("app");try{const d=Uint8Array.from(atob(document.getElementById("bundle").textContent),c=>c.charCodeAt(0)),t=await new Response(new Blob([d]).stream().pipeThrough(new DecompressionStream("gzip"))).text(),s=document.createElement("script");s.textContent=t;document.body.append(s)}catch(e){m.textContent="This view could not start: "+e}})()`;
const PAYLOAD = "\u0000payload\u0000";

// page is app.html with the compressed script left out (PAYLOAD in its
// place), and the script itself.
async function page() {
  const js = await bundle("src/main.ts");
  const css = (await esbuild.transform(await readFile(path.join(here, "src/style.css"), "utf8"), { loader: "css", minify: true, charset: "utf8" })).code.trim();
  const shell = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="color-scheme" content="light dark"><title>BigQuery</title><style>${css}</style></head><body><main id="app" aria-live="polite"><p class="waiting">Waiting for the tool's result…</p></main><script type="application/gzip" id="bundle">${PAYLOAD}</script><script>${BOOT}</script></body></html>\n`;
  return { shell, js };
}

// pack puts the script, gzip-compressed and base64-encoded, into the shell.
function pack({ shell, js }) {
  return shell.replace(PAYLOAD, gzipSync(Buffer.from(js, "utf8"), { level: 9 }).toString("base64"));
}

// unpack is pack undone: the shell and the script a page holds, or null.
function unpack(html) {
  const m = /(<script type="application\/gzip" id="bundle">)([A-Za-z0-9+/=]*)(<\/script>)/.exec(html);
  if (!m) return null;
  return { shell: html.replace(m[0], m[1] + PAYLOAD + m[3]), js: gunzipSync(Buffer.from(m[2], "base64")).toString("utf8") };
}

const args = process.argv.slice(2);
if (args[0] === "--host") {
  await writeFile(args[1], await bundle("src/host.ts"));
} else {
  const fresh = await page();
  const html = pack(fresh);
  const file = path.join(here, "app.html");
  if (args[0] === "--check") {
    // The script is compared unpacked: zlib builds may compress the same
    // bytes differently, and what must be current is the code, not them.
    const old = unpack(await readFile(file, "utf8").catch(() => ""));
    if (!old || old.shell !== fresh.shell || old.js !== fresh.js) {
      console.error("ui/app.html is not a fresh build of ui/src: run `make ui` and commit ui/app.html");
      process.exit(1);
    }
  } else {
    await writeFile(file, html);
  }
  console.log(`app.html: ${Buffer.byteLength(html)} bytes (script ${Buffer.byteLength(fresh.js)} bytes unpacked)`);
}
