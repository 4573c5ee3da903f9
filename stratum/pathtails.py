"""A path read by its tail: as a traceback, a test runner inside a package or a working directory
prints it (``web/src/api.ts`` for ``packages/web/src/api.ts``), for every tool that takes a target.

``Memory.resolve`` takes the one file whose path ends with the longest tail of the target
(``tracebacks.FileTails``) when that tail holds a folder too (``names``). When several files end
with it (``src/cart.ts`` in packages/web and packages/admin) the target names none: it is refused
with the files it could mean (``ambiguous``), as ``cochange`` offers them; it said "no node" and
named neither (a probe). ``remember`` reads a tail as get does and records the file's repository
path (``recorded``): it refused ``web/src/api.ts``, which get, walk, pin and prefetch took.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable, Sequence

from stratum.errors import InvalidArgument, NotFound
from stratum.limits import echo
from stratum.notindexed import on_disk

if TYPE_CHECKING:
    from stratum.branchview import BranchView
    from stratum.memory import Memory, Target
    from stratum.shard import Shard

SHOWN = 5           # the files an ambiguous tail's refusal lists; "and N more" says the rest


def names(target: str, path: str) -> bool:
    """Whether a path as a traceback prints it names this file of the repository: their common tail
    holds a folder too, or the whole repository path (a file at its root). A file name alone is no
    name: `get nope/x.py` served deep/a/b/c/d/e/x.py, and a made-up folder another file (a probe)."""
    k = _common(_segments(target), path.split("/"))
    return k >= 2 or k == len(path.split("/"))


def tied(sh: "Shard", target: str) -> list[str]:
    """The paths of the files of ``sh`` that end with the longest tail of ``target`` when two or more
    do and that tail names them (``names``), sorted; [] when one file or none does. The tails are
    ``tracebacks.FileTails.best``'s, which ``Memory.resolve`` takes one of (``place_of``)."""
    from stratum.tracebacks import tails      # it imports memory, which imports this

    want = _segments(target)
    if not want:
        return []
    found = sorted(p for p in ("/".join(c) for c, _ in tails(sh).best("/".join(want))) if names(target, p))
    return found if len(found) > 1 else []


def ambiguous(shards: Sequence["Shard"], target: str, asked: str) -> InvalidArgument | None:
    """The refusal of a path tail several files end with, listing them (``repo:path`` with several
    stores served), or None when it names no more than one."""
    several = len(shards) > 1
    found = [f"{sh.manifest.repo_name}:{p}" if several else p for sh in shards for p in tied(sh, target)]
    if not found:
        return None
    more = f" and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
    return InvalidArgument(f"{echo(asked)!r} names {len(found)} files by its tail: "
                           f"{', '.join(echo(p) for p in found[:SHOWN])}{more}; give more of the path "
                           "(the repository path names one)")


def recorded(memory: "Memory", view: "BranchView | None", target: str, resolve: Callable[[str], "Target"]) -> str:
    """The target a note records for ``target`` as ``remember`` was given it: a file's path tail as
    its repository path (``repo:path`` with several stores), read by RESOLVE (the session's, as get
    reads a target: through its branch view); an ambiguous tail is refused (``ambiguous``). Anything
    else as given, for the notes layer to read or refuse: a path the index or the branch holds as
    written, a ``path::symbol``, a file the checkout has at that very path (new since the index, not
    the tail of another), a tail that leaves or crosses the file's path (``src/api.ts`` is no name of
    ``packages/web/lib/api.ts``: only one path ending with the other is)."""
    if ("/" not in target and "\\" not in target) or "::" in target:
        return target
    shards, rest = memory.in_repo(target)
    for sh in shards:
        o = view.of(sh) if view is not None else None
        if sh.resolve(rest) is not None or (o is not None and o.shard is not None and o.shard.resolve(rest) is not None):
            return target
    try:
        t = resolve(target)
    except NotFound:
        return target
    if t.row is None or t.shard.col("kind")[t.row] != "file":
        return target
    path = t.shard.col("path")[t.row] or ""
    want, have = _segments(rest), path.split("/")
    if _common(want, have) < min(len(want), len(have)):
        return target
    base = view.base_of(t.shard, list(memory)) if view is not None else t.shard
    if view is None and on_disk(base.manifest.repo_path, rest) == "file":
        return target
    return f"{base.manifest.repo_name}:{path}" if len(list(memory)) > 1 else path


def _segments(target: str) -> list[str]:
    """A target's path as segments: path:LINE and path::symbol read as the path."""
    target = re.sub(r":\d+$", "", target.partition("::")[0])
    return [s for s in target.replace("\\", "/").split("/") if s and s != "."]


def _common(want: list[str], have: list[str]) -> int:
    """How many last segments two paths share."""
    k = 0
    while k < min(len(want), len(have)) and want[-1 - k] == have[-1 - k]:
        k += 1
    return k


__all__ = ["SHOWN", "names", "tied", "ambiguous", "recorded"]
