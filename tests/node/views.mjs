// Renders a server's views (MCP Apps) in headless Chromium, with the official host side of the
// extension (the App Bridge of @modelcontextprotocol/ext-apps) talking to the server through
// the official TypeScript SDK client, and reports what the views showed.
//
//   node views.mjs URL SCENARIOS_JSON [SCREENSHOT_DIR]
//
// SCENARIOS_JSON is an array of {"tool", "arguments", "next": bool, "link": bool,
// "theme": bool, "sort": bool, "screenshot": "file.png"}. For each, the tool's view is read with
// resources/read, loaded into a sandboxed iframe of a host page, handed the tool's input and
// result by the bridge, and observed; with "next" its "Next page" button is pressed, with
// "link" its first visible link, with "theme" the host switches it to dark, with "sort" its
// first column is sorted (twice: descending). With "document" that HTML is loaded in place of
// the resource's (a view derived by the test from a schema no shipped spec has), and with
// "result" that tool result is handed to it in place of calling the tool. Prints one JSON line:
// {"tools": {name: resourceUri|null}, "capabilities": {...}, "views": {tool: observation},
// "requests": [urls], "xss": bool, "dialogs": n}.
import { mkdirSync } from "node:fs";
import { join } from "node:path";

import { AppBridge } from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { chromium } from "playwright-core";

const [url, scenariosJson, screenshotDir] = process.argv.slice(2);
const scenarios = JSON.parse(scenariosJson);
const UI = "io.modelcontextprotocol/ui";

const client = new Client(
  { name: "mcpgen-views-test", version: "0.0.0" },
  { capabilities: { extensions: { [UI]: { mimeTypes: ["text/html;profile=mcp-app"] } } } }
);
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const { tools } = await client.listTools();

const userDataDir = join(process.env.TMPDIR || "/tmp", `mcpgen-views-${process.pid}-${Date.now()}`);
mkdirSync(userDataDir, { recursive: true });
const browser = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  viewport: { width: 900, height: 700 },
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

const report = {
  tools: Object.fromEntries(tools.map((t) => [t.name, t._meta?.ui?.resourceUri ?? null])),
  capabilities: client.getServerCapabilities(),
  views: {},
  requests: [],
  xss: false,
  dialogs: 0,
};

const HOST_PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8"></head>
<body style="margin:0;background:#e5e7eb">
<iframe id="view" sandbox="allow-scripts" style="display:block;border:0;width:880px;height:120px;margin:10px;background:#fff"></iframe>
<script>
  window.addEventListener("message", function (event) {
    var frame = document.getElementById("view");
    if (event.source !== frame.contentWindow) return;
    if (event.data === "xss") { window.__xss = true; return; }
    window.__toHost(event.data);
  });
</script></body></html>`;

// What a view shows: read in the view's frame.
function observe() {
  const main = document.getElementById("view");
  const texts = (nodes) => Array.from(nodes, (n) => n.textContent);
  const top = main.querySelector(":scope > .table-wrap > table");
  const card = main.querySelector(":scope > dl.card");
  const rows = top ? Array.from(top.querySelectorAll(":scope > tbody > tr")) : [];
  return {
    kind: top ? "table" : card ? "card" : "none",
    title: main.querySelector("h1")?.textContent ?? null,
    documentTitle: document.title,
    headers: top ? texts(top.querySelectorAll(":scope > thead th")) : [],
    rows: rows.length,
    cells: rows.map((r) => texts(r.querySelectorAll(":scope > td")).map((t) => t.trim())),
    keys: rows.map((r) => Array.from(r.querySelectorAll(":scope > td"), (td) => td.dataset.key)),
    terms: card ? texts(card.querySelectorAll(":scope > dt")) : [],
    subTables: Array.from(main.querySelectorAll("table table, dl table"), (t) => t.querySelectorAll(":scope > tbody > tr").length),
    badges: texts(main.querySelectorAll(".badge")),
    times: Array.from(main.querySelectorAll("time"), (t) => ({ dateTime: t.dateTime, text: t.textContent })),
    links: texts(main.querySelectorAll(".link")),
    linkHrefs: Array.from(main.querySelectorAll("a[href]"), (a) => a.getAttribute("href")),
    folds: main.querySelectorAll("details.fold").length,
    pager: texts(main.querySelectorAll(".pager button")),
    ids: texts(main.querySelectorAll(".id")),
    // Text with direction marks (U+202A-U+202E, U+2066-U+2069) inside a <bdi> or not.
    marked: (() => {
      const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
      const found = [];
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (/[\u202a-\u202e\u2066-\u2069]/.test(node.data)) {
          found.push({ text: node.data, isolated: Boolean(node.parentElement.closest("bdi")) });
        }
      }
      return found;
    })(),
    // Whether each fold's "…" is drawn after the text it shortens (held in a <bdi>): right of
    // the text's last line, or below it. Direction marks in the text must not move it.
    ellipsisAfter: Array.from(main.querySelectorAll("details.fold > summary"), (summary) => {
      const walker = document.createTreeWalker(summary, NodeFilter.SHOW_TEXT);
      let mark = null;
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (node.data.endsWith("…")) mark = node;
      }
      if (!mark) return null;
      const shortened = summary.querySelector("bdi");
      if (!shortened) return false;
      const lines = shortened.getClientRects();
      const last = lines[lines.length - 1];
      const range = document.createRange();
      range.setStart(mark, mark.data.length - 1);
      range.setEnd(mark, mark.data.length);
      const box = range.getBoundingClientRect();
      return box.top >= last.top - 1 && (box.top >= last.bottom - 1 || box.left >= last.right - 1);
    }),
    images: document.querySelectorAll("img, script[src], link, iframe").length,
    text: main.textContent,
    theme: document.documentElement.dataset.theme ?? null,
    background: getComputedStyle(document.body).backgroundColor,
  };
}

const page = await browser.newPage();
page.on("request", (request) => report.requests.push(request.url()));
page.on("dialog", (dialog) => {
  report.dialogs += 1;
  dialog.dismiss().catch(() => {});
});
await page.route("**/*", (route) => {
  report.requests.push(route.request().url());
  return route.abort();
});

let deliver = () => {};
await page.exposeFunction("__toHost", (message) => deliver(message));

for (const scenario of scenarios) {
  const tool = tools.find((t) => t.name === scenario.tool);
  const uri = tool?._meta?.ui?.resourceUri;
  if (!uri) {
    report.views[scenario.tool] = { error: "no view" };
    continue;
  }
  const read = await client.readResource({ uri });
  const resource = read.contents[0];
  const observation = {
    mimeType: resource.mimeType,
    resourceMeta: resource._meta ?? null,
    documentCsp: /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(resource.text)?.[1] ?? null,
    externalUrl: /https?:\/\//i.test(resource.text),
    calls: [],
    openedLinks: [],
    sizes: 0,
  };
  await page.setContent(HOST_PAGE);
  const transport = {
    async start() {},
    async send(message) {
      await page.evaluate((m) => document.getElementById("view").contentWindow.postMessage(m, "*"), message);
    },
    async close() {
      this.onclose?.();
    },
  };
  deliver = (message) => transport.onmessage?.(message);
  const bridge = new AppBridge(
    null,
    { name: "mcpgen-views-test-host", version: "0.0.0" },
    { openLinks: {}, serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: { theme: "light", locale: "en-US", timeZone: "UTC", displayMode: "inline", platform: "web" } }
  );
  bridge.oncalltool = async (params) => {
    observation.calls.push(params);
    return client.callTool(params);
  };
  bridge.onreadresource = async (params) => client.readResource(params);
  let linkOpened;
  const opened = new Promise((resolve) => (linkOpened = resolve));
  bridge.onopenlink = async ({ url: link }) => {
    observation.openedLinks.push(link);
    linkOpened();
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    observation.sizes += 1;
    if (height) page.evaluate((h) => (document.getElementById("view").style.height = `${h}px`), Math.min(height, 2000)).catch(() => {});
  };
  const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
  await bridge.connect(transport);
  await page.evaluate((html) => (document.getElementById("view").srcdoc = html), scenario.document ?? resource.text);
  await initialized;
  const args = scenario.arguments ?? {};
  const result = scenario.result ?? (await client.callTool({ name: scenario.tool, arguments: args }));
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
  const frame = await (await page.$("#view")).contentFrame();
  await frame.waitForSelector("main > .table-wrap, main > dl.card, main > .error, main > .muted");
  observation.first = await frame.evaluate(observe);
  if (scenario.theme) {
    await bridge.sendHostContextChange({
      theme: "dark",
      styles: { variables: { "--color-background-primary": "rgb(16, 16, 16)" } },
    });
    await frame.waitForFunction(() => document.documentElement.dataset.theme === "dark");
    observation.dark = await frame.evaluate(observe);
  }
  if (scenario.screenshot && screenshotDir) {
    const box = await (await page.$("#view")).boundingBox();
    await page.screenshot({ path: join(screenshotDir, scenario.screenshot), clip: box });
  }
  if (scenario.link) {
    await frame.locator(".link:visible").first().click();
    await opened;
  }
  if (scenario.sort) {
    // The first column, sorted twice: descending.
    await frame.click("main > .table-wrap > table > thead th:first-child .sort");
    await frame.click("main > .table-wrap > table > thead th:first-child .sort");
    observation.sorted = await frame.evaluate(observe);
  }
  if (scenario.next) {
    const heading = await frame.$("main > h1");
    await frame.click(".pager .next");
    await frame.waitForFunction((old) => !old.isConnected, heading);
    await frame.waitForSelector("main > .table-wrap, main > .muted");
    observation.next = await frame.evaluate(observe);
  }
  report.xss = report.xss || (await page.evaluate(() => Boolean(window.__xss)));
  await bridge.close().catch(() => {});
  report.views[scenario.tool] = observation;
}

await browser.close();
await client.close();
console.log(JSON.stringify(report));
