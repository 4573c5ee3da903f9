"""gRPC serving latency and throughput against the same calls in-process.

    python benchmarks/grpc_latency.py --store PATH [--calls 300] [--concurrency 1 8 32] [--seconds 5]
    python benchmarks/grpc_latency.py --from-e4 benchmarks/.out/e4 ...   # the synthetic 1M-node store

--from-e4 DIR serves the synthetic store built by ``benchmarks/e4_synthetic.py build --dir DIR``: its
Lance datasets (DIR/store) and warm indexes (DIR/indexes) are published once as version 1 of a store
(a manifest naming them and the model its vectors come from, as the pipeline would) so ``Tools`` can
load it like any other store and embeds text queries with that model. The
synthetic note nodes have no write time, which a store's notes always have; they get 2024-01-01
(the nodes dataset is rewritten in the same row order, so the warm indexes still line up).

Definitions (printed with the results):
- workload: search queries are node names (identifier queries) and the first words of node summaries
  (natural-language queries), half each; get targets are node ids at level "api"; walk targets are
  file node ids, all edge kinds, direction "out", page_size 20. Drawn with a fixed seed from the
  store itself, the same list for every mode.
- in-process: ``Tools`` method calls in this process (no serialisation, no network).
- gRPC: ``serving.client.Client`` calls to ``stratum serve`` running as a separate process on
  127.0.0.1 (real loopback TCP, protobuf both ways, the server's thread pool), the end-to-end time
  the caller sees. Ratio = gRPC p50 / in-process p50 for the same call.
- search (repeated query): the same search calls once more; the query vectors are cached by then
  (as for page 2+ of a search, or a query already asked), so this is search without embedding.
- search, gRPC only: another 300 new queries (seed 13) over gRPC alone, after the in-process
  rows, with no in-process call between them (the interleaved rows put an in-process search at
  1M, whose working set shares the machine's caches with the server's, between every two gRPC
  calls; this row is end to end as a client elsewhere would see it).
- transport floor: the gRPC health Check on the same server (no tool work).
- search parts: the repeated searches once more in-process, split into the fused hybrid list
  (``warm.search``, rank.DEEP long, as the tool asks for it) and ``rank.rerank``, timed apart.
- latency: ``--calls`` sequential calls per tool after 20 warm-up calls, in-process and gRPC
  interleaved call by call (same arguments, A then B), so load from other processes on the machine
  falls on both alike; p50 / p99 in milliseconds. The machine's load average is printed.
- throughput: C concurrent clients (threads, each with its own channel and session) issue the mixed
  workload (search, get, walk in turn) for ``--seconds``; calls per second over all clients, and the
  p50 / p99 latency under that load.
- sessions use a budget of 10^9 tokens so the controller admits without evicting: this measures
  serving, not eviction (the controller benchmark measures that).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BIG_BUDGET = 10 ** 9
REPEAT = "search (repeated query)"
ALONE = "search, gRPC only (new queries, no in-process call between)"


def machine() -> str:
    cpu = "unknown cpu"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores visible, Python {platform.python_version()}, {platform.system()}"


def workload(tools, n: int, seed: int = 7) -> dict[str, list[dict]]:
    """Arguments for search/get/walk drawn from the store (see the module docstring)."""
    rng = random.Random(seed)
    sh = tools.shards.shards[0]
    kinds, ids, names = sh.col("kind"), sh.col("id"), sh.col("name")
    code = [i for i, k in enumerate(kinds) if k in ("class", "function", "method")]
    files = [i for i, k in enumerate(kinds) if k == "file"]
    summaries = sh.meta.column("summary")
    queries = []
    for i in rng.choices(code, k=n):
        if len(queries) % 2 == 0 and names[i]:
            queries.append(names[i])
        else:
            words = (summaries[i].as_py() or names[i] or "code").split()
            queries.append(" ".join(words[:8]))
    return {
        "search": [{"query": q, "page_size": 10} for q in queries],
        "get": [{"target": ids[i], "level": "api"} for i in rng.choices(code or files, k=n)],
        "walk": [{"target": ids[i], "page_size": 20} for i in rng.choices(files, k=n)],
    }


def seal_warm(d: Path) -> None:
    """Record the e4 warm files' checksums in warm.json, as build_warm does for a pipeline store
    (a shard refuses a warm folder without them, and would rebuild a 1M-node tier from Lance)."""
    from stratum import integrity
    from stratum.warm import WARM_FILE

    if (d / WARM_FILE).exists():
        return
    files = sorted(str(f.relative_to(d)) for f in d.rglob("*") if f.is_file())
    recs = integrity.records(d, files)
    (d / WARM_FILE).write_text(json.dumps({"dir": d.name, "keyword": True, "vector": True, "bytes": integrity.total_size(recs),
                                           "files": recs, "seal": integrity.seal(recs)}, indent=1, sort_keys=True))


def publish_e4(e4_dir: str) -> str:
    """Publish the e4 synthetic output as a store Tools can open (once); the store path."""
    from stratum.store import Manifest, Store

    import pyarrow as pa
    import pyarrow.compute as pc

    from stratum import schema as S

    root = Path(e4_dir).resolve()
    seal_warm(root / "indexes")
    st = Store(root / "store")
    if not st.exists():
        db = st.db()
        nodes = db.open_table("nodes").to_arrow()
        is_note = pc.is_in(nodes.column("kind"), pa.array(list(S.NOTE_KINDS)))
        missing = pc.and_(is_note, pc.is_null(nodes.column("created_at")))
        if pc.any(missing).as_py():
            # synthetic notes carry no write time; a store's notes always do (rewritten in row order)
            stamp = pa.scalar(1704067200_000000, nodes.schema.field("created_at").type)   # 2024-01-01
            col = pc.if_else(missing, stamp, nodes.column("created_at"))
            st.write_dataset("nodes", nodes.set_column(nodes.schema.get_field_index("created_at"), "created_at", col))
        del nodes
        datasets = {name: db.open_table(name).version for name in ("nodes", "edges")}
        rows = db.open_table("nodes").count_rows()
        # the model the anchors came from (build.json of e4_synthetic.py --model); older builds: MiniLM
        build = root / "build.json"
        embedding = (json.loads(build.read_text()).get("embedding") if build.exists() else None) or \
            {"model": "all-MiniLM-L6-v2", "dim": 384}
        st.publish(Manifest(version=1, published_at=time.time(), repo_name="e4-synthetic", repo_path=str(root),
                            indexed_commit=None, history_watermark=None, datasets=datasets,
                            embedding=embedding,
                            indexes={"dir": "../indexes", "rows": rows, "keyword": True, "vector": True}))
    return str(st.root)


def search_parts(tools, searches: list[dict]) -> dict:
    """The two parts of ``Tools.search`` on the first shard, timed apart over the same queries:
    the fused hybrid list (``warm.search`` as the tool asks for it, rank.DEEP long) and the rerank
    by memory and structure (``rank.rerank``); the rest (paging, rendering) is the difference."""
    from stratum import rank, signals

    sh = tools.shards.shards[0]
    ov = tools.memory.overlay(sh)
    sid = tools.open_session(author="bench-parts", budget=BIG_BUDGET).data["session"]
    hyb, rer, whole = [], [], []
    for a in searches:
        t = time.perf_counter()
        tools.search(sid, **a)
        whole.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        page = sh.warm.search(a["query"], limit=max(a["page_size"] + 1, rank.DEEP), extra_docs=ov.search_docs())
        t1 = time.perf_counter()
        rank.rerank(rank.candidates_of(page.items), signals.ShardSignals(sh, ov, extra=ov.rank_infos).prefetch(page.items),
                    add=True)
        t2 = time.perf_counter()
        hyb.append((t1 - t) * 1000)
        rer.append((t2 - t1) * 1000)
    rest = [w - h - r for w, h, r in zip(whole, hyb, rer)]
    return {"Tools.search (same calls)": {"p50": pct(whole, 50), "p99": pct(whole, 99)},
            f"hybrid list ({rank.DEEP} deep)": {"p50": pct(hyb, 50), "p99": pct(hyb, 99)},
            "rerank (notes, co-change, structure)": {"p50": pct(rer, 50), "p99": pct(rer, 99)},
            "the rest (Tools.search minus both, per call)": {"p50": pct(rest, 50), "p99": pct(rest, 99)}}


def pct(samples: list[float], p: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def time_calls(fn, session: str, args: list[dict], warmup: int = 20) -> list[float]:
    for a in args[:warmup]:
        fn(session, **a)
    out = []
    for a in args:
        t = time.perf_counter()
        fn(session, **a)
        out.append((time.perf_counter() - t) * 1000)
    return out


def time_interleaved(fa, sa: str, fb, sb: str, args: list[dict], warmup: int = 20) -> tuple[list[float], list[float]]:
    """Call A then B with the same arguments, call by call; the two latency lists in ms."""
    for a in args[:warmup]:
        fa(sa, **a)
        fb(sb, **a)
    xa, xb = [], []
    for a in args:
        t = time.perf_counter()
        fa(sa, **a)
        t1 = time.perf_counter()
        fb(sb, **a)
        t2 = time.perf_counter()
        xa.append((t1 - t) * 1000)
        xb.append((t2 - t1) * 1000)
    return xa, xb


def start_server(store: str, workers: int, tree: Path = ROOT) -> tuple[subprocess.Popen, str]:
    """``stratum serve`` from the source tree ``tree`` (grpc_ab.py serves two trees at once)."""
    proc = subprocess.Popen([sys.executable, "-m", "stratum.cli", "serve", "--store", store, "--port", "0",
                             "--reload-interval", "0", "--workers", str(workers)],
                            cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONPATH": str(tree)})
    line = proc.stdout.readline()
    if "serving" not in line:
        proc.kill()
        raise SystemExit(f"server did not start: {line!r}")
    return proc, line.strip().rsplit(" ", 1)[-1]


def throughput(address: str, wl: dict, clients: int, seconds: float) -> dict:
    from serving.client import Client
    from stratum.errors import StratumError

    mixed = [(tool, a) for trio in zip(wl["search"], wl["get"], wl["walk"])
             for tool, a in zip(("search", "get", "walk"), trio)]
    lat: list[list[float]] = [[] for _ in range(clients)]
    errors: list[BaseException] = []
    start = threading.Barrier(clients + 1)
    stop_at = [0.0]

    def run(k: int) -> None:
        with Client(address, timeout=60) as c:
            sid = c.open_session(author=f"bench-{k}", budget=BIG_BUDGET).data["session"]
            j = k * 7
            start.wait()
            while time.perf_counter() < stop_at[0]:
                tool, a = mixed[j % len(mixed)]
                j += 1
                t = time.perf_counter()
                try:
                    getattr(c, tool)(sid, **a)
                except StratumError as err:    # counted and reported, never hidden
                    errors.append(err)
                    continue
                lat[k].append((time.perf_counter() - t) * 1000)
            c.close_session(sid)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    stop_at[0] = time.perf_counter() + seconds + 0.0
    t0 = time.perf_counter()
    start.wait()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    flat = [x for xs in lat for x in xs]
    return {"clients": clients, "calls": len(flat), "seconds": round(elapsed, 2),
            "calls_per_s": round(len(flat) / elapsed, 1), "p50_ms": round(pct(flat, 50), 3),
            "p99_ms": round(pct(flat, 99), 3), "errors": len(errors)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--store")
    src.add_argument("--from-e4", metavar="DIR", help="serve the synthetic store of e4_synthetic.py build --dir DIR")
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--workers", type=int, default=8, help="server RPC threads")
    ap.add_argument("--json", default=None, help="also write the results here")
    args = ap.parse_args()

    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    from serving.client import Client
    from stratum.tools import Tools

    if args.from_e4:
        args.store = publish_e4(args.from_e4)
    print(__doc__)
    print(f"machine: {machine()}")
    print(f"command: {' '.join([Path(sys.executable).name, *sys.argv])}\n")

    t = time.perf_counter()
    tools = Tools.open([args.store])
    load_s = time.perf_counter() - t
    nodes = sum(len(sh) for sh in tools.shards.shards)
    print(f"store: {args.store} ({nodes} nodes, version {tools.shards.version}, loaded in {load_s:.1f}s)")
    wl = workload(tools, args.calls)
    results: dict = {"machine": machine(), "store": args.store, "nodes": nodes, "latency": {}, "throughput": []}

    sid = tools.open_session(author="bench", budget=BIG_BUDGET).data["session"]
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    proc, address = start_server(args.store, args.workers)
    try:
        with Client(address, timeout=60) as c:
            c.wait_ready()
            rsid = c.open_session(author="bench", budget=BIG_BUDGET).data["session"]
            local, remote = {}, {}
            for tool in ("search", "get", "walk"):
                local[tool], remote[tool] = time_interleaved(getattr(tools, tool), sid, getattr(c, tool), rsid,
                                                             wl[tool])
            # the same queries again: their vectors are now cached (as for page 2+ of a search, or
            # a query another agent already asked), so this is search without the embedding
            local[REPEAT], remote[REPEAT] = time_interleaved(tools.search, sid, c.search, rsid, wl["search"])
            results["search_parts"] = search_parts(tools, wl["search"])
            alone_wl = workload(tools, args.calls, seed=13)["search"]      # queries new to both
            tools.close()
            # the same kind of new queries over gRPC with nothing run in this process between
            # them (the rows above interleave an in-process call, whose 1M-node working set
            # shares the caches with the server's)
            remote[ALONE] = time_calls(c.search, rsid, alone_wl, warmup=0)
            channel = grpc.insecure_channel(address)
            health = health_pb2_grpc.HealthStub(channel)
            floor = time_calls(lambda _s, **_: health.Check(health_pb2.HealthCheckRequest()), "",
                               [{}] * args.calls)
            channel.close()
        print(f"\nlatency, {args.calls} sequential calls each (ms)")
        print("| call | in-process p50 | in-process p99 | gRPC p50 | gRPC p99 | gRPC/in-process (p50) |")
        print("|---|---|---|---|---|---|")
        for tool in ("search", REPEAT, "get", "walk"):
            row = {"inproc_p50": pct(local[tool], 50), "inproc_p99": pct(local[tool], 99),
                   "grpc_p50": pct(remote[tool], 50), "grpc_p99": pct(remote[tool], 99)}
            row["ratio_p50"] = row["grpc_p50"] / row["inproc_p50"]
            results["latency"][tool] = {k: round(v, 3) for k, v in row.items()}
            print(f"| {tool} | {row['inproc_p50']:.3f} | {row['inproc_p99']:.3f} | {row['grpc_p50']:.3f} | "
                  f"{row['grpc_p99']:.3f} | {row['ratio_p50']:.2f}x |")
        results["latency"][ALONE] = {"grpc_p50": round(pct(remote[ALONE], 50), 3),
                                     "grpc_p99": round(pct(remote[ALONE], 99), 3)}
        print(f"| {ALONE} | - | - | {pct(remote[ALONE], 50):.3f} | {pct(remote[ALONE], 99):.3f} | - |")
        results["latency"]["health_check"] = {"grpc_p50": round(pct(floor, 50), 3), "grpc_p99": round(pct(floor, 99), 3)}
        print(f"| transport floor (health Check) | - | - | {pct(floor, 50):.3f} | {pct(floor, 99):.3f} | - |")

        parts = results["search_parts"]
        print("\nwhere an in-process search goes (repeated queries: vectors cached), p50 / p99 ms")
        print("| part | p50 | p99 |\n|---|---|---|")
        for k, v in parts.items():
            print(f"| {k} | {v['p50']:.3f} | {v['p99']:.3f} |")

        print(f"\nthroughput, mixed search/get/walk, {args.seconds:g}s per level, server with {args.workers} threads")
        print("| concurrent clients | calls | calls/s | p50 ms | p99 ms | errors |")
        print("|---|---|---|---|---|---|")
        for n in args.concurrency:
            r = throughput(address, wl, n, args.seconds)
            results["throughput"].append(r)
            print(f"| {n} | {r['calls']} | {r['calls_per_s']} | {r['p50_ms']} | {r['p99_ms']} | {r['errors']} |")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    print(f"\nload average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    results["loadavg_after"] = os.getloadavg()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
