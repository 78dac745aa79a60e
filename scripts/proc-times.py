#!/usr/bin/env python3
"""Times whole processes: wall clock and CPU (user + sys, from wait4's rusage) per run.

The machine the figures come from is shared, so wall times are noisy; CPU time is much less
sensitive to other load, and medians are reported for both.

    proc-times.py [--runs N] [--warmup N] [--prepare SHELL_CMD] [--label L] -- CMD [ARGS...]

CMD runs directly (no shell) with stdout and stderr discarded; `--prepare` runs through
`sh -c` before every run (warm-up runs included) and is not timed. Prints one line of JSON:
{"label", "runs", "wallMs": {"median", "p10", "p90", "min", "max"}, "cpuMs": {…}, "failures"}.
"""
import json
import os
import statistics
import subprocess
import sys
import time


def stats(xs):
    xs = sorted(xs)
    pick = lambda q: xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))]
    return {
        "median": round(statistics.median(xs), 2),
        "p10": round(pick(0.1), 2),
        "p90": round(pick(0.9), 2),
        "min": round(xs[0], 2),
        "max": round(xs[-1], 2),
    }


def main(argv):
    runs, warmup, prepare, label = 30, 3, None, ""
    i = 0
    while i < len(argv) and argv[i] != "--":
        flag, value = argv[i], argv[i + 1]
        if flag == "--runs":
            runs = int(value)
        elif flag == "--warmup":
            warmup = int(value)
        elif flag == "--prepare":
            prepare = value
        elif flag == "--label":
            label = value
        else:
            sys.exit("unknown option " + flag)
        i += 2
    cmd = argv[i + 1:]
    if not cmd:
        sys.exit(__doc__)
    walls, cpus, failures = [], [], 0
    devnull = os.open(os.devnull, os.O_WRONLY)
    for n in range(warmup + runs):
        if prepare:
            subprocess.run(["sh", "-c", prepare], check=True)
        start = time.perf_counter()
        pid = os.posix_spawnp(cmd[0], cmd, os.environ,
                              file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                            (os.POSIX_SPAWN_DUP2, devnull, 2)])
        _, status, usage = os.wait4(pid, 0)
        wall = (time.perf_counter() - start) * 1000
        if os.waitstatus_to_exitcode(status) != 0:
            failures += 1
        if n >= warmup:
            walls.append(wall)
            cpus.append((usage.ru_utime + usage.ru_stime) * 1000)
    print(json.dumps({"label": label, "runs": runs, "wallMs": stats(walls),
                      "cpuMs": stats(cpus), "failures": failures}))


if __name__ == "__main__":
    main(sys.argv[1:])
