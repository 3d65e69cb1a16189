#!/usr/bin/env bash
# Runs every check and test of the workspace. Used by CI (.ci/run) and by developers.
#
#   scripts/test.sh            formatting, lints, the book and the API docs, generated/ in sync,
#                              all tests
#   MCPGEN_CORPUS=1 scripts/test.sh   also the slow corpus run (GitHub REST spec from npm)
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "Node 22, the TypeScript SDK, MCP Inspector, conformance suite, reference MCP servers and the OAuth servers of the tests (npm, into tests/node)"
if [[ ! -d tests/node/node_modules || tests/node/package-lock.json -nt tests/node/node_modules ]]; then
  # From the folder itself: some npm releases look for the lockfile in the working directory.
  (cd tests/node && npm ci --no-audit --no-fund --loglevel=error)
  touch tests/node/node_modules
fi

step "the official MCP Python SDK (PyPI, into tests/python/.venv)"
if [[ ! -x tests/python/.venv/bin/python || tests/python/requirements.txt -nt tests/python/.venv ]]; then
  python3 -m venv tests/python/.venv
  tests/python/.venv/bin/pip install --quiet --disable-pip-version-check -r tests/python/requirements.txt
  touch tests/python/.venv
fi

step "PostgreSQL (apt), which the audit database tests start on loopback"
if ! compgen -G "/usr/lib/postgresql/*/bin/initdb" > /dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql
fi

step "sqlite3 (apt), which the SQLite audit test reads its database with"
if ! command -v sqlite3 > /dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sqlite3
fi

step "Redis (apt), which the shared rate limit tests start on loopback"
if ! command -v redis-server > /dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server
fi

step "nginx (apt), the load balancer in front of two replicas in tests/tests/replicas.rs"
if ! command -v nginx > /dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx
fi

step "mdbook ${MDBOOK_VERSION:=0.5.4} (cargo install, once), which builds the book in docs/"
if [[ "$(mdbook --version 2>/dev/null)" != "mdbook v$MDBOOK_VERSION" ]]; then
  # Without the default `serve` and `watch` features: no web server or file watcher to build.
  # Unoptimised: it compiles in a fraction of the time (about 1.5 min of CPU), and the book
  # builds in a few seconds either way.
  cargo install --locked --debug mdbook --version "$MDBOOK_VERSION" --no-default-features --features search
fi

step "Chromium (apt), the headless browser tests/tests/views.rs renders the views in"
if [ ! -x /usr/bin/chromium ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings
# The runtime on its own with code mode, metrics and traces: in the workspace build it also
# has the features other crates ask for, which can hide code left unused without them.
cargo clippy -p mcpgen-runtime --features code-mode,metrics,otel --all-targets --locked -- -D warnings

step "the fuzz targets compile (fuzz/ is a workspace of its own; scripts/fuzz.sh runs them)"
if ! command -v c++ >/dev/null 2>&1; then
  # libfuzzer-sys builds libFuzzer from C++ source.
  apt-get install -y g++
fi
cargo fmt --manifest-path fuzz/Cargo.toml -- --check
# In the workspace's target folder: the dependencies it shares with the workspace, checked by
# clippy above, are not checked again.
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}" cargo check --manifest-path fuzz/Cargo.toml --locked

step "the book builds (mdbook build docs; its links are checked by tests/tests/book_links.rs)"
mdbook build docs

step "the published crates' documentation builds without warnings (broken or private intra-doc links included)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --locked --features mcpgen-runtime/code-mode -p mcpgen -p mcpgen-runtime -p mcpgen-macros \
  -p mcpgen-client -p mcpgen-codegen -p mcpgen-core -p mcpgen-identity -p mcpgen-search -p mcpgen-contract \
  -p mcpgen-upstream -p mcpgen-code -p mcpgen-listener -p mcpgen-metrics
# The audit's database sink and the Redis limiter are documented only with their features (the
# runtime's defaults leave them off).
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --locked --all-features -p mcpgen-audit -p mcpgen-policy

step "the library crates package for crates.io (cargo publish --workspace --dry-run; reads the crates.io index)"
cargo publish --workspace --dry-run --no-verify --allow-dirty --quiet

step "build every binary and test (the end-to-end tests start the generated servers)"
# With the tests in the same build, features are resolved once for binaries and tests alike
# (dev-dependencies included), so `cargo test` below compiles nothing again.
cargo build --workspace --bins --tests --examples --locked
# The Synaplan server with its audit database and Redis backends, for tests/tests/audit_db.rs
# tests/tests/shared_limits.rs and tests/tests/traces.rs, and with code mode, for
# tests/tests/synaplan_code.rs.
cargo build -p synaplan-mcp --features postgres,sqlite,redis,otel,code-mode --locked

step "generated/ matches a fresh generation"
"${CARGO_TARGET_DIR:-target}/debug/mcpgen" generate --check

step "cargo test"
# Each crate's integration tests are one binary of modules (`tests/main.rs`: `main` for tests/,
# `runtime`, `generator`, `codegen`, `macros`); apart from those, only what needs other features
# or a process of its own (the `[[test]]` entries of runtime/Cargo.toml and macros/Cargo.toml).
# The listener with the runtime's http2 feature (off in the workspace build below).
cargo test -p mcpgen-runtime --features http2 --test listener_http2 --locked
# Code mode's own binary (`server_code`) runs in the workspace run below: the generator's
# tests ask for the runtime's code-mode feature, and the workspace build takes it.
extra=()
if [[ "${MCPGEN_CORPUS:-}" == "1" ]]; then
  extra=(--include-ignored)
fi
# The generator's tests run beside the rest: most of their four minutes is cargo building
# generated crates outside the workspace, while the rest mostly wait on the servers they
# start. Their output follows the rest's.
generator_log=$(mktemp)
cargo test -p generator --locked -- "${extra[@]}" >"$generator_log" 2>&1 &
generator_pid=$!
rest=0
cargo test --workspace --exclude generator --locked -- "${extra[@]}" || rest=$?
generator=0
wait "$generator_pid" || generator=$?
step "cargo test -p generator"
cat "$generator_log"
rm -f "$generator_log"
if (( rest != 0 || generator != 0 )); then
  echo "cargo test failed: the workspace's tests exited with $rest, the generator's with $generator" >&2
  exit 1
fi
