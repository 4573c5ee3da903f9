"""The rerank before and after a change, in one process: the same order and whys, and its cost.

    python benchmarks/rerank_ab.py (--from-e4 DIR | --store PATH ...) [--ref REV] [--queries 300] [--stack] [--cold]

Definitions (printed):
- **reference**: ``stratum/rank.py`` at git revision REV (default 162fb1c, this session's first
  commit; its read of a hit's symbol name, which it only counted, reads the kind instead), loaded
  beside ``stratum.rank`` under another name; both rerank with the *same*
  ``ShardSignals`` of this tree (the shard adapter: memos, compiled neighbour reads), so only the
  fusion code differs. **--stack**: the reference also has REV's ``stratum/signals.py`` and the
  ``RankInfos`` class of its ``stratum/overlay.py`` (the unmerged notes' ranking cache), each side
  its own adapter, shard memos and note cache over the same loaded shard and overlay: the whole
  rank stage differs.
- **candidates**: each query's fused list as ``Tools.search`` asks for it (``warm.search``,
  limit rank.DEEP, the overlay's unmerged notes); queries: ``grpc_latency.workload`` (node names
  and first words of summaries, seed 7) for --from-e4, notes_scale.QUERIES for --store.
- **equality**: for every query, ``rerank`` with and without added files gives the same entries
  (id, row, score, why, file, added) in the same order, and ``rank_files`` (top 20) the same paths,
  scores, text scores, parts, reasons, whys and short whys. A side whose ``rank`` has a rerank
  depth (``rank.RERANK``) is called with ``depth=None`` when the other has none: both rerank the
  whole list, so the check and the timing compare the code at equal work (the depth's own effect
  is a search-level A/B: grpc_ab.py, docs/bench/grpc.md).
- **timing**: per query, reference and new in turn 7 times (which goes first alternates by
  query), each on a fresh ``ShardSignals`` (as
  the tool makes one per search; its rows prefetched, untimed); the minimum of each, the mean over
  the queries, after one untimed pass (the shard memos warm: this is the rerank, not first reads).
  **--cold**: a 64 MB array is summed before each timed rerank, so its data is out of the CPU's
  caches as in a search (the searcher runs in between).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def reference(rev: str):
    """``stratum/rank.py`` at ``rev`` as a module of its own."""
    from revisions import module_from_source, source_at

    # the symbol name a code hit carried before cf89d84 was never shown (only counted): this
    # tree's hits have none
    src = source_at(rev, "stratum/rank.py").replace("(c.score, h.name or h.kind)", "(c.score, h.kind)")
    return module_from_source("rank_reference", src, f"{rev}:stratum/rank.py")


def reference_stack(rev: str, old_rank):
    """REV's ``ShardSignals`` class (reading ``old_rank``'s types) and its ``RankInfos`` class."""
    from collections.abc import Mapping

    from revisions import module_from_source, source_at

    src = source_at(rev, "stratum/signals.py").replace("from stratum.rank import", f"from {old_rank.__name__} import")
    sig = module_from_source("signals_reference", src, f"{rev}:stratum/signals.py")
    ov_src = source_at(rev, "stratum/overlay.py")
    cls = ov_src[ov_src.index("class RankInfos(Mapping):"):]
    ns = {"Mapping": Mapping, "__name__": "overlay_reference"}
    exec(compile("from __future__ import annotations\n" + cls[:cls.index("\n\n\ndef ")], f"{rev}:stratum/overlay.py",
                 "exec"), ns)
    return sig.ShardSignals, ns["RankInfos"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--from-e4", metavar="DIR")
    src.add_argument("--store", nargs="+")
    ap.add_argument("--ref", default="162fb1c")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--stack", action="store_true", help="the reference's signals and note cache too")
    ap.add_argument("--cold", action="store_true", help="caches flushed before each timed rerank")
    args = ap.parse_args()
    print(__doc__.split("Definitions (printed):")[1].strip(), "\n", flush=True)

    import grpc_latency as G
    import notes_scale as NS
    from stratum import rank, signals
    from stratum.tools import Tools

    old = reference(args.ref)
    OldSignals, OldInfos = reference_stack(args.ref, old) if args.stack else (signals.ShardSignals, None)
    cases = [(G.publish_e4(args.from_e4), None)] if args.from_e4 else [(s, NS.QUERIES) for s in args.store]
    print(f"reference {args.ref}{' (stack)' if args.stack else ''}{' (cold)' if args.cold else ''}; load average {os.getloadavg()[0]:.2f}")
    print("| store | queries | differ | reference ms | new ms | new / reference |\n|---|---:|---:|---:|---:|---:|")
    bad_total = 0
    flush = __import__("numpy").ones(8_000_000) if args.cold else None
    for store, queries in cases:
        tools = Tools.open([store])
        sh = tools.shards.shards[0]
        ov = tools.memory.overlay(sh)
        qs = queries or [a["query"] for a in G.workload(tools, args.queries, seed=7)["search"]]
        lists = [sh.warm.search(q, limit=rank.DEEP, offset=0, extra_docs=ov.search_docs()).items for q in qs]

        old_infos = OldInfos(ov) if OldInfos is not None else ov.rank_infos

        def fresh(items, mod=rank):
            if mod is rank:
                return signals.ShardSignals(sh, ov, extra=ov.rank_infos).prefetch(items)
            return OldSignals(sh, ov, extra=old_infos).prefetch(items)

        # both sides rerank the whole list (definitions: a rerank depth only one side has is turned off)
        whole = {m: ({"depth": None} if hasattr(m, "RERANK") and not hasattr(o, "RERANK") else {})
                 for m, o in ((rank, old), (old, rank))}
        bad = 0
        for items in lists:
            c = rank.candidates_of(items)
            for add in (True, False):
                a = [(r.id, r.row, r.score, r.why, r.file, r.added) for r in rank.rerank(c, fresh(items), add=add, **whole[rank])]
                b = [(r.id, r.row, r.score, r.why, r.file, r.added) for r in old.rerank(c, fresh(items, old), add=add, **whole[old])]
                bad += a != b
            fa = [(f.path, f.score, f.text, f.parts, f.reasons, f.why, f.lift_why)
                  for f in rank.rank_files(c, fresh(items), limit=20, **whole[rank])]
            fb = [(f.path, f.score, f.text, f.parts, f.reasons, f.why, f.lift_why)
                  for f in old.rank_files(c, fresh(items, old), limit=20, **whole[old])]
            bad += fa != fb
        tn = to = 0.0
        for i, items in enumerate(lists):
            c = rank.candidates_of(items)
            best = {rank: float("inf"), old: float("inf")}
            for _ in range(7):
                for mod in ((rank, old) if i % 2 else (old, rank)):    # who goes first alternates
                    sig = fresh(items, mod)
                    if flush is not None:
                        flush.sum()
                    t0 = time.perf_counter()
                    mod.rerank(c, sig, **whole[mod])
                    best[mod] = min(best[mod], time.perf_counter() - t0)
            tn, to = tn + best[rank], to + best[old]
        n = len(lists)
        name = "e4 (1M)" if args.from_e4 else Path(store).name
        print(f"| {name} | {n} | {bad} | {to / n * 1e3:.3f} | {tn / n * 1e3:.3f} | {tn / to:.2f} |", flush=True)
        bad_total += bad
        tools.close()
    print(f"load average at the end {os.getloadavg()[0]:.2f}; equality {'PASSED' if not bad_total else 'FAILED'}")
    return 1 if bad_total else 0


if __name__ == "__main__":
    sys.exit(main())
