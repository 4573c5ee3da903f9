"""Compiled loops (numba) for what numpy can only do one binary search per element.

Why: at 1M nodes a prose query's keyword list completes ~30,000 (candidate, term) scores, each a
binary search in a posting list of 10^3-10^5 rows: ~1.2 ms of numpy, the long pole of hybrid
search (docs/bench/e4.md). The candidates are sorted, so one galloping merge per term finds them
all in a few steps each. Loaded only by large indexes (``keywordindex.COMPILED_MIN_DOCS``): the
import and the cached compile cost ~0.2-0.5 s once per process, more than small indexes save.
"""

from __future__ import annotations

import numba
import numpy as np


def _compiled(f):
    """``f`` compiled without the GIL, its machine code cached on disk where a cache can be
    written (next to this file, else the user's cache directory); a read-only install with no
    writable home compiles once per process instead of failing."""
    try:
        return numba.njit(cache=True, nogil=True)(f)
    except RuntimeError:        # numba: "cannot cache function ...: no locator available"
        return numba.njit(nogil=True)(f)


@_compiled
def add_term_impacts(prow: np.ndarray, pimp: np.ndarray, w: np.float32, cand: np.ndarray,
                     skip: np.ndarray, scores: np.ndarray) -> None:  # pragma: no cover - compiled
    """``scores[i] += pimp[p] * w`` where ``prow[p] == cand[i]``, for every i not in ``skip``.

    ``cand`` and ``prow`` ascending. The float32 arithmetic is numpy's (product, then sum), so the
    scores equal the binary-search path's bit for bit."""
    n = prow.shape[0]
    lo = 0
    for i in range(cand.shape[0]):
        if skip[i]:
            continue
        if lo >= n:
            break
        c = cand[i]
        if prow[lo] < c:
            # gallop: prow[lo] < c; widen until prow[hi] >= c (or the end), then bisect (lo, hi]
            step = 1
            hi = lo + 1
            while hi < n and prow[hi] < c:
                lo = hi
                step <<= 1
                hi = lo + step
            if hi > n:
                hi = n
            lo += 1
            while lo < hi:
                mid = (lo + hi) >> 1
                if prow[mid] < c:
                    lo = mid + 1
                else:
                    hi = mid
        if lo < n and prow[lo] == c:
            scores[i] += pimp[lo] * w


def warm() -> None:
    """Compile (or load from the cache) the kernels for the array types a memory-mapped index
    passes, so a server's first query does not pay for it (~0.5 s without a cache)."""
    rows, imp = np.array([1, 3], np.int32), np.ones(2, np.float32)
    rows.setflags(write=False)
    imp.setflags(write=False)
    add_term_impacts(rows, imp, np.float32(1.0), np.array([3], np.int64), np.zeros(1, bool), np.zeros(1, np.float32))


__all__ = ["add_term_impacts", "warm"]
