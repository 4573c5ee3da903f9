"""An updated warm tier answers as a full rebuild does: BM25 bit for bit, HNSW within its
approximation (measured against exact search), the CSR exactly; over two updates in a row."""

from __future__ import annotations

import numpy as np
import pytest

from stratum import ids
from stratum.graph import Graph
from stratum.keywordindex import KeywordIndex
from stratum.vectorindex import VectorIndex, exact_knn, recall_at_k
from stratum.warm import build_warm

REPO = "r"
WORDS = ("cart total price discount tax round invoice payment gateway charge refund order item user "
         "session token cache retry timeout parse render query index shard store merge").split()


def make_nodes(n: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        path = f"pkg/m{i // 20:04d}.py"
        words = rng.choice(WORDS, size=6)
        q = f"{words[0]}_{words[1]}_{i}"
        v = rng.standard_normal(16).astype(np.float32)
        out.append({"id": ids.node_id(REPO, path, "function", q), "repo": REPO, "kind": "function", "path": path,
                    "name": q, "qualname": q, "signature": f"def {q}({words[2]})",
                    "doc": " ".join(words[3:]), "full": f"def {q}():\n    return {words[4]}\n",
                    "vector": (v / np.linalg.norm(v)).tolist()})
    return out


def edges_of(nodes, seed):
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(nodes), size=(len(nodes) * 2, 2))
    return [{"src": nodes[a]["id"], "dst": nodes[b]["id"], "kind": "calls", "repo": REPO} for a, b in idx if a != b]


def change(nodes: list[dict], seed: int, frac: float = 0.01) -> list[dict]:
    """About ``frac`` of the nodes each: text changed, vector changed, removed; as many added."""
    rng = np.random.default_rng(seed)
    k = max(1, int(len(nodes) * frac))
    pick = rng.choice(len(nodes), size=3 * k, replace=False)
    out = [dict(n) for n in nodes]
    for i in pick[:k]:
        out[i]["doc"] = "refund gateway timeout " + out[i]["doc"]
    for i in pick[k:2 * k]:
        v = rng.standard_normal(16).astype(np.float32)
        out[i]["vector"] = (v / np.linalg.norm(v)).tolist()
    gone = set(pick[2 * k:].tolist())
    out = [n for i, n in enumerate(out) if i not in gone]
    added = make_nodes(k, seed + 1000)
    for j, n in enumerate(added):
        n["path"] = f"pkg/m{(j * 7) % (len(nodes) // 20):04d}.py"          # in the middle: rows shift
        n["id"] = ids.node_id(REPO, n["path"], "function", n["qualname"] + f"_new{seed}")
    out += added
    out.sort(key=lambda n: (n["path"], n["qualname"]))
    return out


@pytest.fixture(scope="module")
def versions(tmp_path_factory):
    root = tmp_path_factory.mktemp("warm")
    v1 = make_nodes(3000, 1)
    v2 = change(v1, 2)
    v3 = change(v2, 3)
    infos = {"v1": build_warm(root / "v1", v1, edges_of(v1, 1), root=root)}
    infos["v2"] = build_warm(root / "v2", v2, edges_of(v2, 2), root=root, previous=root / "v1")
    infos["v3"] = build_warm(root / "v3", v3, edges_of(v3, 3), root=root, previous=root / "v2")
    infos["v3full"] = build_warm(root / "v3full", v3, edges_of(v3, 3), root=root)
    return root, {"v1": v1, "v2": v2, "v3": v3}, infos


def test_updates_touch_only_the_change(versions):
    _, nodes, infos = versions
    assert infos["v2"]["incremental"] and infos["v3"]["incremental"] and not infos["v3full"]["incremental"]
    assert infos["v3"]["keyword_docs_redone"] == 60                  # 30 changed texts + 30 new rows
    assert 60 <= infos["v3"]["vectors_changed"] <= 120                # added/removed, not 3000


def test_keyword_index_equals_a_full_build_bit_for_bit(versions):
    root, _, _ = versions
    a, b = KeywordIndex.load(root / "v3" / "keyword"), KeywordIndex.load(root / "v3full" / "keyword")
    for name in KeywordIndex._ARRAYS:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.meta == b.meta
    for q in ("refund gateway timeout", "cart_total", "payment", "shard merge index"):
        ha, hb = a.search(q, 10), b.search(q, 10)
        assert ha.rows.tolist() == hb.rows.tolist() and ha.scores.tolist() == hb.scores.tolist()


def test_vector_index_answers_like_a_full_build(versions):
    root, nodes, _ = versions
    a, b = VectorIndex.load(root / "v3" / "vector"), VectorIndex.load(root / "v3full" / "vector")
    assert a.key_rows is not None and len(a) == len(b) == len(nodes["v3"])
    assert np.array_equal(a.matrix, b.matrix)
    rng = np.random.default_rng(9)
    qs = rng.standard_normal((60, 16)).astype(np.float32)
    qs /= np.linalg.norm(qs, axis=1, keepdims=True)
    truth = exact_knn(np.asarray(b.matrix, np.float32), qs, 10)
    ra = recall_at_k([a.search(q, 10).rows for q in qs], truth)
    rb = recall_at_k([b.search(q, 10).rows for q in qs], truth)
    assert ra >= 0.98 and abs(ra - rb) <= 0.02
    # a filtered search maps keys to rows too
    allow = lambda rows: rows % 2 == 0                                     # noqa: E731
    assert all(r % 2 == 0 for r in a.search(qs[0], 10, predicate=allow, selectivity=0.5).rows)


def test_graph_equals_a_full_build(versions):
    root, _, _ = versions
    a, b = Graph.load(root / "v3" / "graph"), Graph.load(root / "v3full" / "graph")
    assert all(np.array_equal(a.a[k], b.a[k]) for k in b.a)


def test_a_damaged_previous_folder_means_a_full_build(versions, tmp_path):
    import shutil

    root, nodes, _ = versions
    prev = tmp_path / "prev"
    shutil.copytree(root / "v2", prev)
    p = prev / "keyword" / "kw.tf.npy"
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0xFF
    p.write_bytes(bytes(data))
    info = build_warm(tmp_path / "v3", nodes["v3"], [], root=tmp_path, previous=prev)
    assert not info["incremental"]


@pytest.mark.parametrize("shuffle,names_of", [(False, "changed"), (True, "changed"), (False, "all"), (True, "all")])
def test_keyword_update_equals_a_build_in_any_row_order(tmp_path, shuffle, names_of):
    """Kept rows in their old order take the merge by binary search; a reordering takes the full
    sort; the exact keys given for the changed rows only (merged) or for every row (rebuilt)."""
    from stratum.codetokens import node_names, node_text

    old = make_nodes(800, 5)
    new = change(old, 6, frac=0.02)
    if shuffle:
        new = [new[i] for i in np.random.default_rng(1).permutation(len(new))]
    kw = KeywordIndex.build([node_text(n) for n in old], [node_names(n) for n in old])
    kw.save(tmp_path / "kw")
    row_of = {n["id"]: i for i, n in enumerate(old)}
    old_text = {n["id"]: node_text(n) for n in old}
    old_row = np.array([row_of[n["id"]] if old_text.get(n["id"]) == node_text(n) else -1 for n in new])
    texts = {i: node_text(new[i]) for i in np.flatnonzero(old_row < 0)}
    names = {i: node_names(new[i]) for i in texts} if names_of == "changed" else [node_names(n) for n in new]
    got = KeywordIndex.load(tmp_path / "kw").updated(tmp_path / "kw", old_row, texts, names)
    want = KeywordIndex.build([node_text(n) for n in new], [node_names(n) for n in new])
    assert all(np.array_equal(getattr(got, a), getattr(want, a)) for a in KeywordIndex._ARRAYS)


def _equal_to_full(root, nodes, edges, prev, name):
    up = build_warm(root / name, nodes, edges, root=root, previous=prev)
    full = build_warm(root / f"{name}full", nodes, edges, root=root)
    a, b = KeywordIndex.load(root / name / "keyword"), KeywordIndex.load(root / f"{name}full" / "keyword")
    assert all(np.array_equal(getattr(a, x), getattr(b, x)) for x in KeywordIndex._ARRAYS) and a.meta == b.meta
    ga, gb = Graph.load(root / name / "graph"), Graph.load(root / f"{name}full" / "graph")
    assert all(np.array_equal(ga.a[k], gb.a[k]) for k in gb.a)
    return up, full


def test_large_tiers_hash_rows_with_polars_and_update_equally(tmp_path, monkeypatch):
    """From POLARS_ROWS rows the row hashes come from polars (its version is recorded): the update
    still equals a full build, and a folder hashed by a polars version not installed is rebuilt."""
    import json

    import stratum.warm as W

    monkeypatch.setattr(W, "POLARS_ROWS", 1)
    v1 = make_nodes(1500, 11)
    v2 = change(v1, 12, frac=0.02)
    info1 = build_warm(tmp_path / "v1", v1, edges_of(v1, 1), root=tmp_path)
    assert info1["rows_hash"].startswith("polars-")
    up, _ = _equal_to_full(tmp_path, v2, edges_of(v2, 2), tmp_path / "v1", "v2")
    assert up["incremental"] and up["rows_hash"] == info1["rows_hash"] and up["keyword_docs_redone"] == 60
    meta = json.loads((tmp_path / "v1" / W.WARM_FILE).read_text())
    (tmp_path / "v1" / W.WARM_FILE).write_text(json.dumps({**meta, "rows_hash": "polars-0.0.1"}))
    assert not build_warm(tmp_path / "v2b", v2, [], root=tmp_path, previous=tmp_path / "v1")["incremental"]


def test_moved_rows_are_redone_and_the_update_equals_a_full_build(tmp_path):
    """Two kept functions that swap places in their file break the kept rows' order: they are
    re-tokenized (so the postings still merge without a sort) and the result is a full build's."""
    v1 = make_nodes(1200, 21)
    build_warm(tmp_path / "v1", v1, edges_of(v1, 1), root=tmp_path)
    v2 = [dict(n) for n in v1]
    v2[100], v2[101] = v2[101], v2[100]                  # same documents, other order
    v2[500]["doc"] = "refund " + v2[500]["doc"]
    up, _ = _equal_to_full(tmp_path, v2, edges_of(v2, 2), tmp_path / "v1", "v2")
    assert up["incremental"] and up["keyword_docs_redone"] == 2     # the changed one + the one that moved back


@pytest.mark.parametrize("edit", ["only_removed", "only_added", "emptied"])
def test_keyword_update_of_one_kind_of_change_equals_a_build(tmp_path, edit):
    """Removals alone (no new postings to merge), additions alone (terms never seen before), and
    a document that loses every token (a row with no postings): still a full build's arrays."""
    from stratum.codetokens import node_names, node_text

    old = make_nodes(600, 31)
    kw = KeywordIndex.build([node_text(n) for n in old], [node_names(n) for n in old])
    kw.save(tmp_path / "kw")
    if edit == "only_removed":
        new, old_row = old[::2], np.arange(0, 600, 2)
    elif edit == "only_added":
        extra = [dict(n, doc="zyzzyva quokka " + n["doc"], id=f"x{i}", name=f"zz_{i}", qualname=f"zz_{i}")
                 for i, n in enumerate(old[:5])]
        new, old_row = old + extra, np.r_[np.arange(600), -np.ones(5, np.int64)]
    else:
        new = [dict(n) for n in old]
        new[7] = {"id": "e", "kind": "function", "path": "", "name": "", "qualname": ""}
        old_row = np.arange(600)
        old_row[7] = -1
    texts = {int(i): node_text(new[i]) for i in np.flatnonzero(old_row < 0)}
    got = KeywordIndex.load(tmp_path / "kw").updated(tmp_path / "kw", old_row, texts,
                                                    {i: node_names(new[i]) for i in texts})
    want = KeywordIndex.build([node_text(n) for n in new], [node_names(n) for n in new])
    assert all(np.array_equal(getattr(got, a), getattr(want, a)) for a in KeywordIndex._ARRAYS)
    assert got.meta == want.meta


def test_a_reordered_version_still_updates_to_a_full_builds_answers(tmp_path):
    """Most kept rows moved (more than warm's threshold): nothing extra is re-tokenized, the
    postings are sorted again, and the result is still a full build's."""
    v1 = make_nodes(1200, 41)
    build_warm(tmp_path / "v1", v1, edges_of(v1, 1), root=tmp_path)
    v2 = [v1[i] for i in np.random.default_rng(3).permutation(len(v1))]
    up, _ = _equal_to_full(tmp_path, v2, edges_of(v2, 2), tmp_path / "v1", "v2")
    assert up["incremental"] and up["keyword_docs_redone"] == 0
