"""Where one ``Tools.search`` goes, for new and for repeated queries (issue 13: gRPC search at 1M).

    python benchmarks/search_parts.py [--from-e4 DIR | --store PATH] [--queries 300] [--fresh-sessions]

Definitions (printed):
- workload: ``grpc_latency.workload`` (node names and first words of node summaries, half each);
  300 queries with seed 7 are searched first (untimed: the server's state after some traffic),
  then 300 *new* queries (seed 11), each asked for the first time, then the same 300 again
  (*repeated*: query vectors cached, the seeds' neighbourhoods memoised).
- parts: wall time spent inside each named function during one search, summed over its calls
  (perf_counter around the function; nested parts are inside their parent): ``hybrid`` =
  ``WarmIndexes.search`` (the fused list, rank.DEEP long; inside it ``embed``, ``keyword``,
  ``vector``, ``fuse``), ``prefetch`` (candidates' rows), ``rerank`` (inside it ``rank_files``,
  and in that the seeds' first looks ``cochange_first`` / ``structure_first``: from the shard's seed
  table once it is ready, stratum.seedtable), ``items`` (the
  page's items), ``respond`` (envelope, tokens, session). p50 and mean over the queries.
- session: one for every search (``--fresh-sessions``: each search opens its own, closed after it,
  so ``respond`` does not grow with the context a long session holds), budget unlimited.
- faults: the process's minor page faults during one search (``getrusage``; a first touch of a
  memory-mapped page of an index), p50 / mean.
- The wrappers cost ~1-2 us a call; figures are in-process (gRPC adds ~1.0-1.3 ms, grpc_latency.py).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

PARTS = ("hybrid", "embed", "keyword", "vector", "fuse", "prefetch", "rerank", "rank_files",
         "cochange_first", "structure_first", "items", "respond")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--store")
    src.add_argument("--from-e4", metavar="DIR")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--fresh-sessions", action="store_true", help="a new session for each search")
    args = ap.parse_args()
    print(__doc__.split("Definitions (printed):")[1].strip(), "\n", flush=True)
    import grpc_latency as G
    from stratum import rank, signals, search, tools as T, warm
    from stratum.keywordindex import KeywordIndex
    from stratum.vectorindex import VectorIndex

    acc: dict[str, float] = {}

    depth: dict[str, int] = {}

    def wrap(owner, name: str, label: str) -> None:
        f = getattr(owner, name)

        def timed(*a, **k):
            depth[label] = depth.get(label, 0) + 1      # a part inside the same part counts once
            t = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                depth[label] -= 1
                if not depth[label]:
                    acc[label] = acc.get(label, 0.0) + time.perf_counter() - t
        setattr(owner, name, timed)

    for owner, name, label in ((warm.WarmIndexes, "search", "hybrid"), (search.HybridSearcher, "embed_query", "embed"),
                               (KeywordIndex, "search", "keyword"), (VectorIndex, "search", "vector"),
                               (search.HybridSearcher, "_fuse", "fuse"), (signals.ShardSignals, "prefetch", "prefetch"),
                               (rank, "rerank", "rerank"), (rank, "_rank_files", "rank_files"),
                               (signals.ShardSignals, "_cochange", "cochange_first"),
                               (signals.ShardSignals, "_co_terms", "cochange_first"),
                               (signals.ShardSignals, "_structure", "structure_first"),
                               (T.Tools, "_item", "items"), (T.Tools, "_respond", "respond")):
        wrap(owner, name, label)
    store = G.publish_e4(args.from_e4) if args.from_e4 else args.store
    from stratum import notethreads

    notethreads.prepare_kernels()                   # as stratum serve does (notes' exact list)
    tools = T.Tools.open([store])
    sid = tools.open_session(author="bench", budget=G.BIG_BUDGET).data["session"]
    warmup, new = (G.workload(tools, args.queries, seed=s)["search"] for s in (7, 11))
    for a in warmup:
        tools.search(sid, **a)
    print(f"store {store}, {len(tools.shards.shards[0]):,} nodes, seed table "
          f"{'ready' if tools.shards.shards[0].seed_table() is not None else 'none'}, "
          f"{'a session per search' if args.fresh_sessions else 'one session'}, load average {os.getloadavg()[0]:.2f}")
    print("| queries | Tools.search p50 ms | " + " | ".join(PARTS) + " | faults |")
    print("|---|---:|" + "---:|" * (len(PARTS) + 1))
    for label in ("new", "repeated"):
        tot, per, faults = [], {p: [] for p in PARTS}, []
        for a in new:
            acc.clear()
            if args.fresh_sessions:
                sid = tools.open_session(author="bench", budget=G.BIG_BUDGET).data["session"]
            f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            t = time.perf_counter()
            tools.search(sid, **a)
            tot.append((time.perf_counter() - t) * 1e3)
            faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
            if args.fresh_sessions:
                tools.close_session(sid)
            for p in PARTS:
                per[p].append(acc.get(p, 0.0) * 1e3)
        cells = [f"{statistics.median(v):.2f} / {statistics.mean(v):.2f}" for v in per.values()]
        cells.append(f"{statistics.median(faults):.0f} / {statistics.mean(faults):.0f}")
        print(f"| {label} (p50 / mean per part) | {statistics.median(tot):.2f} | " + " | ".join(cells) + " |", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
