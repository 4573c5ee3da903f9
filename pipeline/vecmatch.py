"""Which cached text hash a stored vector is, without a dict keyed by every cached vector's bytes.

A one-file re-index recovers the text hashes of the unchanged nodes from their stored vectors
(``pipeline.stages.known_hashes``). Keying a dict by each cache row's bytes cost ~1.6 KB of Python
bytes a row (1.5 GB at 1M nodes) for a change that touches one file. Here each row gets a 64-bit
fingerprint computed in numpy (its float32 words as unsigned integers, mixed by one integer
matrix product and a splitmix64 finish), the cache's fingerprints are sorted once (8 bytes a row
plus the 8-byte order), and each stored vector is looked up by binary search. A fingerprint only
proposes: a match is confirmed by comparing all of the vector's bits, so a collision never names a
wrong hash. A vector that two cache rows hold alike names none (the caller builds those texts).

Pure numpy over matrices; the cache may come in several chunks (Lance returns ~8k-row batches),
each used in place, never concatenated.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

_BLOCK = 2048          # rows per step where a temporary is made (gathers to compare, odd widths): ~3 MB at 384-d
_SEED = 0x5EED_F1A9


@functools.lru_cache(maxsize=8)
def _weights(words: int) -> np.ndarray:
    """Odd 64-bit multipliers, one per 64-bit word of a row (fixed seed: fingerprints are only
    compared within one process, but a fixed seed keeps runs reproducible)."""
    rng = np.random.default_rng(_SEED)
    return rng.integers(1, 2**63, size=words, dtype=np.uint64) * np.uint64(2) + np.uint64(1)


def _finish(h: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: spreads the product's bits (a bijection, so it adds no collisions)."""
    h = h ^ (h >> np.uint64(30))
    h = h * np.uint64(0xBF58476D1CE4E5B9)
    h = h ^ (h >> np.uint64(27))
    h = h * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


def fingerprints(rows: np.ndarray) -> np.ndarray:
    """A uint64 per row of a 2-d float32 matrix, from its exact bits (so -0.0 and 0.0 differ, as
    their bytes do). An even width is read as 64-bit words in place; an odd one widens its 32-bit
    words block by block."""
    rows = np.ascontiguousarray(rows, dtype=np.float32)
    n, d = rows.shape
    if n == 0:
        return np.zeros(0, np.uint64)
    with np.errstate(over="ignore"):
        if d % 2 == 0:
            h = rows.view(np.uint64) @ _weights(d // 2)
        else:
            k = _weights(d)
            u = rows.view(np.uint32)
            h = np.concatenate([u[i:i + _BLOCK].astype(np.uint64) @ k for i in range(0, n, _BLOCK)])
        return _finish(h)


class Chunks:
    """Row-aligned float32 matrices read as one (n, d) matrix: ``take`` gathers rows by global
    index without concatenating the chunks."""

    def __init__(self, mats: Sequence[np.ndarray]):
        self.mats = [np.ascontiguousarray(m, dtype=np.float32) for m in mats if len(m)]
        sizes = [len(m) for m in self.mats]
        self.starts = np.cumsum([0, *sizes])[:-1].astype(np.int64)
        self.n = int(sum(sizes))
        self.dim = self.mats[0].shape[1] if self.mats else 0

    def take(self, idx: np.ndarray) -> np.ndarray:
        if len(self.mats) == 1:
            return self.mats[0][idx]
        out = np.empty((len(idx), self.dim), np.float32)
        if not len(idx):
            return out
        which = np.searchsorted(self.starts, idx, side="right") - 1
        by = np.argsort(which, kind="stable")             # grouped by chunk: one slice per chunk touched
        cut = np.searchsorted(which[by], np.arange(len(self.mats) + 1))
        for c in np.flatnonzero(np.diff(cut)).tolist():
            sel = by[cut[c]:cut[c + 1]]
            out[sel] = self.mats[c][idx[sel] - self.starts[c]]
        return out


class CacheMatcher:
    """The cache's rows by fingerprint: ``owners(q)`` gives, per query row, the index of the one
    cache row whose bits equal it, or -1 (none, or two cache rows alike)."""

    def __init__(self, cache: Chunks):
        self.cache = cache
        fp = np.concatenate([fingerprints(m) for m in cache.mats]) if cache.mats else np.zeros(0, np.uint64)
        self.order = np.argsort(fp, kind="stable")
        self.sorted = fp[self.order]

    def owners(self, query: np.ndarray) -> np.ndarray:
        query = np.ascontiguousarray(query, dtype=np.float32)
        out = np.full(len(query), -1, np.int64)
        if not len(query) or not self.cache.n or query.shape[1] != self.cache.dim:
            return out
        fq = fingerprints(query)
        n = len(self.sorted)
        lo = np.searchsorted(self.sorted, fq, side="left")
        hit = self.sorted[np.minimum(lo, n - 1)] == fq
        more = hit & (self.sorted[np.minimum(lo + 1, n - 1)] == fq) & (lo + 1 < n)
        count = hit.astype(np.int64)
        if more.any():                                    # rare: count the whole run of equal prints
            count[more] = np.searchsorted(self.sorted, fq[more], side="right") - lo[more]
        hi = lo + count
        one = np.flatnonzero(count == 1)                  # the usual case: confirmed in numpy
        for s in range(0, len(one), _BLOCK):
            qi = one[s:s + _BLOCK]
            ci = self.order[lo[qi]]
            same = (query[qi].view(np.uint32) == self.cache.take(ci).view(np.uint32)).all(axis=1)
            out[qi[same]] = ci[same]
        for q in np.flatnonzero(count > 1).tolist():     # twins or a fingerprint collision: by bits
            cands = self.order[lo[q]:hi[q]]
            hit = cands[(self.cache.take(cands).view(np.uint32) == query[q].view(np.uint32)).all(axis=1)]
            if len(hit) == 1:
                out[q] = hit[0]
        return out


__all__ = ["fingerprints", "Chunks", "CacheMatcher"]
