# The code-mode part of scripts/bench.sh (`scripts/bench.sh --code-mode`), sourced by it: the
# task set of scripts/bench/code_tasks.py run by scripts/bench/code_mode.py in `all`, `search`
# and `code` mode against the generated helpdesk server (release build with the code-mode
# feature, target/release/helpdesk-mcp) over a loopback stand-in for its API
# (scripts/bench/helpdesk_stand_in.py). It writes its own section of BENCHMARKS.md (between the
# two markers below) and leaves the rest of the file as it is; a run without --code-mode carries
# the section over (code_mode_section before the file is written, code_mode_splice after).
# Uses bench.sh's root, build, out, invocation, phase, log and elapsed.

code_mode_begin='<!-- code-mode section: written by scripts/bench.sh --code-mode -->'
code_mode_end='<!-- end of the code-mode section -->'

# code_mode_section FILE: the code-mode section of FILE with its markers (nothing if none).
code_mode_section() {
  [[ -f $1 ]] || return 0
  awk -v b="$code_mode_begin" -v e="$code_mode_end" '$0 == b { on = 1 } on { print } $0 == e { on = 0 }' "$1"
}

# code_mode_splice SECTION FILE: FILE with its code-mode section replaced by SECTION (the text,
# markers included), or SECTION appended when FILE has none. An empty SECTION changes nothing.
code_mode_splice() {
  local file=$2 text tmp
  [[ -n $1 ]] || return 0
  text=$(mktemp)
  tmp=$(mktemp)
  printf '%s\n' "$1" >"$text"
  if grep -qxF "$code_mode_begin" "$file" 2>/dev/null; then
    awk -v b="$code_mode_begin" -v e="$code_mode_end" -v f="$text" \
      '$0 == b { while ((getline line < f) > 0) print line; skip = 1; next } $0 == e { skip = 0; next } !skip { print }' \
      "$file" >"$tmp"
  else
    { if [[ -f $file ]]; then cat "$file"; echo; fi; cat "$text"; } >"$tmp"
  fi
  mv "$tmp" "$file"
  rm -f "$text"
}

# code_mode_run: builds (unless --no-build), starts the stand-in and one server per mode,
# runs the task set and the latency comparison, and writes the section into $out.
code_mode_run() {
  local target=${CARGO_TARGET_DIR:-$root/target} work port stand_in mode calls=${CODE_LATENCY_CALLS:-1000}
  local bin=$target/release/helpdesk-mcp
  local -A url
  if [[ $build == 1 ]]; then
    phase "build: helpdesk-mcp with the code-mode feature (release)"
    cargo build --release -p helpdesk-mcp --features code-mode
  fi
  if [[ $("$bin" --help) != *--code-timeout* ]]; then
    echo "$bin was built without the code-mode feature: run without --no-build once" >&2
    exit 1
  fi
  work=$(mktemp -d /tmp/mcpgen-bench-code.XXXXXX)
  # shellcheck disable=SC2064 # the values of now are the ones to clean up
  trap "kill \${code_mode_pids[*]} 2>/dev/null; wait 2>/dev/null; rm -rf '$work'" EXIT
  code_mode_pids=()
  code_mode_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
  code_mode_up() { # URL: until it answers (at most 10 s)
    local i
    for i in $(seq 1 1000); do curl -s -o /dev/null "$1" && return 0; sleep 0.01; done
    echo "no answer from $1" >&2
    exit 1
  }

  phase "code mode: the stand-in helpdesk API and helpdesk-mcp in all, search and code mode"
  port=$(code_mode_port)
  stand_in="http://127.0.0.1:$port"
  python3 scripts/bench/helpdesk_stand_in.py "$port" >>"$work/stand-in.log" 2>&1 &
  code_mode_pids+=($!)
  code_mode_up "$stand_in/_bench/created"
  for mode in all search code; do
    port=$(code_mode_port)
    url[$mode]="http://127.0.0.1:$port"
    RUST_LOG=warn "$bin" --transport http --listen "127.0.0.1:$port" --no-auth \
      --upstream-url "$stand_in/api" --tool-mode "$mode" >>"$work/server-$mode.log" 2>&1 &
    code_mode_pids+=($!)
    code_mode_up "${url[$mode]}/healthz"
  done

  phase "code mode: the task set in every mode, then execute against a direct call ($calls each)"
  if ! (cd scripts/bench && python3 code_mode.py "$stand_in" "${url[all]}" "${url[search]}" "${url[code]}" "$calls") \
    >"$work/figures"; then
    tail -n 20 "$work"/server-*.log >&2
    exit 1
  fi
  phase

  {
    echo "$code_mode_begin"
    echo "## Code mode: a multi-step task set"
    echo
    echo "Measured by \`$invocation\` on $(date -u +%F): $(nproc) cores ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)),"
    echo "in $(elapsed) (minutes:seconds), load average $(cut -d' ' -f1-3 /proc/loadavg) at the end. This section is written by"
    echo "\`scripts/bench.sh --code-mode\` alone; the other runs of the script carry it over."
    echo
    echo "Five multi-step tasks (\`scripts/bench/code_tasks.py\`) against the generated helpdesk"
    echo "server (\`helpdesk-mcp\`, release build with \`--features code-mode\`, \`--no-auth\`), one"
    echo "process per \`--tool-mode\` (\`all\`, \`search\`, \`code\`; the same binary) over a loopback"
    echo "stand-in for its API (\`scripts/bench/helpdesk_stand_in.py\`: 300 CORE and 80 WEB tickets,"
    echo "24 people, paged by page number, by cursor and by offset). Each task has a scripted"
    echo "solution per mode, run as real stateless \`tools/call\`s by \`scripts/bench/code_mode.py\`;"
    echo "every mode's answer is checked against the answer worked out from the data, and the write"
    echo "against what the API received. The solutions take the fewest calls the API allows (the"
    echo "largest page size, the API's own filters); in \`search\` and \`code\` mode the model first"
    echo "asks \`search_tools\` and then \`describe_tools\` about the tools it needs, and calls them"
    echo "through \`call_tool\` (search) or one \`execute\` program (code)."
    echo
    echo "*Round trips* are the tool calls the model makes, one turn each. *Result bytes* are the"
    echo "text content of those calls' results, what a host puts in the model's context;"
    echo "*tools/list bytes* are the compact JSON of the mode's \`tools/list\`, in the context from"
    echo "the start; *context bytes* are the two added. *Argument bytes* are what the model writes"
    echo "(the program, in code mode), not counted in the context bytes. *Calls' time* is the wall"
    echo "time of the calls themselves, on loopback, without any model time."
    echo
    cat "$work/figures"
    echo "$code_mode_end"
  } >"$work/section"
  code_mode_splice "$(cat "$work/section")" "$out"
  cat "$work/section"
}
