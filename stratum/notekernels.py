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
a call per row cost as much as the scan). Used for note sets of ``noteview.EXACT_COMPILED_MIN``
slots or more, and loaded only in a process that asked for it (``notethreads.prepare_kernels``:
``stratum serve``): numba's import and the cached machine code cost ~0.2-1 s once per process.

From ``noteview.SIGN_MIN`` notes even the int8 scan (3.8 MB at 10,000, out of cache between a
search's other lists) is skipped: ``top_dots_signed`` scans 1-bit codes (48 bytes a note) and
runs the same rescoring over the SIGN_DEPTH x k notes they estimate best, an approximate list
(recall@50 >= 0.99 on note vectors: docs/bench/notes_reliability.md, "Session 10").
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from stratum.kernels import _compiled as exact_arithmetic

SLACK = np.float32(1e-4)    # > the float error of two 384-term f32 sums (worst case ~2e-5)
# the sums may be reordered (they vectorise), but -inf and NaN keep their meaning: the kernel's
# sentinels compare against them (fastmath=True's "no infs, no NaNs" would leave that undefined)
_FAST = {"reassoc", "contract"}
PREFETCH_ROWS = 16          # rows ahead whose int8 lines top_dots_among asks for (8-32 measured alike)


def _compiled(f, fastmath: set[str] = _FAST):
    """Compiled without the GIL, sums reassociated (they vectorise), cached on disk where a cache can
    be written (else compiled once per process)."""
    try:
        return numba.njit(cache=True, nogil=True, fastmath=fastmath)(f)
    except RuntimeError:        # numba: "cannot cache function ...: no locator available"
        return numba.njit(nogil=True, fastmath=fastmath)(f)


def _in_order(f):
    """``_compiled`` with its sums in their written order (a multiply and an add still fused)."""
    return _compiled(f, {"contract"})


def _ctpop(typingctx, x):       # pragma: no cover - compiled: LLVM's ctpop (popcnt, vpopcntq when vectorised)
    return types.uint64(types.uint64), lambda context, builder, sig, args: builder.ctpop(args[0])


_popcount: Any = intrinsic(_ctpop)      # called as _popcount(x) in compiled code (typingctx is numba's)


def _prefetch_at(typingctx, a, i, j):   # pragma: no cover - compiled: LLVM's prefetch (a hint: never faults)
    if not isinstance(a, types.Array) or a.ndim > 2:
        return None

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, value=args[0])
        at = [context.cast(builder, v, t, types.intp) for v, t in zip(args[1:], sig.args[1:])][:sig.args[0].ndim]
        ptr = cgutils.get_item_pointer(context, builder, sig.args[0], ary, at)
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                            "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])     # read, keep in cache, data
        return context.get_dummy_value()
    return types.void(a, i, j), codegen


_prefetch: Any = intrinsic(_prefetch_at)    # _prefetch(a, i, j): a[i, j]'s cache line on its way (1-d a: a[i])


def _packing(typingctx, v, i, low, out, c):  # pragma: no cover - compiled: LLVM's vector.compress
    if not all(isinstance(a, types.Array) and a.ndim == 1 and a.dtype == types.int32 for a in (v, out)):
        return None

    def codegen(context, builder, sig, args):
        i32 = ir.IntType(32)
        vec, mask_t = ir.VectorType(i32, 16), ir.VectorType(ir.IntType(1), 16)
        at, c_at = (context.cast(builder, args[j], sig.args[j], types.intp) for j in (1, 4))
        src = cgutils.get_item_pointer(context, builder, sig.args[0],
                                       context.make_array(sig.args[0])(context, builder, value=args[0]), [at])
        dst = cgutils.get_item_pointer(context, builder, sig.args[3],
                                       context.make_array(sig.args[3])(context, builder, value=args[3]), [c_at])

        def splat(x):
            one = builder.insert_element(ir.Constant(vec, None), x, i32(0))
            return builder.shuffle_vector(one, ir.Constant(vec, None), ir.Constant(vec, [0] * 16))

        low32 = builder.trunc(context.cast(builder, args[2], sig.args[2], types.int64), i32)
        mask = builder.icmp_signed(">=", builder.load(builder.bitcast(src, vec.as_pointer()), align=4), splat(low32))
        rows = builder.add(splat(builder.trunc(at, i32)), ir.Constant(vec, list(range(16))))
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vec, [vec, mask_t, vec]),
                                            "llvm.experimental.vector.compress.v16i32")
        builder.store(builder.call(fn, [rows, mask, ir.Constant(vec, None)]), builder.bitcast(dst, vec.as_pointer()),
                      align=4)
        return builder.zext(builder.ctpop(builder.bitcast(mask, ir.IntType(16))), ir.IntType(64))
    return types.int64(v, i, low, out, c), codegen


# _pack_at_least(v, i, low, out, c): the j in i..i+15 with v[j] >= low (v int32) into out[c:] (int32), in order;
# returns how many. All 16 lanes are stored: out needs 16 slots past the last. Register vpcompressd on
# AVX-512 (its store form is microcoded on Zen 4: slower than a scalar loop), LLVM's expansion elsewhere.
_pack_at_least: Any = intrinsic(_packing)


@_compiled
def _prefetch_row(m: np.ndarray, i: int) -> None:  # pragma: no cover - compiled
    """Every cache line of row i (its last byte too: a row need not start at a line)."""
    for j in range(0, m.shape[1], 64 // m.itemsize):
        _prefetch(m, i, j)
    _prefetch(m, i, m.shape[1] - 1)


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
    if k <= 0:
        return np.empty(0, np.int64)
    est, elo, ehi, m_sel = _estimates(bits, ones, fac, q, sel)
    return top_dots_among(m, m8, scale, err, q, _best_estimates(est, elo, ehi, m_sel, sel, r), k, scores)


@_in_order
def _query_bits(q: np.ndarray, words: int) -> tuple:  # pragma: no cover - compiled
    """The query at 4 bits, ``lo + step * v`` (v in 0..15): (lo, step, the sum of those values,
    v's bit planes (4, words): dimension j is bit j % 64 of word j // 64, words past the query's zero).
    The sum in its written order (each term fused as ``step * v + lo``): reassociated, its floats
    would follow how LLVM vectorises the loop, and the candidates with them; in order they are the
    ones whose recall was measured."""
    d = q.shape[0]
    lo, hi = q[0], q[0]
    for j in range(d):
        lo, hi = min(lo, q[j]), max(hi, q[j])
    step = (hi - lo) / np.float32(15.0)
    if not step > 0:
        step = np.float32(1.0)
    v = np.empty(d, np.int64)
    for j in range(d):
        v[j] = int(np.rint((q[j] - lo) / step))
    qsum = np.float32(0.0)
    for j in range(d):
        qsum += lo + step * np.float32(v[j])
    planes = np.zeros((4, words), np.uint64)
    for t in range((d + 63) // 64):         # a word's bits in registers (a branch a bit: ~7 us, not ~2)
        p0 = p1 = p2 = p3 = np.uint64(0)
        for b in range(min(64, d - 64 * t)):
            x, at = np.uint64(v[64 * t + b]), np.uint64(b)
            p0 |= (x & np.uint64(1)) << at
            p1 |= ((x >> np.uint64(1)) & np.uint64(1)) << at
            p2 |= ((x >> np.uint64(2)) & np.uint64(1)) << at
            p3 |= ((x >> np.uint64(3)) & np.uint64(1)) << at
        planes[0, t], planes[1, t], planes[2, t], planes[3, t] = p0, p1, p2, p3
    return lo, step, qsum, planes


@_compiled
def _word_dot(b: np.uint64, planes: np.ndarray, t: int) -> np.uint64:  # pragma: no cover - compiled
    """q . s over word t's 64 dimensions (s: the set bits of b), the query's 4 bit planes weighted."""
    return (_popcount(b & planes[0, t]) + (_popcount(b & planes[1, t]) << np.uint64(1)) +
            (_popcount(b & planes[2, t]) << np.uint64(2)) + (_popcount(b & planes[3, t]) << np.uint64(3)))


@_compiled
def _order_key(x: np.int32) -> np.int32:  # pragma: no cover - compiled
    """A float32's bits as an int32 in the floats' order (and back: it is its own inverse)."""
    return x ^ ((x >> 31) & np.int32(0x7FFFFFFF))


@_compiled
def _estimates(bits: np.ndarray, ones: np.ndarray, fac: np.ndarray, q: np.ndarray,
               sel: np.ndarray) -> tuple:  # pragma: no cover - compiled
    """Each row's 1-bit estimate (``top_dots_signed``), the lowest and highest of the selected rows'
    (NaN skipped; +inf, -inf if none) and how many rows are selected.

    Six words of a row a step (a word past the codes' is the last one against zero planes): one
    pass over the rows for 384 dimensions, the sums in registers, not a pass a word through an
    accumulator array (~4 us more). The low/high are int32 min/max of the floats' order keys: they
    vectorise, where float min/max (NaN-aware without fastmath's no-NaN) kept the loop scalar (~12 us
    more). ~20 us at 10,000 rows (those passes: ~37), ~45 with the caches cold (480 KB of codes)."""
    n, w = sel.shape[0], bits.shape[0]
    words = (w + 5) // 6 * 6
    lo, step, qsum, planes = _query_bits(q, words)
    acc = np.empty(n, np.int32)
    for g in range(0, words, 6):
        b0, b1, b2 = bits[min(g, w - 1), :n], bits[min(g + 1, w - 1), :n], bits[min(g + 2, w - 1), :n]
        b3, b4, b5 = bits[min(g + 3, w - 1), :n], bits[min(g + 4, w - 1), :n], bits[min(g + 5, w - 1), :n]
        first = g == 0
        for i in range(n):
            a = np.int32(_word_dot(b0[i], planes, g) + _word_dot(b1[i], planes, g + 1) +
                         _word_dot(b2[i], planes, g + 2) + _word_dot(b3[i], planes, g + 3) +
                         _word_dot(b4[i], planes, g + 4) + _word_dot(b5[i], planes, g + 5))
            acc[i] = a if first else acc[i] + a
    est = np.empty(n, np.float32)
    bits_of = est.view(np.int32)
    top, bottom = _order_key(np.int32(0x7F800000)), _order_key(np.int32(-0x800000))    # +inf's, -inf's
    klo, khi, m_sel = top, bottom, 0
    for i in range(n):
        est[i] = (np.float32(2.0) * (lo * np.float32(ones[i]) + step * np.float32(acc[i])) - qsum) * fac[i]
        x = bits_of[i]
        key = _order_key(x)
        ok = sel[i] and (x & np.int32(0x7FFFFFFF)) <= np.int32(0x7F800000)     # not NaN
        klo = min(klo, key if ok else top)
        khi = max(khi, key if ok else bottom)
        m_sel += sel[i]
    lohi = np.empty(2, np.int32)
    lohi[0], lohi[1] = _order_key(klo), _order_key(khi)
    lohi_f = lohi.view(np.float32)
    return est, lohi_f[0], lohi_f[1], m_sel


@_compiled
def _best_estimates(est: np.ndarray, elo: np.float32, ehi: np.float32, m_sel: int, sel: np.ndarray,
                    r: int) -> np.ndarray:  # pragma: no cover - compiled
    """The selected rows at or above the r-th best estimate's bin (of 4,096 over [elo, ehi]: the
    bin at the cut whole), ascending; every selected row when there are at most r."""
    n, nb = sel.shape[0], 4096
    cut = -1                                # the bin from which rows are candidates (< 1: every row)
    bins = np.empty(n, np.int32)
    if m_sel > r and ehi > elo:
        scale_b = np.float32(nb) / (ehi - elo)
        top = np.float32(nb)
        for i in range(n):                  # f32 compares and selects only: vectorises (NaN: bin 0)
            x = (est[i] - elo) * scale_b
            x = x if x >= np.float32(0.0) else np.float32(0.0)
            x = x if x < top else top
            bins[i] = np.int32(x) if sel[i] else np.int32(-1)
        count = np.zeros(nb + 2, np.int32)  # count[b + 1]: rows in bin b (-1: not selected)
        for i in range(n):                  # an unsigned index: no negative-index wraparound (1.4x)
            count[np.uint32(bins[i] + 1)] += 1
        cut, total = nb, 0
        while cut > 0:
            total += count[cut + 1]
            if total >= r:
                break
            cut -= 1
        m_sel = total + count[1] if cut == 0 else total
    c = 0
    if cut <= 0:
        rows = np.empty(m_sel + 1, np.int64)
        for i in range(n):
            rows[c] = i
            c += sel[i]
        return rows[:c]
    packed = np.empty(m_sel + 16, np.int32)
    i = 0
    while i + 16 <= n:                      # 16 bins a step: ~1 us at 10,000 rows, ~5 branch-free one by one
        c += _pack_at_least(bins, i, cut, packed, c)
        i += 16
    while i < n:
        packed[c] = i
        c += bins[i] >= cut
        i += 1
    return packed[:c].astype(np.int64)


@_compiled
def top_dots_among(m: np.ndarray, m8: np.ndarray, scale: np.ndarray, err: np.ndarray, q: np.ndarray,
                   rows: np.ndarray, k: int, scores: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """``top_dots`` over the given rows only (the same int8 bound and f32 rescoring).

    Rows scattered over the arrays (cache cold between searches): each row's lines are asked for
    ahead of its scoring, PREFETCH_ROWS ahead in the int8 pass and all at once before a rescoring
    (~40 us against ~70 at 10,000 notes, 320 rows, the caches cold)."""
    h_rows, d = rows.shape[0], q.shape[0]
    if k <= 0 or h_rows == 0:
        return np.empty(0, np.int64)
    for t in range(min(PREFETCH_ROWS, h_rows)):
        i = rows[t]
        _prefetch_row(m8, i)
        _prefetch(scale, i, 0)
        _prefetch(err, i, 0)
    qn = np.float32(0.0)
    for j in range(d):
        qn += q[j] * q[j]
    qn = np.float32(np.sqrt(qn))
    approx = np.empty(h_rows, np.float32)
    for t in range(h_rows):                 # int8 scores first, the heap after (its branches stall
        if t + PREFETCH_ROWS < h_rows:      # the loads of the next rows: 1.6x slower inline)
            i = rows[t + PREFETCH_ROWS]
            _prefetch_row(m8, i)
            _prefetch(scale, i, 0)
            _prefetch(err, i, 0)
        i = rows[t]
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
    for u in range(h):
        _prefetch_row(m, rows[at[u]])
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
    more = np.empty(h_rows, np.int64)
    n_more = 0
    for t in range(h_rows):                 # any other row that could reach it
        i = rows[t]
        if approx[t] + err[i] * qn + SLACK >= bar:
            more[n_more] = i
            n_more += 1
            _prefetch_row(m, i)
    for u in range(n_more):
        i = more[u]
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
