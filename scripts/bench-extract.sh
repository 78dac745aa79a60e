#!/usr/bin/env bash
# Benchmarks `git qwen-memory extract` on a synthetic 20 MB Qwen Code transcript:
#   1. the first extract reads the whole file (reported in MB/s, with peak RSS);
#   2. what a hook pays after every agent turn: one turn is appended and `extract` runs as a
#      whole process. Five rounds check that only the appended bytes are read; then
#      scripts/proc-times.py times ROUNDS runs (a new turn appended before each, untimed) and
#      reports the median wall time and the median CPU time (user + sys, much less sensitive
#      to other load on a shared machine). Target (issue 21): <= 15 ms.
#
# Usage: scripts/bench-extract.sh [SIZE_MB] [ROUNDS]      (defaults: 20, 40)
#        BENCH_STRICT=1 makes a missed 15 ms target (median wall) exit 1.
# Needs: cargo, git, python3. Uses /usr/bin/time -v for peak RSS when available.
# Everything happens in a temporary directory (own HOME and memory base dir).
set -euo pipefail

SIZE_MB="${1:-20}"
ROUNDS="${2:-40}"
HERE="$(cd "$(dirname "$0")/.." && pwd)"

cargo build --release --quiet --manifest-path "$HERE/Cargo.toml"
TARGET_DIR="${CARGO_TARGET_DIR:-$HERE/target}"
BIN="$TARGET_DIR/release/git-qwen-memory"
[ -x "$BIN" ] || { echo "binary not found: $BIN" >&2; exit 1; }

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export HOME="$WORK/home" QWEN_CODE_MEMORY_BASE_DIR="$WORK/base" GIT_CONFIG_NOSYSTEM=1
export QWEN_MEMORY_TELEMETRY=1
unset OPENAI_BASE_URL OPENAI_MODEL OPENAI_API_KEY QWEN_CODE_MEMORY_LOCAL || true
mkdir -p "$HOME" "$WORK/repo"
git -C "$WORK/repo" init -q
git -C "$WORK/repo" -c user.name=b -c user.email=b@example.com commit -q --allow-empty -m init
T="$WORK/session.jsonl"

# Generates realistic turns: a user prompt (mostly one-off requests, now and then a durable
# fact), an assistant turn with thinking, text and a tool call, a large tool result, and the
# assistant's answer. Each turn is ~5 KB, tool output dominating, as in real sessions.
python3 - "$T" "$SIZE_MB" <<'PY'
import json, sys
path, size = sys.argv[1], int(sys.argv[2]) * 1024 * 1024
S = "0f1e2d3c-4b5a-4968-8776-655443322110"
CWD = "/home/bench/src/shop"
requests = ["Please fix the failing checkout test.", "Run the tests again.",
            "Can you rename this function to computeTotal?", "Let's look at the docs for the cart.",
            "I need you to update the changelog.", "Why does the build fail on CI?"]
facts = ["We deploy only from release branches, because hotfixes are cherry-picked there.",
         "Never push directly to main.", "I prefer terse answers without a closing summary.",
         "The on-call runbook is at https://wiki.example.com/runbooks/service-%d.",
         "Our staging environment number %d is reset every Sunday night."]
def rec(n, typ, message, **kw):
    r = {"uuid": "u-%d" % n, "parentUuid": "u-%d" % (n - 1) if n else None, "sessionId": S,
         "timestamp": "2026-03-02T09:00:00.000Z", "type": typ, "cwd": CWD, "version": "0.15.2",
         "gitBranch": "main", "message": message}
    r.update(kw)
    return json.dumps(r, separators=(",", ":")) + "\n"
out, n, turn, written = open(path, "w"), 0, 0, 0
code = "export function total(items) {\n  return items.reduce((a, b) => a + b.price, 0);\n}\n" * 40
while written < size:
    turn += 1
    text = requests[turn % len(requests)]
    if turn % 25 == 0:
        # ~45 distinct facts in all: a realistic memory, not one file per turn.
        f = facts[(turn // 25) % len(facts)]
        text = text + " " + (f % (turn // 125 % 20) if "%d" in f else f)
    lines = [
        rec(n, "user", {"role": "user", "parts": [{"text": text}]}),
        rec(n + 1, "assistant", {"role": "model", "parts": [
            {"text": "Let me think about the cart module and its tests.", "thought": True},
            {"text": "Reading the file first."},
            {"functionCall": {"id": "c%d" % turn, "name": "read_file",
                              "args": {"absolute_path": CWD + "/src/cart.ts"}}}]},
            model="qwen3-coder-plus", usageMetadata={"promptTokenCount": 18000, "totalTokenCount": 18120}),
        rec(n + 2, "tool_result", {"role": "user", "parts": [{"functionResponse": {
            "id": "c%d" % turn, "name": "read_file", "response": {"output": code}}}]},
            toolCallResult={"callId": "c%d" % turn, "status": "success"}),
        rec(n + 3, "assistant", {"role": "model", "parts": [
            {"text": "The total is computed in cart.ts; I updated the test accordingly."}]}),
    ]
    n += 4
    for l in lines:
        out.write(l)
        written += len(l)
out.close()
PY
BYTES=$(stat -c %s "$T")
MB=$(python3 -c "print(round($BYTES/1048576, 1))")

run() { (cd "$WORK/repo" && "$BIN" extract --transcript "$T" --json "$@"); }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)[sys.argv[1]])" "$1"; }
phases() { python3 -c "import json,sys; t=json.load(sys.stdin)['timings']; print('read %.1f ms, plan %.1f ms, write %.1f ms' % (t['readMs'], t['planMs'], t['writeMs']))"; }

echo "transcript: $MB MB ($BYTES bytes), $(wc -l < "$T") lines"

# First extract: the whole file.
if [ -x /usr/bin/time ]; then
  /usr/bin/time -v -o "$WORK/time1" bash -c "cd '$WORK/repo' && '$BIN' extract --transcript '$T' --json > '$WORK/first.json'"
  SECS=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$WORK/time1")
  RSS1=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time1")
else
  START=$(date +%s.%N); run > "$WORK/first.json"; END=$(date +%s.%N)
  SECS=$(python3 -c "print($END-$START)"); RSS1="n/a"
fi
READ1=$(field bytesRead < "$WORK/first.json")
[ "$READ1" = "$BYTES" ] || { echo "first run read $READ1 of $BYTES bytes" >&2; exit 1; }
echo "first extract: ${SECS}s, $(python3 -c "print(round($BYTES/1048576/max($SECS,1e-9)))") MB/s, peak RSS ${RSS1} KB ($(phases < "$WORK/first.json"); $(ls -R "$QWEN_CODE_MEMORY_BASE_DIR"/projects/*/memory | grep -c '\.md$') files)"

# The appended turn: a one-off request from the user (the usual turn; it yields no memory) with
# a project fact in the same message, and the assistant's answer.
cat > "$WORK/append.sh" <<EOF
#!/bin/sh
i=\$(date +%s%N)
printf '%s\n%s\n' \
  "{\"uuid\":\"x-\$i\",\"sessionId\":\"0f1e2d3c-4b5a-4968-8776-655443322110\",\"type\":\"user\",\"cwd\":\"/home/bench/src/shop\",\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"Can you rename the helper in cart.ts to computeTotal and update its tests? Our release train \$i leaves every Thursday.\"}]}}" \
  "{\"uuid\":\"y-\$i\",\"sessionId\":\"0f1e2d3c-4b5a-4968-8776-655443322110\",\"type\":\"assistant\",\"cwd\":\"/home/bench/src/shop\",\"message\":{\"role\":\"model\",\"parts\":[{\"text\":\"Done.\"}]}}" >> "$T"
EOF
chmod +x "$WORK/append.sh"

# Correctness first: each round must read exactly the appended bytes.
for i in 1 2 3 4 5; do
  BEFORE=$(stat -c %s "$T")
  "$WORK/append.sh"
  AFTER=$(stat -c %s "$T")
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -v -o "$WORK/time2" bash -c "cd '$WORK/repo' && exec '$BIN' extract --transcript '$T' --json" > "$WORK/next.json"
    RSS2=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time2")
  else
    run > "$WORK/next.json"; RSS2="n/a"
  fi
  START_OFF=$(field startOffset < "$WORK/next.json")
  READ=$(field bytesRead < "$WORK/next.json")
  if [ "$START_OFF" != "$BEFORE" ] || [ "$READ" != "$((AFTER - BEFORE))" ]; then
    echo "round $i read $READ bytes from $START_OFF; expected $((AFTER - BEFORE)) from $BEFORE" >&2
    exit 1
  fi
done
echo "one appended turn: reads only the appended bytes ($READ of $(stat -c %s "$T")); peak RSS ${RSS2} KB; in process $(field durationMs < "$WORK/next.json") ms ($(phases < "$WORK/next.json"))"

# Then the whole process, timed: medians over ROUNDS runs, a new turn appended before each.
RESULT=$(cd "$WORK/repo" && python3 "$HERE/scripts/proc-times.py" --runs "$ROUNDS" --warmup 3 \
  --prepare "$WORK/append.sh" -- "$BIN" extract --transcript "$T" --json)
read -r WALL CPU P10 P90 FAILS <<< "$(python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(d['wallMs']['median'], d['cpuMs']['median'], d['wallMs']['p10'], d['wallMs']['p90'], d['failures'])" "$RESULT")"
[ "$FAILS" = 0 ] || { echo "$FAILS runs failed" >&2; exit 1; }
echo "incremental extract, one appended turn ($ROUNDS runs): median wall $WALL ms (p10 $P10, p90 $P90); median CPU (user+sys) $CPU ms; load average $(cut -d' ' -f1-3 /proc/loadavg)"
if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= 15 else 1)" "$WALL"; then
  echo "target (<= 15 ms median wall per incremental extract): met"
else
  echo "target (<= 15 ms median wall per incremental extract): NOT MET" >&2
  [ "${BENCH_STRICT:-0}" = 1 ] && exit 1
fi
