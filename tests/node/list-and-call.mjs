// Lists the tools of a Streamable HTTP MCP server and makes several calls, with the official
// TypeScript SDK client (which checks structured content against each tool's outputSchema).
//
//   node list-and-call.mjs URL CALLS_JSON [HEADER=VALUE...]
//
// CALLS_JSON is an array of {"name": ..., "arguments": {...}}. Prints one JSON line:
// {"ok": true, "tools": [...], "results": [{"ok": true, "isError": ..., "structuredContent": ...,
// "text": [...]} | {"ok": false, "error": "..."}]}, or {"ok": false, "error": "..."} when the
// client could not connect or list.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, callsJson, ...headerArgs] = process.argv.slice(2);
const calls = JSON.parse(callsJson);
const headers = Object.fromEntries(headerArgs.map((h) => h.split(/=(.*)/s).slice(0, 2)));
const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
const client = new Client({ name: "mcpgen-e2e", version: "0.0.0" });

let out;
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const results = [];
  for (const call of calls) {
    try {
      const result = await client.callTool(call);
      results.push({
        ok: true,
        isError: Boolean(result.isError),
        structuredContent: result.structuredContent ?? null,
        text: (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text),
      });
    } catch (error) {
      results.push({ ok: false, error: String(error?.message ?? error) });
    }
  }
  out = { ok: true, tools, results };
} catch (error) {
  out = { ok: false, error: String(error?.message ?? error) };
} finally {
  await client.close().catch(() => {});
}
console.log(JSON.stringify(out));
