#!/usr/bin/env bash
# Runs the coverage-guided fuzz targets of fuzz/ (cargo-fuzz, libFuzzer). Not part of
# scripts/test.sh, which only checks that they compile. See FUZZING.md.
#
#   scripts/fuzz.sh                 every target for MCPGEN_FUZZ_SECONDS (default 600) each
#   scripts/fuzz.sh spec_load ...   only the targets named
#   MCPGEN_FUZZ_SECONDS=3600 MCPGEN_FUZZ_JOBS=2 scripts/fuzz.sh
#
# Needs cargo-fuzz (`cargo install cargo-fuzz --locked`; installed when missing) and a C++
# compiler (libFuzzer is built from source). cargo-fuzz asks for nightly-only compiler flags;
# on a stable toolchain they are enabled with RUSTC_BOOTSTRAP=1. The targets run without a
# sanitizer (`-s none`: the code under test is safe Rust) and with debug assertions (`-a`, so
# integer overflow is a crash). Each corpus is seeded from specs/, the generator's test
# fixtures and the shipped generated crates into fuzz/corpus/<target>/ (not committed);
# crashes land in fuzz/artifacts/<target>/. Every crash found becomes a regression test in
# the crate it was found in.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(spec_load allowlist server_http legacy_sse client_frames upstream_encoders search_query output_check code_execute)
if [[ $# -gt 0 ]]; then TARGETS=("$@"); fi
SECONDS_EACH="${MCPGEN_FUZZ_SECONDS:-600}"
JOBS="${MCPGEN_FUZZ_JOBS:-1}"
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

python3 scripts/fuzz_seeds.py

cd fuzz

for target in "${TARGETS[@]}"; do
  printf '\n==> %s for %ss (%s job(s))\n' "$target" "$SECONDS_EACH" "$JOBS"
  mkdir -p "corpus/$target" "artifacts/$target"
  cargo fuzz run -s none -a "$target" "corpus/$target" -- \
    -max_total_time="$SECONDS_EACH" -jobs="$JOBS" -workers="$JOBS" \
    -timeout=20 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    2>&1 | tee "artifacts/$target/last-run.log" | grep -E '^(#[0-9]+.*(DONE|pulse|NEW)|stat::|==[0-9]+==|SUMMARY|Done)' | tail -n 20
done
