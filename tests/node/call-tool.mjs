// Lists the tools of an MCP server and calls one, with the official TypeScript SDK client.
//
//   node call-tool.mjs stdio TOOL ARGS_JSON -- COMMAND [ARG...]
//   node call-tool.mjs http TOOL ARGS_JSON URL [HEADER=VALUE...]
//
// Prints one JSON line: {"ok": true, "isError": ..., "structuredContent": ..., "text": [...]}
// when the client accepted the result, or {"ok": false, "error": "..."} when the client threw
// (for example because structured content does not match the tool's outputSchema).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, tool, argsJson, ...rest] = process.argv.slice(2);
const args = JSON.parse(argsJson);

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
  await client.listTools();
  try {
    const result = await client.callTool({ name: tool, arguments: args });
    out = {
      ok: true,
      isError: Boolean(result.isError),
      structuredContent: result.structuredContent ?? null,
      text: (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text),
    };
  } catch (error) {
    out = { ok: false, error: String(error?.message ?? error) };
  }
} finally {
  await client.close().catch(() => {});
}
console.log(JSON.stringify(out));
