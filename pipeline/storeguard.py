"""Where `stratum index` may write its store, checked before it writes anything there.

A store inside the repository is data the repository's files must not be able to choose:

- a store path that is, or passes through, a symbolic link inside the repository is refused
  (``refuse_linked``): a committed ``.stratum -> ../userdata`` link made the index write, and its
  prune delete, folders outside the repository, silently (a probe);
- a store whose files git tracks is refused (``refuse_tracked``): a store committed to the
  repository (``git add -f .stratum``) arrives with every clone, and its delta log is unsigned JSON
  whose notes say who wrote them and with what role (forged "authenticated, maintainer" notes were
  merged without a word: a probe).

A store outside the work tree is the user's choice (``--store``) and is not checked here; so is one
in the git directory (``<repo>/.git/stratum``, the default: ``stratum.storehome``), where no file of the
repository can be (git checks nothing out into ``.git``). The checks read git (``pipeline.gitio``), so they live in the pipeline; the core imports no git.
"""

from __future__ import annotations

import os
from pathlib import Path

from pipeline import gitio
from stratum.errors import InvalidArgument
from stratum.store import Store


def store_inside(root: Path, store: Store) -> tuple[str, ...]:
    """The store's directory relative to the repository when it lives in its work tree, else () (in
    the git directory too: git neither lists nor cleans nor checks out anything there)."""
    from pipeline.files import inside

    real_root, real_store = os.path.realpath(root), os.path.realpath(store.root)
    if real_store != real_root and inside(real_store, real_root) and not inside(real_store, _git_area(real_root)):
        return (os.path.relpath(real_store, real_root).replace(os.sep, "/"),)
    return ()


def ignore_store(store: Store) -> None:
    """A store inside the repository ignores itself, so git (and the user's status) never see it."""
    gi = store.root / ".gitignore"
    if not gi.exists():
        store.root.mkdir(parents=True, exist_ok=True)
        gi.write_text("# a Stratum store: data, not code\n*\n")


def link_inside(root: Path, store_path: str | os.PathLike) -> tuple[Path, str] | None:
    """The first symbolic link inside the repository that ``store_path`` is or passes through, with
    where it points (resolved), else None. Links above the repository (``/tmp -> /private/tmp``)
    are the machine's, not the repository's: only a part whose folder resolves inside it counts,
    and not in its ``.git`` (``_git_area``)."""
    from pipeline.files import inside

    real_root = os.path.realpath(root)
    path = Path(os.path.abspath(store_path))
    at = Path(path.anchor)
    for part in path.parts[1:]:
        folder = os.path.realpath(at)
        here = Path(folder) / part
        if inside(folder, real_root) and not inside(str(here), _git_area(real_root)) and here.is_symlink():
            return Path(os.path.relpath(here, real_root)), os.path.realpath(here)
        at = at / part
    return None


def _git_area(real_root: str) -> str:
    """The repository's ``.git``: the user's (a link there, ``.git/stratum -> /data/x``, is theirs), never a
    file of the repository's."""
    return os.path.join(real_root, ".git")


def refuse_linked(root: Path, store_path: str | os.PathLike) -> None:
    """InvalidArgument when the store path is, or passes through, a link inside the repository:
    the repository (anyone who commits to it) would choose where the index writes and what its prune
    deletes. An outside store is used on purpose by naming its real path."""
    found = link_inside(root, store_path)
    if found is None:
        return
    link, target = found
    raise InvalidArgument(
        f"the store {os.fspath(store_path)} is, or lies under, {link}: a symbolic link inside the repository "
        f"pointing to {target}: a link the repository holds does not choose where the index writes (or "
        f"what its cleanup deletes); nothing was written. To keep the store outside the repository on "
        f"purpose, name its real path: stratum index --store {target} (and the same --store to the commands "
        f"that read it)")


def refuse_tracked(root: Path, store: Store, reading: bool = False) -> None:
    """InvalidArgument when git tracks a file of a store inside the repository: a store committed
    to the repository is anyone's who can commit, and its notes' authors, trust marks and roles are
    what they wrote (the log is not signed). ``reading``: a query or `remember` about to open it
    (only the index refused it: a checkout that brought one had every command read its forged
    notes and write the user's into it, a probe)."""
    rel = store_inside(root, store)
    if not rel:
        return
    out = gitio.run_git(root, "ls-files", "-z", "--", f":(literal){rel[0]}", check=False)
    tracked = [gitio.path_text(p) for p in out.split(b"\0") if p]
    if not tracked:
        return
    what = "read or written to" if reading else "indexed into"
    raise InvalidArgument(
        f"git tracks {len(tracked)} file(s) of the store {rel[0]} (e.g. {tracked[0]}): a store committed to the "
        f"repository is not {what}. Its notes came with the commit, so their authors and trust marks "
        f"(authenticated, maintainer) are whatever its committer wrote and cannot be trusted. Untrack it "
        f"(git rm -r --cached {rel[0]}, and commit), then delete the folder unless its notes are yours, and "
        f"index again; or index into a store outside the repository (--store PATH)")


__all__ = ["store_inside", "ignore_store", "link_inside", "refuse_linked", "refuse_tracked"]
