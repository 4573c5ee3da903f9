"""Git layouts the default store must follow (s34 store probe, F3-F6): a linked worktree of a
``--separate-git-dir`` clone, a new worktree given a removed one's name, ``GIT_DIR``/``GIT_WORK_TREE``,
and a moved superproject's submodule. Real repositories, real indexes through the CLI."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from stratum.cli import main
from stratum.config import default_store_path
from stratum.storehome import repository_of
from tests.gitrepo import GIT_ENV, Repo, git
from tests.integration.test_s34_store_home_trust import FAST, FILES, _run

def _texts(capsys, *args: str) -> list[str]:
    rc, out, err = _run(capsys, "notes", "list", "--json", *args)
    assert rc == 0, err
    return [n["text"] for n in json.loads(out)["notes"]]


def _noted(capsys, monkeypatch, top: Path, text: str) -> None:
    monkeypatch.chdir(top)
    rc, _out, err = _run(capsys, "index", *FAST)
    assert rc == 0, err
    assert _run(capsys, "remember", "rca", text, "--about", "shop/cart.py::add")[0] == 0


def test_a_worktree_of_a_separate_git_dir_clone_answers_from_the_repository_s_store(tmp_path, capsys, monkeypatch):
    up = Repo(tmp_path / "up")
    up.commit("init", FILES)
    git(tmp_path, "clone", "-q", "--separate-git-dir", str(tmp_path / "sep.git"), str(up.path), "repo")
    repo = tmp_path / "repo"
    _noted(capsys, monkeypatch, repo, "the repository's note")
    assert default_store_path(repo) == (tmp_path / "sep.git" / "stratum").resolve()
    git(repo, "worktree", "add", "-q", "-b", "fw", str(tmp_path / "wt"))
    monkeypatch.chdir(tmp_path / "wt")
    assert "the repository's note" in _texts(capsys)
    rc, out, err = _run(capsys, "get", "shop/cart.py::add", "--json")
    assert rc == 0 and "the repository's note" in out, err


def test_a_new_worktree_of_a_removed_one_s_name_does_not_read_its_store(tmp_path, capsys, monkeypatch):
    r = Repo(tmp_path / "repo")
    r.commit("init", FILES)
    _noted(capsys, monkeypatch, r.path, "the main store's note")
    git(r.path, "worktree", "add", "-q", "-b", "a", str(tmp_path / "one" / "wt"))
    _noted(capsys, monkeypatch, tmp_path / "one" / "wt", "the removed worktree's note")
    old = r.path / ".git" / "stratum-worktrees" / "wt"
    assert (old / "manifest.json").is_file()
    monkeypatch.chdir(r.path)
    git(r.path, "worktree", "remove", "--force", str(tmp_path / "one" / "wt"))
    git(r.path, "worktree", "add", "-q", "-b", "b", str(tmp_path / "two" / "wt"))      # git names it wt again
    new = tmp_path / "two" / "wt"
    monkeypatch.chdir(new)
    texts = _texts(capsys)
    assert "the main store's note" in texts and "the removed worktree's note" not in texts, texts
    rc, _out, err = _run(capsys, "index", *FAST)
    assert rc == 0, err
    assert str(old) in err and "not read here" in err, err
    assert default_store_path(new) == old.with_name("wt.2") and (old.with_name("wt.2") / "manifest.json").is_file()
    assert "the removed worktree's note" in _texts(capsys, "--store", str(old))         # left as it was
    assert _run(capsys, "remember", "rca", "the new worktree's note", "--about", "shop/cart.py::add")[0] == 0
    assert "the removed worktree's note" not in _texts(capsys)
    monkeypatch.chdir(r.path)
    git(r.path, "worktree", "move", str(new), str(tmp_path / "moved"))                 # its store follows
    monkeypatch.chdir(tmp_path / "moved")
    assert "the new worktree's note" in _texts(capsys)
    assert repository_of(str(old.with_name("wt.2"))) == str(tmp_path / "moved")


def test_git_dir_and_git_work_tree_in_the_environment_are_honoured(tmp_path, capsys, monkeypatch):
    outer = Repo(tmp_path / "outer")                # an enclosing repository with a store of its own
    outer.commit("init", FILES)
    _noted(capsys, monkeypatch, outer.path, "the enclosing repository's note")
    tree = outer.path / "inner"                     # a work tree whose git dir is elsewhere
    gd = tmp_path / "inner.git"
    git(tmp_path, "init", "-q", "-b", "main", "--separate-git-dir", str(gd), str(tree))
    os.remove(tree / ".git")                         # no .git file: only the environment names it
    (tree / "shop").mkdir()
    (tree / "shop" / "cart.py").write_text(FILES["shop/cart.py"])
    env = {**os.environ, **GIT_ENV, "GIT_DIR": str(gd), "GIT_WORK_TREE": str(tree)}
    import subprocess
    subprocess.run(["git", "add", "-A"], cwd=tree, env=env, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "init"], cwd=tree, env=env, check=True)
    monkeypatch.setenv("GIT_DIR", str(gd))
    monkeypatch.setenv("GIT_WORK_TREE", str(tree))
    _noted(capsys, monkeypatch, tree / "shop", "the inner work tree's note")
    assert (gd / "stratum" / "manifest.json").is_file() and not (tree / ".stratum").exists()
    texts = _texts(capsys)
    assert "the inner work tree's note" in texts and "the enclosing repository's note" not in texts, texts
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.delenv("GIT_WORK_TREE")
    monkeypatch.chdir(outer.path)
    assert "the inner work tree's note" not in _texts(capsys)


def test_a_moved_superproject_s_submodule_answers_for_its_new_folder(tmp_path, capsys, monkeypatch):
    lib = Repo(tmp_path / "lib")
    lib.commit("init", FILES)
    sup = Repo(tmp_path / "super")
    sup.commit("init", {"README": "x\n"})
    git(sup.path, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib.path), "lib")
    git(sup.path, "commit", "-q", "-m", "lib")
    _noted(capsys, monkeypatch, sup.path / "lib", "the submodule's note")
    store = sup.path / ".git" / "modules" / "lib" / "stratum"
    assert (store / "manifest.json").is_file()
    monkeypatch.chdir(tmp_path)
    shutil.move(str(sup.path), str(tmp_path / "moved"))
    moved_store = tmp_path / "moved" / ".git" / "modules" / "lib" / "stratum"
    assert repository_of(str(moved_store)) == str((tmp_path / "moved" / "lib").resolve())
    monkeypatch.chdir(tmp_path / "moved" / "lib")
    git(tmp_path / "moved" / "lib", "commit", "-q", "--allow-empty", "-m", "after the move")
    head = git(tmp_path / "moved" / "lib", "rev-parse", "HEAD").strip()
    rc, out, err = _run(capsys, "status", "--json")
    shard = json.loads(out)["data"]["shards"][0]
    assert rc == 0 and shard["repo_available"] and shard["head"] == head and shard["new_commits"] == 1, shard


def test_a_linked_worktree_with_nothing_indexed_is_told_to_index_the_main_checkout(tmp_path, capsys, monkeypatch):
    r = Repo(tmp_path / "repo")
    r.commit("init", FILES)
    git(r.path, "worktree", "add", "-q", "-b", "fw", str(tmp_path / "wt"))
    monkeypatch.chdir(tmp_path / "wt")
    for argv in (["notes", "list"], ["search", "add"], ["remember", "insight", "x", "--about", "."]):
        rc, _out, err = _run(capsys, *argv)
        assert rc == 2 and f"index the main checkout ({(r.path / '.git').resolve().parent}" in err, (argv, err)
    assert not (r.path / ".git" / "stratum-worktrees").exists()
