#!/usr/bin/env python3
"""Generates a synthetic memory tree of N topic documents for benchmarks.

usage: gen-memory-tree.py ROOT N [--dup-ratio R] [--seed S]

Documents look like real memories: a type directory, a slug, frontmatter with name,
description, type and provenance keys, and a body of 1-4 entries with Why/How-to-apply lines.
With --dup-ratio, that share of documents repeats the first entry of an earlier document of the
same type (what dream consolidates). Modification times are spread over 60 days.
"""
import os
import random
import sys

TYPES = ["user", "feedback", "project", "reference"]
SUBJECTS = ["the API gateway", "the billing service", "release branches", "the CI pipeline",
            "database migrations", "feature flags", "the mobile app", "error budgets",
            "the staging cluster", "code review", "the search index", "dependency updates",
            "the auth service", "log retention", "the data warehouse", "canary deploys",
            "the design system", "on-call rotation", "load tests", "the payments queue"]
VERBS = ["must go through", "is owned by", "depends on", "is deployed with", "is documented in",
         "should be checked against", "runs before", "is rate limited by", "is tested with",
         "is monitored through"]
OBJECTS = ["the platform team", "terraform", "a nightly job", "the runbook", "grafana dashboards",
           "pytest and nextest", "the release checklist", "two approvals", "the staging account",
           "semantic versioning", "the shared VPC", "an SLO of 99.9 percent"]
WORDS = ("latency budget rollout rollback migration schema tenant cache shard replica "
         "queue worker cron secret rotation audit lint format coverage fixture snapshot "
         "profile trace metric alert pager incident postmortem ticket roadmap").split()


def sentence(rng):
    return f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(VERBS)} {rng.choice(OBJECTS)}"


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    root, n = args[0], int(args[1])
    dup = float(args[args.index("--dup-ratio") + 1]) if "--dup-ratio" in args else 0.0
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 42
    rng = random.Random(seed)
    now = 1_780_000_000
    firsts = {t: [] for t in TYPES}
    for i in range(n):
        t = TYPES[i % 4]
        if dup and firsts[t] and rng.random() < dup:
            first = rng.choice(firsts[t])
        else:
            first = f"{sentence(rng)} ({' '.join(rng.sample(WORDS, 3))} {i})"
            firsts[t].append(first)
        entries = [first] + [sentence(rng) for _ in range(rng.randint(0, 3))]
        body = []
        for e in entries:
            body.append(e)
            if rng.random() < 0.6:
                body.append("")
                body.append(f"Why: {' '.join(rng.sample(WORDS, 6))}")
            if rng.random() < 0.4:
                body.append("")
                body.append(f"How to apply: {' '.join(rng.sample(WORDS, 5))}")
            body.append("")
        name = first[:72]
        path = os.path.join(root, t, f"doc-{i:05d}.md")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(f"---\nname: {name}\ndescription: {sentence(rng)}\ntype: {t}\n"
                    f"created: 2026-10-01T00:00:00.000Z\n---\n\n" + "\n".join(body).rstrip() + "\n")
        mtime = now - rng.randint(0, 60 * 86400)
        os.utime(path, (mtime, mtime))
    with open(os.path.join(root, "MEMORY.md"), "w") as f:
        f.write("")


if __name__ == "__main__":
    main()
