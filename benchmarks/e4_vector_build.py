"""Time the warm HNSW build alone, from the vectors of an E4 store (no other work running).

    python benchmarks/e4_vector_build.py [--dir benchmarks/.out/e4] [--rows N] [--threads 2]

Definitions: the input is the saved dense matrix of ``e4_synthetic.py build`` (f16, converted to
f32 as the pipeline passes it); the build is ``VectorIndex.build`` with the default HnswParams
(M=16, efConstruction=128, f16 vectors in the graph) and ``threads`` usearch threads, without
per-kind graphs; wall time (perf_counter) and process CPU time (process_time) of the build, the
machine's load average before and after. The graph is written to a temporary folder and deleted.
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
    args = ap.parse_args()
    print(__doc__)
    m = np.load(Path(args.dir) / "indexes" / "vector" / "vectors.f16.npy", mmap_mode="r")
    m = np.asarray(m[: args.rows] if args.rows else m, dtype=np.float32)
    print(f"rows {len(m)}, dim {m.shape[1]}, threads {args.threads}, params {HnswParams()}")
    print(f"load average before: {os.getloadavg()}", flush=True)
    t, c = time.perf_counter(), time.process_time()
    vi = VectorIndex.build(m, threads=args.threads)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    with tempfile.TemporaryDirectory() as d:
        vi.save(d)
        mb = sum(f.stat().st_size for f in Path(d).iterdir()) / 2**20
    print(f"build: {wall:.1f} s wall, {cpu:.1f} s CPU ({cpu / wall:.2f} cores busy); saved {mb:.0f} MB")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
