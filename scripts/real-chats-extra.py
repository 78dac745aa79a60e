#!/usr/bin/env python3
"""Rebuilds the extra real-chat turns (docs/quality/real-chats-extra*.json: Japanese and
Korean, Chinese, English) from the public repositories they came from, for `REAL_CHATS_EXTRA`
(examples/extract_real.rs).

The repository keeps pointers and labels only, never the text (the text is other people's
words, like ../shared/corpus/real-chats/): each turn is `bytes` bytes at byte `offset` of the
file `source` = owner/repo:path at `commit`, checked against `sha256`.

    scripts/real-chats-extra.py [--mirrors DIR] [--out DIR]

--mirrors DIR: bare or normal clones named `owner+name` (or `owner+name/repo`) under DIR;
without it each repository is cloned (all branches: Entire checkpoints live on
`entire/checkpoints/v1`) into target/tmp/real-chats-extra/. --out DIR: where `en.json`,
`ja.json`, `ko.json` and `zh.json` go (default ../corpus-extra/consensus beside the clone). Turns whose
file or bytes no longer match are left out and counted.
"""
import argparse
import collections
import glob
import hashlib
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def git_dir(base, repo):
    top = os.path.join(base, repo.replace("/", "+"))
    for root, dirs, files in os.walk(top):
        if "HEAD" in files and "objects" in dirs:
            return root
        if ".git" in dirs:
            return os.path.join(root, ".git")
    return None


def clone(base, repo):
    dest = os.path.join(base, repo.replace("/", "+"))
    if not os.path.isdir(dest):
        subprocess.run(
            ["git", "clone", "--quiet", "--mirror", "https://github.com/%s.git" % repo, dest],
            check=False,
        )
    return git_dir(base, repo)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirrors")
    ap.add_argument("--out", default=os.path.join(ROOT, "..", "corpus-extra", "consensus"))
    args = ap.parse_args()
    turns = []
    for name in sorted(glob.glob(os.path.join(ROOT, "docs/quality/real-chats-extra*.json"))):
        with open(name) as f:
            turns.extend(json.load(f)["turns"])
    base = args.mirrors or os.path.join(ROOT, "target/tmp/real-chats-extra")
    os.makedirs(base, exist_ok=True)
    blobs, out, lost = {}, collections.defaultdict(list), collections.Counter()
    for t in turns:
        # Every pointer so far is to the raw bytes of the file; another encoding needs code here.
        assert t.get("encoding", "raw") == "raw", "%s: encoding %s" % (t["id"], t["encoding"])
        repo, path = t["source"].split(":", 1)
        gd = git_dir(base, repo) if args.mirrors else clone(base, repo)
        key = (repo, t["commit"], path)
        if key not in blobs:
            blob = None
            if gd:
                p = subprocess.run(
                    ["git", "--git-dir", gd, "show", "%s:%s" % (t["commit"], path)],
                    capture_output=True,
                )
                blob = p.stdout if p.returncode == 0 else None
            blobs[key] = blob
        blob = blobs[key]
        raw = blob[t["offset"] : t["offset"] + t["bytes"]] if blob is not None else None
        if raw is None or hashlib.sha256(raw).hexdigest() != t["sha256"]:
            lost[repo] += 1
            continue
        rec = {k: v for k, v in t.items() if k not in ("offset", "bytes", "sha256")}
        rec["text"] = raw.decode("utf-8")
        rec["fact"] = None
        out[t["lang"]].append(rec)
    os.makedirs(args.out, exist_ok=True)
    for lang, recs in out.items():
        with open(os.path.join(args.out, lang + ".json"), "w") as f:
            json.dump(recs, f, ensure_ascii=False, indent=1)
    print("rebuilt %d of %d turns into %s" % (sum(map(len, out.values())), len(turns), args.out))
    for repo, n in sorted(lost.items()):
        print("  not found: %d from %s" % (n, repo), file=sys.stderr)
    return 0 if not lost else 1


if __name__ == "__main__":
    sys.exit(main())
