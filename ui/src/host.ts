// The browser tests' host page script (integration_test/app_test.go), not
// part of the app: a minimal MCP Apps host built on ext-apps' AppBridge. It
// reaches the real server only through the test's /rpc endpoint, which
// forwards to an MCP client session that declares the extension.

import { AppBridge, getToolUiResourceUri, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

type Json = Record<string, any>;

async function rpc(method: string, params: unknown): Promise<any> {
  const r = await fetch("/rpc", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ method, params }) });
  const j = await r.json();
  if (j.error) throw new Error(j.error);
  return j.result;
}

const w = window as unknown as Json;
w.hostLog = [] as Json[];
let bridge: AppBridge;

// load finds tool's view through tools/list and resources/read, as a host
// does, starts it in a sandboxed iframe and connects the bridge.
w.load = async (tool: string, theme: "light" | "dark") => {
  const tools = await rpc("tools/list", {});
  const t = tools.tools.find((x: Json) => x.name === tool);
  const uri = t && getToolUiResourceUri(t);
  if (!uri) throw new Error(`${tool} links to no view`);
  const res = await rpc("resources/read", { uri });
  const c = res.contents[0];
  if (c.mimeType !== "text/html;profile=mcp-app") throw new Error(`view MIME type ${c.mimeType}`);
  document.getElementById("app")?.remove();
  const iframe = document.createElement("iframe");
  iframe.id = "app";
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.title = "BigQuery app";
  document.body.append(iframe);
  bridge = new AppBridge(null, { name: "test-host", version: "1.0.0" }, { openLinks: {}, downloadFile: {}, serverTools: {} }, {
    hostContext: { theme, displayMode: "inline", platform: "web", toolInfo: { tool: t } },
  });
  bridge.oncalltool = async (params) => {
    w.hostLog.push({ call: params.name, arguments: params.arguments });
    return rpc("tools/call", params);
  };
  bridge.onopenlink = async (p) => {
    w.hostLog.push({ openLink: p.url });
    return {};
  };
  bridge.ondownloadfile = async (p) => {
    w.hostLog.push({ download: p.contents.length });
    return {};
  };
  bridge.onsizechange = (p) => {
    if (p.height) iframe.style.height = `${Math.min(p.height, 2000)}px`;
  };
  const ready = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  iframe.srcdoc = c.text;
  await ready;
  return "ready";
};

// run calls the tool and hands the app its input and result, as a host
// does after the model's call.
w.run = async (tool: string, args: Json) => {
  await bridge.sendToolInput({ arguments: args });
  const result = await rpc("tools/call", { name: tool, arguments: args });
  w.sentAt = performance.timeOrigin + performance.now();
  await bridge.sendToolResult(result);
  return result.isError ? `error: ${JSON.stringify(result.content)}` : "ok";
};

// runStillRunning calls the tool but hands the app its result as if the
// call's wait had ended before the query finished (jobComplete false, no
// rows), which the emulator never does.
w.runStillRunning = async (tool: string, args: Json) => {
  await bridge.sendToolInput({ arguments: args });
  const result = await rpc("tools/call", { name: tool, arguments: args });
  const sc = { ...result.structuredContent, jobComplete: false, state: "RUNNING", rows: [], rowCount: 0, truncated: false };
  delete sc.nextStartIndex;
  await bridge.sendToolResult({ ...result, structuredContent: sc, content: [{ type: "text", text: JSON.stringify(sc) }] });
  return "ok";
};

w.setTheme = (theme: "light" | "dark") => bridge.sendHostContextChange({ theme });
