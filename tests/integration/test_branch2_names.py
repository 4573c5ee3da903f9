"""A branch whose name holds an invisible character (git allows U+200B) is refused when a session is
opened on it, naming the character, on the CLI and through Tools alike. Notes written in a branch
session record the branch, and names there are plain text matched exactly (``limits.plain_name``).
Before, such a session read fine, then the CLI's ``remember`` was refused ("note session must be at
most 200 printable characters") while a Tools session stored the note as written on branch "feat"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig, default_store_path
from stratum.errors import InvalidArgument
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False)
ROOT = Path(__file__).resolve().parents[2]
HIDDEN = "fe\u200bat"
SAID = "U+200B ZERO WIDTH SPACE"


def _repo(tmp_path: Path) -> Repo:
    """main indexed into the repository's default store; branches fe<U+200B>at and feat change alpha."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"a.py": "def alpha():\n    return 1\n"})
    index_repository(r.path, default_store_path(r.path), CFG)
    for name in (HIDDEN, "feat"):
        git(r.path, "checkout", "-q", "-b", name, "main")
        r.commit("alpha two", {"a.py": "def alpha():\n    return 2\n"})
    git(r.path, "checkout", "-q", "main")
    return r


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "stratum.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=str(cwd), env=env)


def _notes(t: Tools) -> int:
    return len(t.memory.overlay(next(iter(t.memory))).notes)


def test_a_branch_with_an_invisible_character_is_refused_up_front_naming_it(tmp_path):
    r = _repo(tmp_path)
    t = Tools.open([str(default_store_path(r.path))], overlay_builder=builder(CFG))
    with pytest.raises(InvalidArgument) as e:
        t.open_session(branch=HIDDEN)
    assert SAID in str(e.value) and "'fe\\u200bat'" in str(e.value) and "rename the branch" in str(e.value)
    sid = t.open_session(branch="feat").data["session"]       # a plain name: notes work, under its name
    nid = t.remember(sid, "insight", "alpha returns two here", ["a.py::alpha"]).data["note_id"]
    assert t.get(sid, nid).items[0].provenance["branch"] == "feat"
    assert _notes(t) == 1
    t.close()

    for args in (("get", "a.py::alpha"), ("remember", "insight", "alpha is two", "--about", "a.py::alpha")):
        p = _cli(*args, "--branch", HIDDEN, cwd=r.path)
        assert p.returncode != 0 and SAID in p.stderr and "Traceback" not in p.stderr, p.stderr
    wt = tmp_path / "wt"                    # a worktree on it: its notes would record that name too
    git(r.path, "worktree", "add", "-q", str(wt), HIDDEN)
    p = _cli("get", "a.py::alpha", cwd=wt)
    assert p.returncode != 0 and SAID in p.stderr and "the worktree's branch" in p.stderr, p.stderr
    t = Tools.open([str(default_store_path(r.path))], overlay_builder=builder(CFG))
    assert _notes(t) == 1                   # nothing written by the refused calls
    t.close()


def test_the_commit_a_hidden_branch_names_takes_notes_from_the_cli(tmp_path):
    """`--commit` names a commit, not a branch to record: a rev with an invisible character still
    works (the CLI's session id is a digest of it; the id itself refused the character)."""
    r = _repo(tmp_path)
    p = _cli("remember", "insight", "alpha is two on that commit", "--about", "a.py::alpha", "--commit", HIDDEN,
             cwd=r.path)
    assert p.returncode == 0, p.stderr
    t = Tools.open([str(default_store_path(r.path))], overlay_builder=builder(CFG))
    assert _notes(t) == 1
    t.close()
