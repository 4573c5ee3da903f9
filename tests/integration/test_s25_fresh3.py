"""Freshness of a returned file the view holds as uncommitted, put back by hand (session 25, F9): an
editor's undo or a copy of HEAD's bytes runs no git command, so neither HEAD, the refs nor git's
index move; every later answer returning the file said `uncommitted changes in m.py (returned here)`
and was stale, indefinitely, while `status` said nothing. A returned file held dirty whose stat
moved since the view was taken now makes git look again, once per change of its stat. And `status`
names apart an uncommitted file the index read as it is on disk (its per-shard
`uncommitted_changes` is git's view of the work tree; the warnings say what the answers serve).
Real git repositories, the real index job, the real Tools and a real gRPC server."""

from __future__ import annotations

import os

import pytest

from pipeline.gitio import GitFreshness
from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig, default_store_path
from stratum.tools import Tools
from tests.clirun import run
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
CLEAN = "def f():\n    return 0\n"
EDIT = "def f():\n    return 1\n"        # the same size as CLEAN: only the mtime or the bytes tell


class Counting(GitFreshness):
    """The real git source, counting the views it takes (each one a `git status`)."""

    def __init__(self) -> None:
        super().__init__()
        self.views = 0

    def view(self, repo_path, indexed_commit):
        self.views += 1
        return super().view(repo_path, indexed_commit)


def _indexed(tmp_path, edit: str | None = None) -> tuple[Repo, str]:
    """A repository of m.py indexed clean at HEAD (or, with ``edit``, indexed again with m.py
    holding it uncommitted): (it, its default store)."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"m.py": CLEAN, "other.py": "def g():\n    return 0\n"})
    index_repository(r.path, None, CFG)
    if edit is not None:
        r.write({"m.py": edit})
        index_repository(r.path, None, CFG)
    return r, str(default_store_path(r.path))


def _tools(store: str, source: GitFreshness) -> tuple[Tools, str]:
    t = Tools.open([store], freshness=source)           # the default re-probe interval, as served
    return t, t.open_session(author="agent").data["session"]


def test_a_returned_file_put_back_by_hand_is_fresh_again_at_once_at_one_git_look_per_change(tmp_path):
    """The probe: get, edit, get (held dirty), write HEAD's bytes back (an editor's undo), get."""
    r, store = _indexed(tmp_path)
    src = Counting()
    t, s = _tools(store, src)
    try:
        e = t.get(s, "m.py::f").envelope
        assert not e.stale and e.warnings == []
        (r.path / "m.py").write_text(EDIT)
        e = t.get(s, "m.py::f").envelope
        assert e.stale and e.warnings == ["uncommitted changes in m.py (returned here)"]
        (r.path / "m.py").write_text(CLEAN)              # undone: git status is clean again
        looks = src.views
        for _ in range(5):                               # it said stale, indefinitely
            e = t.get(s, "m.py::f").envelope
            assert not e.stale and e.warnings == [], e.warnings
        assert src.views == looks                        # judged by its bytes against the index's blob (s26):
        # no git look for the change (it took one per change; before that, said stale indefinitely)
        st = t.status(s)
        assert not st.envelope.stale and st.envelope.warnings == []
        assert st.data["shards"][0]["uncommitted_changes"] is False
    finally:
        t.close()

def test_a_revert_that_restores_the_old_mtime_is_seen_by_its_stat(tmp_path):
    """`cp -p` or `rsync -a` from a backup puts back the file's old mtime: not modified after the
    view was taken, but its stat is not the one the view held as dirty."""
    r, store = _indexed(tmp_path)
    before = os.stat(r.path / "m.py").st_mtime_ns
    t, s = _tools(store, Counting())
    try:
        (r.path / "m.py").write_text(EDIT)
        assert t.get(s, "m.py::f").envelope.stale
        (r.path / "m.py").write_text(CLEAN)
        os.utime(r.path / "m.py", ns=(before, before))
        e = t.get(s, "m.py::f").envelope
        assert not e.stale and e.warnings == [], e.warnings
    finally:
        t.close()

def test_an_indexed_edit_reverted_by_hand_says_the_work_tree_no_longer_has_it(tmp_path):
    """Indexed with m.py's edit, then m.py put back to HEAD's bytes by hand: what is served is the
    edit, which neither HEAD nor the disk holds (it said: uncommitted changes in m.py)."""
    r, store = _indexed(tmp_path, edit=EDIT)
    t, s = _tools(store, Counting())
    try:
        e = t.get(s, "m.py::f").envelope
        assert not e.stale and e.warnings == [], e.warnings      # the disk holds what was read
        (r.path / "m.py").write_text(CLEAN)
        e = t.get(s, "m.py::f").envelope
        assert e.stale and e.warnings == ["stale: this version indexed uncommitted edits of m.py that the work "
                                          "tree no longer has (stashed or reverted since): run `stratum index`"], \
            e.warnings
    finally:
        t.close()

def test_over_grpc_a_reverted_file_is_fresh_again(tmp_path):
    from serving.client import Client
    from serving.server import serve

    r, store = _indexed(tmp_path)
    t, _ = _tools(store, Counting())
    server, port = serve(t, port=0, reload_interval=None)
    try:
        with Client(f"127.0.0.1:{port}", timeout=30) as c:
            sid = c.open_session(author="grpc").data["session"]
            assert c.get(sid, "m.py::f").envelope.warnings == []
            (r.path / "m.py").write_text(EDIT)
            assert c.get(sid, "m.py::f").envelope.warnings == ["uncommitted changes in m.py (returned here)"]
            (r.path / "m.py").write_text(CLEAN)
            e = c.get(sid, "m.py::f").envelope
            assert not e.stale and list(e.warnings) == []
            st = c.status(sid)
            assert list(st.envelope.warnings) == [] and st.data["shards"][0]["uncommitted_changes"] is False
    finally:
        server.stop(None)
        t.close()


def test_status_names_an_uncommitted_file_the_index_read_as_on_disk_apart_and_not_stale(tmp_path):
    """Its per-shard `uncommitted_changes` is git's view of the work tree (as `moved_on` stays true
    once such a file is committed); the status answer said nothing beside it being true."""
    r, store = _indexed(tmp_path, edit=EDIT)
    t, s = _tools(store, Counting())
    try:
        e = t.get(s, "m.py::f").envelope
        assert not e.stale and e.warnings == []
        st = t.status(s)
        assert st.data["shards"][0]["uncommitted_changes"] is True
        assert not st.envelope.stale
        assert st.envelope.warnings == ["not stale: 1 uncommitted file the index read as the work tree holds it: "
                                        "m.py"], st.envelope.warnings
        r.write({"notes.txt": "scratch\n"})              # and one it did not read: that one is staleness
        st = t.status(s)
        assert st.envelope.stale
        assert st.envelope.warnings == ["uncommitted changes: 1 file: notes.txt",
                                        "not stale: 1 uncommitted file the index read as the work tree holds it: "
                                        "m.py"], st.envelope.warnings
    finally:
        t.close()


def test_cli_status_prints_that_line_as_a_warning_not_as_staleness(tmp_path, capsys, monkeypatch):
    r, _ = _indexed(tmp_path, edit=EDIT)
    monkeypatch.chdir(r.path)
    rc, out, err = run(capsys, "status")
    assert rc == 0, err
    assert "uncommitted_changes=True" in out and "-- stale" not in out, out
    assert "-- warning: not stale: 1 uncommitted file the index read as the work tree holds it: m.py" in out, out
