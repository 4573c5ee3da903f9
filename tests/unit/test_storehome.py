"""Where the default store lives, read from git's files as git lays them out (``stratum.storehome``):
no git run, so these layouts are written by hand as git writes them."""

from __future__ import annotations

from pathlib import Path

from stratum import storehome as H


def _checkout(top: Path) -> Path:
    (top / ".git").mkdir(parents=True)
    return top


def _worktree(main: Path, top: Path, name: str) -> Path:
    """A linked worktree as `git worktree add` leaves it: ``.git`` a file naming its git dir, whose
    ``commondir`` leads back and whose ``gitdir`` names the worktree's ``.git`` file."""
    gd = main / ".git" / "worktrees" / name
    gd.mkdir(parents=True)
    (gd / "commondir").write_text("../..\n")
    top.mkdir(parents=True)
    (top / ".git").write_text(f"gitdir: {gd}\n")
    (gd / "gitdir").write_text(f"{top / '.git'}\n")
    return top


def test_a_checkout_s_store_is_in_its_git_directory(tmp_path):
    top = _checkout(tmp_path / "repo")
    assert H.git_dirs(top) == H.GitDirs(top / ".git", top / ".git") and not H.git_dirs(top).linked
    assert H.default_store_path(top) == top.resolve() / ".git" / "stratum"
    assert H.repository_of(str(top / ".git" / "stratum")) == str(top)


def test_a_linked_worktree_s_own_store_is_kept_apart_from_what_worktree_remove_deletes(tmp_path):
    main = _checkout(tmp_path / "repo")
    wt = _worktree(main, tmp_path / "wt", "wt")
    dirs = H.git_dirs(wt)
    assert dirs is not None and dirs.linked and dirs.common == main / ".git"
    own = H.default_store_path(wt)
    assert own == main.resolve() / ".git" / "stratum-worktrees" / "wt"
    assert H.shared_store(dirs.common) == main.resolve() / ".git" / "stratum"
    assert H.repository_of(str(own)) == str(wt)
    (main / ".git" / "worktrees" / "wt" / "gitdir").unlink()           # removed: its manifest says where it was
    assert H.repository_of(str(own)) is None


def test_a_submodule_s_git_file_without_commondir_is_its_own_checkout(tmp_path):
    sup = _checkout(tmp_path / "super")
    gd = sup / ".git" / "modules" / "lib"
    gd.mkdir(parents=True)
    (sup / "lib").mkdir()
    (sup / "lib" / ".git").write_text("gitdir: ../.git/modules/lib\n")
    assert H.default_store_path(sup / "lib") == gd.resolve() / "stratum"


def test_a_stratum_folder_is_used_only_when_it_holds_a_store(tmp_path):
    top = _checkout(tmp_path / "repo")
    (top / ".stratum").write_text("a tracked file of that name\n")
    assert H.default_store_path(top) == top.resolve() / ".git" / "stratum"
    (top / ".stratum").unlink()
    (top / ".stratum" / "deltalog").mkdir(parents=True)               # notes written, no index yet
    assert H.default_store_path(top) == top.resolve() / ".stratum"
    assert H.in_work_tree(top, top / ".stratum")
    assert 'mv .stratum "$(git rev-parse --git-common-dir)/stratum"' in H.legacy_advice(top)
    assert H.repository_of(str(top / ".stratum")) == str(top)
    wt = _worktree(top, tmp_path / "wt", "wt")
    (wt / ".stratum").mkdir()
    (wt / ".stratum" / "manifest.json").write_text("{}")
    said = H.legacy_advice(wt)
    assert 'mkdir -p "$(git rev-parse --git-common-dir)/stratum-worktrees"' in said, said
    assert 'mv .stratum "$(git rev-parse --git-common-dir)/stratum-worktrees/wt"' in said, said


def test_outside_git_and_in_a_bare_repository(tmp_path):
    assert H.default_store_path(tmp_path) == tmp_path.resolve() / ".stratum"
    assert not H.in_work_tree(tmp_path, tmp_path / ".stratum")       # nothing of git's deletes it there
    bare = tmp_path / "shop.git"
    bare.mkdir()
    assert H.shared_store(bare) == bare / "stratum"
    assert H.repository_of(str(tmp_path / "elsewhere" / "store")) is None
