"""The vector list a search asks for at 1M nodes (top-50, single thread): its recall and cost by ef,
and the graph's memory (a view of its file vs the same bytes in huge pages), side by side.

    python benchmarks/e4_vector_list.py [--dir benchmarks/.out/e4-1m] [--queries 500]
                                        [--ef 48,64,96,128] [--k 50] [--rounds 3]

Definitions (printed):
- **index**: the E4 store's saved HNSW graph (``indexes/vector``), opened as a shard opens it
  (``VectorIndex.load``, a view of the file: pages fault in on first use) and, beside it, the same
  file read into an anonymous memory map advised for transparent huge pages (``--buffer``:
  ``VectorIndex.load(..., huge=True)``, the default for a graph this large since session 10); both
  answer through the same compiled call as ``VectorIndex.search`` (``_graph_search``).
- **queries**: the first QUERIES of each E4 query set in ``queries.npz`` (``text``: docstring
  sentences, off the node distribution; ``syn``: fresh samples of it), embedded at build time.
- **recall@k**: overlap of the list with the exact top-k (brute-force cosine over the f16 matrix
  read as f32), mean over queries; also recall@10 of the list's first 10.
- **timing**: per query, the variants in turn (who goes first rotates by query and round), ROUNDS
  rounds after one untimed pass; p50 and mean ms, and the p50 of the per-query ratio to the first
  variant. Equality: the two memories give the same rows and scores for every query at every ef.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def exact_top(matrix: np.ndarray, queries: np.ndarray, k: int, chunk: int = 131072) -> np.ndarray:
    """Exact top-k rows by cosine, best first: (n_queries, k)."""
    best_s = np.full((len(queries), 0), -np.inf, np.float32)
    best_r = np.empty((len(queries), 0), np.int64)
    for s in range(0, matrix.shape[0], chunk):
        sc = queries @ np.asarray(matrix[s:s + chunk], np.float32).T
        part = np.argpartition(-sc, k - 1, axis=1)[:, :k]
        best_s = np.concatenate([best_s, np.take_along_axis(sc, part, 1)], 1)
        best_r = np.concatenate([best_r, part + s], 1)
        keep = np.argpartition(-best_s, k - 1, axis=1)[:, :k]
        best_s, best_r = np.take_along_axis(best_s, keep, 1), np.take_along_axis(best_r, keep, 1)
    order = np.argsort(-best_s, axis=1, kind="stable")
    return np.take_along_axis(best_r, order, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=str(ROOT / "benchmarks" / ".out" / "e4-1m"))
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--ef", type=lambda v: [int(x) for x in v.split(",")], default=[48, 64, 96, 128])
    ap.add_argument("--k", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--buffer", action="store_true", help="also time the huge-page copy of the graph")
    args = ap.parse_args()
    print(__doc__.split("Definitions (printed):")[1].strip(), "\n", flush=True)
    from stratum.vectorindex import VectorIndex, _graph_search

    d = Path(args.dir) / "indexes" / "vector"
    vi = VectorIndex.load(d, huge=False)
    variants = {"file view": vi._graph}
    if args.buffer:
        t = time.perf_counter()
        hv = VectorIndex.load(d, huge=True)
        print(f"huge-page copy of the graph: {time.perf_counter() - t:.2f} s")
        variants["huge pages"] = hv._graph
    z = np.load(Path(args.dir) / "queries.npz")
    print(f"load average {os.getloadavg()[0]:.2f}; graph {vi.size:,} vectors, default ef {vi.expansion_search}")
    print("| queries | ef | recall@k | recall@10 | " + " | ".join(f"{v} p50 / mean ms" for v in variants) +
          (" | ratio p50 | equal |" if len(variants) > 1 else " |"))
    print("|---|---:|---:|---:|" + "---:|" * len(variants) + ("---:|---:|" if len(variants) > 1 else ""))
    for name in ("text", "syn"):
        qs = np.asarray(z[name][:args.queries], np.float32)
        t = time.perf_counter()
        truth = exact_top(vi.matrix, qs, args.k)
        print(f"(exact top-{args.k} of {len(qs)} {name} queries: {time.perf_counter() - t:.1f} s)", flush=True)
        for ef in args.ef:
            for g in variants.values():
                g.expansion_search = ef
            names = list(variants)
            times = {v: [] for v in names}
            ratio, equal, found = [], True, []
            for q in qs:                                  # untimed pass
                for g in variants.values():
                    _graph_search(g, q, args.k)
            for rnd in range(args.rounds):
                for i, q in enumerate(qs):
                    shift = (i + rnd) % len(names)
                    got = {}
                    for v in names[shift:] + names[:shift]:
                        t = time.perf_counter()
                        got[v] = _graph_search(variants[v], q, args.k)
                        times[v].append((time.perf_counter() - t) * 1e3)
                    if len(names) > 1:
                        a, b = got[names[0]], got[names[1]]
                        equal = equal and np.array_equal(a.rows, b.rows) and np.array_equal(a.scores, b.scores)
                        ratio.append(times[names[1]][-1] / times[names[0]][-1])
                    if rnd == 0:
                        found.append(got[names[0]].rows)
            rk = np.mean([len(set(f.tolist()) & set(tr.tolist())) / args.k for f, tr in zip(found, truth)])
            r10 = np.mean([len(set(f[:10].tolist()) & set(tr[:10].tolist())) / 10 for f, tr in zip(found, truth)])
            cells = [f"{statistics.median(times[v]):.3f} / {statistics.mean(times[v]):.3f}" for v in names]
            extra = [f"{statistics.median(ratio):.3f}", "yes" if equal else "NO"] if len(names) > 1 else []
            print(f"| {name} | {ef} | {rk:.3f} | {r10:.3f} | " + " | ".join(cells + extra) + " |", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
