"""Two source trees' in-process ``Tools.search`` side by side, query by query (no gRPC).

    python benchmarks/e4_tree_ab.py (--from-e4 DIR | --store PATH) --tree-a OLD_TREE [--tree-b .]
                                    [--queries 300] [--rounds 2]

Definitions (printed):
- **workers**: one Python process per tree (its own PYTHONPATH: OLD_TREE holds the ``stratum`` package
  of the other version, e.g. this tree with some files at an older commit), each opens the same
  store with ``Tools.open`` (as a server does: ``notethreads.prepare_kernels`` first), searches 300
  warm-up queries (seed 7), then waits for the driver. Only one worker works at a time.
- **queries**: ``grpc_latency.workload`` (node names and first words of node summaries), a fresh set
  per round (seeds 11, 12, ...): each timed query is new to both workers; page size 10. Each
  search gets a fresh session, closed after it (a long session's context bookkeeping, the same
  for both trees, grows with every item held).
- **timing**: the worker times its own ``Tools.search`` call (perf_counter); per query A then B, or B
  then A (alternating: the second finds the store's pages in the OS cache); p50 / mean of each,
  the p50 of the per-query difference A - B and of the ratio B / A, and the order-balanced p50
  difference (the mean of the p50 differences of the queries A answered first and of those B did:
  the second call's cache advantage makes the differences bimodal). Then the same queries again
  (*repeated*: query vectors and memos warm).
- **equality**: each query's page, (id, score, why) of every item, total and has_more, equal.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def worker(store: str, is_e4: bool) -> None:
    import stratum                          # this worker's tree (PYTHONPATH), before grpc_latency puts ROOT first

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import time

    import grpc_latency as G
    from stratum import tools as T

    try:
        from stratum.notethreads import prepare_kernels
    except ImportError:                     # a tree from before notethreads.py
        from stratum.noteindex import prepare_kernels

    if is_e4:
        store = G.publish_e4(store)
    prepare_kernels()
    tools = T.Tools.open([store])
    sh = tools.shards.shards[0]
    if hasattr(sh, "seed_table"):
        sh.seed_table(wait=None)            # a tree that builds one: ready before the first timed query

    def search(a: dict):
        sid = tools.open_session(author="bench", budget=G.BIG_BUDGET).data["session"]
        try:
            t = time.perf_counter()
            r = tools.search(sid, **a)
            return (time.perf_counter() - t) * 1e3, r
        finally:
            tools.close_session(sid)

    for a in G.workload(tools, 300, seed=7)["search"]:
        search(a)
    print(f"stratum from {Path(stratum.__file__).parent}", file=sys.stderr, flush=True)
    print("ready", flush=True)
    for line in sys.stdin:
        seed, i = map(int, line.split())
        a = _queries(G, tools, seed)[i]
        ms, r = search(a)
        page = [[it.id, it.score, it.why] for it in r.items] + [r.envelope.total, r.envelope.has_more]
        print(json.dumps([ms, page]), flush=True)


_CACHE: dict = {}


def _queries(G, tools, seed: int) -> list[dict]:
    if seed not in _CACHE:
        _CACHE[seed] = G.workload(tools, int(os.environ.get("AB_QUERIES", "300")), seed=seed)["search"]
    return _CACHE[seed]


def balanced(diff: list[float], first: list[bool]) -> float:
    """The mean of the p50 differences of the queries A answered first and of those B did."""
    return (statistics.median([d for d, f in zip(diff, first) if f]) +
            statistics.median([d for d, f in zip(diff, first) if not f])) / 2


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--from-e4", metavar="DIR")
    src.add_argument("--store")
    ap.add_argument("--tree-a", required=True)
    ap.add_argument("--tree-b", default=str(ROOT))
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker[0], args.worker[1] == "e4")
        return 0
    print(__doc__.split("Definitions (printed):")[1].strip(), "\n", flush=True)
    store = str(Path(args.from_e4 or args.store).resolve())
    procs = {}
    for side, tree in (("A", args.tree_a), ("B", args.tree_b)):
        env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()), AB_QUERIES=str(args.queries))
        procs[side] = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker", str(store),
                                        "e4" if args.from_e4 else "store", "--store", str(store), "--tree-a", tree],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
                                       cwd=str(Path(tree).resolve()))
        while procs[side].stdout.readline().strip() != "ready":
            if procs[side].poll() is not None:
                raise SystemExit(f"worker {side} ended")
    print(f"tree A {args.tree_a}, tree B {args.tree_b}; load average {os.getloadavg()[0]:.2f}", flush=True)

    def ask(side: str, seed: int, i: int):
        p = procs[side]
        p.stdin.write(f"{seed} {i}\n")
        p.stdin.flush()
        return json.loads(p.stdout.readline())

    bad = 0
    for label, seeds in (("new", [11 + r for r in range(args.rounds)]), ("repeated", [11 + r for r in range(args.rounds)])):
        lat: dict[str, list[float]] = {"A": [], "B": []}
        diff, ratio, first = [], [], []
        for r, seed in enumerate(seeds):
            for i in range(args.queries):
                got = {}
                for side in (("A", "B") if (i + r) % 2 == 0 else ("B", "A")):
                    got[side] = ask(side, seed, i)
                for side in "AB":
                    lat[side].append(got[side][0])
                diff.append(got["A"][0] - got["B"][0])
                first.append((i + r) % 2 == 0)
                ratio.append(got["B"][0] / got["A"][0])
                bad += got["A"][1] != got["B"][1]
        print(f"| {label} | A p50 {statistics.median(lat['A']):.3f} / mean {statistics.mean(lat['A']):.3f} | "
              f"B p50 {statistics.median(lat['B']):.3f} / mean {statistics.mean(lat['B']):.3f} | "
              f"A - B p50 {statistics.median(diff):+.3f} (mean {statistics.mean(diff):+.3f}, order-balanced p50 "
              f"{balanced(diff, first):+.3f}) | "
              f"B / A p50 {statistics.median(ratio):.3f} | {len(diff)} queries |", flush=True)
    for p in procs.values():
        p.stdin.close()
        p.wait()
    print(f"pages {'equal' if not bad else f'DIFFER ({bad})'}; load average at the end {os.getloadavg()[0]:.2f}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
