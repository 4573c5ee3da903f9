"""Warm vector tier: an HNSW graph (usearch) over L2-normalised vectors, keyed by node row number.

Why a warm tier: Lance's IVF indexes answer a 1M-vector query in 5-14 ms on this machine, an HNSW
graph in RAM in well under a millisecond. Why built by the pipeline and saved: building a 1M-vector
graph takes minutes on 2 cores, so a serving shard only maps the saved files (``load(mmap=True)``
views them without reading them into RAM) and never rebuilds at load.

Files written by ``save(dir)``::

    vectors.usearch     the HNSW graph with its (f16) vectors
    vectors.f16.npy     the same vectors as a dense row-major matrix (row = node row), for exact
                        search over a small allowed set (selective filters) and for exact recall checks
    vectors.json        parameters, counts and the format version

Filters: usearch's Python API has no search-time predicate, so a filtered search either runs the
graph with an over-fetch sized by the filter's selectivity and drops rows the predicate refuses
(doubling the fetch until ``k`` survive), or, when the allowed rows are few, scores exactly the
allowed rows with one matrix product (cheaper and exact).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from stratum.errors import InvalidArgument, StoreError

FORMAT = 1
GRAPH_FILE = "vectors.usearch"
MATRIX_FILE = "vectors.f16.npy"
META_FILE = "vectors.json"

RowPredicate = Callable[[np.ndarray], np.ndarray]   # rows (int64) -> bool mask of allowed rows


@dataclass(frozen=True)
class HnswParams:
    """Graph parameters, chosen by measured recall (docs/bench/e4.md), not library defaults.

    connectivity: edges per node (HNSW M). expansion_add: candidate list while building
    (efConstruction). expansion_search: candidate list while searching (ef); raised to k when k
    is larger. dtype: how vectors are kept in the graph (f16 halves memory against f32 with no
    measurable recall loss on 384-d normalised embeddings; i8 quarters it but costs recall).
    """

    connectivity: int = 16
    expansion_add: int = 128
    expansion_search: int = 48
    dtype: str = "f16"


@dataclass(frozen=True)
class VectorHits:
    rows: np.ndarray        # int64 node rows, best first
    scores: np.ndarray      # float32 cosine similarity, descending
    exact: bool             # True when scored exhaustively (no approximation)


class VectorIndex:
    """HNSW + dense matrix over node rows. Build with ``build``, open a saved one with ``load``."""

    def __init__(self, graph, matrix: np.ndarray, present: np.ndarray | None, params: HnswParams):
        self._graph = graph
        self.matrix = matrix            # (n_rows, dim) float16, zero rows where no vector
        self.present = present          # bool mask of rows that have a vector (None: all)
        self.params = params
        self.n_rows = int(matrix.shape[0])
        self.dim = int(matrix.shape[1])
        self.size = int(graph.size)
        self._graph.expansion_search = params.expansion_search

    # ---- building ----------------------------------------------------------------------------
    @classmethod
    def build(cls, vectors: np.ndarray, *, present: np.ndarray | None = None,
              params: HnswParams = HnswParams(), threads: int = 0) -> "VectorIndex":
        """Index ``vectors[i]`` under key ``i``; rows where ``present`` is False are left out.

        ``vectors`` must be L2-normalised (the embedder's contract); cosine similarity is then
        their dot product. ``threads=0`` uses every core (the pipeline builds; serving never does).
        """
        from usearch.index import Index

        vectors = np.asarray(vectors)
        if vectors.ndim != 2 or vectors.shape[0] == 0:
            raise InvalidArgument(f"expected a non-empty (n, dim) matrix, got shape {vectors.shape}")
        n, dim = vectors.shape
        if present is not None:
            present = np.asarray(present, dtype=bool)
            if present.shape != (n,):
                raise InvalidArgument(f"present mask has shape {present.shape}, expected ({n},)")
            if present.all():
                present = None
        keys = np.arange(n, dtype=np.uint64) if present is None else np.flatnonzero(present).astype(np.uint64)
        graph = Index(ndim=dim, metric="cos", dtype=params.dtype, connectivity=params.connectivity,
                      expansion_add=params.expansion_add, expansion_search=params.expansion_search)
        if len(keys):
            src = vectors if present is None else vectors[present]
            graph.add(keys, np.ascontiguousarray(src, dtype=np.float32), threads=threads)
        matrix = vectors.astype(np.float16)
        if present is not None:
            matrix[~present] = 0
        return cls(graph, matrix, present, params)

    def save(self, directory: str | os.PathLike) -> list[str]:
        """Write the three files into ``directory``; returns their names (relative)."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        self._graph.save(str(d / GRAPH_FILE))
        np.save(d / MATRIX_FILE, np.ascontiguousarray(self.matrix))
        files = [GRAPH_FILE, MATRIX_FILE, META_FILE]
        meta = {"format": FORMAT, "n_rows": self.n_rows, "dim": self.dim, "size": self.size,
                "params": asdict(self.params)}
        if self.present is not None:
            np.save(d / "vectors.present.npy", self.present)
            files.append("vectors.present.npy")
        (d / META_FILE).write_text(json.dumps(meta, indent=1, sort_keys=True))
        return files

    @classmethod
    def load(cls, directory: str | os.PathLike, *, mmap: bool = True,
             expansion_search: int | None = None) -> "VectorIndex":
        """Open a saved index. ``mmap=True`` views the files (instant; pages load on first use),
        ``mmap=False`` reads them into RAM (a second or two at 1M vectors, no page faults later)."""
        from usearch.index import Index

        d = Path(directory)
        try:
            meta = json.loads((d / META_FILE).read_text())
        except FileNotFoundError:
            raise StoreError(f"no vector index in {d}: it is built by `stratum index`") from None
        if meta.get("format") != FORMAT:
            raise StoreError(f"vector index in {d} has format {meta.get('format')}, this build reads "
                             f"{FORMAT}: re-index")
        p = meta["params"]
        params = HnswParams(connectivity=p["connectivity"], expansion_add=p["expansion_add"],
                            expansion_search=expansion_search or p["expansion_search"], dtype=p["dtype"])
        graph = Index(ndim=meta["dim"], metric="cos", dtype=params.dtype, connectivity=params.connectivity,
                      expansion_add=params.expansion_add, expansion_search=params.expansion_search)
        if mmap:
            graph.view(str(d / GRAPH_FILE))
        else:
            graph.load(str(d / GRAPH_FILE))
        matrix = np.load(d / MATRIX_FILE, mmap_mode="r" if mmap else None)
        present_path = d / "vectors.present.npy"
        present = np.load(present_path) if present_path.exists() else None
        if matrix.shape != (meta["n_rows"], meta["dim"]) or graph.size != meta["size"]:
            raise StoreError(f"vector index files in {d} disagree with {META_FILE}: rebuild them")
        return cls(graph, matrix, present, params)

    # ---- searching ---------------------------------------------------------------------------
    @property
    def expansion_search(self) -> int:
        return int(self._graph.expansion_search)

    @expansion_search.setter
    def expansion_search(self, value: int) -> None:
        self._graph.expansion_search = int(value)

    def search(self, query: np.ndarray, k: int, *, predicate: RowPredicate | None = None,
               selectivity: float = 1.0, allowed_rows: np.ndarray | None = None,
               max_fetch: int = 4096) -> VectorHits:
        """The ``k`` nearest rows to ``query`` (a normalised vector), best first.

        Filtering, cheapest correct way first:
        - ``allowed_rows`` given (the exact allowed set, when it is small): exact scores over them.
        - ``predicate`` given: the graph is asked for about ``k / selectivity`` rows (x1.5), rows the
          predicate refuses are dropped, and the fetch doubles until ``k`` survive or
          ``max_fetch`` is reached; then an exact scan over the rows the predicate allows.
        """
        q = self._query(query)
        if k <= 0 or self.size == 0:
            return VectorHits(np.empty(0, np.int64), np.empty(0, np.float32), True)
        if allowed_rows is not None:
            return self.exact(q, k, rows=allowed_rows)
        if predicate is None:
            return self._graph_search(q, k)
        fetch = min(self.size, max(k, math.ceil(1.5 * k / max(selectivity, 1e-6))))
        while True:
            if fetch > max_fetch:
                break
            hits = self._graph_search(q, fetch)
            keep = predicate(hits.rows)
            if int(keep.sum()) >= k or fetch >= self.size:
                rows, scores = hits.rows[keep][:k], hits.scores[keep][:k]
                return VectorHits(rows, scores, fetch >= self.size)
            fetch = min(self.size, fetch * 2)
        rows = np.arange(self.n_rows, dtype=np.int64)
        return self.exact(q, k, rows=rows[predicate(rows)])

    def _graph_search(self, q: np.ndarray, k: int) -> VectorHits:
        # The compiled call directly: usearch's Python wrapper costs more than the search itself
        # at this size (argument checks, result objects).
        keys, dist, counts, _, _ = self._graph._compiled.search_many(q.reshape(1, -1), count=k, exact=False,
                                                                      threads=1)
        n = int(counts[0])
        return VectorHits(keys[0, :n].astype(np.int64), (1.0 - dist[0, :n]).astype(np.float32), False)

    def exact(self, query: np.ndarray, k: int, *, rows: np.ndarray | None = None) -> VectorHits:
        """Exhaustive top-``k`` by cosine over ``rows`` (all rows with a vector when None)."""
        q = self._query(query)
        if rows is None:
            rows = np.arange(self.n_rows, dtype=np.int64) if self.present is None else np.flatnonzero(self.present)
        rows = np.asarray(rows, dtype=np.int64)
        if self.present is not None and len(rows):
            rows = rows[self.present[rows]]
        if len(rows) == 0 or k <= 0:
            return VectorHits(np.empty(0, np.int64), np.empty(0, np.float32), True)
        if len(rows) == self.n_rows:
            scores = _dot_rows(self.matrix, q)
        else:
            scores = self.matrix[rows].astype(np.float32) @ q
        top = _top_k(scores, k, rows)
        return VectorHits(rows[top], scores[top].astype(np.float32), True)

    def _query(self, query: np.ndarray) -> np.ndarray:
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.dim:
            raise InvalidArgument(f"query vector has {q.shape[0]} dimensions, the index has {self.dim}")
        return q

    def memory_usage(self) -> int:
        """Bytes the graph reports (its vectors and links), not counting the dense matrix."""
        return int(self._graph.memory_usage)

    def __len__(self) -> int:
        return self.size


def _dot_rows(matrix: np.ndarray, q: np.ndarray, chunk: int = 65536) -> np.ndarray:
    """matrix @ q in chunks, so an f16 matrix is never converted whole (1M x 384 f32 is 1.5 GB)."""
    out = np.empty(matrix.shape[0], dtype=np.float32)
    for s in range(0, matrix.shape[0], chunk):
        out[s:s + chunk] = matrix[s:s + chunk].astype(np.float32) @ q
    return out


def _top_k(scores: np.ndarray, k: int, rows: np.ndarray) -> np.ndarray:
    """Positions of the ``k`` best scores, best first; ties broken by the smaller row (stable)."""
    if k < len(scores):
        part = np.argpartition(-scores, k - 1)[:k]
    else:
        part = np.arange(len(scores))
    order = np.lexsort((rows[part], -scores[part]))
    return part[order]


def exact_knn(matrix: np.ndarray, queries: np.ndarray, k: int, chunk: int = 65536) -> np.ndarray:
    """Exact top-``k`` rows for many queries (recall ground truth): (n_queries, k) int64."""
    queries = np.asarray(queries, dtype=np.float32)
    best_s = np.full((len(queries), 0), -np.inf, dtype=np.float32)
    best_r = np.empty((len(queries), 0), dtype=np.int64)
    for s in range(0, matrix.shape[0], chunk):
        block = np.asarray(matrix[s:s + chunk], dtype=np.float32)
        sc = queries @ block.T
        rows = np.broadcast_to(np.arange(s, s + block.shape[0]), sc.shape)
        allsc = np.concatenate([best_s, sc], axis=1)
        allr = np.concatenate([best_r, rows], axis=1)
        kk = min(k, allsc.shape[1])
        part = np.argpartition(-allsc, kk - 1, axis=1)[:, :kk]
        best_s = np.take_along_axis(allsc, part, axis=1)
        best_r = np.take_along_axis(allr, part, axis=1)
    order = np.argsort(-best_s, axis=1, kind="stable")
    return np.take_along_axis(best_r, order, axis=1)


def recall_at_k(found: list[np.ndarray] | np.ndarray, truth: np.ndarray) -> float:
    """Mean fraction of the true top-k present in the found top-k."""
    k = truth.shape[1]
    hit = sum(len(np.intersect1d(np.asarray(f)[:k], t)) for f, t in zip(found, truth))
    return hit / (k * len(truth))


__all__ = ["HnswParams", "VectorHits", "VectorIndex", "exact_knn", "recall_at_k", "RowPredicate"]
