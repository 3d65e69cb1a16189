#!/usr/bin/env bash
# Instructions per stateless `tools/call`, counted by valgrind's callgrind (repeatable whatever
# else the machine is doing, unlike wrk's figures): the Synaplan server's `profiling` build (the
# release profile with symbols) proxies `synaplan_list_prompts` to a static nginx upstream; 50
# warm-up calls on one keep-alive connection, then 500 counted ones.
#
#   scripts/bench/callgrind.sh                 --no-auth
#   scripts/bench/callgrind.sh --keys FILE ... any other server flags instead of --no-auth
#   MCPGEN_BENCH_KEY=KEY scripts/bench/callgrind.sh --keys FILE   each call sends X-API-Key: KEY
#
#   MCPGEN_CALLGRIND_OUT=FILE scripts/bench/callgrind.sh ...   also keeps callgrind's output in
#                                                            FILE (for callgrind_annotate)
#   MCPGEN_PROFILING_BIN=FILE scripts/bench/callgrind.sh ...   profiles that binary instead of
#                                                            building one
#
# The server's log level is RUST_LOG's (its own default when unset: each call's audit record at
# INFO, as a server with no audit log writes it; RUST_LOG=info,rmcp=warn,mcpgen::audit=off
# leaves that line out, as the load figures of scripts/bench.sh do).
#
# Prints one line: instructions per call. Needs valgrind, nginx (apt-get) and python3.
set -euo pipefail
cd "$(dirname "$0")/../.."

for tool in valgrind callgrind_control python3; do
  command -v "$tool" >/dev/null || { echo "callgrind.sh: $tool is missing (apt-get install valgrind)" >&2; exit 1; }
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x "$NGINX" ]] || { echo "callgrind.sh: nginx is missing (apt-get install nginx-light)" >&2; exit 1; }

server_bin=${MCPGEN_PROFILING_BIN:-}
if [[ -z $server_bin ]]; then
  echo "building synaplan-mcp with the profiling profile" >&2
  cargo build --quiet --locked --profile profiling -p synaplan-mcp
  server_bin=${CARGO_TARGET_DIR:-target}/profiling/synaplan-mcp
fi

work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_http() { for _ in $(seq 1 600); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.1; done; echo "callgrind.sh: $1 never answered" >&2; exit 1; }

nginx_port=$(free_port)
mkdir -p "$work/nginx"
cp scripts/bench/prompts.json "$work/nginx/"
chmod 755 "$work" "$work/nginx" && chmod 644 "$work/nginx/prompts.json"
sed -e "s#@DIR@#$work/nginx#g" -e "s#@PORT@#$nginx_port#g" scripts/bench/nginx.conf.template >"$work/nginx/nginx.conf"
"$NGINX" -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/nginx-error.log" &
pids+=($!)
wait_http "http://127.0.0.1:$nginx_port/api/v1/prompts"

flags=("$@")
[[ ${#flags[@]} -gt 0 ]] || flags=(--no-auth)
port=$(free_port)
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/callgrind.out" \
  "$server_bin" --transport http --listen "127.0.0.1:$port" \
  --upstream-url "http://127.0.0.1:$nginx_port" "${flags[@]}" >"$work/server.log" 2>&1 &
server_pid=$!
pids+=("$server_pid")
wait_http "http://127.0.0.1:$port/healthz"

python3 - "$port" "$server_pid" "${MCPGEN_BENCH_KEY:-}" <<'EOF'
import http.client, json, subprocess, sys
port, pid, key = int(sys.argv[1]), sys.argv[2], sys.argv[3]
body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
    "name": "synaplan_list_prompts", "arguments": {"language": "en"},
    "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
              "io.modelcontextprotocol/clientCapabilities": {}}}})
headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
           "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
           "Mcp-Name": "synaplan_list_prompts"}
if key:
    headers["X-API-Key"] = key
conn = http.client.HTTPConnection("127.0.0.1", port)
def call():
    conn.request("POST", "/mcp", body, headers)
    answer = conn.getresponse().read()
    result = json.loads(answer)["result"]
    assert result.get("isError") is not True, result
for _ in range(50):
    call()
subprocess.run(["callgrind_control", "-i", "on", pid], check=True, stdout=subprocess.DEVNULL)
for _ in range(500):
    call()
subprocess.run(["callgrind_control", "-i", "off", pid], check=True, stdout=subprocess.DEVNULL)
EOF

kill -TERM "$server_pid"
wait "$server_pid" 2>/dev/null || true
total=$(grep -h '^totals:' "$work"/callgrind.out* | awk '{s += $2} END {print s}')
if [[ -n ${MCPGEN_CALLGRIND_OUT:-} ]]; then
  cat "$work"/callgrind.out* >"$MCPGEN_CALLGRIND_OUT"
fi
echo "instructions per call: $((total / 500)) ($total over 500 calls; flags: ${flags[*]})"
