"""A path typed in the working directory, read as the repository path it names: `stratum get
cart.py` from shop/, `cochange ../api.ts`, a traceback's absolute path. Apart from the command
layer's other helpers because every query command reads its targets through it (probes found each
reading it its own way)."""

from __future__ import annotations

import os
from typing import Sequence


def target_from_here(target: str, roots: Sequence[str], names: Sequence[str] = ()) -> str:
    """A target (a path, ``path::Symbol``, ``path:LINE``) with its path read from the working
    directory (``place_from_here``), as ``repo:path`` of the store whose repository holds it when
    ``names`` (each root's store, with several stores) names one; anything else (a node id,
    ``repo:path``) as given."""
    from stratum.linerange import at_line      # the tools' own reading of path:LINE(:COL)

    if not isinstance(target, str):
        return target
    path, sep, rest = target.partition("::")
    if not sep and (at := at_line(target)) and not os.path.lexists(target):
        asked = target.strip()
        path, sep, rest = at[0], asked[len(at[0]):], ""
    got = place_from_here(path, roots)
    return target if got is None else in_store(*got, names) + sep + rest


def in_store(rel: str, root: int, names: Sequence[str]) -> str:
    """A repository path read from the working directory, as ``repo:path`` of the store of
    ``roots[root]`` when ``names`` gives it one: with several stores `tree .` in big/docs listed
    shop's docs/ too, and `search --path .` searched both (a probe). One store: as it is."""
    name = names[root] if 0 <= root < len(names) else ""
    return f"{name}:{rel}" if name else rel


def path_from_here(path: str, roots: Sequence[str], *, prefix: bool = False) -> str | None:
    """``place_from_here``'s path alone: the repository path, whichever root holds it."""
    got = place_from_here(path, roots, prefix=prefix)
    return None if got is None else got[0]


def place_from_here(path: str, roots: Sequence[str], *, prefix: bool = False) -> tuple[str, int] | None:
    """(``path`` as typed in the working directory, made relative to the repository (of ``roots``:
    the repositories the command answers for) that holds it, which of ``roots`` that is); None: read
    it as given. Nested repositories (a submodule indexed on its own): the innermost. From a
    subfolder `cochange cart.py` found shop/cart.py while `get cart.py` said "no node", `tree .`
    showed the root, and in packages/admin `get src/api.ts` served packages/web's (probes).

    Read from the working directory: an absolute path inside a root; ``.``, ``..``, ``./x``, ``../x``;
    from a subfolder, a path that exists there, and a path that exists neither there nor from the
    repository's top, holds a folder and no colon, and whose first folder the top lacks (a test
    runner's path inside a package: ``src/api.ts``). Read as given: anything else at the top; a
    repository-relative path that exists as given (from ``shop/``, ``shop/cart.py``); node ids,
    ``repo:path``, a file name found nowhere.
    ``prefix``: a folder ends with ``/`` (``search --path``: ``shop`` also began ``shopping/``), the
    top is ``""``; else the top is ``"."``."""
    if not isinstance(path, str) or not path or "\0" in path:
        return None
    try:
        cwd = os.path.realpath(os.getcwd())
        tops = [(i, os.path.realpath(r)) for i, r in enumerate(roots) if r]      # i: its place in ROOTS
    except (OSError, ValueError):           # the working directory was removed
        return None
    if os.path.isabs(path):
        where = path
    else:
        inside = _innermost(cwd, tops)
        if inside is None:
            return None
        top = dict(tops)[inside[1]]
        where = os.path.join(cwd, path)
        if not (path in (".", "..") or path.startswith(("./", "../"))):
            if cwd == top:                  # at the top: repository-relative, as given
                return None
            first = path.split("/", 1)[0]
            if not os.path.lexists(where) and (os.path.lexists(os.path.join(top, path)) or ":" in path
                                                or "/" not in path.strip("/") or os.path.lexists(os.path.join(top, first))):
                return None
    # as typed (a link in the repository is its own name), then with its folders' links resolved
    spots = [os.path.normpath(where)]
    spots.append(os.path.join(os.path.realpath(os.path.dirname(spots[0])), os.path.basename(spots[0])))
    held = next((got for spot in spots if (got := _innermost(spot, tops)) is not None), None)
    if held is None:
        if tops and os.path.lexists(where):
            # a file of another checkout was read by its tail as this repository's (a probe:
            # `remember --about ../other/shop/cart.py` wrote onto this shop/cart.py); a path that is
            # on no disk here (a deployed container's traceback path) is still matched by its tail
            from stratum.errors import InvalidArgument

            raise InvalidArgument(f"{path!r} is not inside the repository {', '.join(t for _, t in tops)}: name one "
                                  "of its files (repository-relative or a path on disk inside it), or give --store "
                                  "for the other repository's index")     # as stratum.analysis says it
        return None
    rel, i = held
    if not prefix:
        return rel, i
    if rel == ".":
        return "", i
    return (rel + "/" if path.endswith("/") or os.path.isdir(where) else rel), i


def _innermost(path: str, tops: Sequence[tuple[int, str]]) -> tuple[str, int] | None:
    """(``path`` relative to the deepest of ``tops`` holding it, that top's index); None: none does."""
    held = [(len(t), i, rel) for i, t in tops if (rel := _under(path, t)) is not None]
    if not held:
        return None
    _, i, rel = max(held)
    return rel, i


def _under(path: str, top: str) -> str | None:
    """``path`` relative to ``top`` (posix), None when it is not inside it."""
    rel = os.path.relpath(path, top)
    if rel == ".." or rel.startswith("../") or os.path.isabs(rel):
        return None
    return rel.replace(os.sep, "/")


__all__ = ["target_from_here", "in_store", "path_from_here", "place_from_here"]
