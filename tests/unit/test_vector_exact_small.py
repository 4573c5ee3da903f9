"""A graph of EXACT_ROWS vectors or fewer is scanned, not searched: the same vectors give the same
rows however the graph was built or updated, ties ordered by row (real usearch graphs)."""

import numpy as np

from stratum import vectorindex as V
from stratum.vectorindex import VectorIndex


def clustered(n, d=384, centers=40, latent=24, seed=0):
    """Normalised, clustered, anisotropic vectors (like sentence embeddings; an HNSW graph over
    them misses some true neighbours at a few thousand rows)."""
    fixed = np.random.default_rng(7)
    basis, centres, offset = fixed.normal(size=(latent, d)), fixed.normal(size=(centers, latent)), fixed.normal(size=d)
    rng = np.random.default_rng(seed)
    x = (centres[rng.integers(0, centers, n)] + rng.normal(size=(n, latent)) * 0.5) @ basis + 2.0 * offset \
        + rng.normal(size=(n, d)) * 0.3
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def _updated_to(x, seed):
    """An index holding ``x`` reached the incremental way: built over other vectors for a third of
    the rows, then updated (those rows removed from the graph and inserted again)."""
    other = x.copy()
    rng = np.random.default_rng(seed)
    changed = rng.choice(len(x), len(x) // 3, replace=False)
    other[changed] = clustered(len(changed), seed=seed + 1)
    return VectorIndex.build(other, threads=1).updated(x, None, np.arange(len(x)))


def test_same_vectors_same_hits_whatever_the_build_order():
    x, q = clustered(3000), clustered(40, seed=9)
    whole, updated = VectorIndex.build(x, threads=1), _updated_to(x, 3)
    assert updated.changed > 0 and len(whole) == len(updated) == 3000
    m = whole.matrix.astype(np.float32)
    for v in q:
        a, b = whole.search(v, 50), updated.search(v, 50)
        assert a.rows.tolist() == b.rows.tolist() and a.scores.tolist() == b.scores.tolist()
        assert a.exact and b.exact
        # the true top 50 of the stored (f16) vectors, up to the rounding of a near-tie at the cut
        # (the scan's cosine divides by the f16 rows' norms, a hair off 1)
        cut = np.sort(m @ v)[-50]
        assert len(a.rows) == 50 and (m[a.rows] @ v >= cut - 1e-3).all()


def test_a_filtered_search_of_a_small_graph_is_exact_too():
    x, q = clustered(3000), clustered(10, seed=4)
    whole, updated = VectorIndex.build(x, threads=1), _updated_to(x, 5)
    allowed = np.zeros(len(x), bool)
    allowed[::3] = True
    rows = np.flatnonzero(allowed)
    for v in q:
        a = whole.search(v, 20, predicate=lambda r: allowed[r], selectivity=allowed.mean())
        b = updated.search(v, 20, predicate=lambda r: allowed[r], selectivity=allowed.mean())
        assert a.rows.tolist() == b.rows.tolist() and a.exact
        m = whole.matrix[rows].astype(np.float32)
        assert len(a.rows) == 20 and allowed[a.rows].all()
        assert (whole.matrix[a.rows].astype(np.float32) @ v >= np.sort(m @ v)[-20] - 1e-3).all()


def test_ties_at_the_cut_keep_the_smaller_rows():
    x = clustered(400)
    twin = x[7].copy()
    x[[350, 120, 7]] = twin                 # three equal vectors
    before = x.copy()
    before[[120, 7]] = clustered(2, seed=11)
    updated = VectorIndex.build(before, threads=1).updated(x, None, np.arange(len(x)))   # 350 holds the older key
    for idx in (VectorIndex.build(x, threads=1), updated):
        assert idx.search(twin, 1).rows.tolist() == [7]
        assert idx.search(twin, 2).rows.tolist() == [7, 120]
        assert idx.search(twin, 3).rows.tolist() == [7, 120, 350]


def test_larger_graphs_still_search_the_hnsw_way(monkeypatch):
    x, q = clustered(600), clustered(3, seed=2)
    idx = VectorIndex.build(x, threads=1)
    assert idx.search(q[0], 10).exact
    monkeypatch.setattr(V, "EXACT_ROWS", 500)
    hits = idx.search(q[0], 10)
    assert not hits.exact and len(hits.rows) == 10
    allowed = np.arange(len(x)) % 2 == 0
    hits = idx.search(q[1], 10, predicate=lambda r: allowed[r], selectivity=0.5)
    assert not hits.exact and len(hits.rows) == 10 and allowed[hits.rows].all()


def test_a_row_scores_the_same_in_a_filtered_and_an_unfiltered_search():
    """The graph's scan and the exact scan over allowed rows used different metrics (cosine over
    the f16 rows against their inner product): scores ~1e-4 apart, so two near-tied rows could
    swap between a filtered and an unfiltered search (2 of 20 random queries)."""
    x, q = clustered(3000), clustered(40, seed=11)
    idx = VectorIndex.build(x, threads=1)
    every = np.arange(len(x))
    for v in q:
        a, b = idx.search(v, 30), idx.search(v, 30, allowed_rows=every)
        assert a.rows.tolist() == b.rows.tolist()
        assert np.abs(a.scores - b.scores).max() < 1e-6
