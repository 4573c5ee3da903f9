"""The default store outlives every git operation on a work tree (a trust probe: in ``<repo>/.stratum``,
`git clean -fdx`, a checkout of a commit tracking ``.stratum`` and `git worktree remove` of a worktree
indexed into its own store deleted it with every note). It is ``<git-common-dir>/stratum`` now
(``stratum.storehome``); a ``.stratum`` that holds a store is used as before, and `stratum index` says
how to move it. Real repositories, real indexes through the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from stratum.cli import main
from stratum.config import default_store_path
from tests.gitrepo import Repo, git

FAST = ["--no-embed", "--no-ray"]


def _shop(base: Path) -> Repo:
    r = Repo(base)
    r.commit("init", {"shop/cart.py": "def add(x):\n    return x\n", ".gitignore": "*.pyc\n"})
    return r


def _index(capsys, *args: str) -> str:
    assert main(["index", *args, *FAST]) == 0
    return capsys.readouterr().err


def _remember(capsys, text: str) -> None:
    assert main(["remember", "failure", text, "--about", "shop/cart.py::add"]) == 0
    capsys.readouterr()


def _listed(capsys, *args: str) -> str:
    assert main(["notes", "list", "--json", *args]) == 0
    return capsys.readouterr().out


@pytest.fixture
def noted(tmp_path, capsys, monkeypatch) -> Repo:
    """A repository indexed with the default store, one note remembered in it."""
    r = _shop(tmp_path / "repo")
    monkeypatch.chdir(r.path)
    _index(capsys)
    _remember(capsys, "add() overflowed on huge carts")
    return r


def test_the_default_store_is_in_the_git_directory_and_git_clean_leaves_its_notes(noted, capsys):
    git(noted.path, "clean", "-fdx")
    git(noted.path, "clean", "-fdX")
    assert "add() overflowed" in _listed(capsys)
    assert main(["get", "shop/cart.py::add", "--json"]) == 0
    assert "add() overflowed" in capsys.readouterr().out
    assert default_store_path(noted.path) == (noted.path / ".git" / "stratum").resolve()
    assert (noted.path / ".git" / "stratum" / "manifest.json").is_file() and not (noted.path / ".stratum").exists()


def test_checking_out_a_commit_that_tracks_a_stratum_path_leaves_the_notes(tmp_path, capsys, monkeypatch):
    r = _shop(tmp_path / "repo")
    main_branch = git(r.path, "branch", "--show-current").strip()
    git(r.path, "checkout", "-q", "-b", "review")
    r.commit("a pull request tracking .stratum", {".stratum": "not a store\n"})
    git(r.path, "checkout", "-q", main_branch)
    monkeypatch.chdir(r.path)
    _index(capsys)
    _remember(capsys, "add() overflowed on huge carts")
    git(r.path, "checkout", "-q", "review")             # git replaces an ignored .stratum with the tracked file
    assert "add() overflowed" in _listed(capsys)
    git(r.path, "checkout", "-q", main_branch)          # and deletes it on the way back
    assert "add() overflowed" in _listed(capsys)


def test_a_linked_worktree_indexed_with_its_default_keeps_its_notes_past_worktree_remove(noted, tmp_path, capsys,
                                                                                       monkeypatch):
    wt = tmp_path / "wt"
    git(noted.path, "worktree", "add", "-q", "-b", "fw", str(wt))
    monkeypatch.chdir(wt)
    _remember(capsys, "written in the worktree on the shared store")
    own = default_store_path(wt)                         # where its own store goes: outside the worktree
    said = _index(capsys)
    _remember(capsys, "written in the worktree on its own store")
    assert "on its own store" in _listed(capsys)
    monkeypatch.chdir(noted.path)
    git(noted.path, "worktree", "remove", "--force", str(wt))
    assert not wt.exists()
    shared = _listed(capsys)
    assert "add() overflowed" in shared and "on the shared store" in shared, shared
    assert "on its own store" in _listed(capsys, "--store", str(own))
    assert own == (noted.path / ".git" / "stratum-worktrees" / "wt").resolve(), own
    assert "is a linked worktree: indexing it into its own store" in said and "git worktree remove" in said, said


def test_a_store_in_the_work_tree_is_still_used_and_index_says_how_to_move_it(tmp_path, capsys, monkeypatch):
    r = _shop(tmp_path / "repo")
    monkeypatch.chdir(r.path)
    _index(capsys, "--store", ".stratum")               # as the older default made it
    _remember(capsys, "kept in the legacy store")       # (--store named: no default looked at yet)
    assert default_store_path(r.path) == (r.path / ".stratum").resolve()
    assert "kept in the legacy store" in _listed(capsys)
    said = _index(capsys)
    lines = [ln for ln in said.splitlines() if "git clean -fdx" in ln]
    assert len(lines) == 1 and 'mv .stratum "$(git rev-parse --git-common-dir)/stratum"' in lines[0], said
    assert not (r.path / ".git" / "stratum").exists()   # never moved silently
    assert (r.path / ".stratum" / "manifest.json").is_file()
    shutil.move(str(r.path / ".stratum"), str(r.path / ".git" / "stratum"))      # the advice, followed
    assert "kept in the legacy store" in _listed(capsys)
    assert "git clean" not in _index(capsys)


def test_a_linked_worktree_answers_from_the_main_checkout_s_legacy_store(tmp_path, capsys, monkeypatch):
    r = _shop(tmp_path / "repo")
    monkeypatch.chdir(r.path)
    _index(capsys, "--store", ".stratum")
    _remember(capsys, "kept in the legacy store")
    wt = tmp_path / "wt"
    git(r.path, "worktree", "add", "-q", "-b", "fw", str(wt))
    monkeypatch.chdir(wt)
    assert "kept in the legacy store" in _listed(capsys)
    _remember(capsys, "written in the worktree")
    monkeypatch.chdir(r.path)
    assert "written in the worktree" in _listed(capsys)
    assert not default_store_path(wt).exists()


def test_a_copied_clone_carries_its_store_in_the_git_directory(noted, tmp_path, capsys, monkeypatch):
    copy = tmp_path / "copy"
    shutil.copytree(noted.path, copy, symlinks=True)
    monkeypatch.chdir(copy)
    assert main(["status", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert str(copy) in json.dumps(got) and "add() overflowed" in _listed(capsys), got
