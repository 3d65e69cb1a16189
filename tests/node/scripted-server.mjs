// A tiny MCP stdio server whose misbehaviour the client tests script.
//
//   node scripted-server.mjs LOG_FILE
//
// Every message received is appended to LOG_FILE as one JSON line. Tools:
//   echo {text}   answers `text`
//   big {bytes}   answers a text block of `bytes` bytes
//   hang {}       never answers
// With SCRIPTED_IGNORE_EOF=1 the process keeps running after its stdin closes (so a client
// has to kill it).
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

const log = process.argv[2];
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const reply = (id, result) => send({ jsonrpc: "2.0", id, result });
const fail = (id, code, message) => send({ jsonrpc: "2.0", id, error: { code, message } });

const object = { type: "object" };
const tools = [
  { name: "echo", description: "Answer the text", inputSchema: object },
  { name: "big", description: "Answer `bytes` bytes of text", inputSchema: object },
  { name: "hang", description: "Never answer", inputSchema: object },
];

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (log) appendFileSync(log, line + "\n");
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  const { id, method, params } = message;
  if (id === undefined) return; // a notification: logged above
  switch (method) {
    case "initialize":
      return reply(id, {
        protocolVersion: params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "scripted", version: "0.0.1" },
      });
    case "ping":
      return reply(id, {});
    case "tools/list":
      return reply(id, { tools });
    case "tools/call": {
      const args = params?.arguments ?? {};
      switch (params?.name) {
        case "echo":
          return reply(id, { content: [{ type: "text", text: String(args.text ?? "") }] });
        case "big":
          return reply(id, { content: [{ type: "text", text: "x".repeat(Number(args.bytes ?? 0)) }] });
        case "hang":
          return;
        default:
          return fail(id, -32602, `unknown tool ${params?.name}`);
      }
    }
    default:
      return fail(id, -32601, `method not found: ${method}`);
  }
});
lines.on("close", () => {
  if (process.env.SCRIPTED_IGNORE_EOF === "1") {
    setInterval(() => {}, 1000);
  } else {
    process.exit(0);
  }
});
