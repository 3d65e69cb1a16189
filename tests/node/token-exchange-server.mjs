// An RFC 8693 token exchange server for the tests: the token endpoint of ts-oauth2-server
// (`@jmondi/oauth2-server` from npm), which implements the grant, on 127.0.0.1 with an
// ephemeral port. This script only configures it: one confidential client, in-memory
// repositories, and the step the library leaves to its user, turning the subject token into a
// user (here: a JWT of the test's OAuth issuer, checked against that issuer's JWKS).
//
//   node token-exchange-server.mjs ISSUER [--ttl SECONDS] [--refuse SUBJECT]...
//
// Prints {"token_endpoint": URL} once listening. Its routes:
//   POST /token      the token endpoint (client `mcp-server`, secret `exchange-secret`, HTTP
//                    basic); exchanged tokens carry `sub` = the subject token's `sub`,
//                    `aud` = the `audience` asked for, `iss` = this server's URL, and live
//                    SECONDS (default 600); subjects given with --refuse are refused
//                    (`access_denied`)
//   GET /exchanges   {"requests": N, "exchanged": {SUB: N}, "refused": {SUB: N}}: what /token
//                    was asked so far
import { createServer } from "node:http";
import { createPublicKey, randomUUID, verify } from "node:crypto";
import {
  AuthorizationServer,
  DateInterval,
  OAuthException,
  OAuthRequest,
} from "@jmondi/oauth2-server";
import { handleVanillaError } from "@jmondi/oauth2-server/vanilla";

const args = process.argv.slice(2);
const issuer = args[0];
let ttl = 600;
const refuse = new Set();
for (let i = 1; i < args.length; i += 2) {
  if (args[i] === "--ttl") ttl = Number(args[i + 1]);
  else if (args[i] === "--refuse") refuse.add(args[i + 1]);
  else throw new Error(`unknown argument ${args[i]}`);
}

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";
const client = {
  id: "mcp-server",
  name: "the MCP server under test",
  secret: "exchange-secret",
  redirectUris: [],
  allowedGrants: [TOKEN_EXCHANGE],
  scopes: [],
};
const clientRepository = {
  async getByIdentifier(id) {
    if (id !== client.id) throw OAuthException.invalidClient();
    return client;
  },
  async isClientValid(grantType, found, secret) {
    return found.allowedGrants.includes(grantType) && secret === found.secret;
  },
};
const tokens = new Map();
const tokenRepository = {
  async issueToken(forClient, scopes, user) {
    return {
      accessToken: randomUUID(),
      accessTokenExpiresAt: new Date(),
      client: forClient,
      user,
      scopes,
    };
  },
  async persist(token) {
    tokens.set(token.accessToken, token);
  },
  async issueRefreshToken(token) {
    return token;
  },
  async revoke(token) {
    tokens.delete(token.accessToken);
  },
  async isRefreshTokenRevoked() {
    return true;
  },
  async getByRefreshToken() {
    throw OAuthException.invalidGrant();
  },
};
const scopeRepository = {
  async getAllByIdentifiers(names) {
    return names.map((name) => ({ name }));
  },
  async finalize(scopes) {
    return scopes;
  },
};

/** The issuer's public key for `kid`, from the JWKS its metadata names. */
async function issuerKey(kid) {
  const metadata = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json();
  const jwks = await (await fetch(metadata.jwks_uri)).json();
  const jwk = jwks.keys.find((k) => k.kid === kid);
  if (!jwk) throw OAuthException.invalidGrant("the subject token's key is unknown");
  return createPublicKey({ key: jwk, format: "jwk" });
}

/** The claims of `token`, a JWT the issuer signed (RS256) that has not expired. */
async function verifiedClaims(token) {
  const parts = token.split(".");
  if (parts.length !== 3) throw OAuthException.invalidGrant("the subject token is not a JWT");
  const decode = (part) => JSON.parse(Buffer.from(part, "base64url").toString());
  const header = decode(parts[0]);
  const claims = decode(parts[1]);
  const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
  const signature = Buffer.from(parts[2], "base64url");
  if (header.alg !== "RS256" || !verify("RSA-SHA256", signed, await issuerKey(header.kid), signature)) {
    throw OAuthException.invalidGrant("the subject token's signature does not verify");
  }
  if (claims.iss !== issuer) throw OAuthException.invalidGrant("the subject token is of another issuer");
  if (!(claims.exp > Date.now() / 1000)) throw OAuthException.invalidGrant("the subject token has expired");
  return claims;
}

let requests = 0;
const exchanged = {};
const refused = {};

const server = createServer(async (req, res) => {
  const url = new URL(req.url, "http://127.0.0.1");
  const reply = (status, body) => {
    res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
    res.end(JSON.stringify(body));
  };
  if (req.method === "GET" && url.pathname === "/exchanges") {
    return reply(200, { requests, exchanged, refused });
  }
  if (req.method !== "POST" || url.pathname !== "/token") return reply(404, { error: "not_found" });
  requests += 1;
  let text = "";
  for await (const chunk of req) {
    text += chunk;
    if (text.length > 64 * 1024) return reply(413, { error: "invalid_request" });
  }
  const body = (req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")
    ? Object.fromEntries(new URLSearchParams(text))
    : {};
  const request = new OAuthRequest({ headers: req.headers, body, query: Object.fromEntries(url.searchParams) });
  try {
    const answer = await authorizationServer.respondToAccessTokenRequest(request);
    reply(answer.status, answer.body);
  } catch (error) {
    if (!(error instanceof OAuthException)) console.error(error);
    const answer = handleVanillaError(error);
    reply(answer.status, answer.body);
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const authorizationServer = new AuthorizationServer(
  clientRepository,
  tokenRepository,
  scopeRepository,
  randomUUID(),
  { issuer: base },
);
authorizationServer.enableGrantType(
  {
    grant: TOKEN_EXCHANGE,
    async processTokenExchange({ subjectToken, subjectTokenType }) {
      if (subjectTokenType !== ACCESS_TOKEN_TYPE) {
        throw OAuthException.badRequest("only access tokens are exchanged");
      }
      const claims = await verifiedClaims(subjectToken);
      if (refuse.has(claims.sub)) {
        refused[claims.sub] = (refused[claims.sub] ?? 0) + 1;
        throw OAuthException.accessDenied(`${claims.sub} may not reach the API`);
      }
      exchanged[claims.sub] = (exchanged[claims.sub] ?? 0) + 1;
      return { id: claims.sub };
    },
  },
  new DateInterval(`${ttl}s`),
);

console.log(JSON.stringify({ token_endpoint: `${base}/token` }));
