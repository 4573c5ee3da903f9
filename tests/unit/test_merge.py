"""Merge on re-index: idempotent, carries earlier notes, applies retracts, keeps orphans."""

from __future__ import annotations

import pytest

from pipeline.merge import merge
from stratum import ids, schema as S
from stratum import notenodes
from stratum import notes as N
from stratum.codelookup import CodeLookup
from stratum.deltalog import DeltaLog
from stratum.store import Manifest, Store
from tests.unit.test_notes import REPO, SOURCES, code_nodes


@pytest.fixture
def log(tmp_path):
    return DeltaLog(tmp_path / "deltalog")


def _write(log, text, about, **kw):
    return N.write_note(log, kw.pop("kind", "rca"), text, about, "gpt-5", resolve=CodeLookup.from_records(code_nodes()).resolve, **kw)


def _ids(rows):
    return [r["id"] for r in rows]


def test_merge_twice_adds_nothing_twice(log):
    a = _write(log, "cart total ignores discounts", ["shop/cart.py::total"])
    b = _write(log, "charge rounds twice", ["shop/pay.py::Gateway.charge", "shop/pay.py"])
    recs = log.scan().records
    code = code_nodes()
    first = merge([], recs, code)
    assert sorted(_ids(first.nodes)) == sorted([a.id, b.id]) and first.new_ids == sorted([a.id, b.id])
    assert first.merged_record_ids == sorted(r.uid for r in recs)
    assert len(first.edges) == 3 and all(e["kind"] == "about" for e in first.edges)
    assert first.nodes[0]["repo"] == REPO
    # again on its own output, with the same (not yet retired) log records
    second = merge(first.nodes + code, recs, code)
    assert second.nodes == first.nodes and second.edges == first.edges and second.new_ids == []
    assert second.merged_record_ids == first.merged_record_ids
    # and once the log is retired, the notes stay
    third = merge(second.nodes, [], code)
    assert third.nodes == first.nodes and third.merged_record_ids == []


def test_new_records_on_top_of_a_previous_version(log, tmp_path):
    a = _write(log, "cause A", ["shop/cart.py"])
    code = code_nodes()
    v1 = merge([], log.scan().records, code)
    log.seal()
    assert DeltaLog(log.dir).retire(v1.merged_record_ids).retired
    b = _write(log, "better cause", ["shop/cart.py"], supersedes=[a.id])
    v2 = merge(v1.nodes, log.scan().records, code)
    status = {n["id"]: n["status"] for n in v2.nodes}
    assert status == {a.id: "superseded", b.id: "active"} and v2.new_ids == [b.id]
    N.write_retract(log, b.id, author="reviewer", reason="wrong")
    v3 = merge(v2.nodes, log.scan().records, code)
    status = {n["id"]: n["status"] for n in v3.nodes}
    assert status == {a.id: "active", b.id: "retracted"}


def test_note_about_deleted_code_is_kept_and_marked_orphaned(log):
    a = _write(log, "charge is wrong", ["shop/pay.py::Gateway.charge"])
    b = _write(log, "pay and cart disagree", ["shop/pay.py::Gateway.charge", "shop/cart.py"])
    v1 = merge([], log.scan().records, code_nodes())
    gone = {k: v for k, v in SOURCES.items() if k[0] != "shop/pay.py"}   # pay.py deleted
    new_code = code_nodes(gone)
    v2 = merge(v1.nodes, [], new_code)
    by_id = {n["id"]: n for n in v2.nodes}
    assert v2.orphaned == [a.id]
    assert by_id[a.id]["status"] == "orphaned" and by_id[b.id]["status"] == "active"
    # no dangling edges: only b -> cart.py survives
    assert [(e["src"], e["dst"]) for e in v2.edges] == [(b.id, ids.node_id(REPO, "shop/cart.py", "file"))]
    note_b = notenodes.note_from_node(by_id[b.id])
    st = N.staleness(note_b, CodeLookup.from_records(new_code))
    assert [c["reason"] for c in st["changes"]] == ["gone"]
    # the code comes back: the note is active again
    v3 = merge(v2.nodes, [], code_nodes())
    assert {n["status"] for n in v3.nodes} == {"active"} and len(v3.edges) == 3


def test_merge_round_trips_through_a_real_lance_store(log, tmp_path):
    _write(log, "cause A", ["shop/cart.py::total"], tags=["t1"], session="s")
    _write(log, "no code", [], kind="insight")
    code = code_nodes()
    res = merge([], log.scan().records, code)
    store = Store(tmp_path / "store")
    nodes = [dict(c, kind=c["kind"]) for c in code] + res.nodes
    for n in nodes:
        n.setdefault("name", n["path"])
    versions = {"nodes": store.write_dataset("nodes", S.to_table(nodes, S.NODES)),
                "edges": store.write_dataset("edges", S.to_table(res.edges, S.EDGES))}
    store.publish(Manifest(version=1, published_at=0.0, repo_name=REPO, repo_path="", indexed_commit=None,
                           history_watermark=None, datasets=versions, deltalog_merged=res.merged_record_ids))
    back = store.snapshot().read("nodes")
    again = merge(back, log.scan().records, back)
    strip = lambda rows: [{k: v for k, v in r.items() if k != "vector"} for r in rows]  # noqa: E731
    assert strip(again.nodes) == strip(res.nodes) and again.edges == res.edges and again.new_ids == []


def test_provenance_and_confirmations_survive_merges_and_mined_fixes_are_not_merged(log):
    """What a reader is told about a note (identity, proof, model, commit, confirmations) is the
    same before and after a re-index; mined fix nodes belong to the pipeline, not the merge."""
    a = _write(log, "the gateway rounds twice", ["shop/pay.py"], model="model-x", authenticated=True,
               commit="c0ffee", session="s9")
    N.write_confirm(log, a.id, author="reviewer", known={a.id: a})
    code = code_nodes()
    fix = {"id": "fix-1", "repo": REPO, "kind": "fix", "path": "shop/pay.py", "name": "fix rounding",
           "qualname": "", "meta": "{}"}
    v1 = merge([fix] + code, log.scan().records, code)
    assert _ids(v1.nodes) == [a.id]                       # the fix node is not turned into a note
    merged = notenodes.notes_from_nodes(v1.nodes)[a.id]
    assert (merged.author, merged.authenticated, merged.model, merged.commit, merged.session) == \
        ("gpt-5", True, "model-x", "c0ffee", N.session_label("s9"))     # the label is stored, never the id
    assert [c["author"] for c in N.valid_confirmations(merged)] == ["reviewer"]
    assert N.provenance(merged) == N.provenance(N.fold(log.scan().records)[a.id])
    v2 = merge(v1.nodes + code, [], code)
    assert notenodes.notes_from_nodes(v2.nodes)[a.id].confirmations == merged.confirmations
    assert len(v1.merged_record_ids) == 2                # the confirm record is merged (and retired) too
