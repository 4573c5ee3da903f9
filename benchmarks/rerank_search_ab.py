"""Whole searches with the rank stage of a revision and of this tree, in one process, side by side.

    python benchmarks/rerank_search_ab.py (--store PATH ... | --from-e4 DIR) [--ref REV] [--rounds 5]
                                          [--queries 100]

Definitions (printed):
- **reference**: REV's (default 6a9a604) ``stratum/rank.py``, ``stratum/signals.py`` and the
  ``RankInfos`` class of its ``stratum/overlay.py``, loaded as ``rerank_ab.py --stack`` loads them;
  for each reference search ``Tools.search`` is given them in place of this tree's (its module
  references ``rank`` and ``signals``, and the overlay's ``rank_infos``), so everything but the rank
  stage (searcher, items, envelope, session) is the same code and state.
- **queries**: notes_scale.QUERIES over each store (e.g. the flask stores with 0 and 10,000
  unmerged notes, ``benchmarks/.out/notes/runs/n0`` and ``n10000``); for --from-e4 (the 1M-node
  store) ``grpc_latency.workload`` (seed 7), QUERIES of them; page size 10, one session per side
  and store with an unlimited budget.
- **timing**: per query, reference and new in turn (who goes first alternates by query and round),
  ROUNDS rounds after two untimed ones and a 1 s pause (query vectors cached, memos warm, the
  overlay's background work done: repeated queries);
  p50 of each, and per side the p50 ratio of each store to the first store given.
- **equality**: the page's (id, score, why) of every query equal on both sides (the first round).
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
    src.add_argument("--store", nargs="+")
    src.add_argument("--from-e4", metavar="DIR")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--ref", default="6a9a604")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    print(__doc__.split("Definitions (printed):")[1].strip(), "\n", flush=True)

    import grpc_latency as G
    import notes_scale as NS
    import rerank_ab
    from stratum import rank, signals
    from stratum import tools as T

    old_rank = rerank_ab.reference(args.ref)
    OldSignals, OldInfos = rerank_ab.reference_stack(args.ref, old_rank)
    old_signals = type(sys)("signals_reference_view")
    old_signals.ShardSignals = OldSignals
    print(f"reference {args.ref}; load average {os.getloadavg()[0]:.2f}")
    p50: dict[str, dict[str, float]] = {}
    bad = 0
    for store in ([G.publish_e4(args.from_e4)] if args.from_e4 else args.store):
        tools = T.Tools.open([store])
        queries = [a["query"] for a in G.workload(tools, args.queries, seed=7)["search"]] if args.from_e4 \
            else NS.QUERIES
        ov = tools.memory.overlay(next(iter(tools.memory)))
        infos = {"new": ov.rank_infos, "ref": OldInfos(ov)}
        mods = {"new": (rank, signals), "ref": (old_rank, old_signals)}
        sess = {k: tools.open_session(author=f"bench-{k}", budget=10**9).data["session"] for k in mods}

        def search(side, q):
            T.rank, T.signals = mods[side]
            ov.rank_infos = infos[side]
            try:
                return tools.search(sess[side], q)
            finally:
                T.rank, T.signals, ov.rank_infos = rank, signals, infos["new"]

        lat = {"new": [], "ref": []}
        for r in range(args.rounds + 2):
            if r == 2:
                time.sleep(1.0)         # the overlay's background warming of note facts is done
            for i, q in enumerate(queries):
                got = {}
                for side in (("new", "ref") if (i + r) % 2 else ("ref", "new")):
                    t0 = time.perf_counter()
                    got[side] = search(side, q)
                    if r >= 2:
                        lat[side].append(time.perf_counter() - t0)
                if r == 0:
                    page = {k: [(it.id, it.score, it.why) for it in v.items] for k, v in got.items()}
                    bad += page["new"] != page["ref"]
        p50["e4 (1M)" if args.from_e4 else Path(store).name] = {k: statistics.median(v) * 1e3 for k, v in lat.items()}
        tools.close()
    first = next(iter(p50.values()))
    print("| store | reference p50 ms | new p50 ms | new / reference | reference / first store | new / first store |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, v in p50.items():
        print(f"| {name} | {v['ref']:.3f} | {v['new']:.3f} | {v['new'] / v['ref']:.2f} | "
              f"{v['ref'] / first['ref']:.2f} | {v['new'] / first['new']:.2f} |")
    print(f"load average at the end {os.getloadavg()[0]:.2f}; pages {'equal' if not bad else f'DIFFER ({bad})'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
