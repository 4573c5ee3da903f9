"""The notes' vector list as compiled passes (numba): a bounded int8 scan, then f32 rescoring.

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

From ``noteindex.SIGN_MIN`` notes even the int8 scan (3.8 MB at 10,000, out of cache between a
search's other lists) is skipped: ``top_dots_signed`` scans 1-bit codes (48 bytes a note) and
runs the same rescoring over the SIGN_DEPTH x k notes they estimate best, an approximate list
(recall@50 >= 0.99 on note vectors: docs/bench/notes_reliability.md, "Session 10").
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic

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


def _ctpop(typingctx, x):       # pragma: no cover - compiled: LLVM's ctpop (popcnt, vpopcntq when vectorised)
    return types.uint64(types.uint64), lambda context, builder, sig, args: builder.ctpop(args[0])


_popcount: Any = intrinsic(_ctpop)      # called as _popcount(x) in compiled code (typingctx is numba's)


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
def _reaching(cand: np.ndarray, c: int, scores: np.ndarray, kth: np.float32) -> np.ndarray:  # pragma: no cover
    """The first ``c`` candidates whose exact score reaches the k-th best, in their order (a copy)."""
    count = 0
    for t in range(c):
        if scores[cand[t]] >= kth:
            cand[count] = cand[t]
            count += 1
    return cand[:count].copy()


@_compiled
def top_dots(m: np.ndarray, m8: np.ndarray, scale: np.ndarray, err: np.ndarray, q: np.ndarray,
             sel: np.ndarray, k: int, scores: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """The selected rows (< len(sel)) whose f32 cosine ``m[i] . q`` is at least the k-th best
    among them (the top k, ties at the cut included; in no order); ``scores[i]`` holds the f32
    cosine of each row returned. ``m8, scale, err``: ``quantize`` of each row.

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
    return _reaching(cand, c, scores, exact[0])


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


@_compiled
def top_dots_signed(m: np.ndarray, m8: np.ndarray, scale: np.ndarray, err: np.ndarray, bits: np.ndarray,
                    ones: np.ndarray, fac: np.ndarray, q: np.ndarray, sel: np.ndarray, k: int, r: int,
                    scores: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """``top_dots`` among the ~r selected rows (< len(sel)) with the best 1-bit estimates: an
    approximate list (a row outside them is never scored). ``bits, ones, fac``: ``sign_codes``.

    The estimate of ``q . (v - c)`` (the order of ``q . v``: ``q . c`` is the same for every
    row) is ``(q . s) |v - c|^2 / |v - c|_1`` with s = sign(v - c), the query at 4 bits: q . s
    from 4 popcounts a word (RaBitQ's asymmetric estimator, without its rotation: it did not
    help on note vectors). The candidates are the rows at or above the estimates' r-th best
    (a 4,096-bin histogram: the bin at the cut is taken whole, so a few more than r)."""
    n, d, w = sel.shape[0], q.shape[0], bits.shape[0]
    if k <= 0:
        return np.empty(0, np.int64)
    lo, hi = q[0], q[0]
    for j in range(d):
        lo, hi = min(lo, q[j]), max(hi, q[j])
    step = (hi - lo) / np.float32(15.0)
    if not step > 0:
        step = np.float32(1.0)
    planes = np.zeros((4, w), np.uint64)
    qsum = np.float32(0.0)
    for j in range(d):
        v = int(np.rint((q[j] - lo) / step))
        qsum += lo + step * np.float32(v)
        for p in range(4):
            if (v >> p) & 1:
                planes[p, j >> 6] |= np.uint64(1) << np.uint64(j & 63)
    acc = np.zeros(n, np.int64)
    for t in range(w):                      # words of every row in turn (rows contiguous: vectorises)
        p0, p1, p2, p3 = planes[0, t], planes[1, t], planes[2, t], planes[3, t]
        row = bits[t]
        for i in range(n):
            b = row[i]
            acc[i] += np.int64(_popcount(b & p0)) + (np.int64(_popcount(b & p1)) << 1) + \
                (np.int64(_popcount(b & p2)) << 2) + (np.int64(_popcount(b & p3)) << 3)
    est = np.empty(n, np.float32)
    elo, ehi = np.float32(np.inf), np.float32(-np.inf)
    for i in range(n):                      # branch-free: vectorises
        e = (np.float32(2.0) * (lo * np.float32(ones[i]) + step * np.float32(acc[i])) - qsum) * fac[i]
        est[i] = e
        elo = min(elo, e if sel[i] else np.float32(np.inf))
        ehi = max(ehi, e if sel[i] else np.float32(-np.inf))
    m_sel = 0
    for i in range(n):
        m_sel += sel[i]
    nb = 4096
    cut = -1                                # the histogram's bin from which rows are candidates
    scale_b = np.float32(0.0)
    if m_sel > r and ehi > elo:
        scale_b = np.float32(nb) / (ehi - elo)
        count = np.zeros(nb + 1, np.int64)
        for i in range(n):
            if sel[i]:
                count[_bin(est[i], elo, scale_b, nb)] += 1
        cut, total = nb, 0
        while cut > 0:
            total += count[cut]
            if total >= r:
                break
            cut -= 1
        m_sel = total + count[0] if cut == 0 else total
    rows = np.empty(m_sel, np.int64)
    c = 0
    for i in range(n):
        if sel[i] and (cut < 0 or _bin(est[i], elo, scale_b, nb) >= cut):
            rows[c] = i
            c += 1
    return top_dots_among(m, m8, scale, err, q, rows[:c], k, scores)


@_compiled
def _bin(e: np.float32, lo: np.float32, scale: np.float32, nb: int) -> int:  # pragma: no cover - compiled
    x = (e - lo) * scale
    if x >= 0 and x < nb:
        return int(x)
    return nb if x >= nb else 0            # NaN: the lowest bin


@_compiled
def top_dots_among(m: np.ndarray, m8: np.ndarray, scale: np.ndarray, err: np.ndarray, q: np.ndarray,
                   rows: np.ndarray, k: int, scores: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """``top_dots`` over the given rows only (the same int8 bound and f32 rescoring)."""
    h_rows, d = rows.shape[0], q.shape[0]
    if k <= 0 or h_rows == 0:
        return np.empty(0, np.int64)
    qn = np.float32(0.0)
    for j in range(d):
        qn += q[j] * q[j]
    qn = np.float32(np.sqrt(qn))
    approx = np.empty(h_rows, np.float32)
    for t in range(h_rows):                 # int8 scores first, the heap after (its branches stall
        i = rows[t]                         # the loads of the next rows: 1.6x slower inline)
        s = np.float32(0.0)
        for j in range(d):
            s += np.float32(m8[i, j]) * q[j]
        approx[t] = s * scale[i]
    heap = np.empty(k, np.float32)
    at = np.empty(k, np.int64)
    h = 0
    for t in range(h_rows):
        if h < k or approx[t] > heap[0]:
            h = _push_at(heap, at, h, k, approx[t], t)
    cand = np.empty(h_rows, np.int64)
    c = 0
    exact = np.empty(k, np.float32)
    exact_at = np.empty(k, np.int64)
    e = 0
    for u in range(h):                      # the int8 top k rescored: the bar
        t = at[u]
        i = rows[t]
        scores[i] = _dot(m, i, q)
        approx[t] = -np.inf
        cand[c] = i
        c += 1
        e = _push_at(exact, exact_at, e, k, scores[i], i)
    bar = exact[0]
    for t in range(h_rows):                 # any other row that could reach it
        i = rows[t]
        if approx[t] + err[i] * qn + SLACK >= bar:
            scores[i] = _dot(m, i, q)
            cand[c] = i
            c += 1
            if e < k or scores[i] > exact[0]:
                e = _push_at(exact, exact_at, e, k, scores[i], i)
    return _reaching(cand, c, scores, exact[0])


def quantize(v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows as int8 with a per-row scale, and a bound on the norm of what that loses (a hair
    above the float32 norm): (v8, scale, error), what ``top_dots`` reads."""
    v = np.asarray(v, np.float32)
    top = np.abs(v).max(axis=1)
    scale = np.where(top > 0, top / np.float32(127.0), np.float32(1.0)).astype(np.float32)
    v8 = np.clip(np.rint(v / scale[:, None]), -127, 127).astype(np.int8)
    # + 1e-4 |v|: the float error of the f32 sums grows with |q| |v| (the kernel's SLACK is absolute)
    err = np.linalg.norm(v - v8.astype(np.float32) * scale[:, None], axis=1) * np.float32(1.0001) + \
        np.float32(1e-4) * np.linalg.norm(v, axis=1) + np.float32(1e-7)
    return v8, scale, err.astype(np.float32)


def sign_codes(v: np.ndarray, center: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows' 1-bit codes about ``center``, what ``top_dots_signed`` reads: (bits, ones, fac) with
    bits uint64 (words, rows) (dimension j: word j // 64, bit j % 64; transposed so that the scan
    reads each word of consecutive rows together), ones the set bits a row, fac
    ``|v - c|^2 / |v - c|_1``."""
    r = np.asarray(v, np.float32) - center
    w = (r.shape[1] + 63) // 64
    pos = np.zeros((len(r), w * 64), bool)
    pos[:, :r.shape[1]] = r > 0
    bits = np.packbits(pos, axis=1, bitorder="little").view("<u8").astype(np.uint64)
    l1 = np.abs(r).sum(axis=1)
    fac = np.where(l1 > 0, np.einsum("ij,ij->i", r, r) / np.maximum(l1, np.float32(1e-30)), 0)
    return np.ascontiguousarray(bits.T), pos.sum(axis=1).astype(np.int32), fac.astype(np.float32)


def warm() -> None:
    """Compile (or read from numba's cache) each kernel for the argument types the index passes."""
    m = np.zeros((2, 4), np.float32)
    m8, scale, err = quantize(m)
    top_dots(m, m8, scale, err, np.ones(4, np.float32), np.ones(2, bool), 1, np.zeros(2, np.float32))
    bits, ones, fac = sign_codes(m, np.zeros(4, np.float32))
    top_dots_signed(m, m8, scale, err, bits, ones, fac, np.ones(4, np.float32), np.ones(2, bool), 1, 1,
                    np.zeros(2, np.float32))
    top_sums(np.zeros(1, np.int32), np.ones(1), 2, np.ones(2, bool), 1, np.zeros(2))


__all__ = ["top_dots", "top_dots_signed", "top_dots_among", "top_sums", "quantize", "sign_codes", "SLACK", "warm"]
