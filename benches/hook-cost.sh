#!/usr/bin/env bash
# What our Git hooks cost when there is nothing to do (release build, no hyperfine needed), in a
# local-mode repository with 50 memory documents, dream not due, memory unchanged:
#   - `git commit --allow-empty`, `git checkout` between two branches whose memory is the same,
#     and a real `git merge --no-ff` of a code-only branch, with no hooks vs all five of ours;
#   - the post-commit, post-checkout and post-merge hook entry points alone (post-merge after a
#     real merge, so `ORIG_HEAD` is there and its memory subtree is HEAD's);
#   - `--version`, the floor (process start).
# For each: median and mean wall time, and the median CPU time of the whole process tree
# (`perf stat -e task-clock`, when perf works here). With IR=1, also the instructions one run
# executes (valgrind's callgrind, whole process, children not followed): repeatable under load,
# where wall and even CPU times are not.
#
# Usage: benches/hook-cost.sh [runs]            (default 40)
#   BIN=/path/to/git-qwen-memory  time that binary (no build), e.g. one kept from before a change:
#                                 BIN=target/before-git-qwen-memory benches/hook-cost.sh 20
#   HOOK_COST_NO_BUILD=1          time target/release/git-qwen-memory as it is (no build)
#   IR=1                          add the callgrind instruction counts (needs valgrind)
set -euo pipefail
runs=${1:-40}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${BIN:-}" ]; then
  bin=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
else
  [ -n "${HOOK_COST_NO_BUILD:-}" ] ||
    cargo build --release --locked --quiet --manifest-path "$root/Cargo.toml"
  bin=${CARGO_TARGET_DIR:-$root/target}/release/git-qwen-memory
fi
[ -x "$bin" ] || { echo "no binary at $bin" >&2; exit 1; }
# The hook shims run `git-qwen-memory` from PATH: put the binary under test there by that name.
mkdir -p "$work/bin"
ln -s "$bin" "$work/bin/git-qwen-memory"
export PATH="$work/bin:$PATH"
export HOME=$work/home QWEN_CODE_MEMORY_BASE_DIR=$work/base GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
git config --global user.name bench
git config --global user.email bench@example.com
for r in plain hooked; do
  git init -q -b main "$work/$r"
  (cd "$work/$r" && git-qwen-memory install -q --local --hooks none)
  for i in $(seq 1 50); do
    (cd "$work/$r" && git-qwen-memory remember -q --type project "Fact number $i about the service")
  done
  git -C "$work/$r" add -A
  git -C "$work/$r" commit -q -m init
  git -C "$work/$r" branch other
  # A code-only branch to merge: the merge changes no memory.
  git -C "$work/$r" checkout -q -b code
  echo 'fn main() {}' >"$work/$r/main.rs"
  git -C "$work/$r" add main.rs
  git -C "$work/$r" commit -q -m code
  git -C "$work/$r" checkout -q main
done
(cd "$work/hooked" && git-qwen-memory install -q --hooks all)

perf=
if command -v perf >/dev/null && perf stat -x, -e task-clock -o "$work/probe" true 2>/dev/null; then
  perf=perf
fi
ir=
if [ -n "${IR:-}" ]; then
  command -v valgrind >/dev/null || { echo "IR=1 needs valgrind" >&2; exit 1; }
  ir=1
fi

# time_ms <label> <command…>: runs it $runs times, prints the median and mean wall time, the
# median CPU time (task-clock of the whole process tree) and, with IR=1, the instructions of
# one more run under callgrind: on a loaded machine the wall time mostly measures the run
# queue, the CPU time and the instructions what we cost.
time_ms() {
  local label=$1; shift
  local samples=() cpus=()
  local tfile=$work/time.out
  for _ in $(seq 1 "$runs"); do
    local t0 t1
    if [ -n "$perf" ]; then
      t0=$(date +%s%N); perf stat -x, -e task-clock -o "$tfile" "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N)
      cpus+=($(awk -F, '$3 == "task-clock" { printf "%d", $1 * 1000 }' "$tfile"))
    else
      t0=$(date +%s%N); "$@" >/dev/null 2>&1 || true; t1=$(date +%s%N)
    fi
    samples+=($(( (t1 - t0) / 1000 )))
  done
  local cpu=n/a instr=
  if [ ${#cpus[@]} -gt 0 ]; then
    cpu=$(printf '%s\n' "${cpus[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "%.2f", a[int((NR + 1) / 2)] / 1000 }')
  fi
  if [ -n "$ir" ]; then
    instr=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
      awk '/Collected :/ { n = $NF } END { printf "%d", n }')
    instr=" $(awk -v n="$instr" 'BEGIN { printf "%.2f M", n / 1e6 }') |"
  fi
  printf '%s\n' "${samples[@]}" | sort -n | awk -v l="$label" -v c="$cpu" -v i="$instr" '
    { a[NR] = $1; s += $1 }
    END { printf "| %-40s | %7.2f | %7.2f | %5s |%s\n", l, a[int((NR + 1) / 2)] / 1000, s / NR / 1000, c, i }'
}

h=$work/hooked
echo "binary: $bin"
if [ -n "$ir" ]; then
  echo "| what (nothing to do) | median ms | mean ms | CPU ms (median) | instructions (callgrind) |"
  echo "|---|---|---|---|---|"
else
  echo "| what (nothing to do) | median ms | mean ms | CPU ms (median) |"
  echo "|---|---|---|---|"
fi
# Whole Git commands (only wall and CPU: callgrind would follow git, not us).
ir_saved=$ir; ir=
for r in plain hooked; do
  time_ms "git commit --allow-empty ($r)" git -C "$work/$r" commit -q --allow-empty -m x
done
for r in plain hooked; do
  time_ms "git checkout other / main ($r)" sh -c "git -C $work/$r checkout -q other && git -C $work/$r checkout -q main"
done
for r in plain hooked; do
  time_ms "git merge --no-ff code ($r)" sh -c "git -C $work/$r merge -q --no-ff -m m code && git -C $work/$r reset -q --hard HEAD~1"
done
ir=$ir_saved
# The entry points alone; the merge is made again first, so ORIG_HEAD is a real merge's.
git -C "$h" merge -q --no-ff -m merge code
head=$(git -C "$h" rev-parse HEAD)
other=$(git -C "$h" rev-parse other)
time_ms "hook post-commit alone" git-qwen-memory -C "$h" hook post-commit
time_ms "hook post-checkout alone (same commit)" git-qwen-memory -C "$h" hook post-checkout "$head" "$head" 1
time_ms "hook post-checkout alone (other branch)" git-qwen-memory -C "$h" hook post-checkout "$other" "$head" 1
time_ms "hook post-merge alone (after a merge)" git-qwen-memory -C "$h" hook post-merge 0
time_ms "git-qwen-memory --version (process start)" git-qwen-memory --version
