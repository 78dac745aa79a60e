#!/usr/bin/env bash
# What our Git hooks cost when there is nothing to do (release build, no hyperfine needed):
# the median and mean wall time of N runs of
#   - `git commit --allow-empty` and `git checkout` between two branches whose memory is the
#     same, in a local-mode repository with no hooks vs with all five of ours;
#   - the post-commit and post-checkout hook entry points alone.
# Usage: benches/hook-cost.sh [runs]   (default 40)
set -euo pipefail
runs=${1:-40}
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
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

# time_ms <label> <command…>: runs it $runs times, prints median and mean in ms.
time_ms() {
  local label=$1; shift
  local samples=()
  for _ in $(seq 1 "$runs"); do
    local t0 t1
    t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N)
    samples+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${samples[@]}" | sort -n | awk -v l="$label" '
    { a[NR] = $1; s += $1 }
    END { printf "| %-38s | %7.2f | %7.2f |\n", l, a[int((NR + 1) / 2)] / 1000, s / NR / 1000 }'
}

head=$(git -C "$work/hooked" rev-parse HEAD)
echo "| what (nothing to do) | median ms | mean ms |"
echo "|---|---|---|"
for r in plain hooked; do
  time_ms "git commit --allow-empty ($r)" git -C "$work/$r" commit -q --allow-empty -m x
done
for r in plain hooked; do
  time_ms "git checkout other / main ($r)" sh -c "git -C $work/$r checkout -q other && git -C $work/$r checkout -q main"
done
time_ms "hook post-commit alone" git-qwen-memory -C "$work/hooked" hook post-commit
time_ms "hook post-checkout alone" git-qwen-memory -C "$work/hooked" hook post-checkout "$head" "$head" 1
time_ms "git-qwen-memory --version (process start)" git-qwen-memory --version
