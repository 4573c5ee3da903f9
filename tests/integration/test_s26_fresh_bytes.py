"""An edit of a returned file the freshness view holds as uncommitted is judged by the file's bytes,
hashed as git hashes a blob, against the blobs `git status --porcelain=v2` listed: an editor's save
and undo cycles run no git process (each one ran a git look: rev-parse and status). Where git's
bytes are not the file's (CRLF conversion, an ``ident`` attribute) or a file git did not list is
edited, git looks again and its verdict stands. Real repositories, the real index job, the real
Tools with the real git source; every git process counted by a `git` on PATH that logs each run."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from pipeline.gitio import GitFreshness
from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig, default_store_path
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
CLEAN = "def f():\n    return 0\n"
EDITS = ["def f():\n    return 10\n", "def f():\n    return 200\n", "def f():\n    return 3000\n"]
DIRTY = ["uncommitted changes in m.py (returned here)"]


@pytest.fixture
def gitlog(tmp_path, monkeypatch) -> Path:
    """A log of every git process this test's code starts (a `git` first on PATH that logs, then runs git)."""
    real = shutil.which("git")
    assert real
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    log = tmp_path / "git.log"
    log.write_text("")
    wrapper = bin_ / "git"
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_}{os.pathsep}{os.environ['PATH']}")
    return log


def _runs(log: Path) -> list[str]:
    return [ln for ln in log.read_text().splitlines() if ln]


def _open(tmp_path, untracked: dict[str, str] | None = None) -> tuple[Repo, Tools, str]:
    """m.py committed (and ``untracked`` files beside it), indexed; the Tools over its store."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"m.py": CLEAN})
    r.write(untracked or {})
    index_repository(r.path, None, CFG)
    t = Tools.open([str(default_store_path(r.path))], freshness=GitFreshness())
    return r, t, t.open_session(author="agent").data["session"]


def _warnings(t: Tools, s: str) -> list[str]:
    return t.get(s, "m.py::f").envelope.warnings


def test_save_and_undo_cycles_of_a_returned_file_run_no_git(tmp_path, gitlog):
    r, t, s = _open(tmp_path, {})
    try:
        assert _warnings(t, s) == []
        (r.path / "m.py").write_text(EDITS[0])
        assert _warnings(t, s) == DIRTY                    # the first edit of a clean file: git looks
        first = len(_runs(gitlog))
        for i in range(6):                                 # undo, save, undo, save ... each seen at once
            (r.path / "m.py").write_text(CLEAN if i % 2 == 0 else EDITS[(i // 2 + 1) % 3])
            assert _warnings(t, s) == ([] if i % 2 == 0 else DIRTY), i
        later = _runs(gitlog)[first:]
        asked = [ln.split(" ", 2)[2].split(" ", 1)[0] for ln in later]     # "-C REPO COMMAND ..."
        assert asked == ["config", "check-attr"], later    # the settings, asked once for the view: no status
        assert t.status(s).data["shards"][0]["uncommitted_changes"] is True      # status still asks git
        (r.path / "m.py").write_text(CLEAN)
        assert _warnings(t, s) == [] and t.status(s).data["shards"][0]["uncommitted_changes"] is False
    finally:
        t.close()


def test_a_staged_file_stays_uncommitted_whatever_its_bytes_without_git(tmp_path, gitlog):
    r, t, s = _open(tmp_path, {})
    try:
        (r.path / "m.py").write_text(EDITS[0])
        git(r.path, "add", "m.py")
        assert _warnings(t, s) == DIRTY
        n = len(_runs(gitlog))
        (r.path / "m.py").write_text(CLEAN)                # HEAD's bytes, but the index holds the edit
        assert _warnings(t, s) == DIRTY
        (r.path / "m.py").unlink()
        assert _warnings(t, s) == DIRTY
        assert _runs(gitlog)[n:] == []
    finally:
        t.close()


def _checked_out(r: Repo) -> bytes:
    """m.py as a checkout writes it (git's recorded size is then the written one's): its bytes."""
    (r.path / "m.py").unlink()
    git(r.path, "checkout", "-q", "--", "m.py")
    return (r.path / "m.py").read_bytes()


def _converting(tmp_path, attributes: str, autocrlf: str) -> tuple[Repo, Tools, str, bytes]:
    r = Repo(tmp_path / "repo")
    git(r.path, "config", "core.autocrlf", autocrlf)
    r.commit("init", {".gitattributes": attributes, "m.py": "# $Id$\n" + CLEAN})
    written = _checked_out(r)
    index_repository(r.path, None, CFG)
    t = Tools.open([str(default_store_path(r.path))], freshness=GitFreshness())
    return r, t, t.open_session(author="agent").data["session"], written


@pytest.mark.parametrize("attributes,autocrlf,written", [
    ("", "true", b"# $Id$\r\ndef f():\r\n    return 0\r\n"),        # CRLF line ends: git stores LF
    ("*.py ident\n", "false", b"# $Id: "),                             # $Id: <blob> $: git stores $Id$
])
def test_bytes_git_converts_are_judged_by_git(tmp_path, gitlog, attributes, autocrlf, written):
    """A checkout's bytes are not the blob's here: the hash alone called them uncommitted."""
    r, t, s, checkout = _converting(tmp_path, attributes, autocrlf)
    try:
        assert checkout.startswith(written) and _warnings(t, s) == []
        (r.path / "m.py").write_text(EDITS[0])
        assert _warnings(t, s) == DIRTY
        (r.path / "m.py").write_bytes(checkout)            # undone: clean to git
        assert git(r.path, "status", "--porcelain") == ""
        n = len(_runs(gitlog))
        assert _warnings(t, s) == []
        assert any(" status --porcelain=v2 " in ln for ln in _runs(gitlog)[n:]), _runs(gitlog)[n:]
    finally:
        t.close()


def test_the_blobs_bytes_that_git_calls_modified_under_autocrlf_are_as_git_says(tmp_path, gitlog):
    """core.autocrlf=true: a checkout wrote CRLF; the blob's own LF bytes are "modified" to git (its
    recorded size is the CRLF file's), and so they are in the answer: the hash alone said clean."""
    r, t, s, checkout = _converting(tmp_path, "", "true")
    try:
        (r.path / "m.py").write_text(EDITS[0])
        assert _warnings(t, s) == DIRTY
        (r.path / "m.py").write_bytes(checkout.replace(b"\r\n", b"\n"))
        assert git(r.path, "status", "--porcelain") == " M m.py\n"
        assert _warnings(t, s) == DIRTY
    finally:
        t.close()


def test_an_untracked_returned_file_edited_or_removed_is_judged_without_git(tmp_path, gitlog):
    r, t, s = _open(tmp_path, {"n.py": "def g():\n    return 1\n"})
    said = ["uncommitted changes in n.py (returned here)"]
    try:
        assert t.get(s, "n.py::g").envelope.warnings == []         # indexed as the disk holds it
        (r.path / "n.py").write_text("def g():\n    return 22\n")
        assert t.get(s, "n.py::g").envelope.warnings == said
        n = len(_runs(gitlog))
        (r.path / "n.py").write_text("def g():\n    return 333\n")
        assert t.get(s, "n.py::g").envelope.warnings == said
        (r.path / "n.py").unlink()
        assert t.get(s, "n.py::g").envelope.warnings == [
            "stale: this version indexed uncommitted edits of n.py that the work tree no longer has (stashed or "
            "reverted since): run `stratum index`"]               # git no longer lists it: not uncommitted
        assert _runs(gitlog)[n:] == []
    finally:
        t.close()


def test_a_bare_autocrlf_key_is_true_as_git_reads_it(tmp_path):
    """`[core] autocrlf` with no value is true to git (a checkout writes CRLF); it was read as false,
    so a file's bytes were hashed where git judges them otherwise (a review)."""
    from pipeline.gitattrs import stored_as_is

    r = Repo(tmp_path / "repo")
    r.commit("init", {"m.py": CLEAN})
    assert stored_as_is(r.path, ["m.py"]) == {"m.py"}
    with open(r.path / ".git" / "config", "a") as f:
        f.write("[core]\n\tautocrlf\n")
    assert git(r.path, "config", "--type=bool", "core.autocrlf").strip() == "true"
    assert stored_as_is(r.path, ["m.py"]) == frozenset()
