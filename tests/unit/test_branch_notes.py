"""Notes about code only a branch has, at the model and merge level: pending, never orphaned by a
re-index of the default branch, landed (attached) once the code is indexed, stored as before
for notes about default-branch code (stratum/branchnotes.py, stratum/notes.py, pipeline/merge.py)."""

from __future__ import annotations

import json

from pipeline.merge import merge
from stratum import ids
from stratum import notenodes
from stratum import notes as N
from stratum.branchnotes import NoteScope, pending_warnings
from stratum.codelookup import CodeLookup
from stratum.deltalog import DeltaLog

REPO = "shop"
BASE = {("shop/cart.py", "file", ""): "def total():\n    return 1\n",
        ("shop/cart.py", "function", "total"): "def total():\n    return 1\n",
        ("shop/gone.py", "file", ""): "def doomed():\n    pass\n",
        ("shop/gone.py", "function", "doomed"): "def doomed():\n    pass\n"}
BRANCH = {("shop/newmod.py", "file", ""): "def parse_header(b):\n    return b[:4]\n",
          ("shop/newmod.py", "function", "parse_header"): "def parse_header(b):\n    return b[:4]\n",
          ("shop/cart.py", "file", ""): "def total():\n    return 2\n",
          ("shop/cart.py", "function", "total"): "def total():\n    return 2\n"}
SHA = "53cbedcd1ec728e2bf8bac75556adf9016609cf4"


def nodes(sources: dict) -> list[dict]:
    return [{"id": ids.node_id(REPO, p, k, q), "repo": REPO, "kind": k, "path": p, "qualname": q,
             "content_hash": ids.content_hash(src)} for (p, k, q), src in sources.items()]


def scope() -> NoteScope:
    """feature changed shop/cart.py, added shop/newmod.py and deleted shop/gone.py."""
    return NoteScope("feature", SHA, CodeLookup.from_records(nodes(BRANCH)),
                     frozenset({"shop/cart.py", "shop/newmod.py", "shop/gone.py"}))


def write(log, about, resolve, **kw):
    return N.write_note(log, "failure", "tried X, broke Y", about, "ada", resolve=resolve, **kw)


def test_a_branch_scope_resolves_branch_code_and_marks_only_branch_only_code():
    base = CodeLookup.from_records(nodes(BASE))
    resolve = scope().resolver(base)
    new = resolve("shop/newmod.py::parse_header")
    assert (new.branch, new.branch_commit) == ("feature", SHA)
    assert new.content_hash == ids.content_hash(BRANCH[("shop/newmod.py", "function", "parse_header")])
    changed = resolve("shop/cart.py::total")          # on both: the branch's code, not pending
    assert changed.branch_commit == "" and changed.content_hash == ids.content_hash("def total():\n    return 2\n")
    assert resolve("shop/gone.py::doomed") is None    # the branch deleted it
    assert base.resolve("shop/newmod.py::parse_header") is None    # the defect: the base alone refuses it


def test_pending_target_is_stored_labelled_never_gone_and_keeps_base_notes_as_before(tmp_path):
    log = DeltaLog(tmp_path / "deltalog")
    base = CodeLookup.from_records(nodes(BASE))
    note = write(log, ["shop/newmod.py::parse_header"], scope().resolver(base), commit=SHA, branch="feature")
    t = note.about[0]
    assert t.pending and note.branch == "feature" and N.provenance(note)["branch"] == "feature"
    assert t.label() == "shop/newmod.py::parse_header [branch feature at 53cbedcd1ec7]"
    # on the default branch the code is not "gone": it was never there; the reader is told where it is
    assert N.staleness(note, base) is None and not N.is_orphaned(note, base.__contains__)
    assert "pending" in pending_warnings(note, base.__contains__)[0]
    assert "branch feature at 53cbedcd1ec7" in pending_warnings(note, base.__contains__)[0]
    # in a branch session's code it is judged like any other target (absent there is gone)
    assert N.staleness(note, lambda _: None, branch_code=True)["reason"] == "gone"
    body = log.scan().records[0].body
    assert body["branch"] == "feature" and body["about"][0]["branch_commit"] == SHA
    assert N.note_from_body(log.scan().records[0].uid, body).about[0] == t
    # a note about default-branch code is stored exactly as before (no branch fields)
    plain = write(log, ["shop/cart.py::total"], base.resolve)
    rec = next(r for r in log.scan().records if ids.note_id(r.uid) == plain.id)
    assert "branch" not in rec.body and set(rec.body["about"][0]) == {"given", "node_id", "content_hash", "path",
                                                                       "qualname", "kind"}
    assert "branch" not in N.provenance(plain)
    # a session on a bare commit says so
    assert N.written_on("", SHA) == "commit 53cbedcd1ec7" and N.written_on(SHA[:7], SHA) == "commit 53cbedcd1ec7"


def test_merge_keeps_a_pending_note_active_then_lands_it_and_a_later_deletion_orphans_it(tmp_path):
    log = DeltaLog(tmp_path / "deltalog")
    base = CodeLookup.from_records(nodes(BASE))
    note = write(log, ["shop/newmod.py::parse_header"], scope().resolver(base), commit=SHA, branch="feature")
    records = log.scan().records
    # the default branch re-indexed before the branch is merged: kept, active, pending, no edge
    before = merge(None, records, nodes(BASE), repo=REPO)
    assert [n["status"] for n in before.nodes] == ["active"] and before.edges == []
    assert before.pending == [note.id] and before.orphaned == [] and before.summary()["pending"] == 1
    assert json.loads(before.nodes[0]["meta"])["about"][0]["branch"] == "feature"
    again = merge(before.nodes, records, nodes(BASE), repo=REPO)     # idempotent, still pending
    assert again.nodes == before.nodes and again.new_ids == []
    # merged and re-indexed: the target lands (marks dropped, the writer's hash kept) and is attached
    merged_code = nodes({**BASE, **BRANCH})
    landed = merge(again.nodes, records, merged_code, repo=REPO)
    assert landed.pending == [] and [e["dst"] for e in landed.edges] == [note.about[0].node_id]
    t = notenodes.note_from_node(landed.nodes[0]).about[0]
    assert not t.pending and t.content_hash == note.about[0].content_hash
    assert "[branch" not in landed.nodes[0]["full"] and notenodes.note_from_node(landed.nodes[0]).branch == "feature"
    # the code changed on the way in: stale, like any note
    changed = nodes({**BASE, **BRANCH, ("shop/newmod.py", "function", "parse_header"): "def parse_header(b):\n"
                     "    return b[:8]\n"})
    st = N.staleness(notenodes.note_from_node(merge(again.nodes, records, changed, repo=REPO).nodes[0]),
                     CodeLookup.from_records(changed))
    assert st is not None and st["reason"] == "changed"
    # once landed, the code going away later orphans it (it is no longer waiting for a branch)
    gone = merge(landed.nodes, records, nodes(BASE), repo=REPO)
    assert gone.nodes[0]["status"] == "orphaned" and gone.pending == []
