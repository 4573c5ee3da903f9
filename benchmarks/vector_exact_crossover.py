"""Where an exact scan of a shard's vectors costs as much as its HNSW graph (``vectorindex.EXACT_ROWS``),
and the graph's recall@50 by search breadth on real shards.

    python benchmarks/vector_exact_crossover.py [--stores DIR,...] [--pool STORE] [--sizes 1000,2000,...]
                                                [--synthetic DIR] [--synthetic-sizes 50000]
                                                [--ef 48,96,128,192] [--rounds 3]

Definitions (printed):
- **shards**: each store's own vector index as the pipeline saved it (``VectorIndex.load``, a view of
  the files), read-only; default the real stores of benchmarks/.out/calls (eight repositories indexed
  by the real pipeline, static model). **pool**: a larger real store (e.g. redis indexed by the real
  pipeline into a scratch folder) subsampled to each of SIZES rows (random rows, seed 7), a graph
  built for each with the index's own parameters (``VectorIndex.build``). **synthetic**: the E4 1M
  store's vectors (mixtures of real embeddings) subsampled the same way.
- **queries**: per store, up to 100 subjects of its repository's non-merge commits (from the
  repository the store names; in-distribution: a task description) and 12 short questions, embedded
  by the store's model; for the pool and synthetic sets also 100 E4 prose queries (docstring
  sentences, off-distribution).
- **variants** (one query, k = 50, one thread): **exact**: ``VectorIndex.search`` as it now answers
  below EXACT_ROWS (the graph's compiled exhaustive scan, ties past the k-th fetched, ordered by
  score then row); **matrix**: ``VectorIndex.exact`` (usearch's exact_search over the dense f16
  matrix); **ef N**: the graph's HNSW search at breadth N (``_graph_search``; usearch searches with
  max(N, k)). Per query the variants in turn, the order rotating per query and round, ROUNDS rounds
  after one untimed pass; p50 in microseconds.
- **recall@50**: an approximate list's rows found in the exact top 50, mean over the queries (and the
  worst query).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QUESTIONS = ["helper", "rounding discount cents", "Server Run", "greet trait", "cart total", "add",
             "session cookie", "json provider dumps", "blueprint register", "url_for build",
             "template rendering", "request context push"]


def store_parts(store: Path):
    """(vector index, embedder) of a store, read-only."""
    from stratum import embedder as E
    from stratum.store import Store
    from stratum.vectorindex import VectorIndex

    st = Store(store)
    m = st.manifest()
    return VectorIndex.load(st.root / m.indexes["dir"] / "vector"), E.get_embedder(E.config_for(m.embedding or {}))


def subjects(repo: Path | None, count: int = 100) -> list[str]:
    if repo is None or not (repo / ".git").exists():
        return []
    out = subprocess.run(["git", "-C", str(repo), "log", "--no-merges", "--format=%s", f"-{count}"],
                         capture_output=True, text=True, check=True).stdout
    return [s for s in out.splitlines() if s.strip()]


def repo_of(store: Path) -> Path | None:
    """The repository a benchmark store was built from: calls/<name>-<sha>/store -> .repos/<name>,
    a store inside a clone -> the clone."""
    if store.parent.name.count("-") and (ROOT / "benchmarks/.repos" / store.parent.name.rsplit("-", 1)[0]).exists():
        return ROOT / "benchmarks/.repos" / store.parent.name.rsplit("-", 1)[0]
    for cand in (store.parent / store.name.replace("_store", ""), store.parent):
        if (cand / ".git").exists():
            return cand
    return None


def measure(vi, qs: np.ndarray, efs: list[int], rounds: int, k: int = 50) -> dict:
    """p50 us of each variant, recall@50 (mean, worst) of each ef."""
    from stratum.vectorindex import _graph_search

    graph = vi._graph
    variants = {"exact": lambda q: _graph_search(graph, q, k, vi.key_rows, True), "matrix": lambda q: vi.exact(q, k)}
    for ef in efs:
        variants[f"ef {ef}"] = (lambda e: lambda q: _ef_search(graph, q, k, e, vi.key_rows))(ef)
    names = list(variants)
    times: dict[str, list[float]] = {v: [] for v in names}
    truth = [vi.exact(q, k).rows for q in qs]
    found: dict[str, list[np.ndarray]] = {v: [] for v in names}
    for q in qs:
        for v in names:
            found[v].append(variants[v](q).rows)
    for rnd in range(rounds):
        for i, q in enumerate(qs):
            s = (i + rnd) % len(names)
            for v in names[s:] + names[:s]:
                t = time.perf_counter()
                variants[v](q)
                times[v].append((time.perf_counter() - t) * 1e6)
    recall = {}
    for v in names:
        r = [len(np.intersect1d(f[:k], t)) / max(1, len(t)) for f, t in zip(found[v], truth)]
        recall[v] = (float(np.mean(r)), float(np.min(r)))
    return {"p50": {v: statistics.median(times[v]) for v in names}, "recall": recall}


def _ef_search(graph, q, k, ef, key_rows):
    from stratum.vectorindex import _graph_search

    graph.expansion_search = ef
    return _graph_search(graph, q, k, key_rows)


def row(label: str, n: int, res: dict, efs: list[int]) -> str:
    p, r = res["p50"], res["recall"]
    cells = [f"{p['exact']:.0f}", f"{p['matrix']:.0f}"] + [f"{p[f'ef {e}']:.0f}" for e in efs]
    cells += [f"{r[f'ef {e}'][0]:.3f} ({r[f'ef {e}'][1]:.2f})" for e in efs]
    return f"| {label} | {n:,} | " + " | ".join(cells) + f" | {r['exact'][0]:.3f} |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stores", default=",".join(str(p) for p in sorted((ROOT / "benchmarks/.out/calls").glob("*/store"))))
    ap.add_argument("--pool", default="")
    ap.add_argument("--sizes", default="1000,2000,4000,8000,16000")
    ap.add_argument("--synthetic", default=str(ROOT / "benchmarks/.out/e4-1m"))
    ap.add_argument("--synthetic-sizes", default="")
    ap.add_argument("--ef", default="48,96,128,192")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    efs = [int(e) for e in args.ef.split(",")]
    print(__doc__.split("Definitions (printed):")[1].strip().replace("ROUNDS", str(args.rounds))
          .replace("SIZES", args.sizes), "\n", flush=True)
    from stratum.vectorindex import EXACT_ROWS, VectorIndex

    print(f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; EXACT_ROWS {EXACT_ROWS}\n", flush=True)
    head = ("| set | vectors | exact p50 us | matrix p50 us | " + " | ".join(f"ef {e} p50 us" for e in efs) + " | "
            + " | ".join(f"ef {e} recall@50 (worst)" for e in efs) + " | exact recall@50 |")
    print(head + "\n|---|---:|" + "---:|" * (2 + 2 * len(efs) + 1), flush=True)
    prose = np.asarray(np.load(Path(args.synthetic) / "queries.npz")["text"][:100], np.float32)
    for s in [s for s in args.stores.split(",") if s]:
        store = Path(s)
        vi, emb = store_parts(store)
        texts = subjects(repo_of(store)) + QUESTIONS
        qs = np.asarray(emb.embed(texts), np.float32)
        print(row(store.parent.name if store.name == "store" else store.name, vi.size,
                  measure(vi, qs, efs, args.rounds), efs), flush=True)
    sets = []
    if args.pool:
        vi, emb = store_parts(Path(args.pool))
        texts = subjects(repo_of(Path(args.pool))) + QUESTIONS
        qs = np.concatenate([np.asarray(emb.embed(texts), np.float32), prose])
        mat = np.asarray(vi.matrix)[np.flatnonzero(vi.present) if vi.present is not None else slice(None)]
        sets.append(("pool " + Path(args.pool).name, mat, [int(x) for x in args.sizes.split(",") if x], qs))
    if args.synthetic_sizes:
        mat = np.load(Path(args.synthetic) / "indexes/vector/vectors.f16.npy", mmap_mode="r")
        sets.append(("synthetic", mat, [int(x) for x in args.synthetic_sizes.split(",")], prose))
    for label, mat, sizes, qs in sets:
        rng = np.random.default_rng(7)
        for n in sizes:
            if n > len(mat):
                continue
            rows = np.sort(rng.choice(len(mat), n, replace=False))
            vi = VectorIndex.build(np.asarray(mat[rows], np.float32), threads=0)
            print(row(label, n, measure(vi, qs, efs, args.rounds), efs), flush=True)
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
