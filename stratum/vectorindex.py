"""Warm vector tier: an HNSW graph (usearch) over L2-normalised vectors, keyed by node row number.

Why a warm tier: Lance's IVF indexes answer a 1M-vector query in milliseconds on this machine, an
HNSW graph in RAM in under one (docs/bench/e4.md). Why built by the pipeline and saved: building a
1M-vector graph takes many minutes on 2 cores, so a serving shard only maps the saved files
(``load(mmap=True)`` views them without reading them into RAM) and never rebuilds at load.

Huge pages: a graph of HUGE_MIN_BYTES or more is not viewed from its file but copied at load into
anonymous memory advised for transparent huge pages (``_huge_copy``; where the kernel offers them),
and viewed there. An HNSW search jumps between random nodes of the whole graph: with 4 KB pages
nearly every distance read was a TLB miss (and, for a page not touched since load, a fault). At
1M nodes the vector list costs 0.82x of the file view (p50, equal answers) for a 0.6 s copy at
load; the pages are then anonymous memory, not page cache (docs/bench/grpc.md, session 10).

Files written by ``save(dir)``::

    vectors.usearch              the HNSW graph with its (f16) vectors
    vectors.f16.npy              the same vectors as a dense row-major matrix (row = node row), for
                                 exact scoring of a small allowed set and exact recall checks
    vectors.group.<label>.*      optional per-label graphs and their rows (see build_groups)
    vectors.present.npy          rows that have a vector (only when some do not)
    vectors.keys.npy             graph key -> row, for an index changed by ``updated`` (else key = row)
    vectors.json                 parameters, counts, groups and the format version

Small graphs are scanned, not searched: a graph of EXACT_ROWS vectors or fewer (the shared one or
a label's) answers by usearch's exhaustive scan of its own vectors, ties at the cut fetched past it
and ordered by row. HNSW answers depend on the order the graph was built in (an updated graph and a
fresh one return different rows for the same vectors) and missed up to a quarter of the true top
30 on real code at ~2.6k vectors; the scan is exact and costs about as much up to ~1,000 vectors,
at most ~0.17 ms more up to EXACT_ROWS (docs/bench/e4.md, "Small shards").

Filters: usearch's Python API has no search-time predicate, so a filtered search either scores
the allowed rows exactly when they are few, or searches a label's own graph (kind filters), or
runs the shared graph with an over-fetch sized by the filter's selectivity and drops the rows the
predicate refuses (doubling the fetch until ``k`` survive; a scanned graph fetches every row at
the second try).
"""

from __future__ import annotations

import contextlib
import json
import math
import mmap as _mmap
import os
import re
import stat
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from stratum import npyio
from stratum.errors import InvalidArgument, StoreDamaged, StoreError

FORMAT = 1
GRAPH_FILE = "vectors.usearch"
MATRIX_FILE = "vectors.f16.npy"
META_FILE = "vectors.json"

RowPredicate = Callable[[np.ndarray], np.ndarray]   # rows (int64) -> bool mask of allowed rows
SERIAL_ROWS = 5000           # graphs this small are built, and changes this small applied, on one thread:
                             # single-threaded insertion is deterministic, so a rebuild (repair, a damaged
                             # file) or the same re-index gives the same answers; 5k rows cost ~0.4 s on
                             # one core (multi-threaded insertion order varies)
EXACT_ROWS = 5000            # graphs this small answer by the graph's own exhaustive scan, not HNSW: exact, and
                             # the same rows for the same vectors however the graph was built or updated (an
                             # incremental and a full index of one commit searched alike). Measured (2 cores, k 50,
                             # p50 us, interleaved; docs/bench/e4.md "Small shards"): the scan costs ~50-65 ns a
                             # vector (1,000: 83, 2,657: 162, 4,659: 259, 8,000: 507), HNSW at ef 96 69-160 at
                             # recall@50 0.95-0.99 (worst query 0.60); equal cost at ~500-1,000 vectors, and up to
                             # 5,000 the exact list costs at most ~0.17 ms more (a quarter of a 1M graph search)
GROUP_MIN_ROWS = 2048           # smaller labels are scored exactly (about a millisecond)
GROUP_MAX_FRACTION = 0.25       # larger labels over-fetch from the shared graph (at most ~4x)
_SAFE_LABEL = re.compile(r"[A-Za-z0-9_-]{1,64}")
PROBE_BYTES = 1 << 20           # at most this much is written again to learn why a graph's write failed
HUGE_MIN_BYTES = 64 << 20       # graphs this large are loaded into huge pages (module docstring); a smaller
                                # one fits the TLB's reach well enough and stays a view of its file
THP_SETTING = Path("/sys/kernel/mm/transparent_hugepage/enabled")


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
    expansion_search: int = 0       # 0: by size, see auto_expansion
    dtype: str = "f16"


def auto_expansion(n: int) -> int:
    """Search breadth: ef 96 at every size. At 1M it is the smallest ef that reaches recall@10 >= 0.95
    on in-distribution queries (e4.md). Below 200k it was 48, but the searcher asks for 50 rows
    (usearch then searches at 50): on shards of 6k-100k vectors recall@50 at 48 was 0.87-0.91
    (worst query 0.32-0.54), at 96 0.95-0.97 for 4-19% more time (e4.md, "Small shards"). Shards
    of EXACT_ROWS vectors or fewer do not use it (scanned)."""
    return 96


@dataclass(frozen=True)
class VectorHits:
    rows: np.ndarray        # int64 node rows, best first
    scores: np.ndarray      # float32 cosine similarity, descending
    exact: bool             # True when scored exhaustively (no approximation)


class VectorIndex:
    """HNSW + dense matrix over node rows. Build with ``build``, open a saved one with ``load``."""

    def __init__(self, graph, matrix: np.ndarray, present: np.ndarray | None, params: HnswParams,
                 groups: dict[str, tuple[Any, np.ndarray]] | None = None, key_rows: np.ndarray | None = None):
        self._graph = graph
        self.changed = 0                # vectors added + removed by the last `updated` (0: built whole)
        self.key_rows = key_rows        # graph key -> node row (-1: removed); None: keys are rows
        self.matrix = matrix            # (n_rows, dim) float16, zero rows where no vector
        self.present = present          # bool mask of rows that have a vector (None: all)
        self.params = params
        self.n_rows = int(matrix.shape[0])
        self.dim = int(matrix.shape[1])
        self.size = int(graph.size)
        self.groups = groups or {}      # label -> (its own graph, its rows): see build_groups
        self.expansion_search = params.expansion_search

    # ---- building ----------------------------------------------------------------------------
    @classmethod
    def build(cls, vectors: np.ndarray, *, present: np.ndarray | None = None,
              params: HnswParams = HnswParams(), threads: int = 0,
              groups: Sequence[str] | np.ndarray | None = None) -> "VectorIndex":
        """Index ``vectors[i]`` under key ``i``; rows where ``present`` is False are left out.

        ``vectors`` must be L2-normalised (the embedder's contract); cosine similarity is then
        their dot product. ``threads=0`` uses every core (the pipeline builds; serving never does).
        ``groups`` (a label per row, e.g. the node kind) also builds a graph per mid-sized label:
        see ``build_groups``.
        """
        from usearch.index import Index

        vectors = np.asarray(vectors)
        if vectors.ndim != 2 or vectors.shape[0] == 0:
            raise InvalidArgument(f"expected a non-empty (n, dim) matrix, got shape {vectors.shape}")
        n, dim = vectors.shape
        if not params.expansion_search:
            params = replace(params, expansion_search=auto_expansion(n))
        if present is not None:
            present = np.asarray(present, dtype=bool)
            if present.shape != (n,):
                raise InvalidArgument(f"present mask has shape {present.shape}, expected ({n},)")
            if present.all():
                present = None
        keys = np.arange(n, dtype=np.uint64) if present is None else np.flatnonzero(present).astype(np.uint64)
        graph = Index(ndim=dim, metric="cos", dtype=params.dtype, connectivity=params.connectivity,
                      expansion_add=params.expansion_add, expansion_search=params.expansion_search)
        if threads == 0 and len(keys) <= SERIAL_ROWS:
            threads = 1
        if len(keys):
            src = vectors if present is None else vectors[present]
            graph.add(keys, np.ascontiguousarray(src, dtype=np.float32), threads=threads)
        matrix = vectors.astype(np.float16)
        if present is not None:
            matrix[~present] = 0
        index = cls(graph, matrix, present, params)
        if groups is not None:
            index.build_groups(groups, threads=threads)
        return index

    def build_groups(self, labels: Sequence[str] | np.ndarray, *, min_rows: int = GROUP_MIN_ROWS,
                     max_fraction: float = GROUP_MAX_FRACTION, threads: int = 0) -> dict[str, int]:
        """A separate graph for each label held by more than ``min_rows`` and at most
        ``max_fraction`` of the rows with a vector.

        Why: a filter keeping a fraction f of the rows costs the shared graph about 1/f times the
        work (it must over-fetch), and scoring the allowed rows exactly costs their count. For a
        kind like ``class`` (~15% of nodes) both are several milliseconds at 1M; its own graph
        answers in the unfiltered time. Smaller labels are scored exactly; larger ones over-fetch
        cheaply. Returns {label: rows}.
        """
        from usearch.index import Index

        labels = np.asarray(labels, dtype=object)
        if labels.shape != (self.n_rows,):
            raise InvalidArgument(f"expected one label per row ({self.n_rows}), got {labels.shape}")
        has = np.ones(self.n_rows, bool) if self.present is None else self.present
        names, inverse = np.unique(labels[has].astype(str), return_inverse=True)
        counts = np.bincount(inverse, minlength=len(names))
        built = {}
        rows_with = np.flatnonzero(has)
        for i, name in enumerate(names.tolist()):
            if not (min_rows < counts[i] <= max_fraction * len(rows_with)) or not _SAFE_LABEL.fullmatch(name):
                continue
            rows = rows_with[inverse == i]
            p = self.params
            g = Index(ndim=self.dim, metric="cos", dtype=p.dtype, connectivity=p.connectivity,
                      expansion_add=p.expansion_add, expansion_search=p.expansion_search)
            for s in range(0, len(rows), 65536):
                part = rows[s:s + 65536]
                g.add(part.astype(np.uint64), np.asarray(self.matrix[part], dtype=np.float32), threads=threads)
            self.groups[name] = (g, rows.astype(np.int64))
            built[name] = int(len(rows))
        return built

    def save(self, directory: str | os.PathLike) -> list[str]:
        """Write the three files into ``directory``; returns their names (relative)."""
        from concurrent.futures import ThreadPoolExecutor

        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        with ThreadPoolExecutor(1, thread_name_prefix="vector-save") as pool:   # both writes release the GIL
            matrix_saved = pool.submit(npyio.save, d / MATRIX_FILE, np.ascontiguousarray(self.matrix))
            save_graph(self._graph, d / GRAPH_FILE)
            matrix_saved.result()
        files = [GRAPH_FILE, MATRIX_FILE, META_FILE]
        meta: dict[str, Any] = {"format": FORMAT, "n_rows": self.n_rows, "dim": self.dim, "size": self.size,
                "params": asdict(self.params)}
        if self.present is not None:
            npyio.save(d / "vectors.present.npy", self.present)
            files.append("vectors.present.npy")
        if self.key_rows is not None:
            npyio.save(d / "vectors.keys.npy", self.key_rows)
            files.append("vectors.keys.npy")
        meta["groups"] = {}
        for name, (g, rows) in self.groups.items():
            save_graph(g, d / f"vectors.group.{name}.usearch")
            npyio.save(d / f"vectors.group.{name}.rows.npy", rows)
            files += [f"vectors.group.{name}.usearch", f"vectors.group.{name}.rows.npy"]
            meta["groups"][name] = int(len(rows))
        (d / META_FILE).write_text(json.dumps(meta, indent=1, sort_keys=True))
        return files

    @classmethod
    def load(cls, directory: str | os.PathLike, *, mmap: bool = True,
             expansion_search: int | None = None, mmap_matrix: bool | None = None,
             huge: bool | None = None) -> "VectorIndex":
        """Open a saved index. ``mmap=True`` views the files (instant; pages load on first use),
        ``mmap=False`` reads them into RAM (a second or two at 1M vectors, no page faults later).
        ``mmap_matrix`` overrides it for the dense matrix (an update reads it once: a view).
        ``huge`` (with ``mmap``): view the graphs from a copy in huge pages (module docstring);
        None: for graphs of HUGE_MIN_BYTES or more where the kernel offers huge pages."""
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
        # the saved breadth, but never below what this size needs for recall (an index saved by
        # an older build may carry a smaller automatic value)
        ef = expansion_search or max(int(p["expansion_search"]), auto_expansion(int(meta["size"])))
        params = HnswParams(connectivity=p["connectivity"], expansion_add=p["expansion_add"],
                            expansion_search=ef, dtype=p["dtype"])
        graph = Index(ndim=meta["dim"], metric="cos", dtype=params.dtype, connectivity=params.connectivity,
                      expansion_add=params.expansion_add, expansion_search=params.expansion_search)
        try:
            _open_graph(graph, d / GRAPH_FILE, mmap, huge)
        except RuntimeError as e:       # usearch: a cut or overwritten file
            raise StoreDamaged(f"vector graph {d / GRAPH_FILE} is unreadable ({e}): rebuild it with "
                               "`stratum repair`") from None
        matrix = npyio.load(d / MATRIX_FILE, mmap_mode="r" if (mmap if mmap_matrix is None else mmap_matrix) else None)
        present_path = d / "vectors.present.npy"
        present = npyio.load(present_path) if present_path.exists() else None
        keys_path = d / "vectors.keys.npy"
        key_rows = npyio.load(keys_path) if keys_path.exists() else None
        if key_rows is not None and len(key_rows) and int(key_rows.max()) >= meta["n_rows"]:
            raise StoreDamaged(f"vector keys in {d} name rows past {meta['n_rows']}: rebuild them with `stratum repair`")
        if matrix.shape != (meta["n_rows"], meta["dim"]) or graph.size != meta["size"] or \
                (present is not None and present.shape != (meta["n_rows"],)):
            raise StoreDamaged(f"vector index files in {d} disagree with {META_FILE}: rebuild them with `stratum repair`")
        groups = {}
        for name, size in (meta.get("groups") or {}).items():
            g = Index(ndim=meta["dim"], metric="cos", dtype=params.dtype, connectivity=params.connectivity,
                      expansion_add=params.expansion_add, expansion_search=params.expansion_search)
            _open_graph(g, d / f"vectors.group.{name}.usearch", mmap, huge)
            rows = npyio.load(d / f"vectors.group.{name}.rows.npy")
            if g.size != size or len(rows) != size or (size and (int(rows.min()) < 0 or int(rows.max()) >= meta["n_rows"])):
                raise StoreDamaged(f"vector group {name!r} in {d} disagrees with {META_FILE}: rebuild it with `stratum repair`")
            groups[name] = (g, rows)
        return cls(graph, np.asarray(matrix), present, params, groups, key_rows)

    def updated(self, vectors: np.ndarray, present: np.ndarray | None, old_row: np.ndarray, *,
                threads: int = 0) -> "VectorIndex":
        """This index (loaded with ``mmap=False``) changed into the index of a new version:
        ``vectors``/``present`` are the new rows' (as for ``build``), ``old_row[i]`` the row in this
        index that new row i continues (-1: new). Rows whose vector is unchanged keep their graph
        entry (only their row number moves: ``key_rows``); the others are removed from the HNSW
        graph and added again, so the work is the change's, not the index size's. Per-label
        graphs are not updated: an index with groups is rebuilt instead (InvalidArgument)."""
        if self.groups:
            raise InvalidArgument("an index with per-label graphs is rebuilt, not updated")
        vectors = np.asarray(vectors)
        n = vectors.shape[0]
        if vectors.ndim != 2 or vectors.shape[1] != self.dim or len(old_row) != n:
            raise InvalidArgument(f"expected ({len(old_row)}, {self.dim}) vectors, got {vectors.shape}")
        has = np.ones(n, bool) if present is None else np.asarray(present, bool)
        old_row = np.asarray(old_row, np.int64)
        matrix = vectors.astype(np.float16)
        matrix[~has] = 0
        old_has = np.ones(self.n_rows, bool) if self.present is None else self.present
        cand = np.flatnonzero((old_row >= 0) & has)
        cand = cand[old_has[old_row[cand]]]
        same = np.zeros(n, bool)
        for s in range(0, len(cand), 65536):       # f16 rows compared as stored (blocks: bounded RAM)
            c = cand[s:s + 65536]
            same[c] = np.all(np.asarray(self.matrix[old_row[c]]) == matrix[c], axis=1)
        key_rows = np.where(old_has, np.arange(self.n_rows, dtype=np.int64), -1) if self.key_rows is None \
            else np.array(self.key_rows, dtype=np.int64)
        row_key = np.full(self.n_rows, -1, np.int64)
        live = np.flatnonzero(key_rows >= 0)
        row_key[key_rows[live]] = live
        kept = np.flatnonzero(same)
        keep_keys = row_key[old_row[kept]]
        dead = np.setdiff1d(live, keep_keys)
        add = np.flatnonzero(has & ~same)
        if threads == 0 and len(add) + len(dead) <= SERIAL_ROWS:
            threads = 1                     # as build: the same small change gives the same graph every time
        if len(dead):
            self._graph.remove(dead.astype(np.uint64), threads=threads)
        key_rows[dead] = -1
        key_rows[keep_keys] = kept
        free = np.flatnonzero(key_rows < 0)
        new_keys = np.concatenate([free, np.arange(len(key_rows), len(key_rows) + max(0, len(add) - len(free)))])[:len(add)]
        if len(new_keys) and new_keys.max() >= len(key_rows):
            key_rows = np.concatenate([key_rows, np.full(int(new_keys.max()) + 1 - len(key_rows), -1, np.int64)])
        if len(add):
            self._graph.add(new_keys.astype(np.uint64), np.ascontiguousarray(vectors[add], dtype=np.float32),
                            threads=threads)
            key_rows[new_keys] = add
        params = replace(self.params, expansion_search=max(self.params.expansion_search, auto_expansion(n)))
        out = type(self)(self._graph, matrix, None if has.all() else has, params, key_rows=key_rows)
        out.expansion_search = params.expansion_search
        out.changed = int(len(add) + len(dead))
        return out

    # ---- searching ---------------------------------------------------------------------------
    @property
    def expansion_search(self) -> int:
        return int(self._graph.expansion_search)

    @expansion_search.setter
    def expansion_search(self, value: int) -> None:
        for g in [self._graph] + [g for g, _ in self.groups.values()]:
            g.expansion_search = int(value)

    def search(self, query: np.ndarray, k: int, *, predicate: RowPredicate | None = None,
               selectivity: float = 1.0, allowed_rows: np.ndarray | None = None,
               fallback_rows: np.ndarray | None = None, max_fetch: int = 4096) -> VectorHits:
        """The ``k`` nearest rows to ``query`` (a normalised vector), best first: exact when the
        index holds EXACT_ROWS vectors or fewer (module docstring), else from the HNSW graph.

        Filtering, cheapest correct way first:
        - ``allowed_rows`` given (the exact allowed set, when it is small): exact scores over them.
        - ``predicate`` given: the graph is asked for about ``(k + 3 sqrt k) / selectivity`` rows, rows the
          predicate refuses are dropped, and the fetch doubles until ``k`` survive or
          ``max_fetch`` is reached; then an exact scan over ``fallback_rows`` (the allowed set,
          when the caller has it) or over every row the predicate allows.
        """
        q = self._query(query)
        if k <= 0 or self.size == 0:
            return VectorHits(np.empty(0, np.int64), np.empty(0, np.float32), True)
        if allowed_rows is not None:
            return self.exact(q, k, rows=allowed_rows)
        return self._filtered(self._graph, fallback_rows, q, k, predicate, selectivity, max_fetch, self.key_rows)

    def search_groups(self, query: np.ndarray, k: int, labels: Sequence[str], *,
                      predicate: RowPredicate | None = None, selectivity: float = 1.0,
                      extra_rows: np.ndarray | None = None, max_fetch: int = 4096) -> VectorHits:
        """The ``k`` nearest rows among the given labels' own graphs (plus ``extra_rows``, scored
        exactly), merged by score. ``predicate``/``selectivity`` filter within them (e.g. a path
        prefix on top of a kind)."""
        q = self._query(query)
        parts = [self._filtered(self.groups[name][0], self.groups[name][1], q, k, predicate, selectivity, max_fetch)
                 for name in labels]
        if extra_rows is not None and len(extra_rows):
            rows = np.asarray(extra_rows, np.int64)
            parts.append(self.exact(q, k, rows=rows[predicate(rows)] if predicate is not None else rows))
        if not parts:
            return VectorHits(np.empty(0, np.int64), np.empty(0, np.float32), True)
        rows = np.concatenate([h.rows for h in parts])
        scores = np.concatenate([h.scores for h in parts])
        order = np.lexsort((rows, -scores))[:k]
        return VectorHits(rows[order], scores[order], all(h.exact for h in parts))

    def _filtered(self, graph, graph_rows: np.ndarray | None, q: np.ndarray, k: int,
                  predicate: RowPredicate | None, selectivity: float, max_fetch: int,
                  key_rows: np.ndarray | None = None) -> VectorHits:
        """Over-fetch from ``graph`` and filter; past ``max_fetch``, exact over ``graph_rows``
        (the rows the graph holds, or a superset of the allowed rows) that the predicate allows."""
        size = int(graph.size)
        exact = size <= EXACT_ROWS
        if predicate is None:
            return _graph_search(graph, q, k, key_rows, exact)
        # enough that k survive with ~3 standard deviations to spare (binomial), else doubled (an
        # exhaustive scan costs the same for any fetch: the whole graph at once)
        fetch = min(size, max(k, math.ceil((k + 3 * math.sqrt(k)) / max(selectivity, 1e-6))))
        while fetch <= max(max_fetch, size if exact else 0):
            hits = _graph_search(graph, q, fetch, key_rows, exact)
            keep = predicate(hits.rows)
            if int(keep.sum()) >= k or fetch >= size:
                return VectorHits(hits.rows[keep][:k], hits.scores[keep][:k], exact or fetch >= size)
            fetch = size if exact else min(size, fetch * 2)
        rows = np.arange(self.n_rows, dtype=np.int64) if graph_rows is None else graph_rows
        return self.exact(q, k, rows=rows[predicate(rows)])

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
        # usearch's SIMD kernels on the f16 rows: numpy's f16 -> f32 conversion costs ~2 us a row.
        # Cosine, as the graph measures: an inner product of the f16 rows was ~1e-4 off the graph's
        # score, so near-tied rows swapped between a filtered and an unfiltered search (~10% slower)
        from usearch.compiled import MetricKind, exact_search

        sub = self.matrix if len(rows) == self.n_rows else self.matrix[rows]
        kk = min(k, len(rows))
        keys, dist, counts = exact_search(np.ascontiguousarray(sub), q.astype(self.matrix.dtype).reshape(1, -1),
                                          kk, threads=1, metric_kind=MetricKind.Cos)[:3]
        pos = keys[0, :int(counts[0])].astype(np.int64)
        scores = (1.0 - dist[0, :int(counts[0])]).astype(np.float32)
        order = np.lexsort((rows[pos], -scores))            # ties: smaller row first
        return VectorHits(rows[pos][order], scores[order], True)

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


def save_graph(graph, path: Path) -> None:
    """``graph.save(path)``, whose failed write says why with its errno and the file (``No space left
    on device``, ``File too large``), as ``npyio.save`` does. usearch writes through C stdio and said
    only "Failed to serialize into stream" (a full disk while indexing, a probe), so the system is
    asked: the rest of the file's length (at most PROBE_BYTES of zeros) is written after what usearch
    left, through ``os.write``, whose error names the errno; the probe's bytes are cut off again."""
    try:
        graph.save(str(path))
    except RuntimeError as e:
        raise _write_error(path, int(graph.serialized_length), str(e)) from None


def _write_error(path: Path, want: int, said: str) -> Exception:
    have = None
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    except OSError as e:            # it names the file
        return e
    try:
        info = os.fstat(fd)
        have = info.st_size
        left = max(1, min(want - have, PROBE_BYTES))
        os.lseek(fd, have, os.SEEK_SET)
        zeros = bytes(min(left, 1 << 16))
        while left > 0:
            left -= os.write(fd, zeros[:left])
        if stat.S_ISREG(info.st_mode):
            os.fsync(fd)
    except OSError as e:            # a write's error names no file: name it
        return OSError(e.errno, e.strerror, str(path))
    finally:
        if have is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, have)
        os.close(fd)
    return StoreError(f"writing the vector graph {path} failed (usearch: {said}); writing there again worked, "
                      "so the system gave no reason: try again")


def huge_pages_offered() -> bool:
    """Whether this kernel gives transparent huge pages to memory that asks for them."""
    if not hasattr(_mmap, "MADV_HUGEPAGE"):
        return False
    try:
        setting = THP_SETTING.read_text()
    except OSError:
        return False
    return "[always]" in setting or "[madvise]" in setting


def _open_graph(graph, path: Path, mmap: bool, huge: bool | None) -> None:
    """Load (``mmap`` False), view, or view from a huge-page copy (``huge``; None: by size) one graph file."""
    if not mmap:
        graph.load(str(path))
        return
    if huge is None:
        huge = path.stat().st_size >= HUGE_MIN_BYTES and huge_pages_offered()
    if not huge:
        graph.view(str(path))
        return
    buf = _huge_copy(path)
    graph.view(memoryview(buf))
    # the copy lives exactly as long as the index viewing it: an attribute set after __init__'s own
    # (`_compiled`), so it is released after the compiled index when the object goes
    graph.stratum_buffer = buf


def _huge_copy(path: Path) -> _mmap.mmap:
    """The file's bytes in private anonymous memory advised for huge pages (filled by one read)."""
    size = path.stat().st_size
    buf = _mmap.mmap(-1, max(size, 1), flags=_mmap.MAP_PRIVATE | _mmap.MAP_ANONYMOUS)
    if hasattr(_mmap, "MADV_HUGEPAGE"):
        buf.madvise(_mmap.MADV_HUGEPAGE)
    view = memoryview(buf)
    try:
        with open(path, "rb") as f:
            got = f.readinto(view[:size]) if size else 0
    finally:
        view.release()
    if got != size:
        raise RuntimeError(f"{path}: read {got} of {size} bytes")
    return buf


def _graph_search(graph, q: np.ndarray, k: int, key_rows: np.ndarray | None = None,
                  exact: bool = False) -> VectorHits:
    """The graph's ``k`` nearest: HNSW, or with ``exact`` its exhaustive scan, which is a function
    of the vectors alone: ties at the k-th are fetched past it and every list is ordered by score,
    then row, so the same vectors give the same rows however the graph was built or updated."""
    # The compiled call directly: usearch's Python wrapper costs more than the search itself
    # at this size (argument checks, result objects).
    size = int(graph.size)
    if k <= 0 or size == 0:
        return VectorHits(np.empty(0, np.int64), np.empty(0, np.float32), True)
    fetch = min(k + 1, size) if exact else k
    while True:
        keys, dist, counts, _, _ = graph._compiled.search_many(q.reshape(1, -1), count=fetch, exact=exact, threads=1)
        n = int(counts[0])
        scores = (1.0 - dist[0, :n]).astype(np.float32)
        # a tie across the cut: the scan may have kept any of the tied rows; fetch until it ends
        if not exact or n < fetch or fetch >= size or scores[n - 1] != scores[k - 1]:
            break
        fetch = min(size, fetch * 2)
    rows = keys[0, :n].astype(np.int64)
    if key_rows is not None:                    # an updated index: keys are stable, rows move
        rows = key_rows[rows]
    if exact:
        order = np.lexsort((rows, -scores))[:k]
        rows, scores = rows[order], scores[order]
    return VectorHits(rows, scores, exact)


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


__all__ = ["HnswParams", "VectorHits", "VectorIndex", "exact_knn", "recall_at_k", "RowPredicate", "auto_expansion",
           "save_graph", "EXACT_ROWS", "GROUP_MIN_ROWS", "GROUP_MAX_FRACTION", "HUGE_MIN_BYTES", "huge_pages_offered"]
