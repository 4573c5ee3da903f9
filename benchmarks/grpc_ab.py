"""Two source trees served side by side: end-to-end gRPC latency of tree A against tree B, call by call.

    python benchmarks/grpc_ab.py --from-e4 DIR --tree-a OLD_TREE [--tree-b .] [--calls 300]
    python benchmarks/grpc_ab.py --store PATH --tree-a OLD_TREE ...
    python benchmarks/grpc_ab.py --from-e4 DIR --tree-a OLD_TREE --check   # equal answers, not timing

A change to the serving path (the tools, rendering, conversion, the server) moves search latency by
a fraction of a millisecond, less than this VM drifts between two runs; so both versions serve at
once and every call goes to both. OLD_TREE is a copy of the repository's ``stratum``, ``serving``
and ``pipeline`` packages at the other version (e.g. ``git archive`` of a commit, or the current
tree with some files reverted).

Definitions (printed):
- servers: ``python -m stratum.cli serve`` from each tree (its own PYTHONPATH), the same store,
  127.0.0.1, 8 RPC threads, no reload; each is sent the same calls by ``serving.client.Client``
  of *this* tree (so the client side is the same for both), or with --client-per-tree by the
  client of its own tree (that tree's ``serving/client.py`` and ``serving/convert.py``, loaded
  under their own names in this process; the generated messages and ``stratum`` are this
  tree's), so a change to the client's conversion is in the comparison too.
- workload: ``grpc_latency.workload`` (search: node names and first words of node summaries, half
  each, page_size 10; get: a symbol at level api; walk: a file, all edges, page_size 20); 300 *new*
  searches (seed 11) after 300 warm-up searches (seed 7), then the same 300 again (*repeated*), then
  get and walk.
- interleaving: call i goes to A then B when i is even, B then A when odd (the first to ask a new
  query pays nothing the second does not: each server has its own memos). Latency is the time the
  caller sees; p50 / p99 ms, and the median of the per-call differences A - B.
- transport floor: the health Check on each server, interleaved the same way.
- --check: no timing; the same calls go to both servers (searches with page sizes 1/10/25, kind
  and path filters, every third one's page 2; get at summary and api; tree of a file; walk) in a
  session with a 10^9-token budget and one of 150 tokens (evicting on almost every call), each pair of
  answers must be equal in every field: items, data, envelope, evictions, warnings; a next-page
  token by what it binds (tool, arguments, offset, version), since its session id and issue
  time are each server's own. The same error on both sides is equal too.
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import json
import os
import random
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


def tree_client(tree: Path) -> type:
    """``Client`` of the tree ``tree`` with that tree's ``serving.convert`` (--client-per-tree)."""
    import importlib.util

    if Path(tree).resolve() == ROOT:
        from serving.client import Client
        return Client
    mods = {}
    for name in ("convert", "client"):
        spec = importlib.util.spec_from_file_location(f"_ab_{abs(hash(str(tree)))}_{name}",
                                                      Path(tree) / "serving" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        mods[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mods[name])
    mods["client"].convert = mods["convert"]       # its ``from serving import convert`` bound this tree's
    return mods["client"].Client


def _bound(token: str) -> dict | None:
    """What a next-page token binds, without the session id and issue time (stratum.envelope)."""
    if not token:
        return None
    d = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))[:-12])
    d.pop("s", None)
    d.pop("i", None)
    return d


def same(ra, rb) -> bool:
    ea, eb = ra.envelope, rb.envelope
    return (ra.items == rb.items and ra.data == rb.data and _bound(ea.next_page_token) == _bound(eb.next_page_token)
            and dataclasses.replace(ea, next_page_token="") == dataclasses.replace(eb, next_page_token=""))


def check_calls(wl: dict, warm: dict, shard, n: int) -> list[tuple[str, dict]]:
    rng = random.Random(3)
    calls = []
    for i, s in enumerate(wl["search"] + warm["search"][: n // 3]):
        kw = dict(s)
        kw.update({3: {"page_size": 1}, 5: {"page_size": 25}, 7: {"kinds": ["function", "method"]},
                   8: {"path_prefix": shard.col("path")[rng.randrange(len(shard))].split("/")[0]}}.get(i % 10, {}))
        calls.append(("search", kw))
    calls += [("get", {"target": g["target"], "level": ("summary", "api")[i % 2]}) for i, g in enumerate(wl["get"][: n // 3])]
    files = [shard.resolve(w["target"]) for w in wl["walk"][: n // 6]]
    calls += [("tree", {"path": shard.col("path")[r], "depth": 2, "page_size": 20}) for r in files if r is not None]
    return calls + [("walk", w) for w in wl["walk"][: n // 3]]


def check(ca, cb, calls: list) -> int:
    """Send every call to both servers; print and count the pairs of answers that differ."""
    from stratum.errors import StratumError

    import grpc_latency as G

    pairs = [(ca.open_session(author="check", budget=b).data["session"],
              cb.open_session(author="check", budget=b).data["session"]) for b in (G.BIG_BUDGET, 150)]
    seen = {"calls": 0, "page 2": 0, "errors (equal)": 0, "evictions": 0}
    bad = 0

    def one(tool, sa, sb, kw, kwb=None):
        nonlocal bad
        out = []
        for c, sid, k in ((ca, sa, kw), (cb, sb, kwb or kw)):
            try:
                out.append(getattr(c, tool)(sid, **k))
            except StratumError as err:
                out.append((type(err).__name__, err.message))
        ra, rb = out
        seen["calls"] += 1
        if isinstance(ra, tuple) or isinstance(rb, tuple):
            seen["errors (equal)"] += ra == rb
            if ra == rb:
                print(f"same error from both: {tool}: {ra[0]}: {ra[1][:120]}")
            ok = ra == rb
        else:
            seen["evictions"] += len(rb.envelope.evictions)
            ok = same(ra, rb)
        if not ok:
            bad += 1
            print(f"DIFFERENT: {tool} {kw}\n  A {ra}\n  B {rb}")
        return ra, rb

    for i, (tool, kw) in enumerate(calls):
        sa, sb = pairs[1] if i % 4 == 1 else pairs[0]
        ra, rb = one(tool, sa, sb, kw)
        if tool in ("search", "tree") and i % 3 == 0 and not isinstance(ra, tuple) and not isinstance(rb, tuple) \
                and ra.envelope.next_page_token and rb.envelope.next_page_token:
            seen["page 2"] += 1
            one(tool, sa, sb, dict(kw, page_token=ra.envelope.next_page_token),
                dict(kw, page_token=rb.envelope.next_page_token))
    print(f"compared: {seen}; different: {bad}")
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--store")
    src.add_argument("--from-e4", metavar="DIR")
    ap.add_argument("--tree-a", required=True, help="the other version's source tree (A)")
    ap.add_argument("--tree-b", default=str(ROOT), help="this version's tree (B; default: this repository)")
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--check", action="store_true", help="compare the answers instead of timing them")
    ap.add_argument("--client-per-tree", action="store_true",
                    help="call each server through its own tree's client and conversion (default: this tree's)")
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
        client_a, client_b = (tree_client(Path(t)) for t in (args.tree_a, args.tree_b)) if args.client_per_tree \
            else (Client, Client)
        print(f"clients: {'each tree its own' if args.client_per_tree else 'this tree for both'}", flush=True)
        with client_a(addr_a, timeout=60) as ca, client_b(addr_b, timeout=60) as cb:
            sa = ca.open_session(author="bench", budget=G.BIG_BUDGET).data["session"]
            sb = cb.open_session(author="bench", budget=G.BIG_BUDGET).data["session"]
            from stratum.tools import Tools      # the workload is drawn from the store, as grpc_latency's

            tools = Tools.open([store])
            warm, wl = G.workload(tools, args.calls, seed=7), G.workload(tools, args.calls, seed=11)
            calls = check_calls(wl, warm, tools.shards.shards[0], args.calls) if args.check else []
            tools.close()
            del tools
            if args.check:
                return 1 if check(ca, cb, calls) else 0
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

    print(f"\n{args.calls} calls per row, each to both servers (ms)")
    print("| call | A p50 | A p99 | B p50 | B p99 | median of A - B per call |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, (xa, xb) in rows.items():
        d = statistics.median(a - b for a, b in zip(xa, xb))
        print(f"| {name} | {G.pct(xa, 50):.3f} | {G.pct(xa, 99):.3f} | {G.pct(xb, 50):.3f} | {G.pct(xb, 99):.3f} | {d:+.3f} |")
    print(f"\nload average after {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
