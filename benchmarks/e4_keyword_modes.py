"""E4 keyword tier: what exactness costs at 1M nodes, and what a cheaper ranking would lose.

    python benchmarks/e4_keyword_modes.py [--dir benchmarks/.out/e4]

Needs the output of ``benchmarks/e4_synthetic.py build`` (its keyword index and queries).

Definitions (printed with the results):
- queries: the E4 keyword queries ("keyword": half identifier queries, half docstring sentences)
  and the E4 text queries (docstring sentences only), 1,000 each.
- exact: ``KeywordIndex.search(q, k)``, MaxScore reading until the top-k is proven to be BM25's.
- hybrid mode: ``search(q, 50, max_rounds=1)`` as hybrid search calls it: one reading round
  (impact-ordered heads of the long posting lists, short lists whole), every returned score
  exact; rows never read may be missing.
- heads only (rejected variant, implemented here): the same reading round, ranked by the impacts
  read so far, without completing each candidate's score from the other terms' posting lists.
- agreement@n: |top-n ∩ exact top-n| / n, mean over queries (exact top-50 as the reference).
- latency: wall time of one in-process call, p50 after one untimed pass, single thread.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stratum.keywordindex import HEAD_FACTOR, KeywordIndex  # noqa: E402
from stratum.codetokens import tokenize  # noqa: E402


def heads_only(ki: KeywordIndex, query: str, k: int) -> np.ndarray:
    weights: dict[int, float] = {}
    for t in tokenize(query):
        s = ki._term_slot(t)
        if s >= 0:
            weights[s] = weights.get(s, 0.0) + 1.0
    depth = max(64, HEAD_FACTOR * k)
    rows, imps = [], []
    for slot, w in weights.items():
        s, e = int(ki.offsets[slot]), int(ki.offsets[slot + 1])
        hs, he = int(ki.hoff[slot]), int(ki.hoff[slot + 1])
        pos = s + ki.head[hs:hs + depth] if he > hs else np.arange(s, e)
        rows.append(ki.rows[pos])
        imps.append(ki.impact[pos] * np.float32(w))
    if not rows:
        return np.empty(0, np.int64)
    cand, inv = np.unique(np.concatenate(rows), return_inverse=True)
    score = np.bincount(inv, weights=np.concatenate(imps), minlength=len(cand))
    return cand[np.lexsort((cand, -score))][:k]


def timed(fn, queries) -> tuple[float, list]:
    for q in queries:
        fn(q)
    out, ts = [], []
    for q in queries:
        t = time.perf_counter()
        out.append(fn(q))
        ts.append(time.perf_counter() - t)
    return float(np.median(ts)) * 1e3, out


def agreement(got, ref, n: int) -> float:
    return float(np.mean([len(np.intersect1d(g[:n], r[:n])) / max(1, len(r[:n])) for g, r in zip(got, ref)]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=str(ROOT / "benchmarks" / ".out" / "e4"))
    args = ap.parse_args()
    print(__doc__.split("Definitions")[0])
    print("Definitions" + __doc__.split("Definitions")[1])
    out = Path(args.dir)
    qj = json.loads((out / "queries.json").read_text())
    ki = KeywordIndex.load(out / "indexes" / "keyword", mmap=True)
    print(f"index: {ki.n_docs} documents; load average {os.getloadavg()}")
    print("| queries | mode | k | p50 ms | agreement@10 | agreement@50 |")
    print("|---|---|---|---|---|---|")
    for name in ("keyword", "text"):
        qs = qj[name]
        p10, _ = timed(lambda q: ki.search(q, 10).rows, qs)
        p50, ref = timed(lambda q: ki.search(q, 50).rows, qs)
        print(f"| {name} | exact | 10 | {p10:.3f} | 1 | - |")
        print(f"| {name} | exact | 50 | {p50:.3f} | 1 | 1 |")
        for label, fn in (("hybrid mode (1 round)", lambda q: ki.search(q, 50, max_rounds=1).rows),
                          ("heads only (rejected)", lambda q: heads_only(ki, q, 50))):
            p, got = timed(fn, qs)
            print(f"| {name} | {label} | 50 | {p:.3f} | {agreement(got, ref, 10):.3f} | {agreement(got, ref, 50):.3f} |")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
