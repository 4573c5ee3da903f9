"""No session id at rest: on an open server a session id is the only key to a session, and the
store lives inside the repository agents read (a probe: agent B read agent A's id from a delta-log
segment's ``session`` field, then read A's working set and wrote notes as agent-a). The delta log
and the merged nodes keep the session's label (``notetrust.session_label``), never the id. A real repository, the real index job (its merge), the real Tools."""

from __future__ import annotations

from pathlib import Path

from stratum.deltalog import DeltaLog
from stratum.ids import note_id
from stratum.notes import note_body, session_label

FILES = {"pkg/cache.py": "def reset(c):\n    c.clear()\n", "app.py": "from pkg.cache import reset\n\nreset({})\n"}
LOOKALIKE = "s-0123456789abcdef"        # a caller-chosen id shaped like a label: still only an id


def _holding(store: Path, secret: str) -> list[str]:
    """The store's files whose bytes hold ``secret``."""
    raw = secret.encode()
    return sorted(str(p.relative_to(store)) for p in store.rglob("*") if p.is_file() and raw in p.read_bytes())


def _shown(t, sid: str, nid: str) -> tuple[str, str]:
    """(the label an item's provenance gives, its header text) as a reader gets them."""
    it = t.get(sid, nid, level="full").items[0]
    return it.provenance["session"], it.text


def test_the_store_keeps_the_label_never_the_session_id(tmp_path):
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from stratum.tools import Tools
    from tests.gitrepo import Repo

    r = Repo(tmp_path / "repo")
    r.commit("initial", FILES)
    store, cfg = tmp_path / "store", IndexConfig(num_cpus=1, ray=False)
    index_repository(r.path, store, cfg)
    t = Tools.open([str(store)])
    sid = t.open_session(author="agent-a").data["session"]
    chosen = t.resume_session(LOOKALIKE, author="agent-c")
    nid = t.remember(sid, "rca", "the wombat reset clears a copy of the cache", ["pkg/cache.py::reset"]).data["note_id"]
    gone = t.remember(sid, "insight", "the wombat cache needs no reset", ["pkg/cache.py"]).data["note_id"]
    t.retract(sid, gone, "it does")
    other = t.remember(chosen, "insight", "the wombat cache is shared", ["pkg/cache.py"]).data["note_id"]
    reader = t.open_session(author="agent-b").data["session"]
    label, header = _shown(t, reader, nid)
    assert label == session_label(sid) and f"session {label}" in header
    assert _shown(t, reader, other)[0] == session_label(LOOKALIKE) != LOOKALIKE   # hashed, as any id

    log = store / "deltalog"
    assert list(log.glob("*.seg")), "the notes are in the delta log"
    assert _holding(store, sid) == [] and _holding(store, LOOKALIKE) == [], "a session id in the store's files"
    t.close()
    older = DeltaLog(log)           # a note the log held before labels: its session's id under "session"
    body = {**note_body("insight", "the wombat cache predates labels", [], "agent-d"), "session": "sess-before"}
    nid_old = note_id(older.append("note", {k: v for k, v in body.items() if k != "session_label"}))
    older.seal()

    index_repository(r.path, store, cfg)             # merges the notes into the new version's nodes
    assert _holding(store, sid) == [] and _holding(store, LOOKALIKE) == []
    assert [p for p in _holding(store, "sess-before") if not p.startswith("deltalog/")] == [], \
        "the merge stores the label of an id the log held"
    t = Tools.open([str(store)])
    try:
        reader = t.open_session(author="agent-b").data["session"]
        got = t.get(reader, nid, level="full").items[0]
        assert got.meta["merged"] == "true" and (got.provenance["session"], got.text) == (label, header)
        assert _shown(t, reader, other)[0] == session_label(LOOKALIKE)
        assert t.get(reader, gone).items[0].meta["status"] == "retracted"
        assert _shown(t, reader, nid_old)[0] == session_label("sess-before")
    finally:
        t.close()
