"""An incremental index of the unmerged notes: vectors and BM25 postings, appended per note.

Why: scoring every unmerged note per query (tokenising each text, one dot product each) made
search p50 grow ~3x at 1,000 notes and linearly beyond. Here a note is tokenised and its vector
stored once, when it arrives; a query costs one matrix-vector product over the note vectors and
a walk of the postings of its own terms, then the top-k of each list joins the shard's lists.
BM25 uses the shard keyword index's statistics (document count, document frequency, average
length) so note scores rank consistently among the indexed rows (the same formula as
``KeywordIndex.score_texts``); the searcher adds the view's notes to the document counts
(``noteview.union_idf``), as the index a merge builds would.

Vectors travel with the note (``notevectors``: in the delta-log record), so a restarted server
reads them instead of re-embedding every unmerged note before serving. How a query scores them
(exact, 1-bit codes, the HNSW graph) and from which sizes is the read side's, ``noteview``; this
index builds what it uses at those sizes, on background threads (``notethreads``).

Writers append under a lock; readers take a ``view`` (a consistent prefix: arrays only grow, and
the masks are copied), so a search never blocks a ``remember``.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from typing import Any, Hashable, Sequence

import numpy as np

# read through the modules, not imported names: a test or benchmark that sets noteview.ANN_MIN (or
# swaps notethreads.background) moves the index with the view
from stratum import notethreads, noteview
from stratum.keywordindex import B, K1
from stratum.codetokens import tokenize
from stratum.noteview import _KIND_CODE, NoteView, _top_arrays

ANN_EXPANSION = 128        # the graph's search candidate list (ef)
ANN_EXPANSION_ADD = 64     # its build candidate list (efConstruction): 10k notes build in ~1.5-4 s
BM25_CACHE = 1 << 21       # cached per-posting BM25 parts (floats, 16 MB) before the cache is dropped
BUILD_CHUNK = 1024         # vectors per graph insert call while building
BUILD_THREADS = 0          # usearch's threads for it (0: every core; 1: the same graph every time)


class _Posting:
    """One term's postings (slots ascending, term frequencies) in arrays grown by doubling: a
    reader slices the filled prefix without a copy while a writer appends past it (a full array
    is replaced, not resized, so a reader's arrays stay valid)."""
    __slots__ = ("slots", "tf", "n")

    def __init__(self):
        self.slots = np.empty(4, np.int32)
        self.tf = np.empty(4, np.int32)
        self.n = 0

    def append(self, slot: int, tf: int) -> None:
        n = self.n
        if n == len(self.slots):
            s, t = np.empty(2 * n, np.int32), np.empty(2 * n, np.int32)
            s[:n], t[:n] = self.slots, self.tf
            self.slots, self.tf = s, t
        self.slots[n], self.tf[n] = slot, tf
        self.n = n + 1

    def head(self) -> tuple[np.ndarray, np.ndarray, int]:
        # arrays read before the count: an append in between is past it (or in new arrays, the same prefix)
        s, t = self.slots, self.tf
        return s, t, min(self.n, len(s), len(t))


class NoteIndex:
    """Append-only slots, one per note: vector, BM25 postings, kind/path/author, active flag."""

    def __init__(self, dim: int = 384):
        self.dim = dim
        self.ids: list[str] = []
        self.paths: list[str] = []
        self.authors: list[Hashable] = []                       # who sees a hidden slot (the overlay's
                                                                 # (name, proven): identity.reader)
        self.languages: list[str] = []
        self.slot: dict[str, int] = {}
        self.postings: dict[str, _Posting] = {}                  # term -> slots, term frequencies
        self._positions: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # NodeMeta -> NotePlaces
        self._bm25: dict[tuple[str, float], np.ndarray] = {}   # (term, avgdl) -> BM25 parts before the weight
        self._bm25_size = 0
        self._cap = 0
        self.vectors = np.zeros((0, dim), np.float32)
        self.vectors8 = np.zeros((0, dim), np.int8)             # int8 copies, their scales and error
        self.scale8 = np.zeros(0, np.float32)                   # norms (notekernels.quantize): the exact
        self.err8 = np.zeros(0, np.float32)                     # list's first scan
        self._q8_pending: list[int] = []                        # slots with a vector, not quantized yet
        self._q8_lock = threading.Lock()                        # one quantize_pending at a time
        self.center: np.ndarray | None = None                   # the 1-bit codes' center, from SIGN_MIN
        self.bits = np.zeros(((dim + 63) // 64, 0), np.uint64)  # vectors: notekernels.sign_codes
        self.ones, self.fac = np.zeros(0, np.int32), np.zeros(0, np.float32)
        self.has_vector = np.zeros(0, bool)
        self.active = np.zeros(0, bool)
        self.hidden = np.zeros(0, bool)                          # quarantined: only its author sees it
        self.kind_code = np.zeros(0, np.int16)
        self.doc_len = np.zeros(0, np.float64)
        self._lock = threading.Lock()
        self._graph: Any = None                                  # usearch Index, from ANN_MIN vectors
        self._graph_lock = threading.Lock()
        self.graph_size = 0
        self._waiting: list[int] = []                            # slots with a vector not in the graph yet
        self._defer = False
        self._building = False
        # Per-search work kept while nothing it reads changes (10,000 notes: each was a pass over
        # every slot per search): the last view (``_version`` counts changes a view reads), its
        # filtered masks and the unfiltered mask's slots with a vector (``_vectors_set`` counts
        # vectors set), and how many active slots have no vector (the overlay's embedding check).
        self._version = 0
        self._vectors_set = 0
        self._missing = 0
        self._view: tuple[Any, Any] = (None, None)                  # ((viewer, _version), view)
        self._masks: tuple[Any, dict] = (None, {})                  # (view, filters -> mask)
        self._sel: tuple[Any, int, np.ndarray | None] = (None, -1, None)   # (view, _vectors_set, slots)
        self._terms: tuple[Any, Any, float, dict] = (None, None, 0.0, {})  # (view, idf or corpus, avgdl, (term, count) -> part)

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, note_id: object) -> bool:
        return note_id in self.slot

    def add(self, note_id: str, text: str, kind: str, path: str, author: Hashable,
            vector: np.ndarray | None = None, active: bool = True, language: str = "") -> int:
        """Index one note (tokenised here, once); returns its slot. Adding an id again is a no-op."""
        toks = tokenize(text)
        tf: dict[str, int] = {}
        for t in toks:
            tf[t] = tf.get(t, 0) + 1
        with self._lock:
            j = self.slot.get(note_id)
            if j is not None:
                return j
            j = len(self.ids)
            self._grow(j + 1)
            for t, c in tf.items():
                post = self.postings.get(t)
                if post is None:
                    post = self.postings[t] = _Posting()
                post.append(j, c)
            self.kind_code[j] = _KIND_CODE.get(kind, -1)
            self.doc_len[j] = len(toks)
            self.active[j] = active
            if vector is not None:
                self._set_row(j, vector)
            self.paths.append(path or "")
            self.authors.append(author or "")
            self.languages.append(language or "")
            self.ids.append(note_id)            # last: a view's n counts only complete slots
            self.slot[note_id] = j
            self._missing += bool(active and vector is None)
            self._version += 1
            return j

    def set_vector(self, note_id: str, vector: np.ndarray) -> None:
        with self._lock:
            j = self.slot[note_id]
            if self.has_vector[j]:
                return
            self._set_row(j, vector)
            self._missing -= bool(self.active[j])

    def _set_row(self, j: int, vector: np.ndarray) -> None:
        """Slot j's vector, queued for its int8 copy, then the flag a reader checks (under ``_lock``)."""
        self.vectors[j] = vector
        self._q8_pending.append(j)
        self.has_vector[j] = True
        self._vectors_set += 1
        self._version += 1
        self._to_graph(j)

    def quantize_pending(self) -> None:
        """The int8 copies of the vectors that arrived since the last exact query, in one
        vectorised call (per note in ``add``, a bulk load of 10,000 paid ~0.15 s more), computed
        outside the lock (~0.16 s at 10,000: views and writers do not wait for it; a slot's vector
        never changes once set); from SIGN_MIN vectors their 1-bit codes too, about the mean of
        the vectors there when the first codes are made (every row coded then)."""
        from stratum import notekernels as K

        with self._q8_lock:
            with self._lock:
                if not self._q8_pending:
                    return
                todo = list(self._q8_pending)
                rows = np.asarray(todo, np.int64)
                first = self.center is None and int(self.has_vector[:len(self.ids)].sum()) >= noteview.SIGN_MIN
                coded = np.flatnonzero(self.has_vector[:len(self.ids)]) if first else rows
                vecs, cvecs = self.vectors[rows], self.vectors[coded]   # copies: _grow may swap the arrays
            v8, scale, err = K.quantize(vecs)
            center = cvecs.mean(axis=0, dtype=np.float64).astype(np.float32) if first else self.center
            codes = K.sign_codes(cvecs, center) if center is not None else None
            with self._lock:
                self.vectors8[rows], self.scale8[rows], self.err8[rows] = v8, scale, err
                if codes is not None:
                    self.bits[:, coded], self.ones[coded], self.fac[coded] = codes
                    self.center = center
                done = set(todo)                    # emptied last: a query that finds a row gone finds it written
                self._q8_pending = [j for j in self._q8_pending if j not in done]

    # ---- the HNSW graph (large note sets) ---------------------------------------------------
    def _to_graph(self, j: int) -> None:
        """Queue slot j's vector for the graph; once the graph exists it joins at once (or at the
        end of a ``deferred()`` bulk load, in one call). Called under ``_lock``."""
        self._waiting.append(j)
        if self._graph is not None and not self._defer and not self._building:
            self._flush_graph()

    def _flush_graph(self) -> None:
        rows = np.asarray(self._waiting, np.int64)
        self._waiting = []
        with self._graph_lock:      # usearch may grow its storage on add: no search meanwhile
            self._graph.add(rows.astype(np.uint64), np.ascontiguousarray(self.vectors[rows]),
                            threads=0 if len(rows) > 64 else 1)
            self.graph_size += len(rows)
        self._version += 1

    def ensure_graph(self) -> None:
        """Start building the graph once ANN_MIN vectors wait for it, on a background thread
        (10,000 notes: 1.5-8 s on 2 loaded cores; exact scoring answers meanwhile). Only a process
        that searches builds one (a CLI ``remember`` never does)."""
        if len(self._waiting) < noteview.ANN_MIN:    # every search asks: no lock while too few wait
            return
        with self._lock:
            if self._graph is not None or self._building or len(self._waiting) < noteview.ANN_MIN:
                return
            self._building = True
            rows = np.asarray(self._waiting, np.int64)
            self._waiting = []
            vecs = np.ascontiguousarray(self.vectors[rows])       # a copy: _grow may swap the array
        notethreads.background(self._build_graph, rows, vecs)

    def _build_graph(self, rows: np.ndarray, vecs: np.ndarray) -> None:
        from usearch.index import Index

        try:
            g = Index(ndim=self.dim, metric="ip", dtype="f16", connectivity=16,
                      expansion_add=ANN_EXPANSION_ADD, expansion_search=ANN_EXPANSION)
            for i in range(0, len(rows), BUILD_CHUNK):      # chunks: a process exit waits for one only
                if notethreads.stop_requested():
                    return
                g.add(rows[i:i + BUILD_CHUNK].astype(np.uint64), vecs[i:i + BUILD_CHUNK], threads=BUILD_THREADS)
            with self._lock:
                with self._graph_lock:
                    self._graph, self.graph_size = g, len(rows)
                self._version += 1
                if self._waiting and not self._defer:
                    self._flush_graph()         # what arrived during the build
        finally:
            self._building = False

    def wait_graph(self, timeout: float = 60.0) -> bool:
        """Start the graph if it is due and block until it is built (tests, benchmarks)."""
        import time

        self.ensure_graph()
        end = time.monotonic() + timeout
        while self._building and time.monotonic() < end:
            time.sleep(0.01)
        return not self._building

    @contextlib.contextmanager
    def deferred(self):
        """A bulk load (the overlay's first fold): graph inserts wait for the end, then go in one
        call (one at a time, 10,000 notes took seconds more at start)."""
        with self._lock:
            self._defer = True
        try:
            yield self
        finally:
            with self._lock:
                self._defer = False
                if self._waiting and self._graph is not None and not self._building:
                    self._flush_graph()
                many = len(self._q8_pending) >= noteview.EXACT_COMPILED_MIN and len(self.ids) < noteview.ANN_MIN \
                    and notethreads.kernels_wanted()
            # the exact list's kernels and int8 copies made now, not in the first query (the copy
            # of 10,000 notes took that query 0.16 s)
            if many:
                notethreads.compiled()
                notethreads.background(self.quantize_pending, name="stratum-note-int8")

    def ann_hits(self, q: np.ndarray, k: int, sel: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """The k best (slots, cosines) among ``sel`` from the graph, or None when the graph cannot
        answer it well (too few of its slots are selected: the caller scores exactly)."""
        n = len(sel)
        hidden = n - int(sel.sum())
        if hidden > n // 4:
            return None
        fetch = min(self.graph_size, k + hidden + 8)
        with self._graph_lock:
            g = self._graph
            keys, dist, counts, _, _ = g._compiled.search_many(q.reshape(1, -1), count=fetch, exact=False,
                                                               threads=1)
        m = int(counts[0])
        slots = keys[0, :m].astype(np.int64)
        scores = (1.0 - dist[0, :m]).astype(np.float32)
        keep = (slots < n)
        keep[keep] = sel[slots[keep]]
        slots, scores = slots[keep], scores[keep]
        if len(slots) < min(k, n - hidden):
            return None
        return _top_arrays(slots, scores, k)

    def term_bm25(self, term: str, wi: float, avgdl: float, slots: np.ndarray, tf: np.ndarray, m: int) -> np.ndarray:
        """One query term's BM25 part in each of its first ``m`` postings (``wi``: its weight
        times idf). The parts before the weight are kept per (term, avgdl) and extended as notes
        arrive (a term's idf moves with every note: ``noteview.union_idf``), without ~50 us of array
        work a query at 10,000 notes; the weight is one multiplication. The cache is dropped whole
        past BM25_CACHE floats."""
        key = (term, avgdl)
        have = self._bm25.get(key)
        if have is None or len(have) < m:
            at = 0 if have is None else len(have)
            t = tf[at:m].astype(np.float64)
            norm = K1 * (1 - B + B * self.doc_len[slots[at:m]] / max(avgdl, 1e-9))
            part = t * (K1 + 1) / (t + norm)
            have = part if have is None else np.concatenate([have, part])
            if self._bm25_size + len(part) > BM25_CACHE:
                self._bm25, self._bm25_size = {}, len(have)
            else:
                self._bm25_size += len(part)
            self._bm25[key] = have
        return wi * have[:m]

    def set_state(self, note_id: str, *, active: bool, hidden: bool = False) -> None:
        with self._lock:
            j = self.slot.get(note_id)
            if j is None or (self.active[j] == active and self.hidden[j] == hidden):
                return
            if not self.has_vector[j]:
                self._missing += int(active) - int(self.active[j])
            self.active[j] = active
            self.hidden[j] = hidden
            self._version += 1

    def missing_vectors(self) -> list[str]:
        """Ids of active notes without a vector (none: no pass over the slots; every search asks)."""
        if not self._missing:
            return []
        n = len(self.ids)
        return [self.ids[j] for j in np.flatnonzero(~self.has_vector[:n] & self.active[:n]).tolist()]

    def view(self, viewer: Hashable | None = None) -> NoteView:
        """What one query sees: active notes, minus quarantined notes of other authors (``viewer``:
        compared with the ``author`` each note was added with). The same
        view object while nothing it reads has changed (no copy of the flags per search)."""
        with self._lock:
            key = (viewer, self._version)
            if self._view[0] == key:
                return self._view[1]
            n = len(self.ids)
            eligible = self.active[:n].copy()
            hidden = self.hidden[:n]
            if hidden.any():
                mine = np.fromiter((a == viewer for a in self.authors[:n]), bool, n) if viewer else np.zeros(n, bool)
                eligible &= ~hidden | mine
            view = NoteView(self, n, eligible, self.vectors, self.has_vector, self.graph_size)
            self._view = (key, view)
            return view

    def _grow(self, need: int) -> None:
        if need <= self._cap:
            return
        cap = max(64, 2 * self._cap, need)
        # new arrays, filled, then swapped in: a view holding the old ones keeps a consistent prefix
        for name in ("vectors", "vectors8", "scale8", "err8", "bits", "ones", "fac", "has_vector", "active", "hidden",
                     "kind_code", "doc_len"):
            setattr(self, name, _extend(getattr(self, name), cap, axis=1 if name == "bits" else 0))
        self._cap = cap

    @classmethod
    def of_docs(cls, docs: Sequence) -> "NoteIndex":
        """An index over ``search.ExtraDoc``s (library callers that pass plain documents)."""
        dim = next((len(d.vector) for d in docs if d.vector is not None), 384)
        ix = cls(dim)
        for d in docs:
            ix.add(d.id, d.text, d.kind, d.path, "", d.vector, language=d.language)
        return ix


def _extend(a: np.ndarray, cap: int, axis: int = 0) -> np.ndarray:      # cap places along axis, zeros past a's
    out = np.zeros(a.shape[:axis] + (cap,) + a.shape[axis + 1:], a.dtype)
    out[(slice(None),) * axis + (slice(0, a.shape[axis]),)] = a
    return out


__all__ = ["NoteIndex"]
