#!/usr/bin/env bash
# What our Git hooks cost when there is nothing to do (release build, no hyperfine needed):
# the median and mean wall time of N runs of
#   - `git commit --allow-empty` and `git checkout` between two branches whose memory is the
#     same, in a local-mode repository with no hooks vs with all five of ours;
#   - the post-commit and post-checkout hook entry points alone.
# Usage: benches/hook-cost.sh [runs]   (default 40; HOOK_COST_NO_BUILD=1 times the release binary
# already built, e.g. one kept from before a change)
set -euo pipefail
runs=${1:-40}
root=$(cd "$(dirname "$0")/.." && pwd)
[ -n "${HOOK_COST_NO_BUILD:-}" ] || cargo build --release --quiet --manifest-path "$root/Cargo.toml"
bin_dir=${CARGO_TARGET_DIR:-$root/target}/release
export PATH="$bin_dir:$PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
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
done
(cd "$work/hooked" && git-qwen-memory install -q --hooks all)

# time_ms <label> <command…>: runs it $runs times, prints the median and mean wall time and the
# median CPU time (task-clock of the whole process tree, from `perf stat` when it works here): on
# a loaded machine the wall time mostly measures the run queue, the CPU time what we cost.
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
  local cpu=n/a
  if [ ${#cpus[@]} -gt 0 ]; then
    cpu=$(printf '%s\n' "${cpus[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "%.2f", a[int((NR + 1) / 2)] / 1000 }')
  fi
  printf '%s\n' "${samples[@]}" | sort -n | awk -v l="$label" -v c="$cpu" '
    { a[NR] = $1; s += $1 }
    END { printf "| %-38s | %7.2f | %7.2f | %5s |\n", l, a[int((NR + 1) / 2)] / 1000, s / NR / 1000, c }'
}

head=$(git -C "$work/hooked" rev-parse HEAD)
perf=
if command -v perf >/dev/null && perf stat -x, -e task-clock -o "$work/probe" true 2>/dev/null; then
  perf=perf
fi
echo "| what (nothing to do) | median ms | mean ms | CPU ms (median) |"
echo "|---|---|---|---|"
for r in plain hooked; do
  time_ms "git commit --allow-empty ($r)" git -C "$work/$r" commit -q --allow-empty -m x
done
for r in plain hooked; do
  time_ms "git checkout other / main ($r)" sh -c "git -C $work/$r checkout -q other && git -C $work/$r checkout -q main"
done
time_ms "hook post-commit alone" git-qwen-memory -C "$work/hooked" hook post-commit
time_ms "hook post-checkout alone" git-qwen-memory -C "$work/hooked" hook post-checkout "$head" "$head" 1
time_ms "hook post-merge alone" git-qwen-memory -C "$work/hooked" hook post-merge 0
time_ms "git-qwen-memory --version (process start)" git-qwen-memory --version
