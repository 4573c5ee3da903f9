"""Whole ``Tools.search`` calls at 1M nodes with parts of a revision and of this tree, side by side,
for *new* queries (each asked for the first time of each side), in one process.

    python benchmarks/e4_search_ab.py [--from-e4 DIR | --store PATH] [--ref REV] [--rank]
                                      [--vector] [--seeds] [--keyword] [--swap] [--queries 200] [--rounds 3]

Definitions (printed):
- **sides**: A (reference) and B (this tree) share one loaded shard; what differs per call is
  swapped in before it: ``--rank``: REV's ``stratum/rank.py`` and ``stratum/signals.py`` (loaded
  beside this tree's as ``rerank_ab.reference`` loads them; the tool module's ``rank`` and
  ``signals`` point at them for A's calls; each side keeps its own shard memos, so a seed new to
  a query is new to both); ``--vector``: the searcher's vector index, A the graph viewed from its
  file (``VectorIndex.load(huge=False)``), B this tree's default load (huge pages at this size);
  ``--seeds``: A reads each new seed's co-change partners and neighbours one file at a time, B
  from the shard's seed table (``stratum.seedtable``; built before the first timed query); both
  sides share one rank stage, so its per-shard memos of seeds (co-change terms, neighbours, rows,
  file locations) are emptied before every call: each call's seeds are new to it (in this
  workload ~94% of a new query's seeds are); ``--keyword``: the searcher's keyword index is REV's
  ``KeywordIndex`` class over the same arrays (``searcher_ab.py``'s reference).
- **queries**: ``grpc_latency.workload`` (node names and first words of summaries), a fresh set
  per round (seeds 100, 101, ...), so every timed query is new to both sides; page size 10.
  One untimed round of other queries (seed 7) first. Each call gets a fresh session (closed
  after it): a long session's context bookkeeping grows with every item held, the same for
  both sides, and is not what is compared.
- **timing**: per query, A and B in turn, who goes first alternating by query (the second finds
  the query's rows in cache: alternation spreads that over both); p50 / mean of each, the p50 of
  the per-query difference A - B and of the ratio B / A, and the order-balanced p50 difference:
  the mean of the p50 differences of the queries A answered first and of those B did (the
  second call's cache advantage makes the differences bimodal; this cancels it).
- **order**: ``--swap`` gives A this tree's parts and B the reference's; a run and its swapped run
  should agree (an A/A run, ``--rank --ref HEAD`` with no change, read +0.13 ms p50 of the
  per-query differences for B: that statistic is bimodal, read the order-balanced one).
- **equality**: every query's page, (id, score, why) of each item, and its total and has_more,
  equal on both sides.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--from-e4", metavar="DIR")
    src.add_argument("--store")
    ap.add_argument("--ref", default="HEAD")
    ap.add_argument("--rank", action="store_true", help="A: REV's rank.py and signals.py")
    ap.add_argument("--vector", action="store_true", help="A: the vector graph viewed from its file")
    ap.add_argument("--seeds", action="store_true", help="A: no seed table (one file at a time)")
    ap.add_argument("--keyword", action="store_true", help="A: REV's KeywordIndex code on the same arrays")
    ap.add_argument("--swap", action="store_true", help="A: this tree's parts, B: the reference's")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    print(__doc__.split("Definitions (printed):")[1].strip(), "\n", flush=True)

    import grpc_latency as G
    from revisions import module_from_source, source_at
    from stratum import notethreads, rank, signals
    from stratum import tools as T
    from stratum.vectorindex import VectorIndex

    store = G.publish_e4(args.from_e4) if args.from_e4 else args.store
    notethreads.prepare_kernels()
    tools = T.Tools.open([store])
    sh = tools.shards.shards[0]
    searcher = sh.warm.searcher
    mods = {"B": (rank, signals)}
    vecs = {"B": searcher.vectors}
    if args.rank:
        old_rank = module_from_source("rank_reference", source_at(args.ref, "stratum/rank.py"),
                                      f"{args.ref}:stratum/rank.py")
        src_sig = source_at(args.ref, "stratum/signals.py").replace("from stratum.rank import",
                                                                    "from rank_reference import")
        old_sig = module_from_source("signals_reference", src_sig, f"{args.ref}:stratum/signals.py")
        mods["A"] = (old_rank, old_sig)
    else:
        mods["A"] = mods["B"]
    if args.vector:
        vdir = Path(store) / "indexes"
        d = next(p for p in [Path(args.from_e4) / "indexes" / "vector"] if p.exists()) if args.from_e4 else \
            sorted(vdir.glob("v*/vector"))[-1]
        vecs["A"] = VectorIndex.load(d, huge=False)
        vecs["A"].expansion_search = searcher.vectors.expansion_search
    else:
        vecs["A"] = vecs["B"]
    kws = {"B": searcher.keywords, "A": searcher.keywords}
    if args.keyword:
        ref_kw = module_from_source("keywordindex_reference", source_at(args.ref, "stratum/keywordindex.py"),
                                    f"{args.ref}:stratum/keywordindex.py")
        kb = searcher.keywords
        kws["A"] = ref_kw.KeywordIndex({n: getattr(kb, n) for n in kb._ARRAYS}, kb.meta)
        kws["A"].ready_for_queries()

    table = sh.seed_table(wait=None)
    seeds = {"B": table, "A": None if args.seeds else table}
    if args.swap:
        for d in (mods, vecs, kws, seeds):
            d["A"], d["B"] = d["B"], d["A"]

    def search(side: str, a: dict):
        T.rank, T.signals = mods[side]
        searcher.vectors = vecs[side]
        searcher.keywords = kws[side]
        sh._seeds = seeds[side]
        if args.seeds:
            memo = signals._memo(sh)
            for name in ("cochange", "co_terms", "structure", "row", "locate"):
                memo.tables[name].clear()
        sid = tools.open_session(author=f"bench-{side}", budget=G.BIG_BUDGET).data["session"]
        try:
            t = time.perf_counter()
            r = tools.search(sid, **a)
            return r, (time.perf_counter() - t) * 1e3
        finally:
            T.rank, T.signals = rank, signals
            searcher.vectors = vecs["B"]
            searcher.keywords = kws["B"]
            sh._seeds = table
            tools.close_session(sid)

    for a in G.workload(tools, args.queries, seed=7)["search"]:
        for side in ("A", "B"):
            search(side, a)
    what = [f"REV {args.ref} rank+signals" if args.rank else "this tree"] + \
        (["the vector graph viewed from its file"] if args.vector else []) + \
        (["no seed table"] if args.seeds else []) + ([f"REV {args.ref} keyword index code"] if args.keyword else [])
    if args.swap:
        what = [f"this tree's parts; B: {', '.join(what)}"]
    print(f"store {store}, {len(sh):,} nodes; A: {', '.join(what)}; load average {os.getloadavg()[0]:.2f}", flush=True)
    lat: dict[str, list[float]] = {"A": [], "B": []}
    diff, ratio, bad, first = [], [], 0, []
    for r in range(args.rounds):
        for i, a in enumerate(G.workload(tools, args.queries, seed=100 + r)["search"]):
            got = {}
            for side in (("A", "B") if (i + r) % 2 == 0 else ("B", "A")):
                got[side] = search(side, a)
            for side in ("A", "B"):
                lat[side].append(got[side][1])
            diff.append(got["A"][1] - got["B"][1])
            first.append((i + r) % 2 == 0)
            ratio.append(got["B"][1] / got["A"][1])
            pages = {s: ([(it.id, it.score, it.why) for it in got[s][0].items], got[s][0].envelope.total,
                         got[s][0].envelope.has_more) for s in got}
            bad += pages["A"] != pages["B"]
    print("| side | p50 ms | mean ms |\n|---|---:|---:|")
    for side in ("A", "B"):
        print(f"| {side} | {statistics.median(lat[side]):.3f} | {statistics.mean(lat[side]):.3f} |")
    balanced = (statistics.median([d for d, f in zip(diff, first) if f]) +
                statistics.median([d for d, f in zip(diff, first) if not f])) / 2
    print(f"per query: A - B p50 {statistics.median(diff):+.3f} ms (mean {statistics.mean(diff):+.3f}, "
          f"order-balanced p50 {balanced:+.3f}), "
          f"B / A p50 {statistics.median(ratio):.3f}; {len(diff)} queries; pages "
          f"{'equal' if not bad else f'DIFFER ({bad})'}; load average at the end {os.getloadavg()[0]:.2f}")
    tools.close()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
