// A real OAuth 2.1 authorization server for the tests (oauth2-mock-server from npm), on
// 127.0.0.1 with an ephemeral port, driven over stdin/stdout with one JSON object per line.
//
//   node oauth-server.mjs
//
// Prints {"issuer": URL, "kid": KID} once listening, then answers each command line:
//   {"op": "token", "kid"?, "expiresIn"?, "claims": {...}}  -> {"token": JWT}
//     (`sub` defaults to "alice"; each claim given replaces the one the server would set)
//   {"op": "rotate", "alg"?}  -> {"kid": KID} (a new key, published in the JWKS from now on)
//   {"op": "jwks"}            -> {"jwks": {...}} (the public keys)
//   {"op": "opaque", "token": T, "claims": {...}} -> {} (introspection of T answers active
//                                with these claims; any other token is inactive)
//   {"op": "introspections"}  -> {"count": N, "authenticated": bool} (calls of /introspect so
//                                far, and whether each carried client credentials)
// Tokens from its /token endpoint (the flows clients run) carry `aud` = the `resource`
// parameter the client sent (RFC 8707) and `sub` = the client id; its /authorize endpoint
// redirects straight back with a code (no login page), and the token for that code carries
// the scope asked for there.
import { createInterface } from "node:readline";
import { OAuth2Server, Events } from "oauth2-mock-server";

// The built-in introspection endpoint moves aside: ours at /introspect reads the form body.
const server = new OAuth2Server(undefined, undefined, {
  endpoints: { introspect: "/builtin-introspect" },
});
const first = await server.issuer.keys.generate("RS256");
// The scope a person approved at /authorize, by the code it was redirected with: the token
// for that code carries it (the server itself would give authorization codes scope "dummy").
const approved = new Map();
server.service.on(Events.BeforeAuthorizeRedirect, (redirect, req) => {
  const code = redirect.url.searchParams.get("code");
  if (code && typeof req.query?.scope === "string") approved.set(code, req.query.scope);
});
server.service.on(Events.BeforeTokenSigning, (token, req) => {
  const body = req.body ?? {};
  if (body.resource) token.payload.aud = body.resource;
  if (body.grant_type === "authorization_code" && approved.has(body.code)) {
    token.payload.scope = approved.get(body.code);
  }
  const basic = (req.headers.authorization ?? "").replace(/^Basic\s+/i, "");
  const clientId = body.client_id ?? (basic ? Buffer.from(basic, "base64").toString().split(":")[0] : undefined);
  token.payload.sub = decodeURIComponent(clientId ?? "anonymous-client");
});
const opaque = new Map();
let introspections = 0;
let authenticated = true;
server.service.addRoute("POST", "/introspect", (req, res) => {
  introspections += 1;
  authenticated &&= /^Basic\s+/i.test(req.headers.authorization ?? "");
  const claims = opaque.get(req.body?.token);
  const body = claims ? { active: true, ...claims } : { active: false };
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
});
await server.start(0, "127.0.0.1");
console.log(JSON.stringify({ issuer: server.issuer.url, kid: first.kid }));

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  let out;
  try {
    const cmd = JSON.parse(line);
    if (cmd.op === "token") {
      const token = await server.issuer.buildToken({
        kid: cmd.kid ?? first.kid,
        expiresIn: cmd.expiresIn ?? 600,
        scopesOrTransform: (header, payload) => {
          payload.sub = "alice";
          Object.assign(payload, cmd.claims ?? {});
        },
      });
      out = { token };
    } else if (cmd.op === "rotate") {
      const key = await server.issuer.keys.generate(cmd.alg ?? "RS256");
      out = { kid: key.kid };
    } else if (cmd.op === "opaque") {
      opaque.set(cmd.token, cmd.claims ?? {});
      out = {};
    } else if (cmd.op === "introspections") {
      out = { count: introspections, authenticated };
    } else if (cmd.op === "jwks") {
      out = { jwks: server.issuer.keys.toJSON() };
    } else {
      out = { error: `unknown op ${cmd.op}` };
    }
  } catch (error) {
    out = { error: String(error?.message ?? error) };
  }
  console.log(JSON.stringify(out));
}
await server.stop();
