"""A path read by its tail: as a traceback, a test runner inside a package or a working directory
prints it (``web/src/api.ts`` for ``packages/web/src/api.ts``), for every tool that takes a target.

``Memory.resolve`` takes the one file whose path ends with the longest tail of the target
(``tracebacks.FileTails``) when that tail holds a folder too (``names``). When several files end
with it (``src/cart.ts`` in packages/web and packages/admin) the target names none: it is refused
with the files it could mean (``ambiguous``), as ``cochange`` offers them; it said "no node" and
named neither (a probe). ``remember`` reads a tail as get does and records the file's repository
path (``recorded``): it refused ``web/src/api.ts``, which get, walk, pin and prefetch took.

A tail is no name of a file when the path goes on, before it, into a folder the repository has
(``crossed``): ``packages/admin/src/api.ts`` with no api.ts in packages/admin/src served
packages/web/src/api.ts (a probe). It names no file (``crossing``). What a traceback prints before
the repository (``/home/ci/build/src/pkg/x.py``) is no folder of it: that tail still names its file.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable, Sequence
from weakref import WeakKeyDictionary

import pyarrow.compute as pc

from stratum.errors import InvalidArgument, NotFound, NoteRejected
from stratum.limits import echo
from stratum.notindexed import on_disk

if TYPE_CHECKING:
    from stratum.branchview import BranchView, StoreOverlay
    from stratum.memory import Memory, Target
    from stratum.shard import Shard

SHOWN = 5           # the files an ambiguous tail's refusal lists; "and N more" says the rest


Place = tuple["Shard", int]     # (shard, row) of a file: the base shard's, or a branch overlay's


def named_files(sh: "Shard", target: str, overlay: "StoreOverlay | None" = None, *,
                shorter: bool = False) -> list[list[Place]]:
    """The files of ``sh`` (as a branch ``overlay`` of it has them) that a path as a traceback prints
    it names by its tail (``names``), grouped by that tail's length, the longest first: the one rule
    for every reader of such a path, ``get`` (``named_file``) and a pasted traceback's frames
    (``tracebacks.locate``: a frame took ``shop/cart.py`` for ``/home/ci/proj/billing/cart.py``, which
    get refused, a probe). The first group is get's reading (one file: its answer; several: a tie,
    ``tied``); [] when the longest tail files end with names none (``billing/cart.py``: a file name
    alone), or goes on into another folder (``crossed``): get refuses that path, and no shorter tail
    is read. ``shorter``: the files shorter tails name too (a frame's function chooses among them:
    ``/app/manage.py ... in run`` is the root manage.py when app/manage.py has no ``run``)."""
    from stratum.tracebacks import tails      # it imports memory, which imports this

    seen = [sh, overlay.shard if overlay is not None else None]
    out: list[list[Place]] = []
    crossing: dict[int, bool] = {}      # by the tail's length: all crossed asks of it (``names``, unrolled)
    for group in tails(sh, overlay).by_tail(target, shorter):
        named = []
        for c, spot, k in group:
            if k >= 2 or k == len(c):
                if k not in crossing:
                    crossing[k] = bool(crossed(seen, target, "/".join(c)))
                if not crossing[k]:
                    named.append(_place(spot, sh, overlay))
        if named:
            out.append(named)
        elif not out:
            return []       # get's own reading names nothing: nor does any shorter tail
    return out


def named_file(sh: "Shard", target: str, overlay: "StoreOverlay | None" = None) -> Place | None:
    """The one file of ``sh`` a path as printed names (``named_files``' first group), None when it
    names none or several (``ambiguous`` lists those)."""
    got = named_files(sh, target, overlay)
    return got[0][0] if got and len(got[0]) == 1 else None


def _place(spot: tuple[int, int], sh: "Shard", overlay: "StoreOverlay | None") -> Place:
    """A ``FileTails`` spot as (shard, row): 0 is ``sh``, 1 its ``overlay``'s shard."""
    src = overlay.shard if spot[0] and overlay is not None and overlay.shard is not None else sh
    return src, spot[1]


def names(target: str, path: str, shards: Sequence["Shard | None"] = ()) -> bool:
    """Whether a path as a traceback prints it names this file of the repository: their common tail
    holds a folder too, or the whole repository path (a file at its root). A file name alone is no
    name: `get nope/x.py` served deep/a/b/c/d/e/x.py, and a made-up folder another file (a probe).
    Given the ``shards`` the file is seen through (a base, a branch's overlay): nor is a tail whose
    path goes on into another folder they have (``crossed``)."""
    k = _common(_segments(target), path.split("/"))
    return (k >= 2 or k == len(path.split("/"))) and not crossed(shards, target, path)


def crossed(shards: Sequence["Shard | None"], target: str, path: str) -> list[str]:
    """The folders of ``shards`` that ``target`` names beyond its common tail with file ``path``, []
    when none: ``packages/admin/src/api.ts`` goes on from ``src/api.ts`` into packages/admin/src,
    not packages/web/src. Its folder's last segments one longer than that tail (``admin/src``) as the
    end of a folder's path, or (one segment: ``src``, ``app`` are everywhere) some of them as a whole
    folder's path, for a relative path only (/app/manage.py is a root file in a Docker image's /app);
    a folder only a traceback's machine has (/home/ci/build/src) is none."""
    want = _segments(target)
    k = _common(want, path.split("/"))
    folder = want[:-1]
    if len(folder) < k or k == 0 or (k == 1 and _absolute(target)):
        return []        # /app/manage.py: the traceback machine's folders above a root file (Docker's /app)
    found: set[str] = set()
    for sh in shards:
        if sh is None:
            continue
        by_name = _folders(sh)
        if k >= 2:
            end = folder[-k:]
            found |= {"/".join(c) for c in by_name.get(end[-1], ()) if c[-k:] == end}
        else:
            found |= {"/".join(folder[i:]) for i in range(len(folder))
                      if folder[i:] in by_name.get(folder[-1], ())}
    whole = "/".join(folder)
    return [whole] if whole in found else sorted(found)


def crossing(shards: Sequence["Shard"], target: str, asked: str, view: "BranchView | None" = None) -> NotFound | None:
    """The refusal of a path whose tail files end with but that goes on into another folder the
    repository has (``crossed``); None when it is no such path. ``view``: a branch session's, whose
    files and folders are the branch's."""
    why = crossing_why(shards, target, view)
    return NotFound(f"no file {echo(asked)!r}: {why}") if why else None


def crossing_why(shards: Sequence["Shard"], target: str, view: "BranchView | None" = None) -> str:
    """Why ``target`` names no file (``crossing``), naming the folder and the files that only end
    like it; "" when it is no such path."""
    want = _segments(target)
    if len(want) < 2:
        return ""
    from stratum.tracebacks import tails      # it imports memory, which imports this

    several = len(shards) > 1
    folders: list[str] = []
    files: list[str] = []
    for sh in shards:
        o = view.of(sh) if view is not None else None
        for c, _ in tails(sh, o).best("/".join(want)):
            p = "/".join(c)
            if names(target, p) and (into := crossed([sh, o.shard if o is not None else None], target, p)):
                repo = f"{sh.manifest.repo_name}:" if several else ""
                folders += [repo + f for f in into if repo + f not in folders]
                files.append(repo + p)
    if not files:
        return ""
    more = f" and {len(files) - SHOWN} more" if len(files) > SHOWN else ""
    return (f"the folder {' or '.join(echo(f) for f in folders[:SHOWN])} holds no {echo(want[-1])!r}; "
            f"{', '.join(echo(p) for p in files[:SHOWN])}{more} only end{'s' if len(files) == 1 else ''} like it "
            "(in another folder): name that path to mean it")


def tied(sh: "Shard", target: str) -> list[str]:
    """The paths of the files of ``sh`` that end with the longest tail of ``target`` when two or more
    do and that tail names them (``named_files``' first group), sorted; [] when one file or none
    does (``named_file``: get's answer)."""
    if not _segments(target):
        return []
    got = named_files(sh, re.sub(r":\d+$", "", target.partition("::")[0]))
    found = sorted(src.col("path")[r] or "" for src, r in got[0]) if got else []
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
    ``packages/web/lib/api.ts``: only one path ending with the other is). One that goes on into
    another folder the repository has is refused as get refuses it (``crossing_why``)."""
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
        return _not_across(shards, view, rest, target)
    if t.row is None or t.shard.col("kind")[t.row] != "file":
        return target
    path = t.shard.col("path")[t.row] or ""
    want, have = _segments(rest), path.split("/")
    if _common(want, have) < min(len(want), len(have)):
        return _not_across(shards, view, rest, target)
    base = view.base_of(t.shard, list(memory)) if view is not None else t.shard
    if view is None and on_disk(base.manifest.repo_path, rest) == "file":
        return target
    return f"{base.manifest.repo_name}:{path}" if len(list(memory)) > 1 else path


def _not_across(shards: list["Shard"], view: "BranchView | None", rest: str, target: str) -> str:
    """``target`` as given (for the notes layer to read or refuse), unless it goes on into another
    folder (``crossing``): then refused as get refuses it (it was "unknown target" with no word
    why). A file the checkout has at that path, new since the index, is no crossing."""
    if view is None and any(on_disk(sh.manifest.repo_path, rest) == "file" for sh in shards):
        return target
    why = crossing_why(shards, rest, view)
    if not why:
        return target
    raise NoteRejected(f"unknown target: {echo(target)!r}: {why}")


def _segments(target: str) -> list[str]:
    """A target's path as segments: path:LINE and path::symbol read as the path."""
    target = re.sub(r":\d+$", "", target.partition("::")[0])
    return [s for s in target.replace("\\", "/").split("/") if s and s != "."]


def _absolute(target: str) -> bool:
    """Whether a target is a path on some machine's disk (a traceback's): its first folders are that
    machine's, not the repository's, when all it shares with a file is the name of one at the root."""
    t = target.strip()
    return t.startswith(("/", "\\")) or re.match(r"[A-Za-z]:[\\/]", t) is not None


def _common(want: list[str], have: list[str]) -> int:
    """How many last segments two paths share."""
    k = 0
    while k < min(len(want), len(have)) and want[-1 - k] == have[-1 - k]:
        k += 1
    return k


_FOLDERS: "WeakKeyDictionary[Shard, dict[str, list[list[str]]]]" = WeakKeyDictionary()


def _folders(sh: "Shard") -> dict[str, list[list[str]]]:
    """The shard's folders as segments, by their last one (made on first use: a shard is read-only)."""
    got = _FOLDERS.get(sh)
    if got is None:
        rows = pc.indices_nonzero(pc.equal(sh.col("kind").array, "dir"))
        got = {}
        for p in sh.col("path").array.take(rows).to_pylist():
            if p:
                segs = p.split("/")
                got.setdefault(segs[-1], []).append(segs)
        _FOLDERS[sh] = got
    return got


__all__ = ["SHOWN", "Place", "named_files", "named_file", "names", "crossed", "crossing", "crossing_why", "tied",
           "ambiguous", "recorded"]
