"""The compiled neighbour reads (``kernels.cochange_top`` / ``structure_top``) against the numpy
order ``signals.ShardSignals`` defines, on random graphs with the awkward cases: self loops,
duplicate edges, tied and NaN weights, other edge kinds mixed in, rows without edges, neighbours
that are not files. The real-index comparisons are in tests/integration/test_ranking.py."""

from __future__ import annotations

import numpy as np

from stratum import kernels as K

IMPORTS, COCHANGE, TESTS = 0, 1, 2


def _csr(n, src, dst, kind, w):
    o = np.argsort(src, kind="stable")
    ptr = np.zeros(n + 1, np.int64)
    np.add.at(ptr, src + 1, 1)
    return np.cumsum(ptr), dst[o].astype(np.int32), kind[o].astype(np.int8), w[o].astype(np.float32)


def _readonly(*arrays):
    for a in arrays:
        a.setflags(write=False)        # as memory-mapped warm files are
    return arrays


def _structure_ref(optr, onbr, okind, iptr, inbr, ikind, row, is_file, k):
    s, e, si, ei = optr[row], optr[row + 1], iptr[row], iptr[row + 1]
    rows = np.concatenate([onbr[s:e], inbr[si:ei]]).astype(np.int64)
    kinds = np.concatenate([okind[s:e], ikind[si:ei]])
    outg = np.concatenate([np.ones(e - s, bool), np.zeros(ei - si, bool)])
    m = np.isin(kinds, [IMPORTS, TESTS])
    rows, kinds, outg = rows[m], kinds[m], outg[m]
    ok = (rows != row) & is_file[rows]
    if not ok.any():
        return 0, [], [], []
    rows, kinds, outg = rows[ok], kinds[ok], outg[ok]
    pref = np.lexsort((kinds != TESTS, rows))
    cand, first = np.unique(rows[pref], return_index=True)
    kk, oo = kinds[pref][first], outg[pref][first]
    deg = (optr[cand + 1] - optr[cand]) + (iptr[cand + 1] - iptr[cand])
    order = np.lexsort((cand, deg, kk != TESTS))[:k]
    return len(cand), cand[order].tolist(), kk[order].tolist(), oo[order].tolist()


def test_compiled_neighbour_reads_equal_the_numpy_order_on_random_graphs():
    rng = np.random.default_rng(7)
    checked = 0
    for trial in range(150):
        n, m = int(rng.integers(2, 30)), int(rng.integers(0, 200))
        src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
        if trial % 3 == 0:
            dst[: m // 4] = src[: m // 4]                          # self loops
        kind = rng.integers(0, 3, m)
        w = rng.choice([0.5, 0.25, 1.0, np.nan], m)
        optr, onbr, okind, ow = _readonly(*_csr(n, src, dst, kind, w))
        iptr, inbr, ikind, _ = _readonly(*_csr(n, dst, src, kind, w))
        co = kind == COCHANGE
        keys = np.unique((src[co].astype(np.int64) << 32) | dst[co])
        is_file = rng.random(n) < 0.7
        for row in range(n):
            s, e = optr[row], optr[row + 1]
            sel = okind[s:e] == COCHANGE
            nb, wt = onbr[s:e][sel].astype(np.int64), ow[s:e][sel]
            got, at, back = K.cochange_top(optr, onbr, okind, ow, row, COCHANGE, 8, keys)
            assert got.tolist() == nb[np.argsort(-wt, kind="stable")[:8]].tolist()
            for d, j, b in zip(got.tolist(), at.tolist(), back.tolist()):
                fwd, bwd = (row << 32) | d, (d << 32) | row
                want = int(np.searchsorted(keys, fwd)) if fwd in keys else \
                    int(np.searchsorted(keys, bwd)) if bwd in keys else -1
                assert (j, b) == (want, want >= 0 and fwd not in keys)
            d, rows, kinds, outg = K.structure_top(optr, onbr, okind, iptr, inbr, ikind, row, IMPORTS, TESTS,
                                                   is_file, 5)
            assert (int(d), rows.tolist(), kinds.tolist(), outg.tolist()) == \
                _structure_ref(optr, onbr, okind, iptr, inbr, ikind, row, is_file, 5)
            checked += 1
    assert checked > 1000


def test_the_load_time_warm_up_compiles_what_a_search_calls():
    """``warm_hops`` compiles for the graph's own array types, so the first search compiles nothing."""
    optr, onbr, okind, ow = _readonly(*_csr(3, np.array([0, 1]), np.array([1, 2]), np.array([COCHANGE, IMPORTS]),
                                            np.array([0.5, 1.0])))
    iptr, inbr, ikind, iw = _readonly(*_csr(3, np.array([1, 2]), np.array([0, 1]), np.array([COCHANGE, IMPORTS]),
                                            np.array([0.5, 1.0])))
    K.warm_hops({"out.ptr": optr, "out.nbr": onbr, "out.kind": okind, "out.weight": ow,
                 "in.ptr": iptr, "in.nbr": inbr, "in.kind": ikind, "in.weight": iw})
    before = (len(K.cochange_top.signatures), len(K.structure_top.signatures))
    K.cochange_top(optr, onbr, okind, ow, 0, COCHANGE, 10, np.array([1], np.int64))
    K.structure_top(optr, onbr, okind, iptr, inbr, ikind, 1, IMPORTS, TESTS, np.ones(3, bool), 16)
    assert (len(K.cochange_top.signatures), len(K.structure_top.signatures)) == before


def test_the_seed_tables_hold_each_files_compiled_reads():
    """``seed_tables`` is ``cochange_top`` and ``structure_top`` of every listed row, row by row."""
    rng = np.random.default_rng(11)
    for trial in range(40):
        n, m = int(rng.integers(2, 40)), int(rng.integers(0, 300))
        src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
        kind = rng.integers(0, 3, m)
        w = rng.choice([0.5, 0.25, 1.0, np.nan], m)
        optr, onbr, okind, ow = _readonly(*_csr(n, src, dst, kind, w))
        iptr, inbr, ikind, _ = _readonly(*_csr(n, dst, src, kind, w))
        co = kind == COCHANGE
        keys = np.unique((src[co].astype(np.int64) << 32) | dst[co])
        is_file = rng.random(n) < 0.7
        files = np.flatnonzero(is_file).astype(np.int64)
        k_co, k_st = int(rng.integers(1, 6)), int(rng.integers(1, 6))
        co_rows, co_at, co_back, st_n, st_rows, st_kind, st_out = K.seed_tables(
            optr, onbr, okind, ow, iptr, inbr, ikind, files, COCHANGE, IMPORTS, TESTS, is_file, keys, k_co, k_st)
        for i, row in enumerate(files.tolist()):
            rows, at, back = K.cochange_top(optr, onbr, okind, ow, row, COCHANGE, k_co, keys)
            j = len(rows)
            assert co_rows[i, :j].tolist() == rows.tolist() and (co_rows[i, j:] == -1).all()
            assert co_at[i, :j].tolist() == at.tolist() and co_back[i, :j].tolist() == back.tolist()
            d, srows, skinds, sout = K.structure_top(optr, onbr, okind, iptr, inbr, ikind, row, IMPORTS, TESTS,
                                                     is_file, k_st)
            j = len(srows)
            assert st_n[i] == d and st_rows[i, :j].tolist() == srows.tolist() and (st_rows[i, j:] == -1).all()
            assert st_kind[i, :j].tolist() == skinds.tolist() and st_out[i, :j].tolist() == sout.tolist()
