"""The notes' exact vector list as compiled passes (numba): a bounded int8 scan, then f32 rescoring.

Why: numpy's exact path over 10,000 note vectors cost ~0.6-0.7 ms (einsum's product, kept off
OpenBLAS, whose threaded gemv fought the other threads for 2 loaded cores) plus ~0.08 ms of
``argpartition``, and even one compiled f32 pass read 15 MB a query: ~0.6 ms between a search's
other work (its cache cold), slower than the notes' HNSW graph (~0.4 ms, ~96% recall@50). Here
the scan reads an int8 copy (a quarter of the bytes) and each row carries a bound on its int8
error, so the answer is still exact: the rows whose int8 score could reach the k-th best exact
score are rescored in f32 (Cauchy-Schwarz: ``|q.v - q.v8| <= |q| |v - v8|``, plus a slack for the
float sums), and every other row provably ranks below it. The k best are kept in a small heap on
the way, so no pass sorts or partitions all n (the heap is called only for a row that enters it:
a call per row cost as much as the scan). Used for note sets of ``noteindex.EXACT_COMPILED_MIN``
slots or more, and loaded only in a process that asked for it (``noteindex.prepare_kernels``:
``stratum serve``): numba's import and the cached machine code cost ~0.2-1 s once per process.
"""

from __future__ import annotations

import numba
import numpy as np

from stratum.kernels import _compiled as exact_arithmetic

SLACK = np.float32(1e-4)    # > the float error of two 384-term f32 sums (worst case ~2e-5)
# the sums may be reordered (they vectorise), but -inf and NaN keep their meaning: the kernel's
# sentinels compare against them (fastmath=True's "no infs, no NaNs" would leave that undefined)
_FAST = {"reassoc", "contract"}


def _compiled(f):
    """Compiled without the GIL, sums reassociated (they vectorise), cached on disk where a cache can
    be written (else compiled once per process)."""
    try:
        return numba.njit(cache=True, nogil=True, fastmath=_FAST)(f)
    except RuntimeError:        # numba: "cannot cache function ...: no locator available"
        return numba.njit(nogil=True, fastmath=_FAST)(f)


@_compiled
def _dot(m: np.ndarray, i: int, q: np.ndarray) -> np.float32:  # pragma: no cover - compiled
    s = np.float32(0.0)
    for j in range(q.shape[0]):
        s += m[i, j] * q[j]
    return s


@_compiled
def _push_at(heap: np.ndarray, at: np.ndarray, h: int, k: int, s: np.float32, i: int) -> int:  # pragma: no cover
    """Keep the k largest scores in a min-heap of ``h`` entries, each entry's row ``i`` beside it
    in ``at``; returns the new entry count."""
    if h < k:
        c = h
        while c > 0:
            p = (c - 1) >> 1
            if heap[p] <= s:
                break
            heap[c], at[c] = heap[p], at[p]
            c = p
        heap[c], at[c] = s, i
        return h + 1
    if s > heap[0]:
        c = 0
        while True:
            a = 2 * c + 1
            if a >= k:
                break
            if a + 1 < k and heap[a + 1] < heap[a]:
                a += 1
            if heap[a] >= s:
                break
            heap[c], at[c] = heap[a], at[a]
            c = a
        heap[c], at[c] = s, i
    return h


@_compiled
def top_dots(m: np.ndarray, m8: np.ndarray, scale: np.ndarray, err: np.ndarray, q: np.ndarray,
             sel: np.ndarray, k: int, scores: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """The selected rows (< len(sel)) whose f32 cosine ``m[i] . q`` is at least the k-th best
    among them (the top k, ties at the cut included; in no order); ``scores[i]`` holds the f32
    cosine of each row returned. ``m8, scale, err``: ``noteindex._quantize`` of each row.

    Exact because: the k rows with the best int8 scores, rescored, give a bar (their k-th best
    f32 score) no higher than the true k-th best; a row outside them can reach the bar only if
    ``int8 score + |q| x error + SLACK`` does, and every such row is rescored too."""
    n, d = sel.shape[0], q.shape[0]
    if k <= 0:
        return np.empty(0, np.int64)
    qn = np.float32(0.0)
    for j in range(d):
        qn += q[j] * q[j]
    qn = np.float32(np.sqrt(qn))
    approx = np.empty(n, np.float32)
    heap = np.empty(k, np.float32)
    at = np.empty(k, np.int64)
    h = 0
    i = 0
    while i < n:                            # pass 1: int8 scores, the k best of them
        if i + 4 <= n and (sel[i] or sel[i + 1] or sel[i + 2] or sel[i + 3]):
            # 4 rows a step share each load of q (~15% faster than one row a step)
            s0 = np.float32(0.0)
            s1 = np.float32(0.0)
            s2 = np.float32(0.0)
            s3 = np.float32(0.0)
            for j in range(d):
                qj = q[j]
                s0 += np.float32(m8[i, j]) * qj
                s1 += np.float32(m8[i + 1, j]) * qj
                s2 += np.float32(m8[i + 2, j]) * qj
                s3 += np.float32(m8[i + 3, j]) * qj
            approx[i], approx[i + 1] = s0 * scale[i], s1 * scale[i + 1]
            approx[i + 2], approx[i + 3] = s2 * scale[i + 2], s3 * scale[i + 3]
            for r in range(i, i + 4):
                if not sel[r]:
                    approx[r] = -np.inf
                elif h < k or approx[r] > heap[0]:     # the call only for a row that enters
                    h = _push_at(heap, at, h, k, approx[r], r)
            i += 4
            continue
        if sel[i]:
            s = np.float32(0.0)
            for j in range(d):
                s += np.float32(m8[i, j]) * q[j]
            approx[i] = s * scale[i]
            if h < k or approx[i] > heap[0]:
                h = _push_at(heap, at, h, k, approx[i], i)
        else:
            approx[i] = -np.inf
        i += 1
    if h == 0:
        return np.empty(0, np.int64)
    cand = np.empty(n, np.int64)
    c = 0
    exact = np.empty(k, np.float32)
    exact_at = np.empty(k, np.int64)
    e = 0
    for t in range(h):                      # pass 2: the int8 top k rescored: the bar
        r = at[t]
        scores[r] = _dot(m, r, q)
        approx[r] = -np.inf                 # not again in pass 3
        cand[c] = r
        c += 1
        e = _push_at(exact, exact_at, e, k, scores[r], r)
    bar = exact[0]
    for r in range(n):                      # pass 3: any other row that could reach the bar
        if approx[r] + err[r] * qn + SLACK >= bar:
            scores[r] = _dot(m, r, q)
            cand[c] = r
            c += 1
            if e < k or scores[r] > exact[0]:
                e = _push_at(exact, exact_at, e, k, scores[r], r)
    kth = exact[0]
    count = 0
    for t in range(c):
        if scores[cand[t]] >= kth:
            cand[count] = cand[t]
            count += 1
    return cand[:count].copy()


@exact_arithmetic     # these sums must be numpy's floats, in its order: no fastmath
def top_sums(slots: np.ndarray, weights: np.ndarray, n: int, ok: np.ndarray, k: int,
             score: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """BM25 per slot as ``np.bincount(slots, weights, minlength=n)`` sums it (into ``score``,
    zeros on entry, in the postings' order: the same floats), and the slots among ``ok`` with a
    score > 0 at least the k-th best of them, ascending; only the postings' slots are visited."""
    for i in range(slots.shape[0]):
        score[slots[i]] += weights[i]
    if k <= 0:
        return np.empty(0, np.int64)
    heap = np.empty(k, np.float64)
    at = np.empty(k, np.int64)
    seen = np.zeros(n, np.bool_)
    h = 0
    for i in range(slots.shape[0]):
        s = slots[i]
        if seen[s]:
            continue
        seen[s] = True
        if ok[s] and score[s] > 0 and (h < k or score[s] > heap[0]):
            h = _push_at(heap, at, h, k, score[s], s)
    if h == 0:
        return np.empty(0, np.int64)
    kth = heap[0]
    count = 0
    for i in range(slots.shape[0]):
        s = slots[i]
        if seen[s]:
            seen[s] = False
            if ok[s] and score[s] >= kth and score[s] > 0:
                count += 1
    out = np.empty(count, np.int64)
    count = 0
    for i in range(slots.shape[0]):
        s = slots[i]
        if not seen[s]:
            seen[s] = True
            if ok[s] and score[s] >= kth and score[s] > 0:
                out[count] = s
                count += 1
    return out


def warm() -> None:
    """Compile (or read from numba's cache) each kernel for the argument types the index passes."""
    m = np.zeros((2, 4), np.float32)
    top_dots(m, np.zeros((2, 4), np.int8), np.ones(2, np.float32), np.zeros(2, np.float32),
             np.ones(4, np.float32), np.ones(2, bool), 1, np.zeros(2, np.float32))
    top_sums(np.zeros(1, np.int32), np.ones(1), 2, np.ones(2, bool), 1, np.zeros(2))


__all__ = ["top_dots", "top_sums", "SLACK", "warm"]
