#!/usr/bin/env bash
# Times whole-process recall (`git qwen-memory recall`) on generated memory trees of 200, 1,000
# and 10,000 documents, for the `auto` (default) and `upstream` strategies side by side:
# median wall time and median CPU time (user + sys; much less sensitive to other load on a
# shared machine) over RUNS runs each (scripts/proc-times.py), and peak RSS from /usr/bin/time
# when available. Targets for `auto`: <= 10 ms (1,000 documents), <= 60 ms (10,000).
#
#   RUNS=30 scripts/bench-recall.sh [SIZES...]      # default: 200 1000 10000
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
  # Files younger than 2 s are parsed but not cached (a second write in the same clock tick
  # could keep size and times): wait, then one run builds the parse cache (recall-scan.bin).
  sleep 3
  "$bin" recall "$query" > /dev/null   # warm the page cache and the parse cache
  for strategy in auto upstream; do
    res=$(python3 "$here/scripts/proc-times.py" --runs "${RUNS:-30}" --warmup 3 -- \
      "$bin" recall --strategy "$strategy" "$query")
    rss=n/a
    if [ -x /usr/bin/time ]; then
      rss=$(/usr/bin/time -f "%M" "$bin" recall --strategy "$strategy" "$query" 2>&1 >/dev/null | tail -1)
    fi
    python3 -c 'import json,sys; d=json.loads(sys.argv[1]); w,c=d["wallMs"],d["cpuMs"]
print("%6s docs  %-8s  wall median %7.1f ms (p10 %.1f, p90 %.1f)  CPU median %7.1f ms  peak RSS %s KiB"
      % (sys.argv[2], sys.argv[3], w["median"], w["p10"], w["p90"], c["median"], sys.argv[4]))' \
      "$res" "$n" "$strategy" "$rss"
  done
  cd "$work"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
