"""The rank stage of a search before and after a change, in one process: fusion *and* shard adapter.

    python benchmarks/rerank_stack_ab.py (--from-e4 DIR | --store PATH ...) [--ref REV] [--queries 300]

Definitions (printed):
- **reference**: ``stratum/rank.py`` and ``stratum/signals.py`` at git revision REV (default
  6a9a604, before session 8's rerank work) and the ``RankInfos`` class of its
  ``stratum/overlay.py`` (the unmerged notes' ranking cache), loaded beside this tree's under other
  names. Unlike ``rerank_ab.py`` (which runs both fusions over this tree's ``ShardSignals``), each
  side has its own adapter, shard memos and note cache, over the same loaded shard and overlay.
- **candidates, queries**: as ``rerank_ab.py`` (the fused list ``Tools.search`` reranks).
- **equality**: for every query, ``rerank`` with and without added files gives the same entries
  (id, row, score, why, file, added) in the same order, and ``rank_files`` (top 20) the same paths,
  scores, text scores, parts, reasons, whys and short whys.
- **timing**: the rank stage as ``Tools.search`` runs it, a fresh ``ShardSignals`` with the notes
  cache as ``extra``, ``prefetch`` of the candidates' rows, then ``rerank``; per query reference and
  new in turn 7 times (who goes first alternates by query), the minimum of each, the mean over the
  queries, after one untimed pass (memos and caches warm: a repeated query's cost).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def reference(rev: str):
    """(rank, signals, RankInfos class) at ``rev``; the reference signals reads the reference
    rank's constants and types."""
    from revisions import module_from_source, source_at

    from rerank_ab import reference as rank_at

    rank = rank_at(rev)
    src = source_at(rev, "stratum/signals.py").replace("from stratum.rank import", "from rank_reference import")
    sig = module_from_source("signals_reference", src, f"{rev}:stratum/signals.py")
    ov_src = source_at(rev, "stratum/overlay.py")
    cls = ov_src[ov_src.index("class RankInfos(Mapping):"):]
    cls = cls[:cls.index("\n\n\ndef ")]
    ns = {"Mapping": Mapping, "__name__": "overlay_reference"}
    exec(compile("from __future__ import annotations\n" + cls, f"{rev}:stratum/overlay.py", "exec"), ns)
    return rank, sig, ns["RankInfos"]


def _entries(rank_mod, c, sig, add):
    return [(r.id, r.row, r.score, r.why, r.file, r.added) for r in rank_mod.rerank(c, sig, add=add)]


def _files(rank_mod, c, sig):
    return [(f.path, f.score, f.text, f.parts, f.reasons, f.why, f.lift_why) for f in rank_mod.rank_files(c, sig, limit=20)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--from-e4", metavar="DIR")
    src.add_argument("--store", nargs="+")
    ap.add_argument("--ref", default="6a9a604")
    ap.add_argument("--queries", type=int, default=300)
    args = ap.parse_args()
    print(__doc__.split("Definitions (printed):")[1].strip(), "\n", flush=True)

    import grpc_latency as G
    import notes_scale as NS
    from stratum import rank, signals
    from stratum.tools import Tools

    old_rank, old_sig, OldInfos = reference(args.ref)
    cases = [(G.publish_e4(args.from_e4), None)] if args.from_e4 else [(s, NS.QUERIES) for s in args.store]
    print(f"reference {args.ref}; load average {os.getloadavg()[0]:.2f}")
    print("| store | queries | differ | reference ms | new ms | new / reference |\n|---|---:|---:|---:|---:|---:|")
    bad_total = 0
    for store, queries in cases:
        tools = Tools.open([store])
        sh = tools.shards.shards[0]
        ov = tools.memory.overlay(sh)
        old_infos = OldInfos(ov)
        qs = queries or [a["query"] for a in G.workload(tools, args.queries, seed=7)["search"]]
        lists = [sh.warm.search(q, limit=rank.DEEP, offset=0, extra_docs=ov.search_docs()).items for q in qs]
        sides = {"new": (rank, lambda items: signals.ShardSignals(sh, ov, extra=ov.rank_infos).prefetch(items)),
                 "ref": (old_rank, lambda items: old_sig.ShardSignals(sh, ov, extra=old_infos).prefetch(items))}
        bad = 0
        for items in lists:
            c = rank.candidates_of(items)
            (rn, mk_n), (ro, mk_o) = sides["new"], sides["ref"]
            bad += sum(_entries(rn, c, mk_n(items), add) != _entries(ro, c, mk_o(items), add) for add in (True, False))
            bad += _files(rn, c, mk_n(items)) != _files(ro, c, mk_o(items))
        total = {"new": 0.0, "ref": 0.0}
        for i, items in enumerate(lists):
            c = rank.candidates_of(items)
            best = {"new": float("inf"), "ref": float("inf")}
            for _ in range(7):
                for side in (("new", "ref") if i % 2 else ("ref", "new")):    # who goes first alternates
                    mod, make = sides[side]
                    t0 = time.perf_counter()
                    mod.rerank(c, make(items))
                    best[side] = min(best[side], time.perf_counter() - t0)
            for side in total:
                total[side] += best[side]
        n = len(lists)
        name = "e4 (1M)" if args.from_e4 else Path(store).name
        print(f"| {name} | {n} | {bad} | {total['ref'] / n * 1e3:.3f} | {total['new'] / n * 1e3:.3f} | "
              f"{total['new'] / total['ref']:.2f} |", flush=True)
        bad_total += bad
        tools.close()
    print(f"load average at the end {os.getloadavg()[0]:.2f}; equality {'PASSED' if not bad_total else 'FAILED'}")
    return 1 if bad_total else 0


if __name__ == "__main__":
    sys.exit(main())
