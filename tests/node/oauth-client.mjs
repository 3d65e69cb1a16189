// The official TypeScript SDK client completing OAuth against an MCP server it knows nothing
// about: it is refused with 401, follows `resource_metadata` to the protected-resource
// metadata, discovers the authorization server, gets a token with the client credentials
// grant (for the resource the metadata names), then lists the tools and calls one.
//
//   node oauth-client.mjs MCP_URL TOOL ARGUMENTS_JSON ISSUER [SCOPE]
//
// Prints one JSON line: {"ok": true, "tools": [names], "result": {...}} or
// {"ok": false, "error": "..."}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";

const [url, tool, argsJson, issuer, scope] = process.argv.slice(2);
const provider = new ClientCredentialsProvider({
  clientId: "e2e-service",
  clientSecret: "e2e-secret",
  expectedIssuer: issuer,
  scope,
});
const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
const client = new Client({ name: "mcpgen-oauth-e2e", version: "0.0.0" });

let out;
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const result = await client.callTool({ name: tool, arguments: JSON.parse(argsJson) });
  out = {
    ok: true,
    tools: tools.map((t) => t.name),
    result: {
      isError: Boolean(result.isError),
      text: (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text),
    },
  };
} catch (error) {
  out = { ok: false, error: String(error?.stack ?? error?.message ?? error) };
} finally {
  await client.close().catch(() => {});
}
console.log(JSON.stringify(out));
