"""E4 hybrid search: what each way of computing the keyword list costs, and what it changes in the
final page, side by side in one run (issue 13: hybrid p50 <= 1.7 ms at 1M nodes).

    python benchmarks/e4_hybrid.py [--dir benchmarks/.out/e4] [--queries 1000]

Needs the output of ``benchmarks/e4_synthetic.py build`` (warm indexes, Lance nodes, queries).

Definitions (printed with the results):
- queries: the E4 text queries (docstring first sentences, with their vectors from the build's
  model) and the E4 identifier queries (an existing node's name, embedded here by the build's
  model), no filter, page of 10. Query vectors are given (embedding is not timed).
- reference: ``HybridSearcher`` with the exact keyword list (BM25 top-50 proven, max_rounds=0),
  vector search inline: the answer every variant is compared with.
- variants: keyword reading rounds (1 = the impact-ordered heads of long lists read once, every
  returned score exact, a row never read may be missing), head factor (head postings read per
  wanted hit in that round; the heads of a term are at most 4,096 long; "by impact": each term's
  share of that depth is its top impact over the query's largest), and the keyword search on a
  helper thread beside the vector search or both inline (the default). Indexes of 100,000 rows
  and more complete candidate scores with the compiled merge (stratum.kernels); "numpy
  completion" is the same index with one numpy binary search per candidate and term instead.
- agreement@10: |variant top-10 ∩ reference top-10| / 10 over the final fused page, mean over
  queries; "same page" = the share of queries whose top-10 is identical in order.
- latency: wall time of one ``search`` call, p50 / p99 over all queries; the variants run
  interleaved query by query (one query through every variant, then the next), after one untimed
  pass, so machine load falls on all alike. Parts: p50 of ``SearchPage.timings_ms``.
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

VARIANTS = [  # label, HybridSearcher keyword arguments
    ("reference: exact keyword, inline", {"keyword_rounds": 0, "parallel": 0}),
    ("1 round, head factor 8, keyword on a helper thread", {"keyword_rounds": 1, "keyword_head_factor": 8, "parallel": 2}),
    ("1 round, head factor 8, inline", {"keyword_rounds": 1, "keyword_head_factor": 8, "parallel": 0}),
    ("1 round, head factor 4, inline", {"keyword_rounds": 1, "keyword_head_factor": 4, "parallel": 0}),
    ("1 round, head factor 2, inline", {"keyword_rounds": 1, "keyword_head_factor": 2, "parallel": 0}),
    ("1 round, head factor 16 by impact, inline, numpy completion (before)",
     {"keyword_rounds": 1, "keyword_head_factor": 16, "keyword_by_impact": True, "parallel": 0, "compiled": False}),
    ("1 round, head factor 16 by impact, inline (default)",
     {"keyword_rounds": 1, "keyword_head_factor": 16, "keyword_by_impact": True, "parallel": 0}),
    ("1 round, head factor 16 by impact, keyword on a helper thread",
     {"keyword_rounds": 1, "keyword_head_factor": 16, "keyword_by_impact": True, "parallel": 2}),
    ("2 rounds, head factor 8, inline", {"keyword_rounds": 2, "keyword_head_factor": 8, "parallel": 0}),
]


def load(d: Path):
    from stratum.graph import Graph  # noqa: F401  (same imports as a shard)
    from stratum.keywordindex import KeywordIndex
    from stratum.rowfilter import NodeMeta
    from stratum.store import Store
    from stratum.vectorindex import VectorIndex

    store = d / "store"
    tbl = Store(store).db().open_table("nodes")
    meta = NodeMeta(tbl.search().select(["id", "kind", "path", "language"]).limit(None).to_arrow())
    vi = VectorIndex.load(d / "indexes" / "vector", mmap=True)
    ki = KeywordIndex.load(d / "indexes" / "keyword", mmap=True)
    return meta, vi, ki


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=str(ROOT / "benchmarks" / ".out" / "e4"))
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    print(__doc__.split("Definitions")[1].split("\n", 1)[1], flush=True)
    from benchmarks.e4_synthetic import embedder
    from stratum.keywordindex import KeywordIndex
    from stratum.search import HybridSearcher

    d = Path(args.dir)
    meta, vi, ki = load(d)
    z = np.load(d / "queries.npz")
    qj = json.loads((d / "queries.json").read_text())
    build = json.loads((d / "build.json").read_text())
    model = build.get("embedding", {}).get("model", "")
    emb = embedder("static" if model.endswith("-static") else "minilm")
    n = args.queries
    ident = [q for q in qj["keyword"][: len(qj["keyword"]) // 2]][:n // 2]
    sets = {"text": list(zip(qj["text"][:n], z["text"][:n])),
            "identifier": list(zip(ident, emb.embed(ident)))}
    ki_plain = KeywordIndex.load(d / "indexes" / "keyword", mmap=True)   # same files, numpy completion
    ki_plain.compiled = False
    searchers = [(label, HybridSearcher(meta, vi, ki if kw.get("compiled", True) else ki_plain, None,
                                        **{a: b for a, b in kw.items() if a != "compiled"}))
                 for label, kw in VARIANTS]
    res = {"nodes": meta.n, "model": model, "load_avg_start": os.getloadavg(), "sets": {}}
    for name, pairs in sets.items():
        for q, v in pairs:                          # untimed pass: pages fault in
            for _, hs in searchers:
                hs.search(q, query_vector=v, limit=10)
        lat = {label: [] for label, _ in searchers}
        parts = {label: [] for label, _ in searchers}
        tops = {label: [] for label, _ in searchers}
        for q, v in pairs:
            for label, hs in searchers:
                t = time.perf_counter()
                page = hs.search(q, query_vector=v, limit=10)
                lat[label].append((time.perf_counter() - t) * 1e3)
                parts[label].append(page.timings_ms)
                tops[label].append([it.row for it in page.items])
        ref = tops[VARIANTS[0][0]]
        rows = []
        for label, _ in searchers:
            agree = np.mean([len(set(a) & set(b)) / max(1, len(b)) for a, b in zip(tops[label], ref)])
            same = np.mean([a == b for a, b in zip(tops[label], ref)])
            part = {k: round(float(np.median([p.get(k, 0.0) for p in parts[label]])), 3)
                    for k in ("vector", "keyword", "fuse")}
            rows.append({"variant": label, "p50_ms": round(float(np.percentile(lat[label], 50)), 3),
                         "p99_ms": round(float(np.percentile(lat[label], 99)), 3),
                         "agreement@10": round(float(agree), 4), "same_page": round(float(same), 4), **part})
        res["sets"][name] = rows
        print(f"\n{name} queries ({len(pairs)}), {meta.n:,} nodes, load average {os.getloadavg()[0]:.2f}")
        print("| variant | p50 ms | p99 ms | agreement@10 | same page | vector ms | keyword ms | fuse ms |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            print(f"| {r['variant']} | {r['p50_ms']} | {r['p99_ms']} | {r['agreement@10']} | {r['same_page']} | "
                  f"{r['vector']} | {r['keyword']} | {r['fuse']} |", flush=True)
    res["load_avg_end"] = os.getloadavg()
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
