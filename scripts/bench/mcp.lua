-- wrk script for scripts/bench.sh.
-- BENCH_MODE: "call" (tools/call of BENCH_TOOL), "list" (tools/list), "session"
-- (tools/call in the session BENCH_SESSION) or "get" (plain GET, the path comes from the URL).
-- BENCH_KEY: an X-API-Key to send (optional).
-- BENCH_TOOL: the tool that "call" and "session" call (default synaplan_list_prompts; the
-- peers of --peers name the same operation differently). Its only argument is language=en.
-- "call" and "list" send one stateless JSON-RPC request of the 2026-07-28 protocol: no session,
-- the protocol version and client info in the request's _meta and headers. "session" sends the
-- call of the session era (2025-11-25) in a session that bench.sh initialized.
local mode = os.getenv("BENCH_MODE") or "call"
local key = os.getenv("BENCH_KEY")
local session = os.getenv("BENCH_SESSION")
local tool = os.getenv("BENCH_TOOL")
if tool == nil or tool == "" then
  tool = "synaplan_list_prompts"
end

local meta = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
  .. '"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},'
  .. '"io.modelcontextprotocol/clientCapabilities":{}}'

if mode == "session" then
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Accept"] = "application/json, text/event-stream"
  wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
  wrk.headers["Mcp-Session-Id"] = session
  -- Requests in flight in one session need distinct ids: thread number and a counter.
  local threads = 0
  setup = function(thread)
    threads = threads + 1
    thread:set("thread_number", threads)
  end
  local sent = 0
  request = function()
    sent = sent + 1
    local id = thread_number * 1000000000 + sent
    return wrk.format(nil, nil, nil, '{"jsonrpc":"2.0","id":' .. id
      .. ',"method":"tools/call","params":'
      .. '{"name":"' .. tool .. '","arguments":{"language":"en"}}}')
  end
elseif mode ~= "get" then
  local method, params
  if mode == "list" then
    method = "tools/list"
    params = '{' .. meta .. '}'
  else
    method = "tools/call"
    params = '{"name":"' .. tool .. '","arguments":{"language":"en"},' .. meta .. '}'
  end
  wrk.method = "POST"
  wrk.body = '{"jsonrpc":"2.0","id":1,"method":"' .. method .. '","params":' .. params .. '}'
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Accept"] = "application/json, text/event-stream"
  wrk.headers["MCP-Protocol-Version"] = "2026-07-28"
  wrk.headers["Mcp-Method"] = method
  if mode ~= "list" then
    wrk.headers["Mcp-Name"] = tool
  end
  if key and key ~= "" then
    wrk.headers["X-API-Key"] = key
  end
end

-- One machine-readable line: requests/s, p50, p99 (microseconds), requests, errors.
done = function(summary, latency, requests)
  local e = summary.errors
  local errors = e.connect + e.read + e.write + e.status + e.timeout
  io.write(string.format("BENCH rps=%.1f p50=%d p99=%d requests=%d errors=%d\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(99), summary.requests, errors))
end
