"""Warm HNSW vector index: recall against exact search, filters, save/load round trips."""

import numpy as np
import pytest

from stratum.errors import InvalidArgument, StoreError
from stratum.vectorindex import HnswParams, VectorIndex, exact_knn, recall_at_k


def clustered(n, d=384, centers=60, latent=32, seed=0):
    """Normalised vectors like sentence embeddings: clusters in a low-dimensional latent space, a
    shared offset (embeddings are anisotropic) and a little full-rank noise. (Isotropic random
    vectors are a degenerate case where every neighbour is about equally far.)"""
    fixed = np.random.default_rng(99)
    basis, centres, offset = fixed.normal(size=(latent, d)), fixed.normal(size=(centers, latent)), fixed.normal(size=d)
    rng = np.random.default_rng(seed)
    z = centres[rng.integers(0, centers, n)] + rng.normal(size=(n, latent)) * 0.5
    x = z @ basis + 2.0 * offset + rng.normal(size=(n, d)) * 0.3
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture(scope="module")
def data():
    x = clustered(3000)
    q = clustered(100, seed=1)
    return x, q, VectorIndex.build(x, threads=2)


def test_recall_against_exact_search(data):
    x, q, idx = data
    truth = exact_knn(x, q, 10)
    found = [idx.search(v, 10).rows for v in q]
    assert recall_at_k(found, truth) >= 0.95
    hits = idx.search(q[0], 10)
    assert np.all(np.diff(hits.scores) <= 1e-6)               # best first
    assert abs(float(hits.scores[0]) - float(x[hits.rows[0]] @ q[0])) < 2e-3


def test_exact_search_matches_numpy(data):
    x, q, idx = data
    hits = idx.exact(q[3], 10)
    assert hits.exact
    assert hits.rows.tolist() == exact_knn(x, q[3:4], 10)[0].tolist()


def test_predicate_filter_keeps_only_allowed_rows(data):
    x, q, idx = data
    allowed = np.zeros(len(x), bool)
    allowed[::7] = True                                          # about 14% of rows
    hits = idx.search(q[5], 10, predicate=lambda r: allowed[r], selectivity=allowed.mean())
    assert len(hits.rows) == 10 and allowed[hits.rows].all()
    rows = np.flatnonzero(allowed)
    truth = rows[np.argsort(-(x[rows] @ q[5]))[:10]]
    assert len(set(hits.rows.tolist()) & set(truth.tolist())) >= 9


def test_very_selective_predicate_falls_back_to_exact(data):
    x, q, idx = data
    allowed = np.zeros(len(x), bool)
    allowed[[11, 500, 2999]] = True
    hits = idx.search(q[0], 10, predicate=lambda r: allowed[r], selectivity=3 / len(x), max_fetch=256)
    assert sorted(hits.rows.tolist()) == [11, 500, 2999] and hits.exact


def test_allowed_rows_are_scored_exactly(data):
    x, q, idx = data
    rows = np.arange(100, 400)
    hits = idx.search(q[2], 5, allowed_rows=rows)
    assert hits.rows.tolist() == (100 + np.argsort(-(x[100:400] @ q[2]))[:5]).tolist()


@pytest.mark.parametrize("mmap", [True, False])
def test_save_load_round_trip_gives_identical_results(data, tmp_path, mmap):
    x, q, idx = data
    files = idx.save(tmp_path / "ix")
    assert set(files) <= {p.name for p in (tmp_path / "ix").iterdir()}
    loaded = VectorIndex.load(tmp_path / "ix", mmap=mmap)
    assert len(loaded) == len(idx) == len(x)
    for v in q[:20]:
        a, b = idx.search(v, 10), loaded.search(v, 10)
        assert a.rows.tolist() == b.rows.tolist()
        np.testing.assert_allclose(a.scores, b.scores, rtol=0, atol=1e-6)


def test_rows_without_vectors_are_never_returned(tmp_path):
    x = clustered(500, seed=3)
    present = np.ones(len(x), bool)
    present[:250] = False
    idx = VectorIndex.build(x, present=present, params=HnswParams(connectivity=8), threads=1)
    assert len(idx) == 250
    for v in x[:5]:                                              # queries equal to missing rows
        assert (idx.search(v, 10).rows >= 250).all()
        assert (idx.exact(v, 10).rows >= 250).all()
    idx.save(tmp_path)
    assert (VectorIndex.load(tmp_path).search(x[0], 10).rows >= 250).all()


def test_bad_inputs_are_clear_errors(data, tmp_path):
    _, _, idx = data
    with pytest.raises(InvalidArgument):
        idx.search(np.ones(10, np.float32), 5)
    with pytest.raises(InvalidArgument):
        VectorIndex.build(np.empty((0, 384), np.float32))
    with pytest.raises(StoreError):
        VectorIndex.load(tmp_path / "missing")


def test_label_groups_get_their_own_graphs(tmp_path):
    x = clustered(6000, seed=4)
    labels = np.array(["function"] * 3000 + ["class"] * 2500 + ["rca"] * 500)
    np.random.default_rng(0).shuffle(labels)
    # defaults: 'class' (42%) is above the 25% share that gets a graph; nothing is built
    assert VectorIndex.build(x, params=HnswParams(connectivity=8), threads=2, groups=labels).groups == {}
    # 'class' mid-sized: its own graph; 'function' (50%) too large; 'rca' small enough to scan
    idx2 = VectorIndex.build(x, params=HnswParams(connectivity=12), threads=2)
    built = idx2.build_groups(labels, min_rows=1000, max_fraction=0.45)
    assert built == {"class": 2500}
    q = clustered(20, seed=5)
    cls_rows = np.flatnonzero(labels == "class")
    truth = cls_rows[exact_knn(x[cls_rows], q, 10)]
    found = [idx2.search_groups(v, 10, ["class"]).rows for v in q]
    assert all((labels[f] == "class").all() for f in found)
    assert recall_at_k(found, truth) >= 0.95
    rca_rows = np.flatnonzero(labels == "rca")
    mixed = idx2.search_groups(q[0], 10, ["class"], extra_rows=rca_rows)
    assert set(labels[mixed.rows]) <= {"class", "rca"}
    both = np.concatenate([cls_rows, rca_rows])
    assert recall_at_k([mixed.rows], both[np.argsort(-(x[both] @ q[0]))[:10]][None]) >= 0.9
    idx2.save(tmp_path)
    loaded = VectorIndex.load(tmp_path)
    assert set(loaded.groups) == {"class"}
    for v in q[:5]:
        assert loaded.search_groups(v, 10, ["class"]).rows.tolist() == idx2.search_groups(v, 10, ["class"]).rows.tolist()


def test_a_graph_loaded_into_huge_pages_answers_as_its_file_view(data, tmp_path, monkeypatch):
    """``huge=True`` views a copy of the graph file in anonymous memory (huge pages where the kernel
    offers them); the answers are the file view's, bit for bit, and the copy lives with the index.
    ``huge=None`` copies only graphs of HUGE_MIN_BYTES or more, and only where huge pages exist."""
    import stratum.vectorindex as V

    x, q, idx = data
    idx.save(tmp_path / "ix")
    view, huge = VectorIndex.load(tmp_path / "ix", huge=False), VectorIndex.load(tmp_path / "ix", huge=True)
    assert getattr(huge._graph, "stratum_buffer", None) is not None
    assert getattr(view._graph, "stratum_buffer", None) is None
    for v in q:
        a, b = view.search(v, 50), huge.search(v, 50)
        assert a.rows.tolist() == b.rows.tolist() and a.scores.tobytes() == b.scores.tobytes()
    assert getattr(VectorIndex.load(tmp_path / "ix")._graph, "stratum_buffer", None) is None   # small: a view
    monkeypatch.setattr(V, "HUGE_MIN_BYTES", 0)
    monkeypatch.setattr(V, "huge_pages_offered", lambda: True)
    auto = VectorIndex.load(tmp_path / "ix")
    assert getattr(auto._graph, "stratum_buffer", None) is not None
    assert auto.search(q[0], 10).rows.tolist() == view.search(q[0], 10).rows.tolist()
    monkeypatch.setattr(V, "huge_pages_offered", lambda: False)
    assert getattr(VectorIndex.load(tmp_path / "ix")._graph, "stratum_buffer", None) is None
    del huge, auto                       # the copies go with their indexes (no crash on release)
    import gc

    gc.collect()
    assert view.search(q[1], 10).rows.tolist() == idx.search(q[1], 10).rows.tolist()
