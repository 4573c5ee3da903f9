"""Where the notes' HNSW graph and 1-bit prefilter beat exact scoring (``noteview.ANN_MIN``, ``SIGN_MIN``).

    python benchmarks/notes_vector_crossover.py [--store benchmarks/.out/notes/runs/n10000]
                                                [--sizes 5000,10000,20000,50000,100000] [--rounds 5] [--static]

Definitions (printed):
- **vectors**: the unmerged notes' own MiniLM vectors of STORE (as the overlay holds them: decoded
  from the delta log's float16); a size above their count repeats them, each copy with Gaussian
  noise (sigma 0.01 a component, ~0.98 cosine to its original) and normalised again. ``--static``:
  the same notes' texts (``textprep.embed_text`` of each) embedded by the static model instead.
- **queries**: notes_scale.QUERIES (40 flask questions) embedded by the store's own model (the
  static model with ``--static``); for recall also 200 **near-note** queries (a random note's
  vector plus noise, sigma 0.03 a component: an agent asking about what a note says).
- **exact**: ``NoteView.exact_hits`` over every slot (the compiled pass from
  EXACT_COMPILED_MIN slots, numpy's einsum below), selection and top-k included.
- **numpy**: the exact path as it was before the compiled pass (einsum product + ``_top``).
- **signed**: ``NoteView.signed_hits`` (``notekernels.top_dots_signed``: 1-bit codes about the
  vectors' mean, the query at 4 bits, the SIGN_DEPTH x k best estimates rescored exactly).
- **graph**: ``NoteIndex.ann_hits`` (usearch HNSW, f16, connectivity 16, ef ANN_EXPANSION,
  over-fetch k + hidden + 8, the view's checks and top-k), on a graph built with the index's
  own parameters.
- **timing**: k = 50 (the searcher's window), every slot visible; the three paths in turn per
  query (the order rotates per query), ROUNDS passes after one untimed pass; p50 and p90 in us.
  **recall@50**: an approximate list's top 50 slots found in the exact top 50, mean over the
  queries (and the worst query), for the 40 questions and the 200 near-note queries.
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


def note_vectors(store: str, static: bool = False):
    """(note vectors, query vectors) of a store, through the real overlay and embedder (or the
    notes' texts and the queries embedded by the static model)."""
    import numpy as np

    from notes_scale import QUERIES
    from stratum import tools as T

    tools = T.Tools.open([store])
    sh = tools.shards.shards[0]
    ov = tools.memory.overlay(sh)
    view = ov.search_docs()
    n = view.n
    if not static:
        vecs = np.ascontiguousarray(view.vectors[:n][view.has_vector[:n]])
        qs = np.stack([sh.warm.searcher.embed_query(q) for q in QUERIES]).astype(np.float32)
        return vecs, qs
    from stratum.config import EmbedConfig
    from stratum.embedder import STATIC, get_embedder
    from stratum.textprep import embed_text

    emb = get_embedder(EmbedConfig(model=STATIC))
    texts = [embed_text(ov._nodes[view.ix.ids[j]]) for j in range(n) if view.has_vector[j]]
    vecs = np.concatenate([emb.embed(texts[i:i + 512]) for i in range(0, len(texts), 512)]).astype(np.float32)
    return vecs, np.asarray(emb.embed(list(QUERIES)), np.float32)


def near_queries(vecs, count: int = 200, seed: int = 5):
    import numpy as np

    rng = np.random.default_rng(seed)
    q = vecs[rng.choice(len(vecs), count, replace=False)] + rng.normal(0, 0.03, (count, vecs.shape[1]))
    return (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)


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
    ap.add_argument("--static", action="store_true", help="the notes' texts embedded by the static model")
    args = ap.parse_args()
    print(__doc__.split("Definitions (printed):")[1].strip().replace("STORE", args.store)
          .replace("ROUNDS", str(args.rounds)), "\n", flush=True)
    import numpy as np

    from stratum import noteindex as NI
    from stratum import notethreads as TH
    from stratum import noteview as NV
    from stratum.keywordindex import _top

    base, qs = note_vectors(args.store, args.static)
    TH.compiled(wait=True)                      # the compiled kernels loaded (a background thread)
    k = 50
    print(f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores; {len(base):,} note vectors ({'static' if args.static else 'the store'}'s "
          f"model), {len(qs)} queries; load average {os.getloadavg()[0]:.2f}\n", flush=True)
    print("| notes | exact p50 | exact p90 | numpy p50 | signed p50 | signed p90 | signed recall@50 (worst): "
          "questions, near-note | graph p50 | graph p90 | graph recall@50 | graph build s |\n"
          "|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|", flush=True)
    for size in [int(s) for s in args.sizes.split(",")]:
        vecs = replicate(base, size)
        ix = NI.NoteIndex(vecs.shape[1])
        with ix.deferred():
            for i in range(size):
                ix.add(f"note:{i}", "", "insight", "", "", vecs[i])
        saved, NV.ANN_MIN = NV.ANN_MIN, 1          # build the graph at any size, as the index would
        try:
            t = time.perf_counter()
            ix.wait_graph(timeout=600)
            build = time.perf_counter() - t
        finally:
            NV.ANN_MIN = saved
        view = ix.view()
        sel = view.eligible & view.has_vector[:view.n]
        saved, NV.SIGN_MIN = NV.SIGN_MIN, 0         # the int8 copies and 1-bit codes at any size (a server
        ix.quantize_pending()                       # makes them on a background thread after its first fold)

        def exact(q):
            return view.exact_hits(q, k, sel)

        def numpy_path(q):
            s = NV._dot(view.vectors[:view.n], q)
            cand = np.arange(len(s))
            o = _top(cand, s, k)
            return cand[o], s[o]

        def graph(q):
            return ix.ann_hits(q, k, sel)

        def signed(q):
            return view.signed_hits(q, k, sel)

        paths = (exact, numpy_path, signed, graph)
        times = {f: [] for f in paths}
        for r in range(args.rounds + 1):
            for i, q in enumerate(qs):
                for f in paths[i % 4:] + paths[:i % 4]:
                    t = time.perf_counter()
                    f(q)
                    if r:
                        times[f].append((time.perf_counter() - t) * 1e6)
        NV.SIGN_MIN = saved

        def recall(f, queries):
            r = [len(set(f(q)[0].tolist()) & set(exact(q)[0].tolist())) / k for q in queries]
            return f"{statistics.mean(r):.4f} ({min(r):.2f})"
        near = near_queries(vecs)
        same = all(np.array_equal(exact(q)[0], numpy_path(q)[0]) for q in qs)

        def pct(xs, p):
            return sorted(xs)[int(p * (len(xs) - 1))]
        print(f"| {size:,} | {pct(times[exact], .5):.0f} | {pct(times[exact], .9):.0f} | "
              f"{pct(times[numpy_path], .5):.0f} | {pct(times[signed], .5):.0f} | {pct(times[signed], .9):.0f} | "
              f"{recall(signed, qs)}, {recall(signed, near)} | {pct(times[graph], .5):.0f} | "
              f"{pct(times[graph], .9):.0f} | {recall(graph, qs)} | {build:.1f} |"
              + ("" if same else " (exact and numpy slots differ)"), flush=True)
        del ix, view, vecs
    print(f"\nload average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
