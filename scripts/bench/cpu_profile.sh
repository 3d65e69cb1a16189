# Where the CPU goes during the stateless wrk runs of scripts/bench.sh (sourced by it).
#
# Around each `direct_cN` and `mcp_call_cN` run it reads, from /proc, the server's user and
# system time and its threads' context switches (voluntary: a thread waited; involuntary: the
# kernel took its core for another process), the nginx worker's CPU time and the machine's idle
# time, and divides them by the calls wrk made. The medians of the runs go into the report
# ("Where the CPU goes") and, with --results, into lines `cpu NAME ...` that
# scripts/bench/two_runs.py shows side by side. Clock ticks are 1/CLK_TCK s (10 ms), so a
# figure from a run of a few seconds is good to about 1%.

cpu_hz=$(getconf CLK_TCK)

# proc_ticks PID: its user and system time in ticks ("0 0" when it is gone). The fields are
# counted after the command name's closing bracket, which may itself hold spaces.
proc_ticks() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo "0 0"; return; }
  awk '{ print $12, $13 }' <<<"${stat##*) }"
}

# proc_switches PID: the voluntary and involuntary context switches of all its threads.
proc_switches() {
  cat /proc/"$1"/task/*/status 2>/dev/null |
    awk '/^voluntary_ctxt_switches/ { v += $2 } /^nonvoluntary_ctxt_switches/ { n += $2 } END { print v + 0, n + 0 }'
}

# cpu_snapshot SERVER_PID NGINX_WORKER_PID: "user system voluntary involuntary nginx idle total"
# (ticks and counts; the server's are 0 when SERVER_PID is empty).
cpu_snapshot() {
  local server=(0 0 0 0) nginx idle_total
  if [[ -n $1 ]]; then
    # shellcheck disable=SC2207 # four numbers
    server=($(proc_ticks "$1") $(proc_switches "$1"))
  fi
  nginx=$(proc_ticks "$2" | awk '{ print $1 + $2 }')
  idle_total=$(awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print $5 + $6, t }' /proc/stat)
  echo "${server[*]} $nginx $idle_total"
}

# cpu_record NAME BEFORE AFTER BENCH_LINE: appends to $work/cpu-NAME, per call: server user µs,
# server system µs, voluntary and involuntary switches, nginx µs, and the machine's idle share (%).
cpu_record() {
  local calls
  calls=$(sed -nE 's/.*requests=([0-9]+).*/\1/p' <<<"$4")
  [[ -n $calls && $calls -gt 0 ]] || return 0
  awk -v hz="$cpu_hz" -v n="$calls" -v b="$2" -v a="$3" 'BEGIN {
    split(b, x, " "); split(a, y, " ")
    us = 1e6 / hz / n
    printf "%.1f %.1f %.2f %.2f %.1f %.0f\n", (y[1] - x[1]) * us, (y[2] - x[2]) * us,
      (y[3] - x[3]) / n, (y[4] - x[4]) / n, (y[5] - x[5]) * us,
      (y[7] > x[7]) ? 100 * (y[6] - x[6]) / (y[7] - x[7]) : 0
  }' >>"$work/cpu-$1"
}

# cpu_around NAME SERVER_PID COMMAND...: runs COMMAND (a wrk run), its output appended to
# $work/runs-NAME, and records the CPU it cost per call from its BENCH line (SERVER_PID empty for
# a run without the server).
cpu_around() {
  local name=$1 server=$2 before
  shift 2
  before=$(cpu_snapshot "$server" "$nginx_worker")
  "$@" >>"$work/runs-$name"
  cpu_record "$name" "$before" "$(cpu_snapshot "$server" "$nginx_worker")" "$(tail -1 "$work/runs-$name")"
}

# cpu_summary NAME: the median (bench.sh's `median`) of each column of $work/cpu-NAME ("" when
# there is none).
cpu_summary() {
  [[ -s $work/cpu-$1 ]] || return 0
  local col out=
  for col in 1 2 3 4 5 6; do
    out+=" $(awk -v c="$col" '{ print $c }' "$work/cpu-$1" | median)"
  done
  echo "${out# }"
}

# cpu_report CONCURRENCIES...: the report's table (Markdown) of the medians per concurrency.
cpu_report() {
  local c m d mu ms mv mi mn md dn dd
  echo "| Connections | server CPU per call, user + system µs | server context switches per call, voluntary / involuntary | nginx CPU per request µs (through the server / direct) | idle share of the machine (through the server / direct) |"
  echo "|---|---|---|---|---|"
  for c in "$@"; do
    m=$(cpu_summary "mcp_call_c$c")
    d=$(cpu_summary "direct_c$c")
    [[ -n $m && -n $d ]] || continue
    read -r mu ms mv mi mn md <<<"$m"
    read -r _ _ _ _ dn dd <<<"$d"
    printf '| %s | %s + %s = %s | %s / %s | %s / %s | %s%% / %s%% |\n' "$c" "$mu" "$ms" \
      "$(awk -v a="$mu" -v b="$ms" 'BEGIN { printf "%.1f", a + b }')" "$mv" "$mi" "$mn" "$dn" "$md" "$dd"
  done
}

# cpu_report_servers NAME=LABEL...: the same medians for servers measured side by side (the
# deployed path): CPU per call, context switches per call and the machine's idle share.
cpu_report_servers() {
  local pair m mu ms mv mi mn md
  echo "| Server (c=8) | CPU per call, user + system µs | context switches per call, voluntary / involuntary | nginx CPU per request µs | idle share of the machine |"
  echo "|---|---|---|---|---|"
  for pair in "$@"; do
    m=$(cpu_summary "${pair%%=*}")
    [[ -n $m ]] || continue
    read -r mu ms mv mi mn md <<<"$m"
    printf '| %s | %s + %s = %s | %s / %s | %s | %s%% |\n' "${pair#*=}" "$mu" "$ms" \
      "$(awk -v a="$mu" -v b="$ms" 'BEGIN { printf "%.1f", a + b }')" "$mv" "$mi" "$mn" "$md"
  done
}

# cpu_results NAME...: the `cpu NAME ...` lines for --results, for each NAME measured.
cpu_results() {
  local name
  for name in "$@"; do
    [[ -s $work/cpu-$name ]] && echo "cpu $name $(cpu_summary "$name")"
  done
  return 0
}
