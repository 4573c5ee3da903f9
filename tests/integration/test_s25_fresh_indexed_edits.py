"""Freshness after `stratum index` took uncommitted edits in (session 25, a probe): the index reads the
work tree, so while a file on disk is the version the index read, an answer returning it serves what
the agent would open and is not stale; an edit after that index makes it stale again. And `status`
counts untracked files as uncommitted, as the answers' warnings do (the store's folder never).
Real git repositories, the real index job, the real Tools and the real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.gitio import freshness
from stratum.tools import Tools
from tests.gitrepo import Repo, git

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
F1 = "def f():\n    return 1\n"
F2 = "def f():\n    return 2\n"       # the same size as F3: only the bytes tell them apart
F3 = "def f():\n    return 3\n"


def _index(repo: Path, store: Path) -> None:
    from dataclasses import replace

    from pipeline.job import index_repository
    from stratum.config import IndexConfig

    cfg = IndexConfig(num_cpus=1, ray=False)
    index_repository(repo, store, replace(cfg, embed=replace(cfg.embed, enabled=False)))


def _tools(store: Path) -> tuple[Tools, str]:
    t = Tools.open([str(store)], freshness=freshness)
    assert t.memory.freshness is not None
    t.memory.freshness.probe_seconds = 0          # the test edits files between calls
    return t, t.open_session(author="agent").data["session"]


def _cli(*args: str, cwd: Path, home: Path) -> str:
    p = subprocess.run([sys.executable, "-m", "stratum.cli", *args], cwd=str(cwd),
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(home)},
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_cli_get_of_a_file_indexed_with_its_uncommitted_edit_is_not_stale_until_it_is_edited_again(tmp_path):
    """The probe, as the user ran it: commit, index, edit without committing, index again, get."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"a.py": F1, "b.py": "x = 1\n"})
    _cli("index", ".", "--no-embed", "--no-ray", cwd=r.path, home=tmp_path)
    (r.path / "a.py").write_text(F2)
    _cli("index", ".", "--no-embed", "--no-ray", cwd=r.path, home=tmp_path)
    out = _cli("get", "a.py::f", "--level", "full", cwd=r.path, home=tmp_path)
    assert "return 2" in out and "-- stale" not in out and "uncommitted" not in out, out
    (r.path / "a.py").write_text(F3)                # edited after that index: what is served is not the disk
    out = _cli("get", "a.py::f", "--level", "full", cwd=r.path, home=tmp_path)
    assert "return 2" in out and "-- stale: uncommitted changes in a.py (returned here)" in out, out


def test_answers_judge_each_indexed_uncommitted_file_by_what_the_disk_holds_now(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"pkg/a.py": F1, "pkg/b.py": "def g():\n    return 1\n"})
    store = tmp_path / "store"
    _index(r.path, store)
    r.write({"pkg/a.py": F2, "pkg/new.py": "def h():\n    return 1\n"})   # an edit and an untracked file
    git(r.path, "add", "pkg/new.py")                                   # staged, or not: uncommitted alike
    _index(r.path, store)
    t, s = _tools(store)
    try:
        for target in ("pkg/a.py::f", "pkg/new.py::h", "pkg/a.py"):
            got = t.get(s, target, "full")
            assert not got.envelope.stale and got.envelope.warnings == [], (target, got.envelope.warnings)
        tree = t.tree(s, "pkg", depth=1)                              # nothing below it differs from disk
        assert not tree.envelope.stale, tree.envelope.warnings
        st = t.status(s)
        assert not st.envelope.stale and st.data["shards"][0]["uncommitted_changes"] is True, st.envelope.warnings

        os.utime(r.path / "pkg/a.py")               # touched, the bytes the same: still what was indexed
        assert not t.get(s, "pkg/a.py::f", "full").envelope.stale

        (r.path / "pkg/a.py").write_text(F3)          # edited again: stale, for that file only
        got = t.get(s, "pkg/a.py::f", "full")
        assert "return 2" in got.items[0].text and got.envelope.stale
        assert got.envelope.warnings == ["uncommitted changes in pkg/a.py (returned here)"]
        assert not t.get(s, "pkg/new.py::h", "full").envelope.stale
        tree = t.tree(s, "pkg", depth=1)
        assert "uncommitted changes below the returned folders: pkg/ (1)" in tree.envelope.warnings
        st = t.status(s)
        assert st.envelope.stale and "uncommitted changes: 1 file: pkg/a.py" in st.envelope.warnings

        (r.path / "pkg/a.py").write_text(F2)          # put back as indexed: fresh again
        assert not t.get(s, "pkg/a.py::f", "full").envelope.stale

        git(r.path, "stash", "-q", "--include-untracked")   # the indexed edits leave the work tree
        got = t.get(s, "pkg/a.py::f", "full")
        assert got.envelope.stale and any("indexed uncommitted edits of pkg/a.py that the work tree no longer has"
                                          in w for w in got.envelope.warnings), got.envelope.warnings
    finally:
        t.close()


def test_status_counts_untracked_files_as_uncommitted_as_the_warnings_do(tmp_path):
    r = Repo(tmp_path / "repo")
    c1 = r.commit("init", {"a.py": F1})
    store = r.path / ".stratum"                      # the default place: inside the repository
    _index(r.path, store)
    (store / ".gitignore").unlink()                  # a store git does not ignore is still no change
    t, s = _tools(store)
    try:
        st = t.status(s)
        assert st.data["shards"][0]["uncommitted_changes"] is False and not st.envelope.stale, st.envelope.warnings
        assert freshness(str(r.path), c1)["uncommitted_changes"] is False
        r.write({"notes.txt": "scratch\n"})          # untracked only
        st = t.status(s)
        assert st.envelope.warnings == ["uncommitted changes: 1 file: notes.txt"]
        assert st.data["shards"][0]["uncommitted_changes"] is True
        assert freshness(str(r.path), c1)["uncommitted_changes"] is True     # the status check alone agrees
    finally:
        t.close()
