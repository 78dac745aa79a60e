#!/usr/bin/env bash
# Builds git-qwen-memory, installs it with its man page and shell completions, then runs an
# offline demo in a throwaway repository. Idempotent: running it again reinstalls in place.
#
#   ./install.sh                 # installs into ~/.local
#   PREFIX=/usr/local ./install.sh
#   NO_DEMO=1 ./install.sh       # skip the demo
#   ./install.sh --uninstall     # remove everything this script installed, and the agent hooks
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
prefix="${PREFIX:-$HOME/.local}"
bin_dir="$prefix/bin"
man_dir="$prefix/share/man/man1"
bash_dir="$prefix/share/bash-completion/completions"
zsh_dir="$prefix/share/zsh/site-functions"
fish_dir="$prefix/share/fish/vendor_completions.d"

die() { echo "install.sh: $*" >&2; exit 1; }

if [ "${1:-}" = "--uninstall" ]; then
  # Agent hooks live in the user's settings files: take them out while the binary still runs.
  if [ -x "$bin_dir/git-qwen-memory" ]; then
    (cd "${TMPDIR:-/tmp}" && "$bin_dir/git-qwen-memory" uninstall --agent all) || true
  fi
  rm -f "$bin_dir/git-qwen-memory" "$man_dir"/git-qwen-memory.1 "$man_dir"/git-qwen-memory-*.1 \
    "$bash_dir/git-qwen-memory" "$zsh_dir/_git-qwen-memory" "$fish_dir/git-qwen-memory.fish"
  echo "removed the binary, manual pages, completions and the agent hooks in your user settings."
  echo "In each repository where you ran 'git qwen-memory install', Git hooks stay until you run"
  echo "'git qwen-memory uninstall' there (without the binary they do nothing). Memories are kept:"
  echo "they are Qwen Code's files too (~/.qwen/projects/*/memory, .qwen/memory in repositories)."
  exit 0
fi

command -v cargo >/dev/null 2>&1 || die "cargo not found. Install Rust (https://rustup.rs) and run ./install.sh again."
command -v git >/dev/null 2>&1 || die "git not found. Install Git and run ./install.sh again."

echo "==> building (release). The first build compiles every dependency and takes a few minutes"
echo "    (longer on a small machine); cargo shows its progress below. Later builds are quick."
started=$(date +%s)
(cd "$here" && cargo build --release --locked)
echo "    built in $(( $(date +%s) - started )) s"
target_dir="$(cd "$here" && cargo metadata --format-version 1 --no-deps 2>/dev/null \
  | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
built="${target_dir:-$here/target}/release/git-qwen-memory"
[ -x "$built" ] || die "build finished but $built is missing"

echo "==> installing into $prefix"
mkdir -p "$bin_dir" "$man_dir" "$bash_dir" "$zsh_dir" "$fish_dir"
install -m 0755 "$built" "$bin_dir/git-qwen-memory.new"
mv -f "$bin_dir/git-qwen-memory.new" "$bin_dir/git-qwen-memory"
"$bin_dir/git-qwen-memory" man --quiet --out-dir "$man_dir"
"$bin_dir/git-qwen-memory" completions bash > "$bash_dir/git-qwen-memory"
"$bin_dir/git-qwen-memory" completions zsh > "$zsh_dir/_git-qwen-memory"
"$bin_dir/git-qwen-memory" completions fish > "$fish_dir/git-qwen-memory.fish"
echo "    binary   $bin_dir/git-qwen-memory"
echo "    manual   $man_dir/git-qwen-memory.1 and one page per command (git-qwen-memory-status.1, …)"
echo "    completions for bash, zsh and fish (bash and zsh also complete 'git qwen-memory <TAB>')"

case ":$PATH:" in
  *":$bin_dir:"*) ;;
  *) echo "note: $bin_dir is not on your PATH; add it so 'git qwen-memory' works:"
     echo "      export PATH=\"$bin_dir:\$PATH\""
     export PATH="$bin_dir:$PATH" ;;
esac
if [ -n "${MANPATH:-}" ]; then
  case ":$MANPATH:" in *":$prefix/share/man:"*) ;; *) echo "note: add $prefix/share/man to MANPATH for 'git qwen-memory --help'";; esac
fi

[ "${NO_DEMO:-0}" = 1 ] && exit 0

echo "==> demo (offline, in a temporary repository; your own memory is not touched)"
demo="$(mktemp -d)"
trap 'rm -rf "$demo"' EXIT
export QWEN_CODE_MEMORY_BASE_DIR="$demo/base" QWEN_MEMORY_TELEMETRY=0
git init -q "$demo/repo"
cd "$demo/repo"
run() { printf '$'; printf ' %q' "$@"; echo; "$@"; echo; }
run git qwen-memory remember --type feedback --why "CI takes 40 minutes and main must stay green" "Never push directly to main; open a pull request"
run git qwen-memory remember --type project "We deploy only from release branches"
run git qwen-memory list
run git qwen-memory index
echo "\$ cat MEMORY.md"; cat "$QWEN_CODE_MEMORY_BASE_DIR"/projects/*/memory/MEMORY.md; echo; echo
if git qwen-memory help recall >/dev/null 2>&1; then
  run git qwen-memory recall "can I push this fix to main?"
fi
run git qwen-memory status
echo "==> done. Try 'git qwen-memory --help'."
