#!/usr/bin/env bash
# Times tool calls of a running MCP server (`git qwen-memory mcp`) on a generated memory tree
# of 1,000 documents (or the sizes given): median, p10 and p90 per tool over RUNS calls
# (scripts/bench-mcp.py). Target: <= 20 ms median per call on 1,000 memories.
#
#   RUNS=50 scripts/bench-mcp.sh [SIZES...]      # default: 1000
#   BIN=path/to/git-qwen-memory scripts/bench-mcp.sh   # time that binary, build nothing
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sizes=("${@:-1000}")
read -r -a sizes <<< "${sizes[*]}"

if [ -n "${BIN:-}" ]; then
  bin="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
else
  (cd "$here" && cargo build --release --locked --quiet)
  bin="$(cd "$here" && cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')/release/git-qwen-memory"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" QWEN_MEMORY_TELEMETRY=0 GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
mkdir -p "$HOME"

for n in "${sizes[@]}"; do
  repo="$work/repo-$n"
  git init -q "$repo"
  git -C "$repo" commit -q --allow-empty -m init
  export QWEN_CODE_MEMORY_BASE_DIR="$work/base-$n"
  key="$(printf '%s' "$repo" | sed 's/[^A-Za-z0-9]/-/g')"
  root="$QWEN_CODE_MEMORY_BASE_DIR/projects/$key/memory"
  python3 "$here/scripts/gen-memory-tree.py" "$root" "$n"
  (cd "$repo" && "$bin" remember "The benchmark fact is stored once" > /dev/null)
  sleep 3   # files younger than 2 s are not cached by recall's parse cache
  res=$(python3 "$here/scripts/bench-mcp.py" "$bin" "$repo" --runs "${RUNS:-50}")
  python3 -c 'import json,sys; d=json.loads(sys.argv[1])
for tool, t in d.items():
    print("%6s docs  %-26s median %6.2f ms (p10 %.2f, p90 %.2f)" % (sys.argv[2], tool, t["median"], t["p10"], t["p90"]))' "$res" "$n"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
