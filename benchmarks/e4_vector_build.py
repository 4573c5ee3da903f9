"""Time the warm HNSW build alone, from the vectors of an E4 store (no other work running).

    python benchmarks/e4_vector_build.py [--dir benchmarks/.out/e4] [--rows N] [--threads 2]
                                         [--connectivity 16] [--ef-sweep 32,64,96,128,192]

Definitions: the input is the saved dense matrix of ``e4_synthetic.py build`` (f16, converted to
f32 as the pipeline passes it); the build is ``VectorIndex.build`` with the default HnswParams
(M=16, efConstruction=128, f16 vectors in the graph) and ``threads`` usearch threads, without
per-kind graphs; wall time (perf_counter) and process CPU time (process_time) of the build, the
machine's load average before and after. The graph is written to a temporary folder and deleted.
With ``--ef-sweep`` (full rows only) the new graph is also searched with the E4 queries: top-10
recall against the exact top-10 of ``queries.npz`` and p50 latency, as ``e4_synthetic.py measure``
does (one warm-up pass, then one timed pass, single thread).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from stratum.vectorindex import HnswParams, VectorIndex  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=str(ROOT / "benchmarks" / ".out" / "e4"))
    ap.add_argument("--rows", type=int, default=0, help="first N rows only (0: all)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--connectivity", type=int, default=HnswParams.connectivity)
    ap.add_argument("--ef-sweep", type=lambda v: [int(x) for x in v.split(",")], default=[])
    ap.add_argument("--load", action="store_true",
                    help="no build: load the saved E4 graph into RAM and run the sweep on it (a baseline)")
    args = ap.parse_args()
    print(__doc__)
    if args.load:
        vi = VectorIndex.load(Path(args.dir) / "indexes" / "vector", mmap=False)
        print(f"loaded the saved graph: {vi.params}")
        return sweep(vi, args)
    m = np.load(Path(args.dir) / "indexes" / "vector" / "vectors.f16.npy", mmap_mode="r")
    m = np.asarray(m[: args.rows] if args.rows else m, dtype=np.float32)
    params = HnswParams(connectivity=args.connectivity)
    print(f"rows {len(m)}, dim {m.shape[1]}, threads {args.threads}, params {params}")
    print(f"load average before: {os.getloadavg()}", flush=True)
    t, c = time.perf_counter(), time.process_time()
    vi = VectorIndex.build(m, threads=args.threads, params=params)
    del m
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    with tempfile.TemporaryDirectory() as d:
        vi.save(d)
        mb = sum(f.stat().st_size for f in Path(d).iterdir()) / 2**20
    print(f"build: {wall:.1f} s wall, {cpu:.1f} s CPU ({cpu / wall:.2f} cores busy); saved {mb:.0f} MB")
    print(f"load average after: {os.getloadavg()}")
    if args.ef_sweep and not args.rows:
        sweep(vi, args)


def sweep(vi: VectorIndex, args) -> None:
    from stratum.vectorindex import recall_at_k

    z = np.load(Path(args.dir) / "queries.npz")
    print("| ef | text recall@10 | text p50 ms | synthetic recall@10 | synthetic p50 ms |")
    print("|---|---|---|---|---|")
    for ef in args.ef_sweep:
        vi.expansion_search = ef
        row = [str(ef)]
        for name in ("text", "syn"):
            for q in z[name]:
                vi.search(q, 10)
            found, ts = [], []
            for q in z[name]:
                t = time.perf_counter()
                found.append(vi.search(q, 10).rows)
                ts.append(time.perf_counter() - t)
            row += [f"{recall_at_k(found, z[f'gt_{name}']):.3f}", f"{np.median(ts) * 1e3:.3f}"]
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
