#!/usr/bin/env python3
"""Times tool calls of a running `git-qwen-memory mcp` server over its stdio, in raw JSON-RPC
(no SDK: what is timed is the server and one pipe round trip).

usage: bench-mcp.py BINARY PROJECT_DIR [--runs N]

Starts the server in PROJECT_DIR, initializes, warms up, then calls each tool N times
(default 50) and prints the median, p10 and p90 wall time per tool in milliseconds, as JSON.
"""
import json
import statistics
import subprocess
import sys
import time


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    binary, project = args[0], args[1]
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 50
    p = subprocess.Popen([binary, "mcp"], cwd=project, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
    ids = iter(range(1, 10**9))

    def request(method, params):
        i = next(ids)
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
        p.stdin.flush()
        while True:
            msg = json.loads(p.stdout.readline())
            if msg.get("id") == i:
                return msg

    request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "bench", "version": "1"}})
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    p.stdin.flush()
    listed = request("tools/call", {"name": "list", "arguments": {}})["result"]
    first = listed["structuredContent"]["memories"][0]["id"]
    calls = {
        "recall": ("recall", {"query": "how do we deploy the billing service with terraform and canary deploys"}),
        "remember (already known)": ("remember", {"text": "The benchmark fact is stored once"}),
        "show": ("show", {"id": first}),
        "forget (dry run)": ("forget", {"query": "billing service", "dry_run": True}),
        "list": ("list", {}),
        # Each call saves a fact not stored yet (a new document, MEMORY.md rewritten).
        "remember (new fact)": ("remember", "new"),
        # Each call removes a one-entry memory saved (untimed) just before it.
        "forget (one entry)": ("forget", None),
    }
    facts = iter(range(10**9))

    def arguments_of(arguments):
        if arguments == "new":
            return {"text": f"The bench new fact number {next(facts)} is kept on disk"}
        if arguments is not None:
            return arguments
        saved = request("tools/call", {"name": "remember", "arguments": {
            "text": f"The bench forget fact number {next(facts)} is removed again"}})["result"]
        return {"ids": [saved["structuredContent"]["change"]["relativePath"]]}

    out = {}
    for label, (tool, arguments) in calls.items():
        for _ in range(3):
            request("tools/call", {"name": tool, "arguments": arguments_of(arguments)})
        times = []
        for _ in range(runs):
            args = arguments_of(arguments)
            t0 = time.perf_counter()
            r = request("tools/call", {"name": tool, "arguments": args})
            times.append((time.perf_counter() - t0) * 1000)
            if r.get("result", {}).get("isError"):
                sys.exit(f"{tool} failed: {r}")
            if arguments == "new" and r["result"]["structuredContent"]["change"]["kind"] != "created":
                sys.exit(f"remember did not create a new memory: {r}")
        times.sort()
        out[label] = {"median": round(statistics.median(times), 2),
                      "p10": round(times[len(times) // 10], 2),
                      "p90": round(times[len(times) * 9 // 10], 2)}
    p.stdin.close()
    p.wait(timeout=20)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
