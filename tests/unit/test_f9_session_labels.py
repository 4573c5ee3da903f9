"""A note keeps its session's label at rest, never the id (the id is the key to a session on an open
server, and the store is readable by every agent of the repository). Records and nodes from before
held the id: they read as its label, and the next merge stores the label. An id shaped like a label
is still an id."""

from __future__ import annotations

import json

from pipeline.merge import merge
from stratum import notenodes
from stratum import notes as N
from stratum.codelookup import CodeLookup
from stratum.deltalog import DeltaLog
from stratum.noteitems import _relabel
from tests.unit.test_notes import code_nodes

LOOKALIKE = "s-0123456789abcdef"


def _write(log, text, session):
    return N.write_note(log, "rca", text, ["shop/cart.py"], "gpt-5", session=session,
                        resolve=CodeLookup.from_records(code_nodes()).resolve)


def _legacy_note(log, text, session):
    """A note record as the log held it before labels: the id under ``session``."""
    body = N.note_body("rca", text, [], "gpt-5")
    body.pop("session_label", None)
    return log.append("note", {**body, "session": session})


def test_the_log_and_the_nodes_hold_the_label_and_a_lookalike_id_is_hashed(tmp_path):
    log = DeltaLog(tmp_path / "deltalog")
    a = _write(log, "cart total ignores discounts", "sess-secret-1")
    b = _write(log, "cart rounds twice", LOOKALIKE)
    N.write_retract(log, a.id, author="gpt-5", reason="wrong", session="sess-secret-2")
    log.seal()
    raw = b"".join(p.read_bytes() for p in log.dir.glob("*.seg"))
    assert b"sess-secret" not in raw and LOOKALIKE.encode() not in raw
    notes = N.fold(log.scan().records)
    assert N.provenance(notes[a.id])["session"] == N.session_label("sess-secret-1")
    assert N.provenance(notes[b.id])["session"] == N.session_label(LOOKALIKE) != LOOKALIKE
    assert N.session_label(notes[a.id].retraction["session"]) == N.session_label("sess-secret-2")

    code = code_nodes()
    v1 = merge([], log.scan().records, code)
    stored = json.dumps([{k: v for k, v in n.items() if k != "vector"} for n in v1.nodes], default=str)
    assert "sess-secret" not in stored and LOOKALIKE not in stored
    v2 = merge(v1.nodes + code, [], code)          # read back from nodes: the same labels, kept as labels
    back = notenodes.notes_from_nodes(v2.nodes)
    assert N.provenance(back[a.id]) == N.provenance(notes[a.id])
    assert N.provenance(back[b.id])["session"] == N.session_label(LOOKALIKE)
    assert back[a.id].retraction["session"] == N.session_label("sess-secret-2")
    assert [n["session"] for n in v2.nodes] == [n["session"] for n in v1.nodes]


def test_records_and_nodes_from_before_read_as_the_label_and_the_next_merge_stores_it(tmp_path):
    log = DeltaLog(tmp_path / "deltalog")
    uid = _legacy_note(log, "the cache keeps stale keys", LOOKALIKE)
    log.append("retract", {"note": N.ids.note_id(uid), "reason": "no", "author": "gpt-5", "session": "sess-old"})
    note = N.fold(log.scan().records)[N.ids.note_id(uid)]
    label = N.session_label(LOOKALIKE)
    assert N.provenance(note)["session"] == label and note.retraction["session"] == N.session_label("sess-old")

    node, _ = notenodes.note_to_records(note, "r")
    assert node["session"] == label and LOOKALIKE not in json.dumps(node, default=str)
    # a node a version merged before labels holds: the id in its column, its retraction and its header
    old = dict(node, session=LOOKALIKE, meta=json.dumps({**json.loads(node["meta"]), "retraction": {
        **note.retraction, "session": "sess-old"}, notenodes.LABELLED: None}))
    old["full"] = node["full"].replace(f", session {label}, ", f", session {LOOKALIKE}, ")
    read = notenodes.note_from_node(old)
    assert N.provenance(read) == N.provenance(note) and read.retraction["session"] == note.retraction["session"]
    assert f", session {label}, " in _relabel(old["full"], old["session"], read.session)
    again, _ = notenodes.note_to_records(read, "r")
    assert again["session"] == label and "sess-old" not in again["meta"] and LOOKALIKE not in again["full"]
