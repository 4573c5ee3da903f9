"""The notes' vector list from SIGN_MIN notes (``notekernels.top_dots_signed``): the exact top k
among the notes whose 1-bit codes estimate best. Exact where every note is a candidate; below
SIGN_MIN the exact list answers; its recall on real note vectors (the static model's, notes
written as the scale benchmark writes them about this repository's own code) is >= 0.99."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import stratum.notethreads as TH
import stratum.noteview as NV
from stratum import notekernels as K
from stratum.noteindex import NoteIndex

from tests.unit.test_noteindex_exact import _brute, _vectors


def _codes(vecs: np.ndarray):
    m8, scale, err = K.quantize(vecs)
    return (m8, scale, err) + K.sign_codes(vecs, vecs.mean(axis=0))


@pytest.mark.parametrize("dim", [16, 100, 384, 500])       # 1, 2, 6 and 8 code words (the scan takes 6 a step)
def test_with_every_note_a_candidate_the_list_is_the_brute_force_top_k(dim):
    """r >= the selected notes: the rescoring (int8 bound, f32) is exact, ties at the cut included."""
    rng = np.random.default_rng(dim)
    vecs = _vectors(rng, 700, dim)
    m8, scale, err, bits, ones, fac = _codes(vecs)
    for t in range(8):
        q = (vecs[t * 31] + 0.3 * rng.standard_normal(dim)).astype(np.float32) if t % 2 else \
            rng.standard_normal(dim).astype(np.float32)
        sel = rng.random(700) < (1.0 if t < 4 else 0.5)
        for k in (1, 10, 50):
            scores = np.zeros(700, np.float32)
            got = K.top_dots_signed(vecs, m8, scale, err, bits, ones, fac, q, sel, k, 700, scores)
            order = got[np.lexsort((got, -scores[got]))][:k]
            assert order.tolist() == _brute(vecs, q, sel, k)
            among = K.top_dots_among(vecs, m8, scale, err, q, np.flatnonzero(sel), k, scores)
            assert sorted(among.tolist()) == sorted(got.tolist())


def test_the_candidates_are_the_best_estimates():
    """With r < the selected notes only the r best estimates (and the rest of the histogram bin at
    the cut) are scored: a note's own vector as the query finds it; an unselected note never."""
    rng = np.random.default_rng(3)
    vecs = rng.standard_normal((2000, 64)).astype(np.float32)      # dense rows (the estimate assumes
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)            # them: a spiky row's is inflated)
    m8, scale, err, bits, ones, fac = _codes(vecs)
    q = vecs[7]
    scores = np.zeros(2000, np.float32)
    sel = np.ones(2000, bool)
    got = K.top_dots_signed(vecs, m8, scale, err, bits, ones, fac, q, sel, 5, 40, scores)
    assert 7 in got.tolist() and len(got) >= 5
    sel[7] = False                               # not selected: never a candidate
    assert 7 not in K.top_dots_signed(vecs, m8, scale, err, bits, ones, fac, q, sel, 5, 40, scores).tolist()


def _estimates_ref(bits, ones, fac, q):
    """The 1-bit estimates in float64 from the query's 4-bit values (numpy's float32 steps, as the kernel's)."""
    lo, hi = q.min(), q.max()
    step = (hi - lo) / np.float32(15.0)
    v = np.rint((q - lo) / step).astype(np.int64)
    s = np.unpackbits(bits.T.copy().view(np.uint8), axis=1, bitorder="little")[:, :len(q)]
    qsum = (lo + step * v.astype(np.float64)).sum()
    return (2 * (float(lo) * ones + float(step) * (s @ v)) - qsum) * fac.astype(np.float64)


def _best_ref(est, elo, ehi, sel, r):
    """The old kernel's candidates from the same estimates: a 4,096-bin histogram, the bin at the cut whole."""
    if not (sel.sum() > r and ehi > elo):
        return np.flatnonzero(sel)
    x = (est - np.float32(elo)) * (np.float32(4096) / np.float32(np.float32(ehi) - np.float32(elo)))
    b = np.where(np.isnan(x) | (x < 0), 0, np.where(x >= 4096, 4096, x)).astype(np.int64)
    at_least = np.bincount(b[sel], minlength=4097)[::-1].cumsum()[::-1]      # rows with a bin >= c
    cut = max([c for c in range(1, 4097) if at_least[c] >= r], default=0)
    return np.flatnonzero(sel & (b >= cut))


@pytest.mark.parametrize("dim", [100, 384, 500])
def test_the_estimates_and_the_candidates_follow_their_definitions(dim):
    """The compiled passes (6 code words a step, order-key min/max, 16 bins packed a step) against numpy:
    a row count off the 16s, a NaN estimate (skipped by the low/high, the lowest bin), masks and cuts."""
    rng = np.random.default_rng(dim)
    vecs = _vectors(rng, 2003, dim)
    m8, scale, err, bits, ones, fac = _codes(vecs)
    fac[7] = np.nan
    for t in range(4):
        q = rng.standard_normal(dim).astype(np.float32)
        for sel in (np.ones(2003, bool), rng.random(2003) < 0.4, np.zeros(2003, bool)):
            est, elo, ehi, m_sel = K._estimates(bits, ones, fac, q, sel)
            ref = _estimates_ref(bits, ones, fac, q)
            # float32 cancels ~1e-4 of the terms (~1e3 x 1e-7); a popcount off by one moves an estimate ~0.04
            assert np.allclose(est, ref, rtol=0, atol=1e-3, equal_nan=True) and np.isnan(est[7])
            ok = sel & ~np.isnan(est)
            assert (elo, ehi) == ((est[ok].min(), est[ok].max()) if ok.any() else (np.inf, -np.inf))
            assert m_sel == sel.sum()
            for r in (1, 16, 100, 1999, 5000):
                got = K._best_estimates(est, elo, ehi, m_sel, sel, r)
                assert got.tolist() == _best_ref(est, elo, ehi, sel, r).tolist()
                assert len(got) >= min(r, sel.sum())


def test_sign_codes_are_the_signs_about_the_center_word_by_word():
    rng = np.random.default_rng(1)
    v = rng.standard_normal((5, 130)).astype(np.float32)
    c = rng.standard_normal(130).astype(np.float32)
    bits, ones, fac = K.sign_codes(v, c)
    assert bits.shape == (3, 5) and bits.dtype == np.uint64          # words x rows: 130 dims in 3 words
    for i in range(5):
        for j in range(130):
            assert bool((int(bits[j // 64, i]) >> (j % 64)) & 1) == bool(v[i, j] > c[j])
        assert bits[2, i] >> 2 == 0                                   # no bit past the last dimension
    r = v - c
    assert ones.tolist() == (r > 0).sum(axis=1).tolist()
    assert np.allclose(fac, (r * r).sum(axis=1) / np.abs(r).sum(axis=1), rtol=1e-5)


def test_the_index_codes_its_notes_from_sign_min_and_answers_exactly_below(monkeypatch):
    monkeypatch.setattr(NV, "EXACT_COMPILED_MIN", 8)
    monkeypatch.setattr(NV, "SIGN_MIN", 100)
    assert TH.compiled(wait=True) is not None
    rng = np.random.default_rng(8)
    vecs = _vectors(rng, 300, 24)
    ix = NoteIndex(24)
    for j in range(80):
        ix.add(f"n{j:03d}", "", "rca", "", "a", vecs[j])
    small = ix.view()
    q = vecs[5] + 0.1
    assert small.vector_hits(q, 10, small.eligible)[0].tolist() == _brute(vecs, q, np.arange(300) < 80, 10)
    assert ix.center is None                                          # below SIGN_MIN: no codes
    for j in range(80, 200):
        ix.add(f"n{j:03d}", "", "rca", "", "a", vecs[j] if j % 5 else None)
    calls = []
    real = K.top_dots_signed
    monkeypatch.setattr(K, "top_dots_signed", lambda *a: calls.append(a[-3:-1]) or real(*a))
    view = ix.view()
    has = view.has_vector[:200]
    assert view.vector_hits(q, 20, view.eligible)[0].tolist() == _brute(vecs, q, has, 20)  # 16 x 20 >= 200
    assert calls == [(20, NV.SIGN_DEPTH * 20)]
    assert ix.center is not None and np.allclose(ix.center, vecs[:200][has].mean(axis=0), atol=1e-6)
    for j in range(200, 300):                                         # arrive later (the arrays grow)
        ix.add(f"n{j:03d}", "", "rca", "", "a", vecs[j])
    for j in range(80, 200, 5):
        ix.set_vector(f"n{j:03d}", vecs[j])
    view = ix.view()
    assert view.vector_hits(q, 20, view.eligible)[0].tolist() == _brute(vecs, q, np.ones(300, bool), 20)
    want = K.sign_codes(vecs, ix.center)
    assert np.array_equal(ix.bits[:, :300], want[0]) and np.array_equal(ix.ones[:300], want[1])
    assert np.allclose(ix.fac[:300], want[2])
    assert small.vector_hits(q, 10, small.eligible)[0].tolist() == _brute(vecs, q, np.arange(300) < 80, 10)


# ---- recall on real note vectors ------------------------------------------------------------
KINDS = {"rca": "root cause", "failure": "failed attempt", "insight": "worth knowing"}
SENTENCES = [
    "the cause is a missing check when the value is None", "tried caching the result; it went stale after reload",
    "the order of registration matters here", "this breaks when the path has a trailing slash",
    "the error handler swallows the original traceback", "the lock is taken twice on this path",
    "the timeout comes from the config, not the argument", "encoding falls back to latin-1 for headers",
    "the context is popped before the callbacks run", "a retry loses the page token",
    "thread-local state leaks between tests", "the event fires twice during a nested call",
    "the default changed between versions", "the path is joined without normalising dots",
    "the cache key misses the model name", "decorator order hides the original name",
    "json dumps sorts keys only when configured", "the background thread outlives the process",
    "the comparison ignores weak validators", "the id is computed from the import name",
    "stale vectors after the model changed", "the budget counts the why twice",
]
QUESTIONS = [
    "why is search slow with many unmerged notes", "notes lost after a restart", "model mismatch when opening a store",
    "page token from another tool", "budget exceeded on a large file", "delta log torn tail after a crash",
    "quarantined note visible to another author", "co-change partners of a file", "merge notes into the shard",
    "embedding cache key for the static model", "grpc error codes and retries", "rename a file and keep its history",
    "keyword index statistics for bm25", "vector index over a million nodes", "stale note about deleted code",
    "session idle timeout", "import edges from a package init", "test file linked to library code",
    "repair a damaged lance fragment", "controller evicts an item from the context",
]


def _note_texts(n: int, seed: int = 1) -> list[str]:
    """Notes as benchmarks/notes_scale.py writes them, about this repository's own definitions."""
    root = Path(__file__).resolve().parents[2]
    defs = []
    for path in sorted((root / "stratum").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                defs.append((node.name, f"stratum/{path.name}"))
    rng = np.random.default_rng(seed)
    kinds = list(KINDS)
    out = []
    for i in range(n):
        name, path = defs[int(rng.integers(len(defs)))]
        kind = kinds[i % 3]
        out.append(f"{KINDS[kind]} about {path}\n{KINDS[kind]} in {name} ({path}): "
                   f"{SENTENCES[int(rng.integers(len(SENTENCES)))]} #{i}")
    return out


def test_recall_at_50_on_real_note_vectors_is_at_least_099():
    from stratum.embedder import StaticEmbedder

    assert TH.compiled(wait=True) is not None
    emb = StaticEmbedder()
    vecs = np.asarray(emb.embed(_note_texts(10_000)), np.float32)
    ix = NoteIndex(384)
    with ix.deferred():
        for j, v in enumerate(vecs):
            ix.add(f"n{j:05d}", "", "rca", "", "a", v)
    view = ix.view()
    assert view.n >= NV.SIGN_MIN and view.n < NV.ANN_MIN
    rng = np.random.default_rng(2)
    near = vecs[rng.choice(len(vecs), 100, replace=False)] + rng.normal(0, 0.03, (100, 384)).astype(np.float32)
    queries = np.concatenate([np.asarray(emb.embed(QUESTIONS), np.float32), near])
    recall = []
    for q in queries:
        signed = view.vector_hits(q, 50, view.eligible)
        exact = view.exact_hits(q, 50, view.eligible & view.has_vector[:view.n])
        assert np.allclose(signed[1], vecs[signed[0]] @ q, atol=1e-5)              # its cosines exact
        recall.append(len(set(signed[0].tolist()) & set(exact[0].tolist())) / 50)
    assert ix.center is not None                                   # the signed list answered
    print(f"recall@50 {np.mean(recall):.4f}, worst query {min(recall):.2f}")
    assert np.mean(recall) >= 0.99, np.mean(recall)
