#!/usr/bin/env bash
# The load-and-fault run: two replicas of the generated Synaplan server (release build) behind
# nginx, audit to PostgreSQL (`--audit-fsync always`), shared rate limits in Redis, API keys,
# and a stand-in upstream, all on loopback. `mcpgen-load run` drives CLIENTS concurrent clients
# (half of them in the session era, half stateless) making CALLS `tools/call`s each, and injects
# faults during the run: kill -9 of a replica (restarted later), a PostgreSQL restart, a Redis
# restart, and an upstream that hangs, then refuses connections, then answers 500. Afterwards it
# checks the audit invariant against every call's outcome and writes LOAD.md. Not part of
# scripts/test.sh.
#
#   scripts/load.sh                    100 clients x 10,000 calls (1,000,000 calls)
#   --clients N   (default 100)
#   --calls N     (default 10000)      calls per client
#   --out FILE    (default LOAD.md)
#   --no-build                         use the release binaries as they are
#   --spool [RUNS] (default 10)        instead: two replicas named a and b in one working
#                                      directory, 2,000 calls each run, PostgreSQL restarted
#                                      three times during them (the test
#                                      two_named_replicas_keep_every_acknowledged_call_once_...
#                                      of tests/tests/audit_spool.rs, RUNS times); writes its
#                                      section of LOAD.md, keeping the rest
#
# Needs nginx, PostgreSQL and Redis (installed with apt-get when missing), curl, python3, cargo.
# As root, PostgreSQL runs as the `postgres` user (runuser).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

invocation="scripts/load.sh${*:+ $*}"
clients=100
calls=10000
out=LOAD.md
build=1
spool_runs=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --clients) clients=$2; shift ;;
    --calls) calls=$2; shift ;;
    --out) out=$2; shift ;;
    --no-build) build=0 ;;
    --spool) spool_runs=10; if [[ ${2:-} =~ ^[0-9]+$ ]]; then spool_runs=$2; shift; fi ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

log() { printf '== %s\n' "$*" >&2; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# --- the spool runs (--spool) ------------------------------------------------------------------
if [[ $spool_runs -gt 0 ]]; then
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || {
    log "installing postgresql"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  }
  log "building synaplan-mcp with PostgreSQL, and the spool test"
  cargo build --locked -p synaplan-mcp --features postgres,sqlite,redis,otel
  spool_log=$(mktemp /tmp/mcpgen-spool.XXXXXX)
  started_load=$(loadavg)
  MCPGEN_SPOOL_RUNS=$spool_runs cargo test --locked -p mcpgen-tests --test main \
    audit_spool::two_named_replicas_keep_every_acknowledged_call_once -- --nocapture 2>&1 | tee "$spool_log" >&2
  mark='<!-- scripts/load.sh --spool -->'
  {
    echo "$mark"
    echo
    echo "## Two replicas, one working directory, PostgreSQL restarted"
    echo
    echo "Written by \`$invocation\`. Two replicas of \`synaplan-mcp\` (debug build, as scripts/test.sh builds it) started from one working directory with \`--replica-name a\` and \`b\` and the default spool (\`mcpgen-audit.a.spool\`, \`mcpgen-audit.b.spool\`), audit to one PostgreSQL with the default \`--audit-fsync batch\`; 8 clients make 2,000 \`tools/call\`s per run across both, while PostgreSQL is stopped and started three times. Machine: 2 cores, shared; load average $started_load at the start and $(loadavg) at the end."
    echo
    echo "| run | calls | acknowledged | rows | acknowledged without a row | ids with two rows or more | seconds |"
    echo "|---:|---:|---:|---:|---:|---:|---:|"
    sed -n 's/^spool run \([0-9]*\)\/[0-9]*: calls \([0-9]*\), acknowledged \([0-9]*\), rows \([0-9]*\), acknowledged without a row \([0-9]*\), ids with two rows or more \([0-9]*\), \([0-9.]*\) s$/| \1 | \2 | \3 | \4 | \5 | \6 | \7 |/p' "$spool_log"
    echo
    if grep -q "test result: ok" "$spool_log"; then
      echo "Every acknowledged call has exactly one row in every run: **holds**."
    else
      echo "The invariant **does not hold**: see the failing run above."
    fi
  } > "$spool_log.md"
  if [[ -f $out ]] && grep -qF "$mark" "$out"; then
    sed -n "1,/^$mark\$/p" "$out" | sed '$d' > "$spool_log.head"
  elif [[ -f $out ]]; then
    { cat "$out"; echo; } > "$spool_log.head"
  else
    : > "$spool_log.head"
  fi
  cat "$spool_log.head" "$spool_log.md" > "$out"
  rm -f "$spool_log" "$spool_log.md" "$spool_log.head"
  tail -n 20 "$out"
  exit 0
fi

# --- tools -----------------------------------------------------------------------------------
missing=()
command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || missing+=(nginx)
command -v redis-server >/dev/null || missing+=(redis-server)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
command -v curl >/dev/null || missing+=(curl)
if [[ ${#missing[@]} -gt 0 ]]; then
  log "installing ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)

target=${CARGO_TARGET_DIR:-$root/target}
if [[ $build == 1 ]]; then
  log "building (release): synaplan-mcp with PostgreSQL and Redis, and the load driver"
  cargo build --release --locked -p synaplan-mcp --features postgres,redis
  cargo build --release --locked -p mcpgen-tests --bin mcpgen-load
fi
server_bin=$target/release/synaplan-mcp
driver=$target/release/mcpgen-load

# --- processes -------------------------------------------------------------------------------
work=$(mktemp -d /tmp/mcpgen-load.XXXXXX)
chmod 755 "$work"
as_postgres=()
if [[ $(id -u) == 0 ]]; then as_postgres=(runuser -u postgres --); fi
cleanup() {
  local status=$? f
  set +e
  for f in "$work"/sampler.pid "$work"/*.pid "$work"/nginx/nginx.pid; do
    if [[ -f $f ]]; then kill "$(cat "$f")" 2>/dev/null; fi
  done
  if [[ -d $work/pg ]]; then
    "${as_postgres[@]}" "$PGBIN/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1
  fi
  sleep 0.5
  if [[ $status == 0 ]]; then rm -rf "$work"; else echo "logs kept in $work" >&2; fi
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_http() { # URL: until it answers 200 (at most 30 s)
  local i
  for i in $(seq 1 300); do
    curl -sf -o /dev/null "$1" && return 0
    sleep 0.1
  done
  echo "no answer from $1" >&2
  return 1
}

pg_port=$(free_port); redis_port=$(free_port); upstream_port=$(free_port)
a_port=$(free_port); b_port=$(free_port); nginx_port=$(free_port)
a_metrics=$(free_port); b_metrics=$(free_port)

log "PostgreSQL on 127.0.0.1:$pg_port"
mkdir -p "$work/pg" "$work/pg-log"
if [[ $(id -u) == 0 ]]; then chown postgres:postgres "$work/pg" "$work/pg-log"; fi
"${as_postgres[@]}" "$PGBIN/initdb" -U postgres -A trust --no-sync -D "$work/pg" >/dev/null
cat > "$work/pg.sh" <<SH
#!/usr/bin/env bash
# pg.sh start|stop|restart [SECONDS down]
set -e
pg() { ${as_postgres[*]} "$PGBIN/pg_ctl" -D "$work/pg" -l "$work/pg-log/pg.log" "\$@" >/dev/null; }
case \$1 in
  start) pg -w -o "-p $pg_port -k $work/pg -c listen_addresses=127.0.0.1 -c max_connections=200" start ;;
  stop) pg -m fast -w stop ;;
  restart) pg -m fast -w stop; sleep "\${2:-5}"; pg -w -o "-p $pg_port -k $work/pg -c listen_addresses=127.0.0.1 -c max_connections=200" start ;;
esac
SH
cat > "$work/redis.sh" <<SH
#!/usr/bin/env bash
# redis.sh start|restart [SECONDS down]
set -e
start() {
  redis-server --port $redis_port --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
    --pidfile "$work/redis.pid" --logfile "$work/redis.log"
}
case \$1 in
  start) start ;;
  restart) kill -9 "\$(cat "$work/redis.pid")"; rm -f "$work/redis.pid"; sleep "\${2:-5}"; start ;;
esac
SH
cat > "$work/upstream.sh" <<SH
#!/usr/bin/env bash
# upstream.sh start|stop|mode MODE
set -e
case \$1 in
  start) "$driver" upstream --listen 127.0.0.1:$upstream_port >>"$work/upstream.log" 2>&1 &
         echo \$! > "$work/upstream.pid" ;;
  stop) { curl -sf http://127.0.0.1:$upstream_port/_load/count; echo; } >> "$work/upstream-served.txt"
        kill -9 "\$(cat "$work/upstream.pid")"; rm -f "$work/upstream.pid" ;;
  mode) curl -sf -X PUT --data "\$2" http://127.0.0.1:$upstream_port/_load/mode ;;
esac
SH
cat > "$work/replica.sh" <<SH
#!/usr/bin/env bash
# replica.sh start|kill NAME
set -e
port() { case \$1 in a) echo $a_port ;; b) echo $b_port ;; esac; }
metrics_port() { case \$1 in a) echo $a_metrics ;; b) echo $b_metrics ;; esac; }
case \$1 in
  start)
    "$server_bin" --transport http --listen "127.0.0.1:\$(port \$2)" \
      --upstream-url http://127.0.0.1:$upstream_port --upstream-timeout 2 \
      --upstream-breaker-cooldown 2 \
      --keys "$work/keys.yaml" --replica-name "\$2" \
      --audit-db "postgres://postgres@127.0.0.1:$pg_port/postgres" --audit-fsync always \
      --audit-db-spool "$work/spool-\$2.jsonl" \
      --rate-limit-redis "redis://127.0.0.1:$redis_port" --rate-limit-redis-unavailable open \
      --metrics-listen "127.0.0.1:\$(metrics_port \$2)" --log-format json >>"$work/replica-\$2.log" 2>&1 &
    echo \$! > "$work/replica-\$2.pid" ;;
  kill) kill -9 "\$(cat "$work/replica-\$2.pid")" ;;
esac
SH
chmod +x "$work"/*.sh

# Nine keys without a limit of their own, and one limited to 20 calls a second (shared by both
# replicas through Redis): its clients meet the intended rate limit.
{
  echo "keys:"
  for i in 0 1 2 3 4 5 6 7 8; do
    printf '  - id: k%s\n    key: load-key-%s-0123456789abcdef\n    principal: p%s\n    scopes: [\x27mcp:*\x27]\n' "$i" "$i" "$i"
  done
  printf '  - id: limited\n    key: load-key-limited-0123456789\n    principal: limited\n    scopes: [\x27mcp:*\x27]\n    rate_limit: 20\n'
} > "$work/keys.yaml"
key_flags=()
for i in 0 1 2 3 4 5 6 7 8; do key_flags+=(--key "load-key-$i-0123456789abcdef"); done
key_flags+=(--key load-key-limited-0123456789)

"$work/pg.sh" start
log "Redis on 127.0.0.1:$redis_port"
"$work/redis.sh" start
log "upstream stand-in on 127.0.0.1:$upstream_port"
"$work/upstream.sh" start
wait_http "http://127.0.0.1:$upstream_port/_load/count"
log "replicas a (127.0.0.1:$a_port) and b (127.0.0.1:$b_port)"
"$work/replica.sh" start a
"$work/replica.sh" start b
wait_http "http://127.0.0.1:$a_port/readyz"
wait_http "http://127.0.0.1:$b_port/readyz"
log "nginx on 127.0.0.1:$nginx_port"
mkdir -p "$work/nginx"
sed -e "s#@DIR@#$work/nginx#g" -e "s#@PORT@#$nginx_port#g" -e "s#@A@#$a_port#g" -e "s#@B@#$b_port#g" \
  scripts/load/nginx.conf.template > "$work/nginx/nginx.conf"
"$NGINX" -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/nginx-error.log" &
wait_http "http://127.0.0.1:$nginx_port/healthz"

# RSS of each replica (kB) every 2 s: seconds since start, replica, pid, VmRSS.
(
  start=$(date +%s)
  while true; do
    for r in a b; do
      pid=$(cat "$work/replica-$r.pid" 2>/dev/null || true)
      rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
      [[ -n $rss ]] && echo "$(( $(date +%s) - start )) $r $pid $rss" >> "$work/rss.txt"
    done
    sleep 2
  done
) &
echo $! > "$work/sampler.pid"
sleep 3

load_start=$(loadavg)
log "load: $clients clients x $calls calls"
"$driver" run --url "http://127.0.0.1:$nginx_port/mcp" --clients "$clients" --calls "$calls" \
  "${key_flags[@]}" --outcomes "$work/outcomes.tsv" --report "$work/report.json" \
  --at "0.10:kill -9 of replica b (restarted 10 s later):$work/replica.sh kill b; sleep 10; $work/replica.sh start b" \
  --at "0.30:PostgreSQL restart (5 s down):$work/pg.sh restart 5" \
  --at "0.45:Redis restart (5 s down):$work/redis.sh restart 5" \
  --at "0.60:upstream hangs for 10 s:$work/upstream.sh mode hang; sleep 10; $work/upstream.sh mode normal" \
  --at "0.70:upstream refuses connections for 10 s:$work/upstream.sh stop; sleep 10; $work/upstream.sh start" \
  --at "0.80:upstream answers 500 for 10 s:$work/upstream.sh mode error; sleep 10; $work/upstream.sh mode normal"
load_end=$(loadavg)
sleep 3
kill "$(cat "$work/sampler.pid")" 2>/dev/null || true
rm -f "$work/sampler.pid"

log "waiting for the spools to be replayed into PostgreSQL"
psql_q() { "${as_postgres[@]}" "$PGBIN/psql" -X -A -t -h 127.0.0.1 -U postgres -p "$pg_port" -d postgres -c "$1"; }
last=-1
for _ in $(seq 1 120); do
  rows=$(psql_q "SELECT count(*) FROM mcpgen_audit")
  spooled=$(cat "$work"/spool-*.jsonl 2>/dev/null | wc -l)
  [[ $rows == "$last" && $spooled == 0 ]] && break
  last=$rows
  sleep 2
done

log "checking the audit invariant"
chmod 644 "$work/outcomes.tsv"
psql_q "CREATE TABLE outcome (id TEXT PRIMARY KEY, outcome TEXT NOT NULL)" >/dev/null
"${as_postgres[@]}" "$PGBIN/psql" -X -q -h 127.0.0.1 -U postgres -p "$pg_port" -d postgres \
  -c "\\copy outcome FROM '$work/outcomes.tsv'"
psql_q "CREATE INDEX ON mcpgen_audit (request_id)" >/dev/null
per_id="(SELECT request_id, count(*) AS n FROM mcpgen_audit GROUP BY request_id)"
{
  echo "acked_calls $(psql_q "SELECT count(*) FROM outcome WHERE outcome NOT LIKE 'failed%'")"
  echo "failed_calls $(psql_q "SELECT count(*) FROM outcome WHERE outcome LIKE 'failed%'")"
  echo "audit_rows $(psql_q "SELECT count(*) FROM mcpgen_audit")"
  echo "acked_without_one_row $(psql_q "SELECT count(*) FROM outcome o LEFT JOIN $per_id r ON r.request_id = o.id WHERE o.outcome NOT LIKE 'failed%' AND coalesce(r.n, 0) <> 1")"
  echo "failed_with_row $(psql_q "SELECT count(*) FROM outcome o JOIN $per_id r ON r.request_id = o.id WHERE o.outcome LIKE 'failed%'")"
  echo "rows_for_unknown_calls $(psql_q "SELECT count(*) FROM mcpgen_audit a LEFT JOIN outcome o ON o.id = a.request_id WHERE o.id IS NULL")"
  echo "duplicate_request_ids $(psql_q "SELECT count(*) FROM $per_id r WHERE r.n > 1")"
  { curl -sf "http://127.0.0.1:$upstream_port/_load/count"; echo; } >> "$work/upstream-served.txt"
  echo "upstream_requests $(awk '{ s += $1 } END { print s }' "$work/upstream-served.txt")"
} > "$work/checks.txt"
psql_q "SELECT status, count(*) FROM mcpgen_audit GROUP BY status ORDER BY status" > "$work/statuses.txt"
psql_q "SELECT split_part(o.outcome, ':', 1) || ' -> ' || coalesce(a.status, '(no row)'), count(*) FROM outcome o LEFT JOIN mcpgen_audit a ON a.request_id = o.id GROUP BY 1 ORDER BY 1" > "$work/crosstab.txt"
for r in a b; do
  echo "$r $(curl -sf "http://127.0.0.1:$([[ $r == a ]] && echo "$a_port" || echo "$b_port")/readyz" >/dev/null && echo ready || echo not-ready)"
done > "$work/ready.txt"

python3 scripts/load/report.py --work "$work" --out "$out" --invocation "$invocation" \
  --load-start "$load_start" --load-end "$load_end" --cores "$(nproc)"
cat "$out"
