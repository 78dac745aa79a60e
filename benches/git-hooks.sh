#!/usr/bin/env bash
# Times the Git hooks and the recall hook end to end with hyperfine (release build).
#   1. `git commit --allow-empty` with the hooks installed vs without (dream not due: the
#      post-commit hook only starts the detached dream, whose gates say "not due").
#   2. `git qwen-memory hook recall` on a synthetic tree of 1,000 memory documents.
# Usage: benches/git-hooks.sh [runs]   (needs hyperfine; default 50 runs)
set -euo pipefail
runs=${1:-50}
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
for r in plain postcommit hooked; do
  git init -q -b main "$work/$r"
  git -C "$work/$r" commit -q --allow-empty -m init
done
(cd "$work/postcommit" && git-qwen-memory install -q --hooks post-commit)
(cd "$work/hooked" && git-qwen-memory install -q)

hyperfine -N --warmup 5 --runs "$runs" \
  --export-markdown "$work/commit.md" \
  -n "git commit (no hooks)" "git -C $work/plain commit -q --allow-empty -m x" \
  -n "git commit (post-commit hook)" "git -C $work/postcommit commit -q --allow-empty -m x" \
  -n "git commit (all five hooks)" "git -C $work/hooked commit -q --allow-empty -m x"
hyperfine -N --warmup 5 --runs "$runs" -n "hook post-commit alone" \
  "git-qwen-memory -C $work/postcommit hook post-commit"
cat "$work/commit.md"

# 1,000 documents in the private root of the hooked repository.
mem=$(cd "$work/hooked" && git-qwen-memory status --json | sed -n 's/.*"path": "\(.*projects[^"]*memory\)".*/\1/p' | head -1)
for i in $(seq 1 1000); do
  t=$(( i % 4 )); types=(user feedback project reference); ty=${types[$t]}
  mkdir -p "$mem/$ty"
  printf -- '---\nname: Note %s about topic%s\ndescription: Detail number %s on area%s\ntype: %s\n---\n\nFact %s: the service topic%s uses port %s.\n\nWhy: measured in run %s\n' \
    "$i" "$((i % 97))" "$i" "$((i % 13))" "$ty" "$i" "$((i % 97))" "$((8000 + i))" "$i" > "$mem/$ty/note-$i.md"
done
payload="{\"session_id\":\"\",\"cwd\":\"$work/hooked\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"which port does the topic42 service use?\"}"
printf '%s' "$payload" > "$work/payload.json"
hyperfine --warmup 5 --runs "$runs" \
  --export-markdown "$work/recall.md" \
  -n "hook recall (1,000 docs)" "git-qwen-memory -C $work/hooked hook recall --agent qwen < $work/payload.json"
cat "$work/recall.md"
