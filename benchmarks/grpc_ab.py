"""Two source trees served side by side: end-to-end gRPC latency of tree A against tree B, call by call.

    python benchmarks/grpc_ab.py --from-e4 DIR --tree-a OLD_TREE [--tree-b .] [--calls 300]
    python benchmarks/grpc_ab.py --store PATH --tree-a OLD_TREE ...

A change to the serving path (the tools, rendering, conversion, the server) moves search latency by
a fraction of a millisecond, less than this VM drifts between two runs; so both versions serve at
once and every call goes to both. OLD_TREE is a copy of the repository's ``stratum``, ``serving``
and ``pipeline`` packages at the other version (e.g. ``git archive`` of a commit, or the current
tree with some files reverted).

Definitions (printed):
- servers: ``python -m stratum.cli serve`` from each tree (its own PYTHONPATH), the same store,
  127.0.0.1, 8 RPC threads, no reload; each is sent the same calls by ``serving.client.Client``
  of *this* tree (so the client side is the same for both; measure it apart when it changed).
- workload: ``grpc_latency.workload`` (search: node names and first words of node summaries, half
  each, page_size 10; get: a symbol at level api; walk: a file, all edges, page_size 20); 300 *new*
  searches (seed 11) after 300 warm-up searches (seed 7), then the same 300 again (*repeated*), then
  get and walk.
- interleaving: call i goes to A then B when i is even, B then A when odd (the first to ask a new
  query pays nothing the second does not: each server has its own memos). Latency is the time the
  caller sees; p50 / p99 ms, and the median of the per-call differences A - B.
- transport floor: the health Check on each server, interleaved the same way.
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


def interleaved(fa, fb, calls: list) -> tuple[list[float], list[float]]:
    xa, xb = [], []
    for i, a in enumerate(calls):
        order = ((fa, xa), (fb, xb)) if i % 2 == 0 else ((fb, xb), (fa, xa))
        for f, acc in order:
            t = time.perf_counter()
            f(**a)
            acc.append((time.perf_counter() - t) * 1e3)
    return xa, xb


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--store")
    src.add_argument("--from-e4", metavar="DIR")
    ap.add_argument("--tree-a", required=True, help="the other version's source tree (A)")
    ap.add_argument("--tree-b", default=str(ROOT), help="this version's tree (B; default: this repository)")
    ap.add_argument("--calls", type=int, default=300)
    args = ap.parse_args()
    print(__doc__.split("Definitions (printed):")[1].strip(), "\n", flush=True)

    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    import grpc_latency as G
    from serving.client import Client

    store = G.publish_e4(args.from_e4) if args.from_e4 else args.store
    print(f"machine: {G.machine()}\ncommand: {' '.join([Path(sys.executable).name, *sys.argv])}")
    print(f"store {store}; A = {args.tree_a}, B = {args.tree_b}; load average before "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    (pa, addr_a), (pb, addr_b) = (G.start_server(store, 8, Path(t)) for t in (args.tree_a, args.tree_b))
    try:
        with Client(addr_a, timeout=60) as ca, Client(addr_b, timeout=60) as cb:
            sa = ca.open_session(author="bench", budget=G.BIG_BUDGET).data["session"]
            sb = cb.open_session(author="bench", budget=G.BIG_BUDGET).data["session"]
            from stratum.tools import Tools      # the workload is drawn from the store, as grpc_latency's

            tools = Tools.open([store])
            warm, wl = G.workload(tools, args.calls, seed=7), G.workload(tools, args.calls, seed=11)
            tools.close()
            del tools
            for a in warm["search"]:
                ca.search(sa, **a)
                cb.search(sb, **a)
            rows = {}
            for name, tool, calls in (("search (new query)", "search", wl["search"]),
                                      ("search (repeated query)", "search", wl["search"]),
                                      ("get (api)", "get", wl["get"]), ("walk", "walk", wl["walk"])):
                rows[name] = interleaved(lambda **k: getattr(ca, tool)(sa, **k),
                                         lambda **k: getattr(cb, tool)(sb, **k), calls)
            stubs = []
            for addr in (addr_a, addr_b):
                ch = grpc.insecure_channel(addr)
                stubs.append((ch, health_pb2_grpc.HealthStub(ch)))
            req = health_pb2.HealthCheckRequest()
            rows["transport floor (health Check)"] = interleaved(lambda: stubs[0][1].Check(req),
                                                                 lambda: stubs[1][1].Check(req), [{}] * args.calls)
            for ch, _ in stubs:
                ch.close()
    finally:
        for p in (pa, pb):
            p.terminate()
        for p in (pa, pb):
            p.wait(timeout=30)

    def pct(x: list[float], q: float) -> float:
        return G.pct(x, q)

    print(f"\n{args.calls} calls per row, each to both servers (ms)")
    print("| call | A p50 | A p99 | B p50 | B p99 | median of A - B per call |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, (xa, xb) in rows.items():
        d = statistics.median(a - b for a, b in zip(xa, xb))
        print(f"| {name} | {pct(xa, 50):.3f} | {pct(xa, 99):.3f} | {pct(xb, 50):.3f} | {pct(xb, 99):.3f} | {d:+.3f} |")
    print(f"\nload average after {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
