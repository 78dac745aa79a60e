#!/usr/bin/env bash
# Times whole-process recall (`git qwen-memory recall`) on generated memory trees of 200, 1,000
# and 10,000 documents, for the `auto` (default) and `upstream` strategies side by side, with
# hyperfine when present, else a loop timed by the shell; reports peak RSS from /usr/bin/time
# when available.
#
#   scripts/bench-recall.sh [SIZES...]      # default: 200 1000 10000
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sizes=("${@:-200 1000 10000}")
read -r -a sizes <<< "${sizes[*]}"

(cd "$here" && cargo build --release --locked --quiet)
bin="$(cd "$here" && cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')/release/git-qwen-memory"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" QWEN_MEMORY_TELEMETRY=0 GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
query="how do we deploy the billing service with terraform and canary deploys"

for n in "${sizes[@]}"; do
  repo="$work/repo-$n"
  git init -q "$repo"
  export QWEN_CODE_MEMORY_BASE_DIR="$work/base-$n"
  key="$(printf '%s' "$repo" | sed 's/[^A-Za-z0-9]/-/g')"
  root="$QWEN_CODE_MEMORY_BASE_DIR/projects/$key/memory"
  python3 "$here/scripts/gen-memory-tree.py" "$root" "$n"
  cd "$repo"
  "$bin" recall "$query" > /dev/null   # warm the page cache (and any parse cache)
  for strategy in auto upstream; do
    echo "== recall --strategy $strategy, $n documents"
    if command -v hyperfine >/dev/null 2>&1; then
      hyperfine -N --warmup 3 --runs 30 --style basic "$bin recall --strategy $strategy '$query'" 2>/dev/null \
        | grep -E "Time|Range" || hyperfine --warmup 3 --runs 30 --style basic "$bin recall --strategy $strategy '$query'"
    else
      runs=30; start=$(date +%s%N)
      for _ in $(seq $runs); do "$bin" recall --strategy "$strategy" "$query" > /dev/null; done
      end=$(date +%s%N)
      echo "  mean: $(( (end - start) / runs / 1000 )) µs over $runs runs"
    fi
    if [ -x /usr/bin/time ]; then
      /usr/bin/time -f "  peak RSS: %M KiB" "$bin" recall --strategy "$strategy" "$query" > /dev/null
    fi
  done
  cd "$work"
done
