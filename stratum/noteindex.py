"""An incremental index of the unmerged notes: vectors and BM25 postings, appended per note.

Why: scoring every unmerged note per query (tokenising each text, one dot product each) made
search p50 grow ~3x at 1,000 notes and linearly beyond. Here a note is tokenised and its vector
stored once, when it arrives; a query costs one matrix-vector product over the note vectors and
a walk of the postings of its own terms, then the top-k of each list joins the shard's lists.
BM25 uses the shard keyword index's statistics (document count, document frequency, average
length) so note scores rank consistently among the indexed rows (the same formula as
``KeywordIndex.score_texts``).

Vectors travel with the note: ``encode_vector`` packs a vector into the delta-log record (float16,
base64: 1 KB), tagged with the embedder's cache key, so a restarted server reads them instead of
re-embedding every unmerged note before serving.

Vectors: scored exactly below SIGN_MIN notes (numpy's product for a few thousand; from
EXACT_COMPILED_MIN compiled passes, ``notekernels``: an int8 scan with error bounds, then f32
rescoring of the rows that could make the top k, the brute-force answer); from SIGN_MIN only the
SIGN_DEPTH x k notes whose 1-bit codes estimate best are scored so (approximate: recall@50 >= 0.99
measured); from ANN_MIN, where it is measured to cost less (benchmarks/notes_vector_crossover.py),
an HNSW graph (usearch, the shard's own vector library) grows with the notes, and a query
over-fetches from it and drops slots the view may not see, scoring as below when too many are hidden.

Writers append under a lock; readers take a ``view`` (a consistent prefix: arrays only grow, and
the masks are copied), so a search never blocks a ``remember``.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import threading
import weakref
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from stratum.keywordindex import B, K1, _top
from stratum.codetokens import tokenize
from stratum.noteplaces import NotePlaces
from stratum.schema import NODE_KINDS

_KIND_CODE = {k: i for i, k in enumerate(NODE_KINDS)}
ANN_MIN = 32768            # notes with a vector before the HNSW graph is used: the measured crossover with the
                           # 1-bit list (notes_vector_crossover.py: recall@50 0.99+ below it, the graph's ~0.9)
EXACT_COMPILED_MIN = 4096  # slots from which the exact list runs compiled (notekernels: ~2.5x numpy's)
SIGN_MIN = 8192            # slots from which the list scores only the SIGN_DEPTH x k best 1-bit estimates
SIGN_DEPTH = 16            # (approximate: recall@50 >= 0.99 on note vectors of both models; exact below)
ANN_EXPANSION = 128        # the graph's search candidate list (ef)
ANN_EXPANSION_ADD = 64     # its build candidate list (efConstruction): 10k notes build in ~1.5-4 s
BM25_CACHE = 1 << 21       # cached per-posting BM25 parts (floats, 16 MB) before the cache is dropped
TERM_MEMO = 4096           # query terms whose (slots, BM25 parts) a view keeps (slices: no copies)
BUILD_CHUNK = 1024         # vectors per graph insert call while building
BUILD_THREADS = 0          # usearch's threads for it (0: every core; 1: the same graph every time)

# Background work (the graph build; the overlay's note embedding) stops at interpreter exit: a
# daemon thread killed inside usearch or onnxruntime aborts the process ("terminate called
# without an active exception", exit 134) after a CLI command has already succeeded.
_STOP = threading.Event()
_THREADS: list[threading.Thread] = []
_THREADS_LOCK = threading.Lock()        # queries and the overlay's sync start threads at once


def background(fn, *args, name: str = "stratum-note-graph") -> threading.Thread:
    """Run ``fn`` on a daemon thread that the interpreter's exit waits for (``fn`` should check
    ``stop_requested()`` between steps)."""
    th = threading.Thread(target=fn, args=args, name=name, daemon=True)
    with _THREADS_LOCK:
        _THREADS[:] = [t for t in _THREADS if t.is_alive()]
        _THREADS.append(th)
    th.start()
    return th


def stop_requested() -> bool:
    return _STOP.is_set()


@atexit.register
def _stop_background() -> None:
    _STOP.set()
    with _THREADS_LOCK:
        threads = list(_THREADS)
    for th in threads:
        th.join(timeout=10)


_KERNELS: dict[str, Any] = {}       # "module": notekernels once loaded and its kernels compiled
_KERNELS_LOCK = threading.Lock()


def prepare_kernels() -> None:
    """A long-lived process (``stratum serve``) loads the exact list's compiled kernels, on a
    background thread. Only then do queries use them: a one-shot CLI search answers with numpy
    (the same notes) instead of waiting at its exit for numba (~1 s with numba's cache, 5-14 s
    compiling without one: past the exit's join, a thread inside LLVM would abort the process)."""
    _KERNELS["wanted"] = True
    compiled()


def compiled(wait: bool = False):
    """``notekernels`` once it is loaded, else None (numpy answers meanwhile: the same notes).
    After ``prepare_kernels`` the first call starts loading it on a background thread: numba's
    import and the cached machine code took ~0.7-1 s, which the first answer after a restart paid
    when the first query loaded it inline. ``wait``: load it and block until it is loaded
    (tests, benchmarks)."""
    mod = _KERNELS.get("module")
    if mod is not None:
        return mod
    if not wait and not _KERNELS.get("wanted"):
        return None
    with _KERNELS_LOCK:
        th = _KERNELS.get("thread")
        if th is None:
            th = _KERNELS["thread"] = background(_load_kernels, name="stratum-note-kernels")
    if wait:
        th.join()
    return _KERNELS.get("module")


def _load_kernels() -> None:
    from stratum import notekernels as K

    K.warm()
    _KERNELS["module"] = K


def encode_vector(v: np.ndarray, key: str) -> dict:
    """Record-body fields for a note's vector (float16 keeps cosine ranking; 1 KB instead of 2)."""
    return {"vector": base64.b64encode(np.asarray(v, np.float16).tobytes()).decode("ascii"), "vector_key": key}


def decode_vector(body: dict, key: str | None, dim: int) -> np.ndarray | None:
    """The vector stored in a record body, if it was made by the embedder with cache key ``key``."""
    b = body.get("vector")
    if not b or key is None or body.get("vector_key") != key:
        return None
    try:
        v = np.frombuffer(base64.b64decode(b), np.float16).astype(np.float32)
    except (ValueError, TypeError):
        return None
    return v if len(v) == dim else None


class NoteView(NamedTuple):
    """A consistent prefix of the index for one query: slots < n, with who may see what."""
    ix: "NoteIndex"
    n: int
    eligible: np.ndarray        # bool per slot: active and visible to the viewer
    vectors: np.ndarray         # (>= n, dim); rows without a vector are zero
    has_vector: np.ndarray
    graph_size: int = 0         # slots in the HNSW graph when the view was taken

    def __len__(self) -> int:
        return int(self.eligible.sum())

    def id(self, j: int) -> str:
        return self.ix.ids[j]

    def mask(self, kinds: Sequence[str] = (), path_prefix: str = "", language: str = "") -> np.ndarray:
        """Eligible slots under a query's filters (notes have no language: a language filter excludes them).

        Shared, not a copy (callers only read it): with no filter the view's own ``eligible``,
        else kept per filter for this view (a path filter is a Python pass over every note)."""
        if not (kinds or path_prefix or language):
            return self.eligible
        memo = self.ix._masks
        if memo[0] is not self:
            memo = self.ix._masks = (self, {})
        key = (tuple(kinds), path_prefix, language)
        ok = memo[1].get(key)
        if ok is None:
            ok = self._mask(kinds, path_prefix, language)
            if len(memo[1]) < 64:
                memo[1][key] = ok
        return ok

    def _mask(self, kinds: Sequence[str], path_prefix: str, language: str) -> np.ndarray:
        ok = self.eligible.copy()
        if language:
            langs, want = self.ix.languages, language.lower()
            ok &= np.fromiter((langs[j].lower() == want for j in range(self.n)), bool, self.n)
        if kinds:
            codes = [_KIND_CODE[k] for k in kinds if k in _KIND_CODE]
            ok &= np.isin(self.ix.kind_code[:self.n], codes)
        if path_prefix:
            paths = self.ix.paths
            ok &= np.fromiter((paths[j].startswith(path_prefix) for j in range(self.n)), bool, self.n)
        return ok

    def vector_hits(self, q: np.ndarray, k: int, ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The k best (slots, cosines) among ``ok`` slots with a vector, best first: what the searcher merges."""
        if q is None:
            return _NO_HITS
        sel = self._with_vector(ok)
        if sel is None:
            return _NO_HITS
        q = np.asarray(q, np.float32)
        if self.graph_size < ANN_MIN:
            self.ix.ensure_graph()
        ann = self.ix.ann_hits(q, k, sel) if self.graph_size >= ANN_MIN else None
        if ann is not None:
            return ann
        signed = self.signed_hits(q, k, sel) if self.n >= SIGN_MIN else None
        return signed if signed is not None else self.exact_hits(q, k, sel)

    def _with_vector(self, ok: np.ndarray) -> np.ndarray | None:
        """``ok`` slots with a vector (None: none), kept for the view's unfiltered mask while no
        vector arrives (``has_vector`` is read live: a vector embedded after the view counts)."""
        ix = self.ix
        memo = ix._sel
        if ok is self.eligible and memo[0] is self and memo[1] == ix._vectors_set:
            return memo[2]
        stamp = ix._vectors_set             # before the read: a vector set meanwhile recomputes next time
        sel = ok & self.has_vector[:self.n]
        sel_or_none = sel if sel.any() else None
        if ok is self.eligible:
            ix._sel = (self, stamp, sel_or_none)
        return sel_or_none

    def _kernels(self, k: int):
        """``notekernels`` where this view is large enough for them and they are loaded, else None."""
        return compiled() if self.n >= EXACT_COMPILED_MIN and k > 0 else None

    def exact_hits(self, q: np.ndarray, k: int, sel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The k best (slots, cosines) among ``sel`` (slots with a vector), every one scored: from
        EXACT_COMPILED_MIN slots ``notekernels.top_dots`` over the view's prefix (no copy), numpy's
        product below (no numba import for small sets)."""
        kernels = self._kernels(k)
        if kernels is not None:
            ix = self.ix
            if ix._q8_pending:
                ix.quantize_pending()
            scores = np.empty(self.n, np.float32)
            cand = kernels.top_dots(self.vectors, ix.vectors8, ix.scale8, ix.err8, np.ascontiguousarray(q, np.float32),
                            sel, k, scores)
            return _top_arrays(cand, scores[cand], k)
        if sel.all():
            return _top_arrays(None, _dot(self.vectors[:self.n], q), k)
        cand = np.flatnonzero(sel)
        scores = _dot(self.vectors[cand], q) if len(cand) < self.n // 2 else _dot(self.vectors[:self.n], q)[cand]
        return _top_arrays(cand, scores, k)

    def signed_hits(self, q: np.ndarray, k: int, sel: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """The k best (slots, cosines) of the SIGN_DEPTH x k in ``sel`` whose 1-bit codes estimate best (48
        bytes a note to scan, not 384; ``notekernels.top_dots_signed``), or None before the codes exist."""
        kernels, ix = self._kernels(k), self.ix
        if kernels is not None and ix._q8_pending:
            ix.quantize_pending()
        if kernels is None or ix.center is None or not np.isfinite(q).all():
            return None
        scores = np.empty(self.n, np.float32)
        cand = kernels.top_dots_signed(self.vectors, ix.vectors8, ix.scale8, ix.err8, ix.bits, ix.ones, ix.fac,
                                       np.ascontiguousarray(q, np.float32), sel, k, SIGN_DEPTH * k, scores)
        return _top_arrays(cand, scores[cand], k)

    def keyword_hits(self, query: str, idf: Callable[[str], float], avgdl: float, k: int,
                     ok: np.ndarray, tokens: Sequence[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The k best (slots, BM25 scores > 0) among ``ok`` slots, best first: what the searcher merges.
        ``tokens``: ``tokenize(query)`` when the caller has it already."""
        q: dict[str, int] = {}
        for t in tokenize(query) if tokens is None else tokens:
            q[t] = q.get(t, 0) + 1
        if not q or not ok.any():
            return _NO_HITS
        # each term's (slots, BM25 parts) in this view, kept while the view is the index's current
        # one (per term, the postings' cut and the parts' look-up cost ~5 us a term in a search)
        memo = self.ix._terms
        if memo[0] is not self or memo[1] != idf or memo[2] != avgdl:
            memo = self.ix._terms = (self, idf, avgdl, {})
        parts = memo[3]
        posts = []
        for t, w in q.items():
            got = parts.get((t, w))
            if got is None:
                got = self._term_part(t, w * idf(t), avgdl)
                if len(parts) < TERM_MEMO:
                    parts[(t, w)] = got
            if got:
                posts.append(got)
        if not posts:
            return _NO_HITS
        slots = np.concatenate([p[0] for p in posts]) if len(posts) > 1 else posts[0][0]
        weights = np.concatenate([p[1] for p in posts]) if len(posts) > 1 else posts[0][1]
        kernels = self._kernels(k)
        if kernels is not None:
            # one compiled pass: bincount's sums, and the top k from the postings' slots only
            # (no pass over all n slots for the mask, no partition of every match)
            score: np.ndarray = np.zeros(self.n)
            cand = kernels.top_sums(slots, weights, self.n, ok, k, score)
            return _top_arrays(cand, score[cand], k)
        score = np.bincount(slots, weights=weights, minlength=self.n)
        cand = np.flatnonzero((score > 0) & ok)
        return _top_arrays(cand, score[cand], k)

    def _term_part(self, t: str, wi: float, avgdl: float) -> tuple:
        """(slots, BM25 parts) of term ``t`` in this view's prefix (``wi``: its weight x idf), or ()."""
        ix = self.ix
        p = ix.postings.get(t)
        if p is None:
            return ()
        slots, tf, m = p.head()             # no copy: the prefix never changes
        if m and slots[m - 1] >= self.n:    # slots ascend: cut to this view's prefix (an int32
            m = int(np.searchsorted(slots[:m], np.int32(self.n)))   # key: no cast of the array)
        return (slots[:m], ix.term_bm25(t, wi, avgdl, slots, tf, m)) if m else ()

    def id_positions(self, slots: Sequence[int], meta) -> list[int]:
        """``meta.id_position`` of these slots' note ids (``search.NodeMeta``: where each note sorts
        among the shard's ids, for ties), cached per shard version: a binary search over pyarrow
        scalars costs ~10 us a note, and with 10,000 notes ~50 tied notes a query took 0.5 ms."""
        slots = list(slots)
        if not slots:
            return []
        places = self._places(meta)
        places.place_all(slots, self.ix.ids, meta)
        return places.place[slots].astype(np.int64).tolist()

    def tie_keys(self, slots: np.ndarray, meta) -> np.ndarray:
        """Sort keys of these slots' notes among the shard's ids, NaN for a note not placed yet
        (``id_positions`` places it): the shard's id of rank r has key 2r, a note with p shard ids
        before its own a key in (2p - 2, 2p), ordered by note id among the notes of one gap.
        One take from a cached array: ordering the ~35 notes of a search by id there cost ~40 us."""
        return self._places(meta).keys_of(slots)

    def _places(self, meta) -> NotePlaces:
        positions = self.ix._positions
        got = positions.get(meta)
        return got if got is not None else positions.setdefault(meta, NotePlaces())


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


def _dot(m: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``m @ q`` without BLAS (einsum, one thread): OpenBLAS's threaded gemv fought the other
    threads for 2 loaded cores, 11-48 ms at 10,000 notes instead of 0.1 ms; einsum a steady ~0.6."""
    return np.einsum("ij,j->i", m, q)


_NO_HITS = (np.empty(0, np.int64), np.empty(0, np.float32))


def _top_arrays(cand: np.ndarray | None, scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k best (slots, scores), best first, ties by slot; ``cand``: the slots of ``scores``
    (None: slot i is scores[i])."""
    if cand is None:
        cand = np.arange(len(scores))
    if k <= 0:
        return np.empty(0, np.int64), scores[:0]
    order = _top(cand, scores, k)           # the shard index's cut: a tie at the k-th place goes by slot
    return cand[order].astype(np.int64, copy=False), scores[order]


class NoteIndex:
    """Append-only slots, one per note: vector, BM25 postings, kind/path/author, active flag."""

    def __init__(self, dim: int = 384):
        self.dim = dim
        self.ids: list[str] = []
        self.paths: list[str] = []
        self.authors: list[str] = []
        self.languages: list[str] = []
        self.slot: dict[str, int] = {}
        self.postings: dict[str, _Posting] = {}                  # term -> slots, term frequencies
        self._positions: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # NodeMeta -> NotePlaces
        self._bm25: dict[tuple[str, float, float], np.ndarray] = {}   # (term, weight x idf, avgdl) -> BM25 parts
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
        self._terms: tuple[Any, Any, float, dict] = (None, None, 0.0, {})  # (view, idf, avgdl, (term, count) -> part)

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, note_id: object) -> bool:
        return note_id in self.slot

    def add(self, note_id: str, text: str, kind: str, path: str, author: str,
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
                first = self.center is None and int(self.has_vector[:len(self.ids)].sum()) >= SIGN_MIN
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
        if len(self._waiting) < ANN_MIN:    # every search asks: no lock while too few wait
            return
        with self._lock:
            if self._graph is not None or self._building or len(self._waiting) < ANN_MIN:
                return
            self._building = True
            rows = np.asarray(self._waiting, np.int64)
            self._waiting = []
            vecs = np.ascontiguousarray(self.vectors[rows])       # a copy: _grow may swap the array
        background(self._build_graph, rows, vecs)

    def _build_graph(self, rows: np.ndarray, vecs: np.ndarray) -> None:
        from usearch.index import Index

        try:
            g = Index(ndim=self.dim, metric="ip", dtype="f16", connectivity=16,
                      expansion_add=ANN_EXPANSION_ADD, expansion_search=ANN_EXPANSION)
            for i in range(0, len(rows), BUILD_CHUNK):      # chunks: a process exit waits for one only
                if _STOP.is_set():
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
                many = len(self._q8_pending) >= EXACT_COMPILED_MIN and len(self.ids) < ANN_MIN \
                    and bool(_KERNELS.get("wanted"))
            if many:        # the exact list's kernels and int8 copies made now, not in the first query
                compiled()  # (the copy of 10,000 notes took that query 0.16 s)
                background(self.quantize_pending, name="stratum-note-int8")

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
        times idf), kept per (term, wi, avgdl) and extended as notes arrive: the same floats as
        computing them per query (elementwise, the same operations), without ~50 us of array
        work a query at 10,000 notes. The cache is dropped whole past BM25_CACHE floats."""
        key = (term, wi, avgdl)
        have = self._bm25.get(key)
        if have is not None and len(have) >= m:
            return have[:m]
        at = 0 if have is None else len(have)
        t = tf[at:m].astype(np.float64)
        norm = K1 * (1 - B + B * self.doc_len[slots[at:m]] / max(avgdl, 1e-9))
        part = wi * t * (K1 + 1) / (t + norm)
        out = part if have is None else np.concatenate([have, part])
        if self._bm25_size + len(part) > BM25_CACHE:
            self._bm25, self._bm25_size = {}, len(out)
        else:
            self._bm25_size += len(part)
        self._bm25[key] = out
        return out

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

    def view(self, viewer: str | None = None) -> NoteView:
        """What one query sees: active notes, minus quarantined notes of other authors. The same
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


__all__ = ["NoteIndex", "NoteView", "encode_vector", "decode_vector", "stop_requested", "background", "ANN_MIN",
           "EXACT_COMPILED_MIN", "compiled", "prepare_kernels"]
