// Runs a task tool as a task with the official TypeScript SDK client, which speaks the tasks of
// the 2025-11-25 revision over a Streamable HTTP session.
//
//   node tasks-2025.mjs URL KEY OTHER_KEY TOOL ARGS_JSON SLOW_ARGS_JSON
//
// With KEY: lists the tools, runs TOOL with ARGS_JSON through the SDK's task stream
// (`tools/call` with `task`, then `tasks/get` until it ends, then `tasks/result`), reads the
// task again with `tasks/get`, `tasks/result` and `tasks/list`, and calls TOOL without a task.
// With OTHER_KEY (another principal): `tasks/get` of that task and `tasks/list`. Then starts
// TOOL with SLOW_ARGS_JSON as a task, stops following it once created, cancels it and cancels
// it again. Prints one JSON line with what each step gave ({"error": message} for a refusal).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";

const [url, key, otherKey, tool, argsJson, slowArgsJson] = process.argv.slice(2);

async function connect(apiKey) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { "X-API-Key": apiKey } },
  });
  const client = new Client({ name: "mcpgen-tasks-2025", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

async function attempt(step) {
  try {
    return await step();
  } catch (error) {
    return { error: String(error?.message ?? error), code: error?.code ?? null };
  }
}

const out = {};
const clients = [];
try {
  const client = await connect(key);
  clients.push(client);
  out.protocolVersion = client.transport?.protocolVersion ?? null;
  out.capabilities = client.getServerCapabilities() ?? null;
  const { tools } = await client.listTools();
  out.execution = tools.find((t) => t.name === tool)?.execution ?? null;

  // The task stream: created at once, polled, then its result.
  const started = Date.now();
  const stream = [];
  for await (const message of client.experimental.tasks.callToolStream(
    { name: tool, arguments: JSON.parse(argsJson) },
    CallToolResultSchema,
    { task: { ttl: 60000 } },
  )) {
    const at = Date.now() - started;
    if (message.type === "taskCreated") stream.push({ type: message.type, at, task: message.task });
    else if (message.type === "taskStatus") stream.push({ type: message.type, at, status: message.task.status });
    else if (message.type === "result") stream.push({ type: message.type, at, result: message.result });
    else stream.push({ type: message.type, at, error: String(message.error?.message ?? message.error) });
  }
  out.stream = stream;
  const taskId = stream.find((m) => m.type === "taskCreated")?.task?.taskId;
  out.taskId = taskId ?? null;
  out.get = await attempt(() => client.experimental.tasks.getTask(taskId));
  out.result = await attempt(() => client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema));
  out.list = await attempt(() => client.experimental.tasks.listTasks());
  out.plain = await attempt(() => client.callTool({ name: tool, arguments: JSON.parse(argsJson) }));

  // Another principal sees no such task.
  const other = await connect(otherKey);
  clients.push(other);
  out.otherGet = await attempt(() => other.experimental.tasks.getTask(taskId));
  out.otherList = await attempt(() => other.experimental.tasks.listTasks());

  // A task that never ends: followed until created, then cancelled (twice).
  let slowTask = null;
  for await (const message of client.experimental.tasks.callToolStream(
    { name: tool, arguments: JSON.parse(slowArgsJson) },
    CallToolResultSchema,
    { task: {} },
  )) {
    if (message.type === "taskCreated") {
      slowTask = message.task;
      break;
    }
  }
  out.slowCreated = slowTask;
  await new Promise((resolve) => setTimeout(resolve, 1500));
  out.slowBefore = await attempt(() => client.experimental.tasks.getTask(slowTask.taskId));
  out.cancel = await attempt(() => client.experimental.tasks.cancelTask(slowTask.taskId));
  out.afterCancel = await attempt(() => client.experimental.tasks.getTask(slowTask.taskId));
  out.cancelAgain = await attempt(() => client.experimental.tasks.cancelTask(slowTask.taskId));
  out.slowResult = await attempt(() =>
    client.experimental.tasks.getTaskResult(slowTask.taskId, CallToolResultSchema),
  );
  out.ok = true;
} catch (error) {
  out.ok = false;
  out.error = String(error?.stack ?? error);
} finally {
  for (const client of clients) await client.close().catch(() => {});
}
console.log(JSON.stringify(out));
