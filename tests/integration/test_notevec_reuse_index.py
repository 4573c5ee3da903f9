"""A re-index that merges unmerged notes reuses the vectors their delta-log records carry
(``remember`` embedded each note once, with the store's model) instead of embedding them again;
a record whose vector another model made is embedded. The reused vector is the one embedding the
note's text gives (within float16 rounding), so a note ranks as it would have. A real repository,
the real index job, the real Tools, the packaged static model."""

from __future__ import annotations

import numpy as np

from pipeline.job import index_repository
from stratum import notes as N
from stratum.config import EmbedConfig, IndexConfig
from stratum.deltalog import DeltaLog
from stratum.embedder import get_embedder
from stratum.notevectors import decode_vector, encode_vector
from stratum.store import Store
from stratum.textprep import embed_text
from stratum.tools import Tools
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False)
NOTES = [("shop/ship.py::fee", "heavy parcels cost more: the fee grows with the weight"),
         ("shop/ship.py::fee", "a zero weight still pays the base fee of five"),
         ("shop/cart.py::total", "the cart total sums item prices without the shipping fee"),
         ("shop/cart.py::total", "an empty cart totals zero and ships nothing"),
         ("shop/tax.py::vat", "value added tax is a fifth of the net price"),
         ("shop/tax.py::vat", "rounding of the tax happens per line, not per cart")]
FILES = {"shop/ship.py": "def fee(weight):\n    return 5 + weight * 2\n",
         "shop/cart.py": "from shop.ship import fee\n\n\ndef total(items):\n    return sum(items)\n",
         "shop/tax.py": "def vat(net):\n    return net / 5\n"}


def _indexed(tmp_path, name: str) -> tuple[Repo, object]:
    r = Repo(tmp_path / name)
    r.commit("initial", FILES)
    store = tmp_path / f"{name}-store"
    index_repository(r.path, store, CFG)
    return r, store


def _remember(store, notes) -> list[str]:
    """Notes written as an agent writes them (the real ``remember``: each record carries its vector)."""
    tools = Tools.open([str(store)])
    try:
        s = tools.open_session(author="ms").data["session"]
        return [tools.remember(s, "insight", text, [about]).data["note_id"] for about, text in notes]
    finally:
        tools.close()


def _bodies(store) -> dict[str, dict]:
    return {N.note_from_body(r.uid, r.body).id: r.body for r in DeltaLog(store / "deltalog").scan().records
            if r.type == "note"}


def _note_vectors(store) -> dict[str, np.ndarray]:
    snap = Store(store).snapshot()
    tab = snap.read("nodes", columns=["id", "vector"], where="kind = 'insight'")
    return {i: np.asarray(v, np.float32) for i, v in zip(tab.column("id").to_pylist(), tab.column("vector").to_pylist())}


def _ranks(store, queries) -> list[dict[tuple[str, str], tuple[int, float]]]:
    """Per query, (kind, name) -> (rank, score). The rank counts the results scoring clearly
    higher: a tie is broken by node id, and note ids differ between two stores."""
    tools = Tools.open([str(store)])
    try:
        s = tools.open_session(author="ms").data["session"]
        out = []
        for q in queries:
            got = [((it.kind, it.name), it.score) for it in tools.search(s, q, page_size=20).items]
            out.append({k: (sum(o > v + 1e-3 for _, o in got), v) for k, v in got})
        return out
    finally:
        tools.close()


def test_a_reindex_embeds_no_note_whose_record_carries_this_models_vector(tmp_path):
    r, store = _indexed(tmp_path, "repo")
    ids = _remember(store, NOTES)
    bodies = _bodies(store)
    assert all(bodies[i].get("vector") for i in ids)

    rep = index_repository(r.path, store, CFG)          # nothing but the notes is new
    assert rep.notes["new"] == len(NOTES)
    assert rep.embedded == 0, "a note's vector was embedded again"
    assert rep.notes["vectors_from_log"] == len(NOTES)

    # the stored vector is the record's, and embedding the note's text gives it (float16 rounding)
    key = Store(store).manifest().embedding["cache_key"]
    emb = get_embedder(EmbedConfig(), threads=1)
    vecs = _note_vectors(store)
    snap = Store(store).snapshot()
    nodes = {n["id"]: n for n in snap.read("nodes", where="kind = 'insight'").to_pylist()}
    for nid in ids:
        assert np.array_equal(vecs[nid], decode_vector(bodies[nid], key, 384))
        fresh = emb.embed([embed_text(nodes[nid])])[0]
        assert np.allclose(vecs[nid], fresh, atol=2e-3), nid

    # the next one-file commit embeds that file only: the notes' vectors are in the cache now
    r.commit("tax on shipping", {"shop/tax.py": "def vat(net):\n    return net / 5 + 0\n"})
    again = index_repository(r.path, store, CFG)
    assert again.notes["vectors_from_log"] == 0
    assert 0 < again.embedded <= 2           # the file and its function, nothing of the notes
    assert all(np.array_equal(_note_vectors(store)[nid], vecs[nid]) for nid in ids)


def test_a_record_with_another_models_vector_is_embedded_and_ranks_alike(tmp_path):
    """Store A: the notes as remember wrote them (their vectors reused). Store B: the same notes
    with a vector labelled with another model's key (embedded by the job). Same answers."""
    ra, a = _indexed(tmp_path / "a", "repo")
    rb, b = _indexed(tmp_path / "b", "repo")          # the same repository: the same code node ids
    _remember(a, NOTES)
    log = DeltaLog(b / "deltalog")
    junk = encode_vector(np.ones(384, np.float32) / np.sqrt(384), "another-model:0:g1:int8:256")
    try:                                                # A's records with another model's vector
        log.append_many([("note", {**body, **junk}) for body in _bodies(a).values()])
    finally:
        log.seal()

    rep_a = index_repository(ra.path, a, CFG)
    rep_b = index_repository(rb.path, b, CFG)
    assert (rep_a.embedded, rep_a.notes["vectors_from_log"]) == (0, len(NOTES))
    assert (rep_b.embedded, rep_b.notes["vectors_from_log"]) == (len(NOTES), 0), "the foreign vector was not used"
    queries = [text for _, text in NOTES] + ["shipping cost of heavy parcels", "tax rounding", "empty cart"]
    ranks_a, ranks_b = _ranks(a, queries), _ranks(b, queries)
    for (_, text), got in zip(NOTES, ranks_a):      # a note's own words find it first
        assert got[("insight", text)][0] == 0, (text, got)
    for q, got_a, got_b in zip(queries, ranks_a, ranks_b):
        assert got_a.keys() == got_b.keys(), q
        for k in got_a:
            assert got_a[k][0] == got_b[k][0] and abs(got_a[k][1] - got_b[k][1]) < 1e-3, (q, k, got_a[k], got_b[k])


def test_a_note_placed_at_a_renamed_file_is_embedded_with_its_new_path(tmp_path):
    """The record's vector was made from a text naming the old path; the merged note names the
    new one (``pipeline.notetargets``), so that vector is not this text's: embedded again."""
    r, store = _indexed(tmp_path, "repo")
    ids = _remember(store, NOTES[:2] + NOTES[4:5])      # two about ship.py, one about tax.py
    r.mv("shop/tax.py", "shop/vat.py")
    r.commit("rename tax")
    rep = index_repository(r.path, store, CFG)
    assert rep.notes["new"] == 3
    assert rep.notes["vectors_from_log"] == 2
    snap = Store(store).snapshot()
    moved = snap.read("nodes", where=f"id = '{ids[2]}'").to_pylist()[0]
    assert moved["path"] == "shop/vat.py"
    fresh = get_embedder(EmbedConfig(), threads=1).embed([embed_text(moved)])[0]
    assert np.allclose(np.asarray(moved["vector"], np.float32), fresh, atol=1e-5)
