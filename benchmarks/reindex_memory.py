"""Memory and time of a one-file re-index's embed plan (``stages.embed_plan`` with its
``known_hashes``) on a real store: the old bytes-keyed matcher (copied below) against the current one.

Definitions (printed at the start of every run):
- **store**: one built by the CLI (`python -m stratum.cli index <repo> --store <dir>`), read as is.
- **one-file re-index's inputs**: the published version's nodes without their vectors (what
  ``stages.reuse`` hands the embed stage) and ``reused`` = every file path but one (the first
  ``.c``/``.py`` file in path order: the touched file).
- **side**: ``old`` = ``embed_plan``/``known_hashes`` as they were at 6a662f4 (``git show`` of
  that ``pipeline/stages.py``, imported as its own module: a dict keyed by every cached vector's
  bytes, the nodes' vectors read whole);
  ``new`` = the working tree's ``pipeline.stages``. Each call runs in a fresh process, sides
  interleaved old new old new ..., so load changes hit both alike.
- **peak**: the process's resident-set high-water mark during the call less its resident set just
  before (Linux ``/proc/self/clear_refs`` 5 resets the mark), MiB: everything the call holds at
  its worst (Python objects, numpy, Arrow and Lance buffers).
- **py peak**: with ``--trace``, one more pair under ``tracemalloc``: the Python/numpy heap's peak
  during the call, MiB (not Arrow/Lance buffers; tracemalloc slows the call, so no time is taken).
- **plan / known**: wall ms of the whole ``embed_plan`` and of its ``known_hashes`` call.
- **same**: both sides give the same ``plan.hashes`` and the same count of recovered hashes.
- **matcher alone** (``--synthetic N``): N random unit 384-d float32 rows in 8,192-row chunks (the
  cache, as Lance returns it) and the same rows shuffled as the stored vectors, in 8,192-row
  batches; ``old`` = the bytes-keyed dict built and looked up as 6a662f4's ``known_hashes`` does, ``new``
  = ``pipeline.vecmatch.CacheMatcher`` built and queried batch by batch. Same peak / py peak / ms
  definitions; both sides must name the same row for every query.
- **nodes read alone** (``--synthetic N --scan``): a Lance dataset of N node-like rows (id, kind
  ``function``, path: 20 rows a file, 384-d vector) in a temp dir; ``old`` = read whole with the
  four columns, then filtered by path (all files but one) and kind, as 6a662f4 did; ``new`` =
  streamed with a kind filter, each batch filtered by path (as ``known_hashes`` now reads).
Medians over the pairs.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


BASE = "6a662f4"     # the last commit with the bytes-keyed matcher


def old_stages():
    """``pipeline/stages.py`` as it was at ``BASE`` (read with ``git show``), imported beside the
    working tree's modules (its imports are unchanged interfaces)."""
    import importlib.util
    import tempfile

    src = subprocess.run(["git", "show", f"{BASE}:pipeline/stages.py"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    path = Path(tempfile.mkdtemp(prefix="stratum-old-")) / "old_stages.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("old_stages", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["old_stages"] = mod           # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


# ---- one side in a fresh process -------------------------------------------------------------------
TIMES: dict[str, float] = {}


def _timed(fn):
    def run(*a, **k):
        t0 = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            TIMES["known"] = time.perf_counter() - t0
    return run


def _status(field: str) -> int:
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(field)


def _measure(fn, trace: bool):
    """(result, seconds, peak RSS bytes above the start, tracemalloc peak or 0) of one call."""
    import tracemalloc

    gc.collect()
    if trace:
        tracemalloc.start()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    rss0 = _status("VmRSS")
    t0 = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - t0
    peak = _status("VmHWM") - rss0
    return out, seconds, peak, (tracemalloc.get_traced_memory()[1] if trace else 0)


def child(side: str, store: str, trace: bool) -> dict:
    from pipeline import stages as st
    from pipeline.report import RunReport
    from stratum.config import IndexConfig
    from stratum.store import Store

    snap = Store(store).snapshot()
    nodes = snap.read("nodes", columns=st.node_columns(False)).to_pylist()
    files = sorted(n["path"] for n in nodes if n["kind"] == "file")
    touched = next((p for p in files if p.endswith((".c", ".py"))), files[0])
    reused = set(files) - {touched}
    cfg = IndexConfig(num_cpus=1)
    rep = RunReport(repo="bench", store=store)
    mod: Any = st if side == "new" else old_stages()
    mod.known_hashes = _timed(mod.known_hashes)        # embed_plan looks it up in its module
    snap.lance_table("nodes"), snap.lance_table("embeddings")    # opened before the mark: both sides
    work, seconds, peak, py_peak = _measure(lambda: mod.embed_plan(cfg, snap.manifest, snap, nodes, rep,
                                                                   reused=reused), trace)
    assert work is not None
    digest = hashlib.blake2b(json.dumps(work.plan.hashes).encode(), digest_size=8).hexdigest()
    return {"side": side, "plan_ms": seconds * 1e3, "known_ms": TIMES.get("known", 0) * 1e3, "peak": peak,
            "py_peak": py_peak, "nodes": len(nodes), "cache_rows": len(work.cached), "cached": work.plan.cached,
            "to_embed": work.plan.to_embed, "digest": digest, "reused_files": len(reused)}


def synthetic(side: str, n: int, trace: bool) -> dict:

    import numpy as np

    from pipeline.vecmatch import CacheMatcher, Chunks

    rng = np.random.default_rng(7)
    m = rng.standard_normal((n, 384), dtype=np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    chunks = [m[i:i + 8192] for i in range(0, n, 8192)]
    order = rng.permutation(n)
    batches = [m[order[i:i + 8192]] for i in range(0, n, 8192)]
    hashes = [f"{i:032x}" for i in range(n)]
    cached = dict(zip(hashes, (r for c in chunks for r in c)))

    def old() -> list:
        by_vector: dict[bytes, str | None] = {}
        for h, v in cached.items():
            b = v.tobytes()
            by_vector[b] = h if by_vector.get(b, h) == h else None
        return [by_vector.get(r.tobytes()) for q in batches for r in q]

    def new() -> list:
        index = CacheMatcher(Chunks(chunks))
        return [hashes[o] if o >= 0 else None for q in batches for o in index.owners(q).tolist()]

    got, seconds, peak, py_peak = _measure(old if side == "old" else new, trace)
    ok = got == [hashes[i] for i in order]
    return {"side": side, "plan_ms": seconds * 1e3, "known_ms": seconds * 1e3, "peak": peak, "py_peak": py_peak,
            "nodes": n, "cache_rows": n, "cached": n, "to_embed": 0, "reused_files": 0,
            "digest": "ok" if ok else "WRONG"}


def make_scan_dataset(n: int, where: str) -> None:
    import lance
    import numpy as np
    import pyarrow as pa

    v = np.random.default_rng(1).standard_normal(n * 384, dtype=np.float32)
    lance.write_dataset(pa.table({"id": [f"id{i:08d}" for i in range(n)], "kind": ["function"] * n,
                                  "path": [f"src/f{i // 20:06d}.c" for i in range(n)],
                                  "vector": pa.FixedSizeListArray.from_arrays(pa.array(v), 384)}), where)


def scan(side: str, where: str, trace: bool) -> dict:
    import lance
    import pyarrow as pa
    import pyarrow.compute as pc

    ds = lance.dataset(where)
    n = ds.count_rows()
    reused = pa.array(sorted(f"src/f{i:06d}.c" for i in range(1, (n + 19) // 20)), pa.string())

    def old() -> int:
        tab = ds.to_table(columns=["id", "kind", "path", "vector"])
        tab = tab.filter(pc.and_(pc.is_in(tab["path"], value_set=reused), pc.is_in(tab["kind"], value_set=pa.array(["function"]))))
        return tab.combine_chunks().num_rows

    def new() -> int:
        rows = 0
        for b in ds.to_batches(columns=["id", "path", "vector"], filter="kind IN ('function')"):
            rows += b.filter(pc.is_in(b.column("path"), value_set=reused)).num_rows
        return rows

    got, seconds, peak, py_peak = _measure(old if side == "old" else new, trace)
    return {"side": side, "plan_ms": seconds * 1e3, "known_ms": seconds * 1e3, "peak": peak, "py_peak": py_peak,
            "nodes": n, "cache_rows": 0, "cached": got, "to_embed": 0, "reused_files": len(reused), "digest": "ok"}


def _run(side: str, store: str, trace: bool, n: int = 0, scan_at: str = "") -> dict:
    cmd = [sys.executable, __file__, "--child", side, "--store", store, "--synthetic", str(n)] + \
        (["--trace"] if trace else []) + (["--scan-at", scan_at] if scan_at else [])
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=600,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    if out.returncode:
        raise SystemExit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", default="", help="a store built by the CLI (not needed with --synthetic)")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--trace", action="store_true", help="one more pair under tracemalloc (py peak)")
    ap.add_argument("--synthetic", type=int, default=0, metavar="N", help="the matcher alone on N random rows")
    ap.add_argument("--scan", action="store_true", help="with --synthetic: the nodes' read alone, on Lance")
    ap.add_argument("--child", choices=["old", "new"])
    ap.add_argument("--scan-at", default="", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(scan(a.child, a.scan_at, a.trace) if a.scan_at else
                         synthetic(a.child, a.synthetic, a.trace) if a.synthetic else child(a.child, a.store, a.trace)))
        return
    if a.scan:
        import shutil
        import tempfile

        tmp = tempfile.mkdtemp(prefix="stratum-scan-")
        try:
            make_scan_dataset(a.synthetic, f"{tmp}/nodes.lance")
            report(a, f"{tmp}/nodes.lance", f"nodes read alone, {a.synthetic:,} rows")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return
    report(a, "", f"matcher alone, {a.synthetic:,} rows" if a.synthetic else f"store {a.store}")


def report(a, scan_at: str, what: str) -> None:
    print(__doc__)
    print(f"load average at start: {os.getloadavg()}")
    runs: dict[str, list[dict]] = {"old": [], "new": []}
    for _ in range(a.pairs):
        for side in ("old", "new"):
            runs[side].append(_run(side, a.store, False, a.synthetic, scan_at))
    traced = {side: _run(side, a.store, True, a.synthetic, scan_at) for side in ("old", "new")} if a.trace else {}
    mib = 1 << 20
    first = runs["new"][0]
    print(f"{what}: {first['nodes']:,} nodes, {first['cache_rows']:,} cache rows, "
          f"{first['reused_files']:,} files reused, {first['cached']:,} nodes from cache, {first['to_embed']} to embed")
    same = {r["digest"] for rs in runs.values() for r in rs} == {first["digest"]} != {"WRONG"} and \
        {r["cached"] for rs in runs.values() for r in rs} == {first["cached"]}
    print("| side | plan ms | known_hashes ms | peak MiB | py peak MiB |")
    print("|---|---:|---:|---:|---:|")
    for side, rs in runs.items():
        med = {k: statistics.median(r[k] for r in rs) for k in ("plan_ms", "known_ms", "peak")}
        py = f"{traced[side]['py_peak'] / mib:.1f}" if traced else "-"
        print(f"| {side} | {med['plan_ms']:.1f} | {med['known_ms']:.1f} | {med['peak'] / mib:.1f} | {py} |")
    print(f"same plan on both sides: {same}")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
