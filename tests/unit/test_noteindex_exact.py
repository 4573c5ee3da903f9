"""The notes' compiled lists (``notekernels``) give the plain computation's answers: the exact
vector list (int8 scan with error bounds, f32 rescoring) the brute-force top k, the keyword list
numpy's bincount floats; the graph answers only above ANN_MIN, and then the notes the exact list
gives where the graph is exact."""

from __future__ import annotations

import numpy as np
import pytest

import stratum.noteindex as NI
import stratum.notethreads as TH
import stratum.noteview as NV
from stratum.noteindex import NoteIndex


def _vectors(rng, n: int, dim: int) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    dup = np.arange(0, n - 3, 7)
    v[dup + 3] = v[dup]                                         # exact duplicates: tied cosines
    spiky = np.full(dim, 0.004, np.float32)
    spiky[0] = 1.0
    v[5::50] = spiky                                            # int8 rounds the small parts to 0
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _brute(vecs: np.ndarray, q: np.ndarray, sel: np.ndarray, k: int) -> list[int]:
    cand = np.flatnonzero(sel)
    s = np.round(np.einsum("ij,j->i", vecs[cand].astype(np.float64), q.astype(np.float64)), 9)  # duplicates tie
    return cand[np.lexsort((cand, -s))[:k]].tolist()


@pytest.mark.parametrize("dim", [16, 384])
def test_the_compiled_exact_list_is_the_brute_force_top_k(monkeypatch, dim):
    monkeypatch.setattr(NV, "EXACT_COMPILED_MIN", 64)
    assert TH.compiled(wait=True) is not None
    rng = np.random.default_rng(dim)
    vecs = _vectors(rng, 900, dim)
    ix = NoteIndex(dim)
    for j in range(900):
        ix.add(f"n{j:04d}", "", "rca", "", "a", vecs[j] if j % 11 else None)   # some without a vector
    view = ix.view()
    has = view.has_vector[:view.n]
    for t in range(12):
        q = (vecs[t * 37] + 0.3 * rng.standard_normal(dim).astype(np.float32)) if t % 2 else \
            rng.standard_normal(dim).astype(np.float32)        # near a note (near-tied rows) or anywhere
        sel = has & (rng.random(900) < (1.0 if t < 6 else 0.6))
        for k in (1, 10, 50, 2000):
            slots, scores = view.exact_hits(q, k, sel)
            assert slots.tolist() == _brute(vecs, q, sel, k)
            assert scores.dtype == np.float32 and np.allclose(scores, vecs[slots] @ q, atol=1e-5)
            assert (np.diff(scores) <= 0).all()
    monkeypatch.setattr(NV, "EXACT_COMPILED_MIN", 1 << 30)      # numpy's path: the same slots
    q = rng.standard_normal(dim).astype(np.float32)
    assert view.exact_hits(q, 50, has)[0].tolist() == _brute(vecs, q, has, 50)


def test_vectors_set_later_are_quantized_before_the_next_exact_query(monkeypatch):
    monkeypatch.setattr(NV, "EXACT_COMPILED_MIN", 8)
    assert TH.compiled(wait=True) is not None
    rng = np.random.default_rng(4)
    vecs = _vectors(rng, 40, 16)
    ix = NoteIndex(16)
    for j in range(40):
        ix.add(f"n{j:02d}", "", "rca", "", "a")
    view = ix.view()
    q = vecs[17]
    assert view.exact_hits(q, 5, view.has_vector[:40].copy())[0].tolist() == []
    for j in range(40):
        ix.set_vector(f"n{j:02d}", vecs[j])
    for _ in range(100):                # the arrays grow (and are replaced) past the view
        ix.add(f"m{_:03d}", "", "rca", "", "a", vecs[_ % 40])
    assert view.exact_hits(q, 5, view.has_vector[:40].copy())[0].tolist() == _brute(vecs, q, np.ones(40, bool), 5)


def test_the_compiled_keyword_list_gives_numpys_floats(monkeypatch):
    assert TH.compiled(wait=True) is not None
    rng = np.random.default_rng(9)
    words = ["cache", "proxy", "token", "retry", "yaml", "parse"]
    ix = NoteIndex(8)
    for j in range(700):
        ix.add(f"n{j:04d}", " ".join(rng.choice(words, int(rng.integers(1, 6)))) + f" n{j}", "rca", "", "a")
    view = ix.view()
    idf = {"cache": 1.5, "proxy": 0.7, "token": 2.0, "retry": 1.1, "yaml": 0.3, "parse": 2.5}
    for query in ("proxy cache cache token", "retry", "yaml parse token proxy", "n5 cache", "nothing"):
        for ok in (view.mask(), view.mask() & (rng.random(700) < 0.5)):
            for k in (1, 7, 50, 5000):
                got = []
                for at in (1, 1 << 30):
                    monkeypatch.setattr(NV, "EXACT_COMPILED_MIN", at)
                    got.append(view.keyword_hits(query, lambda t: idf.get(t, 1.0), 3.5, k, ok))
                (a, sa), (b, sb) = got
                assert a.tolist() == b.tolist() and sa.dtype == sb.dtype and sa.tobytes() == sb.tobytes()


def test_the_graph_starts_at_ann_min_and_answers_the_exact_notes_where_it_is_exact(monkeypatch):
    """At the default threshold no graph exists below ANN_MIN vectors (the exact list answers);
    with one, a small set (the graph's search list covers it) gives the exact list's notes, and
    a view that hides too many of the graph's slots falls back to the exact list."""
    assert NV.ANN_MIN >= 10_000         # measured crossover (benchmarks/notes_vector_crossover.py)
    rng = np.random.default_rng(2)
    ix = NoteIndex(4)
    small = rng.standard_normal((NV.ANN_MIN, 4)).astype(np.float32)
    with ix.deferred():
        for j in range(NV.ANN_MIN - 1):
            ix.add(f"n{j:05d}", "", "rca", "", "a", small[j])
    ix.ensure_graph()
    assert ix._graph is None and not ix._building
    ix.add("last", "", "rca", "", "a", small[-1])
    assert ix.wait_graph(60) and ix.graph_size == NV.ANN_MIN

    monkeypatch.setattr(NV, "ANN_MIN", 100)
    monkeypatch.setattr(NI, "BUILD_THREADS", 1)     # one graph, not one per thread schedule (1 in ~8 missed)
    vecs = _vectors(rng, 400, 16)
    ix = NoteIndex(16)
    for j in range(400):
        ix.add(f"n{j:03d}", "", "rca", "", f"a{j % 2}", vecs[j])
    assert ix.wait_graph(30) and ix.graph_size == 400
    view = ix.view()
    sel = view.eligible & view.has_vector[:400]
    for t in range(10):
        q = rng.standard_normal(16).astype(np.float32)
        q /= np.linalg.norm(q)
        graph = ix.ann_hits(q, 10, sel)
        exact = view.exact_hits(q, 10, sel)
        assert graph is not None and np.allclose(graph[1], vecs[graph[0]] @ q, atol=2e-3)   # f16 cosines
        clear = exact[0][exact[1] > exact[1][-1] + 4e-3]         # the exact top 10 beyond f16's reach
        assert set(clear.tolist()) <= set(graph[0].tolist())
        assert len(set(graph[0].tolist()) & set(exact[0].tolist())) >= 9
        hide = sel & (np.arange(400) % 2 == 0)                  # half hidden: the exact list answers
        assert ix.ann_hits(q, 10, hide) is None
        assert view.vector_hits(q, 10, hide)[0].tolist() == _brute(vecs, q, hide, 10)


def test_numpy_answers_until_the_kernels_are_loaded(monkeypatch):
    """The first query over a large note set does not wait for numba (its loading runs on a
    background thread): it gets numpy's exact answer, the same notes."""
    monkeypatch.setattr(NV, "EXACT_COMPILED_MIN", 8)
    monkeypatch.setattr(TH, "_KERNELS", {"wanted": True})     # a server's (prepare_kernels)
    started = []
    monkeypatch.setattr(TH, "background", lambda fn, *a, name="": started.append(fn) or _Idle())
    rng = np.random.default_rng(6)
    vecs = _vectors(rng, 60, 16)
    ix = NoteIndex(16)
    for j in range(60):
        ix.add(f"n{j:02d}", "", "rca", "", "a", vecs[j])
    view = ix.view()
    q = vecs[9]
    assert view.exact_hits(q, 5, view.has_vector[:60].copy())[0].tolist() == _brute(vecs, q, np.ones(60, bool), 5)
    assert ix._q8_pending and started == [TH._load_kernels]     # numpy answered; loading started once
    view.exact_hits(q, 5, view.has_vector[:60].copy())
    assert started == [TH._load_kernels]
    TH._load_kernels()
    assert TH.compiled() is not None
    assert view.exact_hits(q, 5, view.has_vector[:60].copy())[0].tolist() == _brute(vecs, q, np.ones(60, bool), 5)
    assert not ix._q8_pending


class _Idle:
    def join(self, timeout=None):
        return None


def test_a_one_shot_process_answers_with_numpy_and_loads_no_kernels(monkeypatch):
    """Without ``prepare_kernels`` (a CLI search) no background load starts: its exit does not wait
    for numba; the exact list is numpy's, the same notes."""
    monkeypatch.setattr(NV, "EXACT_COMPILED_MIN", 8)
    monkeypatch.setattr(TH, "_KERNELS", {})
    started = []
    monkeypatch.setattr(TH, "background", lambda fn, *a, name="": started.append(fn) or _Idle())
    vecs = _vectors(np.random.default_rng(7), 60, 16)
    ix = NoteIndex(16)
    with ix.deferred():
        for j in range(60):
            ix.add(f"n{j:02d}", "", "rca", "", "a", vecs[j])
    view = ix.view()
    assert view.exact_hits(vecs[3], 5, view.has_vector[:60].copy())[0].tolist() == \
        _brute(vecs, vecs[3], np.ones(60, bool), 5)
    assert started == [] and TH.compiled() is None
