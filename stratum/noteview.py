"""The read side of the notes' index: ``NoteView``, one query's consistent prefix of a
``noteindex.NoteIndex``, and its lists (vector, keyword) and tie keys.

Why its own room: the index is written per note under a lock; a view is what a search reads
without that lock (arrays only grow, the masks are copied), so a search never blocks a
``remember``. The thresholds below choose how a view scores vectors; the index reads them from
here (``noteview.ANN_MIN``...) to build what the view will use (the graph, int8 copies, 1-bit
codes), so one setting moves both sides.

Vectors: scored exactly below SIGN_MIN notes (numpy's product for a few thousand; from
EXACT_COMPILED_MIN compiled passes, ``notekernels``: an int8 scan with error bounds, then f32
rescoring of the rows that could make the top k, the brute-force answer); from SIGN_MIN only the
SIGN_DEPTH x k notes whose 1-bit codes estimate best are scored so (approximate: recall@50 >= 0.99
measured); from ANN_MIN, where it is measured to cost less (benchmarks/notes_vector_crossover.py),
an HNSW graph (usearch, the shard's own vector library) grows with the notes, and a query
over-fetches from it and drops slots the view may not see, scoring as below when too many are hidden.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, NamedTuple, Sequence

import numpy as np

from stratum.keywordindex import _top, bm25_idf
from stratum.codetokens import tokenize
from stratum.noteplaces import NotePlaces
from stratum.notethreads import compiled
from stratum.schema import NODE_KINDS

if TYPE_CHECKING:
    from stratum.noteindex import NoteIndex

_KIND_CODE = {k: i for i, k in enumerate(NODE_KINDS)}
ANN_MIN = 32768            # notes with a vector before the HNSW graph is used: the measured crossover with the
                           # 1-bit list (notes_vector_crossover.py: recall@50 0.99+ below it, the graph's ~0.9)
EXACT_COMPILED_MIN = 4096  # slots from which the exact list runs compiled (notekernels: ~2.5x numpy's)
SIGN_MIN = 8192            # slots from which the list scores only the SIGN_DEPTH x k best 1-bit estimates
SIGN_DEPTH = 16            # (approximate: recall@50 >= 0.99 on note vectors of both models; exact below)
TERM_MEMO = 4096           # query terms whose (slots, BM25 parts) a view keeps (slices: no copies)


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
                     ok: np.ndarray, tokens: Sequence[str] | None = None,
                     corpus: "tuple[int, Callable[[str], int]] | None" = None) -> tuple[np.ndarray, np.ndarray]:
        """The k best (slots, BM25 scores > 0) among ``ok`` slots, best first: what the searcher merges.
        ``tokens``: ``tokenize(query)`` when the caller has it already. ``corpus``: (document count,
        document frequency) of the shard the notes rank among; a term's idf is then the union's (the
        shard's rows and this view's notes, ``union_idf``), what a re-index that merges them gives it,
        instead of ``idf``: a word most notes say ("fix" in 300 rca notes of past fixes) weighs in
        them what it will after the merge, not what its rarity in code says."""
        q: dict[str, int] = {}
        for t in tokenize(query) if tokens is None else tokens:
            q[t] = q.get(t, 0) + 1
        if not q or not ok.any():
            return _NO_HITS
        # each term's (slots, BM25 parts) in this view, kept while the view is the index's current
        # one (per term, the postings' cut and the parts' look-up cost ~5 us a term in a search)
        memo = self.ix._terms
        how = idf if corpus is None else corpus
        if memo[0] is not self or memo[1] != how or memo[2] != avgdl:
            memo = self.ix._terms = (self, how, avgdl, {})
        parts = memo[3]
        posts = []
        for t, w in q.items():
            got = parts.get((t, w))
            if got is None:
                got = self._term_part(t, w, idf, avgdl, corpus)
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

    def _term_part(self, t: str, w: int, idf: Callable[[str], float], avgdl: float,
                   corpus: "tuple[int, Callable[[str], int]] | None" = None) -> tuple:
        """(slots, BM25 parts) of term ``t`` in this view's prefix (``w``: its count in the query;
        its idf ``idf(t)``, or with ``corpus`` the union's), or ()."""
        ix = self.ix
        p = ix.postings.get(t)
        if p is None:
            return ()
        slots, tf, m = p.head()             # no copy: the prefix never changes
        if m and slots[m - 1] >= self.n:    # slots ascend: cut to this view's prefix (an int32
            m = int(np.searchsorted(slots[:m], np.int32(self.n)))   # key: no cast of the array)
        if not m:
            return ()
        if corpus is None:
            wi = w * idf(t)
        else:       # the notes a merge indexes with their words: not the withdrawn ones (rows of no
            # text then), nor another author's quarantined ones (a viewer's scores do not move with them)
            seen = int(np.count_nonzero(self.eligible[slots[:m]]))
            wi = w * union_idf(corpus[0], corpus[1](t), self.n, seen)
        return slots[:m], ix.term_bm25(t, wi, avgdl, slots, tf, m)

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


def _dot(m: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``m @ q`` without BLAS (einsum, one thread): OpenBLAS's threaded gemv fought the other
    threads for 2 loaded cores, 11-48 ms at 10,000 notes instead of 0.1 ms; einsum a steady ~0.6."""
    return np.einsum("ij,j->i", m, q)


def union_idf(n_docs: int, df: int, n_notes: int, note_df: int) -> float:
    """BM25 idf of a term in ``df`` of a shard's ``n_docs`` rows and ``note_df`` of ``n_notes``
    unmerged notes: the idf ``KeywordIndex.idf`` gives it once a re-index merges them."""
    return bm25_idf(n_docs + n_notes, df + note_df)


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


__all__ = ["NoteView", "ANN_MIN", "EXACT_COMPILED_MIN", "SIGN_MIN", "SIGN_DEPTH", "TERM_MEMO"]
