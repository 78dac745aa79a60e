#!/usr/bin/env bash
# What the agent hooks add to one agent turn, measured as the agent runs them: the exact
# command strings `install --agent claude` writes into settings.json, run through `sh -c` with
# the hook payload on stdin (release build, hyperfine).
#   1. UserPromptSubmit -> recall, on 1,000 memory documents.
#   2. Stop -> extract launch (the hook starts a detached extract and returns), on a transcript
#      that grew since the last launch.
#   3. SessionEnd right after Stop, same bytes: no second extract is started.
#   4. The same recall command with the binary missing from PATH (the guard alone).
# A turn pays 1 + 2 (and 3 at the end of a session). Each is timed as a whole process tree
# (the `sh` wrapper included) by scripts/proc-times.py: median wall time and median CPU time
# (user + sys of the tree; much less sensitive to other load on a shared machine).
# Usage: scripts/bench-agent-hooks.sh [runs]   (default 30 runs)
set -euo pipefail
runs=${1:-30}
root=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --locked --manifest-path "$root/Cargo.toml"
bin_dir=${CARGO_TARGET_DIR:-$root/target}/release
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work/home QWEN_CODE_MEMORY_BASE_DIR=$work/base GIT_CONFIG_NOSYSTEM=1 QWEN_MEMORY_TELEMETRY=0
unset CLAUDE_CONFIG_DIR QWEN_CODE_MEMORY_LOCAL OPENAI_BASE_URL OPENAI_MODEL OPENAI_API_KEY || true
mkdir -p "$HOME" "$work/bin"
cp "$bin_dir/git-qwen-memory" "$work/bin/"
export PATH="$work/bin:/usr/bin:/bin"
git init -q -b main "$work/repo"
cd "$work/repo"
git-qwen-memory install -q --agent claude

# The commands exactly as installed.
cmd_of() {
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["hooks"][sys.argv[2]][0]["hooks"][0]["command"])' \
    "$HOME/.claude/settings.json" "$1"
}
recall_cmd=$(cmd_of UserPromptSubmit)
stop_cmd=$(cmd_of Stop)
echo "recall hook: $recall_cmd"
echo "stop hook:   $stop_cmd"

# 1,000 documents in the private root.
mem=$(git-qwen-memory status --json | sed -n 's/.*"path": "\(.*projects[^"]*memory\)".*/\1/p' | head -1)
types=(user feedback project reference)
for i in $(seq 1 1000); do
  ty=${types[$(( i % 4 ))]}
  mkdir -p "$mem/$ty"
  printf -- '---\nname: Note %s about topic%s\ndescription: Detail number %s on area%s\ntype: %s\n---\n\nFact %s: the service topic%s uses port %s.\n\nWhy: measured in run %s\n' \
    "$i" "$((i % 97))" "$i" "$((i % 13))" "$ty" "$i" "$((i % 97))" "$((8000 + i))" "$i" > "$mem/$ty/note-$i.md"
done
git-qwen-memory index -q
# Files younger than 2 s are not kept in the parse cache: wait, then one recall builds it.
sleep 3
git-qwen-memory recall "topic42 port" > /dev/null

# A new session id per run, so "already surfaced" never empties the answer.
cat > "$work/recall.sh" <<EOF
#!/bin/sh
n=\$(date +%s%N)
printf '{"session_id":"s%s","cwd":"$work/repo","hook_event_name":"UserPromptSubmit","prompt":"which port does the topic42 service use?"}' "\$n" | sh -c '$recall_cmd' >/dev/null
EOF
# Stop on a transcript that grew: one line appended per run, then the hook.
transcript=$work/t.jsonl
cat > "$work/stop.sh" <<EOF
#!/bin/sh
printf '{"type":"user","message":{"role":"user","content":"the staging db is reset nightly"}}\n' >> $transcript
printf '{"session_id":"s1","transcript_path":"$transcript","cwd":"$work/repo","hook_event_name":"Stop"}' | sh -c '$stop_cmd'
EOF
cat > "$work/end.sh" <<EOF
#!/bin/sh
printf '{"session_id":"s1","transcript_path":"$transcript","cwd":"$work/repo","hook_event_name":"SessionEnd"}' | sh -c '$stop_cmd'
EOF
cat > "$work/missing.sh" <<EOF
#!/bin/sh
printf '{"prompt":"x"}' | PATH=/usr/bin:/bin sh -c '$recall_cmd'
EOF
chmod +x "$work"/*.sh
# The extract runs it starts are stood in for by `true`: the hook's own cost is measured, and
# a hundred real extracts in the background would load the machine under the measurement.
export QWEN_MEMORY_HOOK_EXEC=/bin/true
"$work/stop.sh"

for case in "UserPromptSubmit: recall, 1,000 docs|recall.sh" "Stop: extract launch (new bytes)|stop.sh" \
            "SessionEnd after Stop (same bytes)|end.sh" "recall with the binary missing (guard only)|missing.sh"; do
  name=${case%%|*}
  res=$(python3 "$root/scripts/proc-times.py" --runs "$runs" --warmup 3 -- "$work/${case##*|}")
  python3 -c 'import json,sys; d=json.loads(sys.argv[1]); w,c=d["wallMs"],d["cpuMs"]
print("%-46s wall median %6.1f ms (p10 %.1f, p90 %.1f)  CPU median %6.1f ms" % (sys.argv[2], w["median"], w["p10"], w["p90"], c["median"]))' "$res" "$name"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
