// The official TypeScript SDK client completing OAuth against an MCP server it knows nothing
// about: it is refused with 401, follows `resource_metadata` to the protected-resource
// metadata, discovers the authorization server, gets a token (for the resource the metadata
// names), then lists the tools and calls one.
//
//   node oauth-client.mjs MCP_URL TOOL ARGUMENTS_JSON ISSUER [SCOPE] [GRANT]
//
// GRANT is `client_credentials` (the default) or `authorization_code`: authorization code
// with PKCE as a public client, the sign-in page being the authorization server's redirect
// (followed here as a browser would) back to the client's redirect URI with the code.
//
// Prints one JSON line: {"ok": true, "tools": [names], "result": {...}, "flow": {...}} or
// {"ok": false, "error": "..."}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const [url, tool, argsJson, issuer, scope, grant = "client_credentials"] = process.argv.slice(2);

/// An authorization-code client kept in memory: a pre-registered public client id.
function codeProvider() {
  const redirectUrl = "http://127.0.0.1:1/callback";
  const memory = { tokens: undefined, verifier: undefined, authorizationUrl: undefined };
  return {
    memory,
    get redirectUrl() {
      return redirectUrl;
    },
    get clientMetadata() {
      return {
        client_name: "mcpgen-oauth-e2e",
        redirect_uris: [redirectUrl],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        scope,
      };
    },
    clientInformation: () => ({ client_id: "e2e-app" }),
    tokens: () => memory.tokens,
    saveTokens: (tokens) => {
      memory.tokens = tokens;
    },
    redirectToAuthorization: (authorizationUrl) => {
      memory.authorizationUrl = authorizationUrl;
    },
    saveCodeVerifier: (verifier) => {
      memory.verifier = verifier;
    },
    codeVerifier: () => memory.verifier,
  };
}

async function connect(provider) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  const client = new Client({ name: "mcpgen-oauth-e2e", version: "0.0.0" });
  await client.connect(transport);
  return { client, transport };
}

let out;
let client;
try {
  let flow = { grant };
  if (grant === "authorization_code") {
    const provider = codeProvider();
    try {
      ({ client } = await connect(provider));
      throw new Error("connected without signing in");
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
    }
    // The "browser": the authorization server answers with a redirect carrying the code.
    const authorize = provider.memory.authorizationUrl;
    const answer = await fetch(authorize, { redirect: "manual" });
    const location = new URL(answer.headers.get("location"));
    const code = location.searchParams.get("code");
    if (!code) throw new Error(`no code in the redirect: ${location}`);
    const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
    await transport.finishAuth(code);
    flow = {
      grant,
      authorize: `${authorize.origin}${authorize.pathname}`,
      pkce: authorize.searchParams.get("code_challenge_method"),
      resource: authorize.searchParams.get("resource"),
      scope: authorize.searchParams.get("scope"),
      redirect: `${location.origin}${location.pathname}`,
    };
    ({ client } = await connect(provider));
  } else {
    const provider = new ClientCredentialsProvider({
      clientId: "e2e-service",
      clientSecret: "e2e-secret",
      expectedIssuer: issuer,
      scope,
    });
    ({ client } = await connect(provider));
  }
  const { tools } = await client.listTools();
  const result = await client.callTool({ name: tool, arguments: JSON.parse(argsJson) });
  out = {
    ok: true,
    flow,
    tools: tools.map((t) => t.name),
    result: {
      isError: Boolean(result.isError),
      text: (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text),
    },
  };
} catch (error) {
  out = { ok: false, error: String(error?.stack ?? error?.message ?? error) };
} finally {
  await client?.close().catch(() => {});
}
console.log(JSON.stringify(out));
