"""Freshness after `stratum index` took uncommitted edits in and the agent then committed them unchanged
(session 25, F7): HEAD moved past the indexed commit, but its version of such a file is the one the
index read, so answers no longer name it as changed since (they still say HEAD moved on), status
names it apart, and `remember` about it writes a note about the indexed version (it said "written
against the work tree's version ... (it differs from the indexed commit)" and marked the note as
uncommitted work on the checkout's branch), before the commit as after it.
Real git repositories, the real index job, the overlay builder, the real Tools and the CLI."""

from __future__ import annotations

import pytest

from pipeline.gitio import freshness
from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import EmbedConfig, IndexConfig, default_store_path
from stratum.tools import Tools
from tests.clirun import run
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
F1 = "def f():\n    return 1\n"
F2 = "def f():\n    return 2\n"       # the same size as F3: only the bytes tell them apart
F3 = "def f():\n    return 3\n"
G1 = "def g():\n    return 1\n"
G2 = "def g():\n    return 22\n"


def _indexed_edit(tmp_path, files: dict[str, str], edit: dict[str, str]) -> tuple[Repo, str, str]:
    """A repository indexed at its first commit, then again with EDIT uncommitted in the work tree:
    (it, its default store, that first commit)."""
    r = Repo(tmp_path / "repo")
    c1 = r.commit("init", files)
    index_repository(r.path, None, CFG)
    r.write(edit)
    index_repository(r.path, None, CFG)        # reads the work tree: the edit is what it holds
    return r, str(default_store_path(r.path)), c1


def _tools(store: str) -> tuple[Tools, str]:
    t = Tools.open([store], freshness=freshness, overlay_builder=builder(CFG))
    assert t.memory.freshness is not None
    t.memory.freshness.probe_seconds = 0         # the test edits and commits between calls
    return t, t.open_session().data["session"]


def test_cli_after_committing_the_indexed_edit_get_says_head_moved_but_names_no_returned_file(tmp_path, capsys,
                                                                                          monkeypatch):
    """The probe as the user ran it: index an edit, commit it unchanged, then get, status, remember."""
    r, _, c1 = _indexed_edit(tmp_path, {"a.py": F1, "b.py": G1}, {"a.py": F2})
    c2 = r.commit("the edit the index already read")
    monkeypatch.chdir(r.path)
    rc, out, err = run(capsys, "get", "a.py::f", "--level", "full")
    assert rc == 0, err
    assert "return 2" in out
    assert (f"-- stale: the index is at {c1[:7]} and HEAD is {c2[:7]} (1 commit ahead); "
            "none of the returned files changed since") in out, out          # it said: changed since: a.py
    rc, out, err = run(capsys, "status")
    assert rc == 0, err
    assert ("0 files changed since; 1 file committed as the index read it (with uncommitted edits): a.py"
            in out), out
    rc, out, err = run(capsys, "remember", "rca", "f returns 2 now", "--about", "a.py::f")
    assert rc == 0, err
    assert "work tree" not in out + err, out + err


def test_answers_name_only_the_files_whose_head_version_the_index_does_not_hold(tmp_path):
    r, store, c1 = _indexed_edit(tmp_path, {"pkg/a.py": F1, "pkg/b.py": G1}, {"pkg/a.py": F2})
    r.write({"pkg/b.py": G2})                   # changed by the same commit, not indexed
    c2 = r.commit("the indexed edit and one more")
    moved = f"stale: the index is at {c1[:7]} and HEAD is {c2[:7]} (1 commit ahead)"
    t, s = _tools(store)
    try:
        got = t.get(s, "pkg/a.py::f", "full")
        assert "return 2" in got.items[0].text
        assert got.envelope.stale and got.envelope.warnings == [f"{moved}; none of the returned files changed since"]
        assert t.get(s, "pkg/a.py", "full").envelope.warnings == [f"{moved}; none of the returned files changed since"]
        assert t.get(s, "pkg/b.py::g", "full").envelope.warnings == [
            f"{moved}; these returned files changed since: pkg/b.py"]
        tree = t.tree(s, "pkg", depth=1)                       # pkg/a.py is neither named nor counted below it
        assert tree.envelope.warnings == [f"{moved}; these returned files changed since: pkg/b.py; files changed "
                                          "since below the returned folders: pkg/ (1)"], tree.envelope.warnings
        st = t.status(s)
        assert st.envelope.warnings == [f"{moved}; 1 file changed since: pkg/b.py; 1 file committed as the index "
                                        "read it (with uncommitted edits): pkg/a.py"], st.envelope.warnings
        assert st.data["shards"][0]["moved_on"] is True and st.data["shards"][0]["uncommitted_changes"] is False

        (r.path / "pkg/a.py").write_text(F3)     # edited again: HEAD's version is still the indexed one...
        got = t.get(s, "pkg/a.py::f", "full")    # ...but the disk is not: uncommitted, and HEAD's is
        assert got.envelope.warnings == [f"{moved}; these returned files changed since: pkg/a.py",
                                         "uncommitted changes in pkg/a.py (returned here)"], got.envelope.warnings
        (r.path / "pkg/a.py").write_text(F2)     # put back: HEAD's version, the indexed one
        assert t.get(s, "pkg/a.py::f", "full").envelope.warnings == [
            f"{moved}; none of the returned files changed since"]

        r.write({"pkg/a.py": F3})
        c3 = r.commit("another version")          # HEAD's version is no longer the one the index read
        got = t.get(s, "pkg/a.py::f", "full")
        assert got.envelope.warnings == [f"stale: the index is at {c1[:7]} and HEAD is {c3[:7]} (2 commits ahead); "
                                         "these returned files changed since: pkg/a.py"], got.envelope.warnings
    finally:
        t.close()


def test_remember_about_a_file_indexed_with_its_edit_writes_about_the_indexed_version(tmp_path):
    r, store, _ = _indexed_edit(tmp_path, {"pkg/a.py": F1, "pkg/b.py": G1}, {"pkg/a.py": F2})
    t, s = _tools(store)
    try:
        got = t.remember(s, "rca", "f returns 2 since the fix", ["pkg/a.py::f"])
        assert got.envelope.warnings == [], got.envelope.warnings    # "written against the work tree's version"
        before = got.data["note_id"]
        assert "branch" not in got.items[0].provenance, got.items[0].provenance   # not uncommitted work on main
        r.commit("the fix, as indexed")
        got = t.remember(s, "insight", "f is the fixed one", ["pkg/a.py::f"])
        assert not any("work tree" in w for w in got.envelope.warnings), got.envelope.warnings
        assert got.envelope.warnings[-1].endswith("none of the returned files changed since"), got.envelope.warnings
        after = got.data["note_id"]
        assert "branch" not in got.items[0].provenance, got.items[0].provenance

        r.write({"pkg/a.py": F3})                 # an edit the index has not read: the work tree's version
        got = t.remember(s, "insight", "f returns 3 while tried", ["pkg/a.py::f"])
        assert any("written against the work tree's version of pkg/a.py" in w for w in got.envelope.warnings)
        r.write({"pkg/a.py": F2})
    finally:
        t.close()
    index_repository(r.path, None, CFG)           # the committed version, indexed: both notes fresh on it
    t, s = _tools(store)
    try:
        for nid in (before, after):
            assert not [w for w in t.get(s, nid).items[0].warnings if "stale" in w], nid
        carried = {n["id"]: n for n in t.get(s, "pkg/a.py::f").items[0].notes}
        assert {before, after} <= set(carried) and not any(carried[n]["stale"] for n in (before, after)), carried
    finally:
        t.close()
