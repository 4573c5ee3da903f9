"""Compiled loops (numba) for what numpy can only do one binary search per element.

Why: at 1M nodes a prose query's keyword list completes ~30,000 (candidate, term) scores, each a
binary search in a posting list of 10^3-10^5 rows: ~1.2 ms of numpy, the long pole of hybrid
search (docs/bench/e4.md). The candidates are sorted, so one galloping merge per term finds them
all in a few steps each. Ranking's first look at a seed file (its co-change partners and import/
test neighbours: a hop, a dedupe and two sorts) is one pass here too (~50 us instead of ~130 at
1M), and ``seed_tables`` makes both for every file of a shard at once (``warm.SeedTable``). Loaded only by large shards (``keywordindex.COMPILED_MIN_DOCS`` rows):
the import and the cached compile cost ~0.2-0.5 s once per process, more than small ones save.
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


@_compiled
def keyword_candidates(rows: np.ndarray, impact: np.ndarray, head: np.ndarray, start: np.ndarray, end: np.ndarray,
                       head_start: np.ndarray, read: np.ndarray, weight: np.ndarray, name_rows: np.ndarray,
                       boost: np.float32) -> tuple:  # pragma: no cover - compiled
    """One keyword reading round's candidates (``KeywordIndex.search``): every posting of the terms
    read whole (``read`` -1) and the first ``read`` head postings of the others, then the exact-name
    rows; (candidate rows ascending, their known scores, and per partly read term whether each
    candidate was in its head). A score is numpy's: the float32 contributions (impact, times the
    term's weight when it is not 1) summed in float64 in reading order (``np.bincount``), rounded to
    float32, plus ``boost`` for a name row."""
    t = start.shape[0]
    n = name_rows.shape[0]
    n_part = 0
    for j in range(t):
        if read[j] == -1:
            n += end[j] - start[j]
        else:
            n += read[j]
            n_part += 1
    allrows = np.empty(n, np.int64)
    contrib = np.empty(n, np.float64)
    seg = np.full(n, -1, np.int64)
    at = 0
    for j in range(t):                      # whole lists first, in term order
        if read[j] != -1:
            continue
        w = weight[j]
        for p in range(start[j], end[j]):
            allrows[at] = rows[p]
            contrib[at] = impact[p] if w == 1.0 else impact[p] * w
            at += 1
    part = 0
    for j in range(t):                      # then the heads, in term order
        if read[j] == -1:
            continue
        w = weight[j]
        for q in range(head_start[j], head_start[j] + read[j]):
            p = start[j] + head[q]
            allrows[at] = rows[p]
            contrib[at] = impact[p] if w == 1.0 else impact[p] * w
            seg[at] = part
            at += 1
        part += 1
    for i in range(name_rows.shape[0]):
        allrows[at] = name_rows[i]
        contrib[at] = 0.0
        at += 1
    order = np.argsort(allrows, kind="mergesort")     # stable: a row's contributions in reading order
    m = 0
    for i in range(n):
        if i == 0 or allrows[order[i]] != allrows[order[i - 1]]:
            m += 1
    cand = np.empty(m, np.int64)
    sums = np.zeros(m, np.float64)
    in_head = np.zeros((n_part, m), np.bool_)
    c = -1
    for i in range(n):
        o = order[i]
        if i == 0 or allrows[o] != allrows[order[i - 1]]:
            c += 1
            cand[c] = allrows[o]
        sums[c] += contrib[o]
        if seg[o] >= 0:
            in_head[seg[o], c] = True
    scores = sums.astype(np.float32)
    for i in range(name_rows.shape[0]):
        scores[np.searchsorted(cand, name_rows[i])] += boost
    return cand, scores, in_head


@_compiled
def keyword_complete(rows: np.ndarray, impact: np.ndarray, start: np.ndarray, end: np.ndarray, weight: np.ndarray,
                     rest: np.ndarray, cand: np.ndarray, scores: np.ndarray, in_head: np.ndarray, k: int,
                     prune: bool) -> tuple:  # pragma: no cover - compiled
    """The rest of a reading round: with ``prune``, drop the candidates whose known score plus what
    the partly read terms could still add (``rest``, float32, where a candidate was not in that
    head) stays below the k-th known score (MaxScore); then complete each partly read term's
    impact for the others (``add_term_impacts``, term by term in order); (kept rows, their scores,
    the k-th best score or -1 when fewer than k remain). float32 arithmetic as numpy's."""
    n = cand.shape[0]
    keep = np.ones(n, np.bool_)
    if prune:
        cap = scores.copy()
        for p in range(in_head.shape[0]):
            r = rest[p]
            for i in range(n):
                if not in_head[p, i]:
                    cap[i] += r
        theta0 = np.partition(scores, n - k)[n - k]
        for i in range(n):
            keep[i] = cap[i] >= theta0
    m = 0
    for i in range(n):
        if keep[i]:
            m += 1
    c2 = np.empty(m, np.int64)
    s2 = np.empty(m, np.float32)
    h2 = np.empty((in_head.shape[0], m), np.bool_)
    at = 0
    for i in range(n):
        if keep[i]:
            c2[at] = cand[i]
            s2[at] = scores[i]
            for p in range(in_head.shape[0]):
                h2[p, at] = in_head[p, i]
            at += 1
    for p in range(in_head.shape[0]):
        add_term_impacts(rows[start[p]:end[p]], impact[start[p]:end[p]], weight[p], c2, h2[p], s2)
    theta = np.float32(-1.0)
    if m >= k:
        theta = np.partition(s2, m - k)[m - k]
    return c2, s2, theta


@_compiled
def cochange_top(ptr: np.ndarray, nbr: np.ndarray, kind: np.ndarray, weight: np.ndarray, row: int, code: int,
                 k: int, keys: np.ndarray) -> tuple:  # pragma: no cover - compiled
    """A file's ``k`` strongest co-change partners (out edges of kind ``code``, by weight, ties in
    edge order: ``argsort(-weight, kind="stable")``) and where each edge's attributes sit in the
    sorted ``keys`` (src << 32 | dst): (partners, attribute index or -1, True where the index is
    of the reverse edge dst -> src, whose backward confidence is this direction's)."""
    s, e = ptr[row], ptr[row + 1]
    pos = np.empty(e - s, np.int64)
    m = 0
    for j in range(s, e):
        if kind[j] == code:
            pos[m] = j
            m += 1
    pos = pos[:m]
    w = np.empty(m, np.float64)
    for i in range(m):
        w[i] = -weight[pos[i]]
    top = pos[np.argsort(w, kind="mergesort")[:k]]
    rows = np.empty(top.shape[0], np.int64)
    at = np.full(top.shape[0], -1, np.int64)
    back = np.zeros(top.shape[0], np.bool_)
    n = keys.shape[0]
    for i in range(top.shape[0]):
        d = np.int64(nbr[top[i]])
        rows[i] = d
        if n == 0:
            continue
        want = (np.int64(row) << 32) | d
        x = np.searchsorted(keys, want)
        if x < n and keys[x] == want:
            at[i] = x
            continue
        want = (d << 32) | np.int64(row)
        x = np.searchsorted(keys, want)
        if x < n and keys[x] == want:
            at[i] = x
            back[i] = True
    return rows, at, back


@_compiled
def structure_top(out_ptr: np.ndarray, out_nbr: np.ndarray, out_kind: np.ndarray, in_ptr: np.ndarray,
                  in_nbr: np.ndarray, in_kind: np.ndarray, row: int, imports: int, tests: int,
                  is_file: np.ndarray, k: int) -> tuple:  # pragma: no cover - compiled
    """A file's import/test neighbours as ``signals.ShardSignals._structure`` orders them: other
    file rows one hop away either way (out edges first, then in), each once with its tests edge
    when it has one, else its first edge in that order; the ``k`` most specific first (tests, then
    the fewest edges of their own, then row). (distinct neighbours, rows, edge kind codes, outgoing)."""
    no = out_ptr[row + 1] - out_ptr[row]
    ni = in_ptr[row + 1] - in_ptr[row]
    key = np.empty(no + ni, np.int64)        # nbr << 32 | not-a-test << 31 | walk position
    m = 0
    for side in range(2):
        ptr, nbr, kd = (out_ptr, out_nbr, out_kind) if side == 0 else (in_ptr, in_nbr, in_kind)
        base = 0 if side == 0 else no
        for j in range(ptr[row], ptr[row + 1]):
            c = kd[j]
            if c != imports and c != tests:
                continue
            r = np.int64(nbr[j])
            if r == row or not is_file[r]:
                continue
            key[m] = (r << 32) | (np.int64(c != tests) << 31) | np.int64(base + j - ptr[row])
            m += 1
    key = np.sort(key[:m])
    cand = np.empty(m, np.int64)
    first = np.empty(m, np.int64)
    d = 0
    for i in range(m):
        r = key[i] >> 32
        if d == 0 or cand[d - 1] != r:
            cand[d] = r
            first[d] = key[i] & 0x7FFFFFFF
            d += 1
    order = np.empty(d, np.int64)            # not-a-test << 62 | degree << 31 | t (cand is by row)
    for t in range(d):
        r = cand[t]
        p = first[t]
        ek = out_kind[out_ptr[row] + p] if p < no else in_kind[in_ptr[row] + p - no]
        deg = (out_ptr[r + 1] - out_ptr[r]) + (in_ptr[r + 1] - in_ptr[r])
        order[t] = (np.int64(ek != tests) << 62) | (np.int64(deg) << 31) | t
    order = np.sort(order)[:k]
    rows = np.empty(order.shape[0], np.int64)
    kinds = np.empty(order.shape[0], np.int64)
    outgoing = np.empty(order.shape[0], np.bool_)
    for i in range(order.shape[0]):
        t = order[i] & 0x7FFFFFFF
        p = first[t]
        rows[i] = cand[t]
        outgoing[i] = p < no
        kinds[i] = out_kind[out_ptr[row] + p] if p < no else in_kind[in_ptr[row] + p - no]
    return d, rows, kinds, outgoing


@_compiled
def seed_tables(out_ptr: np.ndarray, out_nbr: np.ndarray, out_kind: np.ndarray, out_weight: np.ndarray,
                in_ptr: np.ndarray, in_nbr: np.ndarray, in_kind: np.ndarray, files: np.ndarray, cochange: int,
                imports: int, tests: int, is_file: np.ndarray, keys: np.ndarray, k_co: int,
                k_st: int) -> tuple:  # pragma: no cover - compiled
    """``cochange_top`` and ``structure_top`` of every row in ``files``, as tables (one row per file):
    co-change partners (-1 past the file's own), their attribute index and direction; import/test
    neighbours' count, rows (-1 past), kind codes and outgoing flags."""
    f = files.shape[0]
    co_rows = np.full((f, k_co), -1, np.int32)
    co_at = np.full((f, k_co), -1, np.int64)
    co_back = np.zeros((f, k_co), np.bool_)
    st_n = np.zeros(f, np.int64)
    st_rows = np.full((f, k_st), -1, np.int32)
    st_kind = np.zeros((f, k_st), np.int8)
    st_out = np.zeros((f, k_st), np.bool_)
    for i in range(f):
        row = files[i]
        rows, at, back = cochange_top(out_ptr, out_nbr, out_kind, out_weight, row, cochange, k_co, keys)
        for j in range(rows.shape[0]):
            co_rows[i, j] = rows[j]
            co_at[i, j] = at[j]
            co_back[i, j] = back[j]
        n, srows, skinds, sout = structure_top(out_ptr, out_nbr, out_kind, in_ptr, in_nbr, in_kind, row, imports,
                                               tests, is_file, k_st)
        st_n[i] = n
        for j in range(srows.shape[0]):
            st_rows[i, j] = srows[j]
            st_kind[i, j] = skinds[j]
            st_out[i, j] = sout[j]
    return co_rows, co_at, co_back, st_n, st_rows, st_kind, st_out


def warm() -> None:
    """Compile (or load from the cache) the kernels for the array types a memory-mapped index
    passes, so a server's first query does not pay for it (~0.5 s without a cache)."""
    rows, imp, head = np.array([1, 3], np.int32), np.ones(2, np.float32), np.array([1, 0], np.int32)
    for a in (rows, imp, head):
        a.setflags(write=False)
    add_term_impacts(rows, imp, np.float32(1.0), np.array([3], np.int64), np.zeros(1, bool), np.zeros(1, np.float32))
    one = np.array([0], np.int64)
    cand, scores, in_head = keyword_candidates(rows, imp, head, one, one + 2, one, one + 1, np.ones(1, np.float32),
                                               np.array([1], np.int64), np.float32(2.0))
    keyword_complete(rows, imp, one, one + 2, np.ones(1, np.float32), np.ones(1, np.float32), cand, scores,
                     in_head, 1, True)


def warm_hops(arrays: dict[str, np.ndarray]) -> None:
    """Compile (or load from the cache) the neighbour kernels for the array types of this graph
    (``graph.Graph.a``: memory-mapped, read-only), a two-node copy of them, before the first search."""
    def like(name: str, values) -> np.ndarray:
        a = np.asarray(values, arrays[name].dtype)
        a.setflags(write=arrays[name].flags.writeable)
        return a

    a = {side + ".ptr": like(side + ".ptr", [0, 1, 1]) for side in ("out", "in")}
    a.update({side + ".nbr": like(side + ".nbr", [1]) for side in ("out", "in")})
    a.update({side + ".kind": like(side + ".kind", [0]) for side in ("out", "in")})
    cochange_top(a["out.ptr"], a["out.nbr"], a["out.kind"], like("out.weight", [1.0]), 0, 0, 1, np.zeros(1, np.int64))
    structure_top(a["out.ptr"], a["out.nbr"], a["out.kind"], a["in.ptr"], a["in.nbr"], a["in.kind"], 0, 0, 1,
                  np.ones(2, bool), 1)


__all__ = ["add_term_impacts", "keyword_candidates", "keyword_complete", "cochange_top", "structure_top", "seed_tables",
           "warm", "warm_hops"]
