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
  its folder under ``<common>/worktrees`` (which `git worktree remove` deletes, so not there). git
  gives a new worktree a removed one's name: a store there is this worktree's only if its index
  said so (``WORKTREE_MARK`` in its git dir) or its manifest names this worktree's folder; else it is
  left alone and this worktree's goes to ``<name>.2`` (``worktree_stores``);
- a ``<folder>/.stratum`` that holds a store (the older default): used only while git's directory
  holds none (a ``.stratum`` a checkout brings must not hide the user's notes), never moved
  silently (a server may hold it open); `stratum index` says how to move it (``legacy_advice``).
  Whether git tracks it (a committed store: refused) is the CLI's to ask (``pipeline.storeguard``);
- outside a git repository: ``<folder>/.stratum``, as before.

``GIT_DIR`` and ``GIT_WORK_TREE`` are honoured as git honours them (``env_work_tree``).
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path

LEGACY = ".stratum"             # the store's folder in the work tree (the default before; outside git)
SHARED = "stratum"              # in the common directory: the repository's store
WORKTREES = "stratum-worktrees"  # in the common directory: a linked worktree's own store, by its name
WORKTREE_MARK = "stratum-store"  # in a linked worktree's git dir: the name of its own store (its index writes it)


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
    may hold ``commondir``, the path of the shared one (relative to it). The work tree ``GIT_DIR``
    (and ``GIT_WORK_TREE``) name has that git dir, as git reads it (``env_work_tree``)."""
    env = env_work_tree()
    dot = os.path.join(top, ".git")
    try:
        if env is not None and Path(os.path.abspath(top)).resolve() == env[0]:
            gd = str(env[1])
        elif os.path.isdir(dot):
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


def env_work_tree() -> tuple[Path, Path] | None:
    """(work tree, git dir) when ``GIT_DIR`` is set, as git reads them: the work tree is
    ``GIT_WORK_TREE``, else the git dir's ``core.worktree``, else the current folder (both relative
    to it). They were ignored: the store went into the current folder (where `git clean` deletes it)
    or into an enclosing repository's store (a probe)."""
    gd = os.environ.get("GIT_DIR", "")
    if not gd:
        return None
    git_dir = Path(os.path.abspath(gd))
    wt = os.environ.get("GIT_WORK_TREE", "")
    tree = Path(os.path.abspath(wt)) if wt else (core_worktree(git_dir) or Path.cwd())
    return tree.resolve(), git_dir


def core_worktree(git_dir: Path) -> Path | None:
    """The work tree a git dir's ``config`` names (``[core] worktree``, relative to the git dir): a
    submodule's ``.git/modules/<name>`` has it, so does a ``GIT_DIR`` set up for a work tree apart."""
    try:
        text = (git_dir / "config").read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return None
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line[1:line.find("]")].strip().lower() if "]" in line else ""
        elif section == "core" and "=" in line and line.split("=", 1)[0].strip().lower() == "worktree":
            value = line.split("=", 1)[1].strip()
            if len(value) > 1 and value[0] == value[-1] == '"':
                value = value[1:-1]
            return Path(os.path.normpath(os.path.join(git_dir, value))) if value else None
    return None


def work_tree_top(start: str | os.PathLike = ".") -> Path | None:
    """The root of the git work tree holding ``start`` (the nearest folder holding a ``.git``, or the
    work tree ``GIT_DIR`` names), else, outside git, the nearest folder holding a ``.stratum`` store
    (``.stratum/manifest.json``); None outside both. A ``.stratum`` inside a work tree (a vendored
    project's committed store) never makes its folder the repository: it did, and every command
    there read that store (a probe)."""
    here = Path(start).resolve()
    env = env_work_tree()
    if env is not None and (here == env[0] or env[0] in here.parents):
        return env[0]
    chain = [here, *here.parents]
    found = next((d for d in chain if (d / ".git").exists()), None)
    if found is not None:
        return found
    return next((d for d in chain if (d / LEGACY / "manifest.json").is_file()), None)


def holds_store(folder: Path) -> bool:
    """Whether ``folder`` holds a store: a published manifest, or a delta log (notes written, no index yet)."""
    return (folder / "manifest.json").is_file() or (folder / "deltalog").is_dir()


def default_store_path(repo: str | os.PathLike) -> Path:
    """The store a repository (or linked worktree) whose root is ``repo`` uses by default (see the
    module's docstring): git's common directory's when it holds a store, else a ``.stratum`` holding
    one, else git's common directory's (where an index makes it). The ``.stratum`` came first: a
    checkout of a branch that commits one (a pull request) hid every note of ``.git/stratum``, and
    `remember` wrote into it (a probe)."""
    top = Path(repo).resolve()
    home = _home(top)
    if home is not None and holds_store(home):
        return home
    legacy = top / LEGACY
    if holds_store(legacy):
        return legacy
    return home or legacy


def _home(top: Path) -> Path | None:
    """The default store in git's common directory of the work tree ``top``; None outside git."""
    dirs = git_dirs(top)
    if dirs is None:
        return None
    if dirs.linked:
        return worktree_stores(top, dirs)[0]
    return dirs.common / SHARED


def worktree_stores(top: Path, dirs: GitDirs) -> tuple[Path, list[Path]]:
    """(the linked worktree ``top``'s own store, the stores removed worktrees of its name left).
    git reuses a removed worktree's name (its folder under ``<common>/worktrees``), and a new worktree
    read the old one's store as its own (a probe). Its own: the one its index named in its git dir
    (``WORKTREE_MARK``, which `git worktree remove` deletes and `git worktree move` keeps), else the
    first of ``<name>``, ``<name>.2``, ... that holds no store or whose manifest names ``top``."""
    base = dirs.common / WORKTREES
    try:
        named = (dirs.git_dir / WORKTREE_MARK).read_text(encoding="utf-8", errors="surrogateescape").strip()
    except OSError:
        named = ""
    if named and "/" not in named and named not in (".", ".."):
        return base / named, []
    left: list[Path] = []
    n = 1
    while True:
        at = base / (dirs.git_dir.name if n == 1 else f"{dirs.git_dir.name}.{n}")
        if not holds_store(at) or indexed_from(at) == str(top):
            return at, left
        left.append(at)
        n += 1


def claim_worktree_store(top: Path) -> None:
    """Name, in the linked worktree ``top``'s git dir, the store its index writes (``worktree_stores``):
    kept by `git worktree move`, deleted with the worktree by `git worktree remove`."""
    dirs = git_dirs(top)
    if dirs is None or not dirs.linked:
        return
    own, _ = worktree_stores(top, dirs)
    try:
        (dirs.git_dir / WORKTREE_MARK).write_text(own.name + "\n", encoding="utf-8", errors="surrogateescape")
    except OSError:
        pass                # a read-only git dir: the manifest's path still names it


def indexed_from(store: Path) -> str | None:
    """The folder a store's manifest says it was indexed from; None without a readable one."""
    try:
        got = json.loads((store / "manifest.json").read_text(encoding="utf-8")).get("repo_path")
    except (OSError, ValueError, AttributeError):
        return None
    return got if isinstance(got, str) else None


def shared_store(common: Path) -> Path:
    """The repository's store that linked worktrees answer from: the main checkout's default store
    (its ``.stratum`` when that holds one and ``<common>/stratum`` none), or ``<common>/stratum`` (a
    bare repository's, a ``--separate-git-dir`` clone's)."""
    if common.name == ".git" and (common.parent / ".git").is_dir():
        return default_store_path(common.parent)
    return common / SHARED


def repository_of(store_root: str) -> str | None:
    """The work tree a default store answers for, read from where the store is: a copied or moved
    clone carries its store (``<repo>/.git/stratum``, ``<repo>/.stratum``), whose manifest still names
    the folder it was indexed in; a submodule's (``<super>/.git/modules/<name>/stratum``) through its
    git dir's ``core.worktree`` (relative: a moved superproject's is the moved folder); a worktree's
    own store names its worktree through git's ``worktrees/<name>/gitdir`` (`git worktree move`
    updates it). None: not a default store, or its worktree is gone (the manifest's path is all there is)."""
    root = Path(os.path.abspath(store_root))
    if root.name == LEGACY and (root.parent / ".git").exists():
        return str(root.parent)
    if root.name == SHARED and root.parent.name == ".git" and root.parent.is_dir():
        return str(root.parent.parent)
    if root.name == SHARED and (root.parent / "HEAD").is_file():
        tree = core_worktree(root.parent)
        return str(tree) if tree is not None and (tree / ".git").exists() else None
    if root.parent.name == WORKTREES:
        common = root.parent.parent
        for name in _worktree_names(common):
            try:
                dot = (common / "worktrees" / name / "gitdir").read_text(
                    encoding="utf-8", errors="surrogateescape").strip()
            except OSError:
                continue
            tree = Path(os.path.dirname(os.path.normpath(dot)))
            if os.path.exists(dot) and worktree_stores(tree.resolve(), GitDirs(common / "worktrees" / name,
                                                                               common))[0] == root:
                return str(tree)
    return None


def _worktree_names(common: Path) -> list[str]:
    try:
        return sorted(os.listdir(common / "worktrees"))
    except OSError:
        return []


def in_work_tree(top: Path, store: Path) -> bool:
    """Whether ``store`` is a git work tree's own ``.stratum`` (the older default): git clean deletes it.
    (Outside git, ``.stratum`` is the default still, and nothing of git's deletes it.)"""
    return os.path.abspath(store) == os.path.join(os.path.abspath(top), LEGACY) and git_dirs(top) is not None


def legacy_advice(top: Path) -> str:
    """What `stratum index` says of a store in the work tree (``top/.stratum``), with the way out:
    the command that moves it where the default now is (run in ``top``; every path shell-quoted, a
    worktree's name may hold a ``$``). It leaves a folder already there alone (a second `mv` had
    nested the store in it), and says to install git hooks again (an older hook recreated
    ``.stratum`` at the next commit, whose new store hid every note: a probe)."""
    home = _home(top)
    common = "$(git rev-parse --git-common-dir)"
    linked = home is not None and home.parent.name == WORKTREES
    if home is not None and linked:
        name = shlex.quote(home.name)
        where = f'"{common}/{WORKTREES}/{home.name}"' if name == home.name else f'"{common}/{WORKTREES}/"{name}'
    else:
        where = f'"{common}/{SHARED}"'
    make = f'mkdir -p "{common}/{WORKTREES}" && ' if linked else ""
    there = ""
    if home is not None and home.exists():
        there = (f" ({home} exists already, holding no store: move it aside first, e.g. "
                 f"mv {shlex.quote(str(home))} {shlex.quote(str(home) + '.old')})")
    return (f"the store {top / LEGACY} is in the work tree, where `git clean -fdx` (a checkout of a commit "
            f"tracking `.stratum`, `git worktree remove`) deletes it with every note in it; a new store now goes "
            f"in the git directory. To move this one there, stop what serves or watches it{there}, then: "
            f"cd {shlex.quote(str(top))} && {make}test ! -e {where} && mv .stratum {where}; and if git hooks "
            f"are installed (`stratum hooks status`), run `stratum hooks install` again (older hooks write to .stratum)")


__all__ = ["LEGACY", "SHARED", "WORKTREES", "WORKTREE_MARK", "GitDirs", "git_dirs", "env_work_tree", "core_worktree",
           "work_tree_top", "holds_store", "default_store_path", "worktree_stores", "claim_worktree_store",
           "indexed_from", "shared_store", "repository_of", "in_work_tree", "legacy_advice"]
