"""An agent learns the label its own session's notes carry (notetrust.session_label), so it can pick
its notes out of a search; the session id itself is never shown in a note."""

from __future__ import annotations


def test_an_agent_learns_its_own_sessions_label_to_find_its_notes(tmp_path):
    """open_session and status say the label the session's notes carry (the id is never shown)."""
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from stratum.tools import Tools
    from tests.gitrepo import Repo

    r = Repo(tmp_path / "repo")
    r.commit("init", {"a.py": "def alpha():\n    return 1\n"})
    index_repository(r.path, tmp_path / "store", IndexConfig(num_cpus=1, ray=False))
    t = Tools.open([str(tmp_path / "store")])
    opened = t.open_session(author="ann").data
    sid, label = opened["session"], opened["label"]
    assert label and label != sid and t.status(sid).data["label"] == label
    nid = t.remember(sid, "insight", "alpha returns one on purpose", ["a.py::alpha"]).data["note_id"]
    assert t.get(sid, nid).items[0].provenance["session"] == label
    t.close()
