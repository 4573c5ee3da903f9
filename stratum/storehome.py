"""Where a repository's default store lives, read from git's own files (no git run: the core imports no git).

A store holds the agents' notes, which no re-index can rebuild, so its default lives where no git
operation on a work tree deletes it: in git's common directory, as git-lfs keeps ``.git/lfs``. The
default before, ``<repo>/.stratum`` (in the work tree, ignored by git), was deleted with every note
by `git clean -fdx`, by a checkout of a commit tracking a ``.stratum`` path, and by `git worktree
remove` of a worktree indexed into a store of its own (a trust probe).

- a checkout (``.git`` a folder, or a submodule's ``.git`` file): ``<common>/stratum`` (the main
  checkout's ``<repo>/.git/stratum``); every linked worktree shares it and answers from it as a
  worktree session (``stratum.cli.linked_worktree``);
- a linked worktree indexed into a store of its own: ``<common>/stratum-worktrees/<name>``, ``<name>``
  its folder under ``<common>/worktrees`` (which `git worktree remove` deletes, so not there);
- a ``<folder>/.stratum`` that holds a store (the older default): used as before, never moved
  silently (a server may hold it open); `stratum index` says how to move it (``legacy_advice``);
- outside a git repository: ``<folder>/.stratum``, as before.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

LEGACY = ".stratum"             # the store's folder in the work tree (the default before; outside git)
SHARED = "stratum"              # in the common directory: the repository's store
WORKTREES = "stratum-worktrees"  # in the common directory: a linked worktree's own store, by its name


@dataclass(frozen=True)
class GitDirs:
    """A work tree's git directories as git's files name them: its own (``git rev-parse --git-dir``)
    and the common one every worktree shares (``--git-common-dir``); equal outside a linked worktree."""
    git_dir: Path
    common: Path

    @property
    def linked(self) -> bool:
        """A linked worktree (``git worktree add``): its git dir is ``<common>/worktrees/<name>``."""
        return self.git_dir != self.common


def git_dirs(top: str | os.PathLike) -> GitDirs | None:
    """The git directories of the work tree whose root is ``top`` (it holds the ``.git``), else None.
    ``.git`` is the git dir, or a file ``gitdir: PATH`` (a linked worktree, a submodule) whose dir
    may hold ``commondir``, the path of the shared one (relative to it)."""
    dot = os.path.join(top, ".git")
    try:
        if os.path.isdir(dot):
            gd = dot
        elif os.path.isfile(dot):
            with open(dot, encoding="utf-8", errors="surrogateescape") as f:
                line = f.read().strip()
            if not line.startswith("gitdir:"):
                return None
            gd = os.path.normpath(os.path.join(top, line[7:].strip()))
        else:
            return None
        common = gd
        cd = os.path.join(gd, "commondir")
        if os.path.isfile(cd):
            with open(cd, encoding="utf-8", errors="surrogateescape") as f:
                common = os.path.normpath(os.path.join(gd, f.read().strip()))
    except OSError:
        return None
    return GitDirs(Path(gd), Path(common))


def holds_store(folder: Path) -> bool:
    """Whether ``folder`` holds a store: a published manifest, or a delta log (notes written, no index yet)."""
    return (folder / "manifest.json").is_file() or (folder / "deltalog").is_dir()


def default_store_path(repo: str | os.PathLike) -> Path:
    """The store a repository (or linked worktree) whose root is ``repo`` uses by default (see the
    module's docstring): a ``.stratum`` holding a store first, then git's common directory."""
    top = Path(repo).resolve()
    legacy = top / LEGACY
    if holds_store(legacy):
        return legacy
    return _home(top) or legacy


def _home(top: Path) -> Path | None:
    """The default store in git's common directory of the work tree ``top``; None outside git."""
    dirs = git_dirs(top)
    if dirs is None:
        return None
    if dirs.linked:
        return dirs.common / WORKTREES / dirs.git_dir.name
    return dirs.common / SHARED


def shared_store(common: Path) -> Path:
    """The repository's store that linked worktrees answer from: the main checkout's default store
    (its ``.stratum`` when that holds one), or ``<common>/stratum`` (a bare repository's)."""
    if common.name == ".git" and (common.parent / ".git").is_dir():
        return default_store_path(common.parent)
    return common / SHARED


def repository_of(store_root: str) -> str | None:
    """The work tree a default store answers for, read from where the store is: a copied or moved
    clone carries its store (``<repo>/.git/stratum``, ``<repo>/.stratum``), whose manifest still names
    the folder it was indexed in; a worktree's own store names its worktree through git's
    ``worktrees/<name>/gitdir`` (`git worktree move` updates it). None: not a default store, or its
    worktree is gone (the manifest's path is all there is)."""
    root = Path(os.path.abspath(store_root))
    if root.name == LEGACY and (root.parent / ".git").exists():
        return str(root.parent)
    if root.name == SHARED and root.parent.name == ".git" and root.parent.is_dir():
        return str(root.parent.parent)
    if root.parent.name == WORKTREES:
        try:
            dot = (root.parent.parent / "worktrees" / root.name / "gitdir").read_text(
                encoding="utf-8", errors="surrogateescape").strip()
        except OSError:
            return None
        return os.path.dirname(os.path.normpath(dot)) if os.path.exists(dot) else None
    return None


def in_work_tree(top: Path, store: Path) -> bool:
    """Whether ``store`` is a git work tree's own ``.stratum`` (the older default): git clean deletes it.
    (Outside git, ``.stratum`` is the default still, and nothing of git's deletes it.)"""
    return os.path.abspath(store) == os.path.join(os.path.abspath(top), LEGACY) and git_dirs(top) is not None


def legacy_advice(top: Path) -> str:
    """What `stratum index` says of a store in the work tree (``top/.stratum``), with the way out:
    the command that moves it where the default now is (run in ``top``)."""
    home = _home(top)
    common = "$(git rev-parse --git-common-dir)"
    linked = home is not None and home.parent.name == WORKTREES
    where = f"{common}/{WORKTREES}/{home.name}" if home is not None and linked else f"{common}/{SHARED}"
    make = f"mkdir -p \"{common}/{WORKTREES}\" && " if linked else ""
    return (f"the store {top / LEGACY} is in the work tree, where `git clean -fdx` (a checkout of a commit "
            f"tracking `.stratum`, `git worktree remove`) deletes it with every note in it; a new store now goes "
            f"in the git directory. To move this one there, stop what serves or watches it, then in {top}: "
            f"{make}mv .stratum \"{where}\"")


__all__ = ["LEGACY", "SHARED", "WORKTREES", "GitDirs", "git_dirs", "holds_store", "default_store_path",
           "shared_store", "repository_of", "in_work_tree", "legacy_advice"]
