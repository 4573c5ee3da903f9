"""Where the notes' HNSW graph starts to beat exact scoring (issue 12: ``noteindex.ANN_MIN``).

    python benchmarks/notes_vector_crossover.py [--store benchmarks/.out/notes/runs/n10000]
                                                [--sizes 5000,10000,20000,50000,100000] [--rounds 5]

Definitions (printed):
- **vectors**: the unmerged notes' own MiniLM vectors of STORE (as the overlay holds them: decoded
  from the delta log's float16); a size above their count repeats them, each copy with Gaussian
  noise (sigma 0.01 a component, ~0.98 cosine to its original) and normalised again.
- **queries**: notes_scale.QUERIES (40 flask questions) embedded by the store's own model.
- **exact**: ``NoteView.exact_hits`` over every slot (the compiled pass from
  EXACT_COMPILED_MIN slots, numpy's einsum below), selection and top-k included.
- **numpy**: the exact path as it was before the compiled pass (einsum product + ``_top``).
- **graph**: ``NoteIndex.ann_hits`` (usearch HNSW, f16, connectivity 16, ef ANN_EXPANSION,
  over-fetch k + hidden + 8, the view's checks and top-k), on a graph built with the index's
  own parameters.
- **timing**: k = 50 (the searcher's window), every slot visible; the three paths in turn per
  query (the order rotates per query), ROUNDS passes after one untimed pass; p50 and p90 in us.
  **recall@50**: the graph's top 50 slots found in the exact top 50, mean over the queries.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("RAY_TMPDIR", str(ROOT / ".tmp" / "ray"))
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")


def note_vectors(store: str):
    """(note vectors, query vectors) of a store, through the real overlay and embedder."""
    import numpy as np

    from notes_scale import QUERIES
    from stratum import tools as T

    tools = T.Tools.open([store])
    sh = tools.shards.shards[0]
    view = tools.memory.overlay(sh).search_docs()
    n = view.n
    vecs = np.ascontiguousarray(view.vectors[:n][view.has_vector[:n]])
    qs = np.stack([sh.warm.searcher.embed_query(q) for q in QUERIES]).astype(np.float32)
    return vecs, qs


def replicate(vecs, size: int, seed: int = 3):
    import numpy as np

    rng = np.random.default_rng(seed)
    out = np.empty((size, vecs.shape[1]), np.float32)
    for at in range(0, size, len(vecs)):
        part = vecs[:min(len(vecs), size - at)]
        if at:
            part = part + rng.normal(0, 0.01, part.shape).astype(np.float32)
            part /= np.linalg.norm(part, axis=1, keepdims=True)
        out[at:at + len(part)] = part
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", default=str(ROOT / "benchmarks/.out/notes/runs/n10000"))
    ap.add_argument("--sizes", default="5000,10000,20000,50000,100000")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    print(__doc__.split("Definitions (printed):")[1].strip().replace("STORE", args.store)
          .replace("ROUNDS", str(args.rounds)), "\n", flush=True)
    import numpy as np

    from stratum import noteindex as NI
    from stratum.keywordindex import _top

    base, qs = note_vectors(args.store)
    NI.compiled(wait=True)                      # the compiled kernels loaded (a background thread)
    k = 50
    print(f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores; {len(base):,} note vectors, {len(qs)} queries; load average "
          f"{os.getloadavg()[0]:.2f}\n", flush=True)
    print("| notes | exact p50 | exact p90 | numpy p50 | graph p50 | graph p90 | recall@50 | graph build s |\n"
          "|---:|---:|---:|---:|---:|---:|---:|---:|", flush=True)
    for size in [int(s) for s in args.sizes.split(",")]:
        vecs = replicate(base, size)
        ix = NI.NoteIndex(vecs.shape[1])
        with ix.deferred():
            for i in range(size):
                ix.add(f"note:{i}", "", "insight", "", "", vecs[i])
        saved, NI.ANN_MIN = NI.ANN_MIN, 1          # build the graph at any size, as the index would
        try:
            t = time.perf_counter()
            ix.wait_graph(timeout=600)
            build = time.perf_counter() - t
        finally:
            NI.ANN_MIN = saved
        view = ix.view()
        sel = view.eligible & view.has_vector[:view.n]

        def exact(q):
            return view.exact_hits(q, k, sel)

        def numpy_path(q):
            s = NI._dot(view.vectors[:view.n], q)
            cand = np.arange(len(s))
            o = _top(cand, s, k)
            return cand[o], s[o]

        def graph(q):
            return ix.ann_hits(q, k, sel)

        paths = (exact, numpy_path, graph)
        times = {f: [] for f in paths}
        for r in range(args.rounds + 1):
            for i, q in enumerate(qs):
                for f in paths[i % 3:] + paths[:i % 3]:
                    t = time.perf_counter()
                    f(q)
                    if r:
                        times[f].append((time.perf_counter() - t) * 1e6)
        recall = statistics.mean(len(set(graph(q)[0].tolist()) & set(exact(q)[0].tolist())) / k for q in qs)
        same = all(np.array_equal(exact(q)[0], numpy_path(q)[0]) for q in qs)

        def pct(xs, p):
            return sorted(xs)[int(p * (len(xs) - 1))]
        print(f"| {size:,} | {pct(times[exact], .5):.0f} | {pct(times[exact], .9):.0f} | "
              f"{pct(times[numpy_path], .5):.0f} | {pct(times[graph], .5):.0f} | {pct(times[graph], .9):.0f} | "
              f"{recall:.3f} | {build:.1f} |" + ("" if same else " (exact and numpy slots differ)"), flush=True)
        del ix, view, vecs
    print(f"\nload average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
