#!/usr/bin/env bash
# Benchmarks dream as the user and the post-commit hook pay for it, whole process:
#   1. mechanical `dream --force` on 1,000 documents of which 30% duplicate another one
#      (each duplicate also carries an entry of its own, so the merge has work to do);
#   2. gate evaluation when a dream is not due (`dream --trigger post-commit` right after one).
# Uses hyperfine when installed, else a loop timed with date(1); peak memory from /usr/bin/time.
#
# Usage: scripts/bench-dream.sh [DOCS] [RUNS]      (defaults: 1000 docs, 20 runs)
# Env:   BIN=path/to/git-qwen-memory to skip the release build.
set -euo pipefail

DOCS=${1:-1000}
RUNS=${2:-20}
here=$(cd "$(dirname "$0")/.." && pwd)

if [[ -z "${BIN:-}" ]]; then
  (cd "$here" && cargo build --release --quiet)
  BIN="${CARGO_TARGET_DIR:-$here/target}/release/git-qwen-memory"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" QWEN_CODE_MEMORY_BASE_DIR="$work/base" QWEN_MEMORY_TELEMETRY=0
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b
unset QWEN_CODE_MEMORY_LOCAL OPENAI_BASE_URL OPENAI_MODEL OPENAI_API_KEY
mkdir -p "$HOME"
repo="$work/repo"
git init -q "$repo"
git -C "$repo" commit -q --allow-empty -m init

# Where the binary keeps this repository's private memory.
state=$(cd "$repo" && "$BIN" status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["stateDir"])')
template="$work/template"

python3 - "$template" "$DOCS" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
types = ["user", "feedback", "project", "reference"]
dups = int(n * 0.3)
originals = n - dups
for i in range(n):
    if i < originals:
        t, first, extra = types[i % 4], f"Durable fact number {i} about the build", f"Later note {i}"
    else:
        j = (i - originals) * originals // max(dups, 1)
        t, first, extra = types[j % 4], f"Durable fact number {j} about the build", f"Zeta detail from duplicate {i}"
    d = os.path.join(root, t)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"doc-{i:05}.md"), "w") as f:
        f.write(f"---\nname: Fact {i}\ndescription: fact {i}\ntype: {t}\n---\n\n"
                f"{first}\n\nWhy: measured\n\n{extra}\n")
PY

restore() { rm -rf "$state/memory" "$state/backups" "$state/meta.json" "$state/dream-log.jsonl"; mkdir -p "$state"; cp -a "$template" "$state/memory"; }
restore
echo "== $DOCS documents ($((DOCS * 30 / 100)) duplicates), binary $BIN"
(cd "$repo" && "$BIN" dream --force --json) | python3 -c 'import json,sys; o=json.load(sys.stdin); print("   one run: status", o["status"], "deduped", o["dedupedEntries"], "changed files", len(o["changes"]))'

if command -v hyperfine >/dev/null; then
  (cd "$repo" && hyperfine -N --warmup 2 --runs "$RUNS" --prepare "bash -c 'rm -rf \"$state/memory\" \"$state/backups\" \"$state/meta.json\"; cp -a \"$template\" \"$state/memory\"'" \
     "$BIN dream --force")
else
  total=0
  for _ in $(seq "$RUNS"); do
    restore
    t0=$(date +%s%N); (cd "$repo" && "$BIN" dream --force >/dev/null); t1=$(date +%s%N)
    total=$((total + (t1 - t0) / 1000))
  done
  echo "   mean dream --force: $((total / RUNS / 1000)) ms over $RUNS runs"
fi

restore
if [[ -x /usr/bin/time ]]; then
  (cd "$repo" && /usr/bin/time -f "   peak RSS dream --force: %M KiB, wall %e s" "$BIN" dream --force >/dev/null)
fi

# Not due: a dream just ran; after a new commit (a new session) min_hours stops the hook.
git -C "$repo" commit -q --allow-empty -m next
echo "== gate evaluation when not due (post-commit trigger)"
(cd "$repo" && "$BIN" dream --trigger post-commit --json) | python3 -c 'import json,sys; o=json.load(sys.stdin); print("   status", o["status"], "reason", o["reason"])'
if command -v hyperfine >/dev/null; then
  (cd "$repo" && hyperfine -N --warmup 5 --runs $((RUNS * 5)) "$BIN dream --trigger post-commit")
else
  total=0; n=$((RUNS * 5))
  for _ in $(seq "$n"); do
    t0=$(date +%s%N); (cd "$repo" && "$BIN" dream --trigger post-commit >/dev/null); t1=$(date +%s%N)
    total=$((total + (t1 - t0) / 1000))
  done
  echo "   mean gate evaluation: $((total / n)) µs over $n runs"
fi
