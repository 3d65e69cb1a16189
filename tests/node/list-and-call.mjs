// Lists the tools of an MCP server and makes one or more calls, with the official TypeScript
// SDK client (which checks structured content against each tool's outputSchema).
//
//   node list-and-call.mjs http CALLS_JSON URL [HEADER=VALUE...]
//   node list-and-call.mjs stdio CALLS_JSON -- COMMAND [ARG...]
//
// CALLS_JSON is an array of {"name": ..., "arguments": {...}}. Prints one JSON line:
// {"ok": true, "tools": [...], "results": [{"ok": true, "isError": ..., "structuredContent": ...,
// "text": [...]} | {"ok": false, "error": "..."}], "session": ..., "protocolVersion": ...}, or
// {"ok": false, "error": "..."} when the client could not connect or list (over stdio, "session"
// and "protocolVersion" are null). A call the client rejects (for example because its
// structured content does not match the tool's outputSchema) is {"ok": false, "error": ...}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, callsJson, ...rest] = process.argv.slice(2);
const calls = JSON.parse(callsJson);

let transport;
if (mode === "stdio") {
  const command = rest[0] === "--" ? rest.slice(1) : rest;
  transport = new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: "inherit" });
} else {
  const headers = Object.fromEntries(rest.slice(1).map((h) => h.split(/=(.*)/s).slice(0, 2)));
  transport = new StreamableHTTPClientTransport(new URL(rest[0]), { requestInit: { headers } });
}
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
  // Over HTTP, the session the calls went on and the revision it agreed on.
  out = { ok: true, tools, results, session: transport.sessionId ?? null, protocolVersion: transport.protocolVersion ?? null };
} catch (error) {
  out = { ok: false, error: String(error?.message ?? error) };
} finally {
  await client.close().catch(() => {});
}
console.log(JSON.stringify(out));
