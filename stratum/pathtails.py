"""A path read by its tail: as a traceback, a test runner inside a package or a working directory
prints it (``web/src/api.ts`` for ``packages/web/src/api.ts``), for every tool that takes a target.

``Memory.resolve`` takes the one file whose path ends with the longest tail of the target
(``FileTails``) when that tail holds a folder too (``names``). When several files end
with it (``src/cart.ts`` in packages/web and packages/admin) the target names none: it is refused
with the files it could mean (``ambiguous``), as ``cochange`` offers them; it said "no node" and
named neither (a probe). ``remember`` reads a tail as get does and records the file's repository
path (``recorded``): it refused ``web/src/api.ts``, which get, walk, pin and prefetch took.

A tail is no name of a file when the path goes on, before it, into a folder the repository has
(``crossed``): ``packages/admin/src/api.ts`` with no api.ts in packages/admin/src served
packages/web/src/api.ts (a probe). It names no file (``crossing``). What a traceback prints before
the repository (``/home/ci/build/src/pkg/x.py``) is no folder of it: that tail still names its file.

Some frames of a pasted traceback say where a module is by convention, not where its file is; they
are read by that convention, for traceback frames only: a JVM frame's class (``class_files``) and a
path under the folder the other frames show the repository was in on the traceback's machine
(``printed_root``). An installed copy's path is its module's (``module_files``) for every reader:
get served the repository's lib/router/index.js for ``node_modules/express/lib/router/index.js``
and refused ``site-packages/six.py``, which a frame read as src/six.py (session 27).
"""

from __future__ import annotations

import json
import re
import weakref
from functools import cached_property
from typing import TYPE_CHECKING, Callable, Iterable, Sequence
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
Spot = tuple[int, int]          # (which of the shards the tails were made from, row): FileTails keeps no shard,
                                # as a value in a WeakKeyDictionary keyed by its shard would keep that alive
_LIB_ROOT = re.compile(r"site-packages|dist-packages|python\d\.\d+|node_modules")
_AT_LINE = re.compile(r":\d+(?::\d+)?$")


def named_files(sh: "Shard", target: str, overlay: "StoreOverlay | None" = None, *,
                shorter: bool = False) -> list[list[Place]]:
    """The files of ``sh`` (as a branch ``overlay`` of it has them) that a path as a traceback prints
    it names by its tail (``names``), grouped by that tail's length, the longest first: the one rule
    for every reader of such a path, ``get`` (``named_file``) and a pasted traceback's frames
    (``tracebacks.locate``: a frame took ``shop/cart.py`` for ``/home/ci/proj/billing/cart.py``, which
    get refused, a probe). The first group is get's reading (one file: its answer; several: a tie,
    ``tied``); [] when the longest tail files end with names none (``billing/cart.py``: a file name
    alone), or goes on into another folder (``crossed``): get refuses that path, and no shorter tail
    is read. An installed copy's path names its module's files alone (``module_files``).
    ``shorter``: the files shorter tails name too (a frame's function chooses among them:
    ``/app/manage.py ... in run`` is the root manage.py when app/manage.py has no ``run``)."""
    installed = None if _AT_LINE.search(target) else module_files(sh, target, overlay)
    if installed is not None:           # an installed copy's path is its module's, not a tail
        return [installed] if installed else []     # (a path:LINE names no file: get reads its path after)
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
    another folder the repository has is refused as get refuses it (``crossing_why``). The path of a
    ``path::symbol`` is read so too (``x/shop/pricing.py::discount``: get took it, remember did not)."""
    path, sep, symbol = target.partition("::")
    if sep:
        got = recorded(memory, view, path, resolve) if path.strip() else path
        return target if got == path else f"{got}::{symbol}"
    if "/" not in target and "\\" not in target:
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
    """How many last segments two paths share (per candidate file of every frame: the bound once)."""
    k, m = 0, min(len(want), len(have))
    while k < m and want[-1 - k] == have[-1 - k]:
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


class FileTails:
    """A shard's file paths by their last segment, to match a printed path by its longest tail.

    A path under an installed library's root (``site-packages``, ``dist-packages``, ``python3.11``,
    ``node_modules/<package>``) is the import path from there: it must be the whole tail of the
    indexed file, and what comes before it in the repository must not be a package itself (the
    standard library's ``json/__init__.py`` is not ``src/flask/json/__init__.py``)."""

    def __init__(self, files: Iterable[tuple[str, int, int]]):
        self.by_name: dict[str, list[tuple[list[str], Spot]]] = {}
        self.packages: set[str] = set()         # folders holding an __init__.py
        self.at: dict[str, Spot] = {}           # a file's spot by its repository path
        for p, k, r in files:
            if p:
                segs = p.split("/")
                self.by_name.setdefault(segs[-1], []).append((segs, (k, r)))
                self.at[p] = (k, r)
                if segs[-1] == "__init__.py":
                    self.packages.add("/".join(segs[:-1]))

    def row_of(self, path: str) -> int | None:
        """The file row (in the one shard these tails were made from) that ``place_of`` finds."""
        got = self.place_of(path)
        return None if got is None else got[1]

    def place_of(self, path: str) -> Spot | None:
        """(which shard, row) of the file whose path ends with the longest tail of ``path`` (None:
        none, or a tie); which: 0 the base, 1 a branch's overlay (``tails``)."""
        got = self.best(path)
        return got[0][1] if len(got) == 1 else None

    def best(self, path: str) -> list[tuple[list[str], Spot]]:
        """(segments, spot) of every file whose path ends with the longest tail of ``path`` (several:
        a tie, which ``place_of`` does not guess and ``pathtails.tied`` lists); under an installed
        library's root, the files that import path can be (the class docstring)."""
        got = self.by_tail(path, shorter=False)
        return [(c, spot) for c, spot, _ in got[0]] if got else []

    def by_tail(self, path: str, shorter: bool = True) -> list[list[tuple[list[str], Spot, int]]]:
        """(segments, spot, how many last segments it shares with ``path``) of ``best``'s files, then
        (``shorter``) of those a shorter tail matches, grouped by that tail's length, the longest
        first; under an installed library's root, ``best``'s only (the import path is the whole
        tail). ``pathtails.named_files`` reads them by get's rules."""
        segs = [s for s in path.replace("\\", "/").split("/") if s and s != "."]
        lib = max((i for i, s in enumerate(segs) if _LIB_ROOT.fullmatch(s)), default=-1)
        if lib >= 0:
            tail = segs[lib + 1:]
            if segs[lib] == "node_modules":     # node_modules/<package>/<its path>: the repository is the package
                tail = tail[2:] if tail and tail[0].startswith("@") else tail[1:]
                got = self._exact(tail)
            else:
                got = self._from_root(tail)
            return [[(c, spot, _common(c, segs)) for c, spot in got]] if got else []
        if not segs:
            return []
        by_len: dict[int, list[tuple[list[str], Spot, int]]] = {}
        for cand, spot in self.by_name.get(segs[-1], ()):
            n = _common(cand, segs)
            by_len.setdefault(n, []).append((cand, spot, n))
        if not by_len:
            return []
        return [by_len[n] for n in sorted(by_len, reverse=True)] if shorter else [by_len[max(by_len)]]

    def _exact(self, tail: list[str]) -> list[tuple[list[str], Spot]]:
        return [(c, r) for c, r in self.by_name.get(tail[-1], ()) if c == tail][:1] if tail else []

    def _from_root(self, tail: list[str]) -> list[tuple[list[str], Spot]]:
        """The files whose path is ``<a folder that is no package>/<tail>``."""
        if not tail:
            return []
        k = len(tail)
        return [(c, r) for c, r in self.by_name.get(tail[-1], ())
                if c[-k:] == tail and "/".join(c[:-k]) not in self.packages]

    @cached_property
    def _top_parents(self) -> frozenset[str]:
        """The folders holding a top-level package (a package in no package): src/ for src/shop/."""
        parents = (p.rpartition("/")[0] for p in self.packages)
        return frozenset(f for f in parents if f not in self.packages)

    def module_root(self, folder: str) -> bool:
        """Whether a Python module path starts from this folder of the repository (a source root): the
        repository's root, a folder named src (the src layout), or one holding a top-level package;
        never a package itself. tests/fixtures/six.py is no module six."""
        if folder in self.packages:
            return False
        return folder == "" or folder.rpartition("/")[2] == "src" or folder in self._top_parents


_TAILS: "WeakKeyDictionary[Shard, FileTails]" = WeakKeyDictionary()
# overlay shard -> (its base, weakly, and the tails of the two)
_VIEW_TAILS: "WeakKeyDictionary[Shard, tuple[weakref.ref, FileTails]]" = WeakKeyDictionary()


def _files(sh: "Shard", which: int = 0) -> list[tuple[str, int, int]]:
    rows = pc.indices_nonzero(pc.equal(sh.col("kind").array, "file")).to_numpy()
    return [(p, which, r) for p, r in zip(sh.col("path").array.take(rows).to_pylist(), rows.tolist())]


def tails(sh: "Shard", overlay: "StoreOverlay | None" = None) -> FileTails:
    """The shard's FileTails, made on the first query with a frame (a shard is read-only). With a
    branch ``overlay`` of it: the files as the branch has them, the base's unless the branch changed
    or deleted them, then the overlay's (a frame in the file an agent is changing is that file's
    branch version; matched among one set of files, a tail is not unique in one shard and taken
    in the other)."""
    if overlay is None or overlay.shard is None:
        got = _TAILS.get(sh)
        if got is None:
            got = _TAILS[sh] = FileTails(_files(sh))
        return got
    held = _VIEW_TAILS.get(overlay.shard)
    if held is None or held[0]() is not sh:
        kept = [f for f in _files(sh) if f[0] not in overlay.hidden_paths]
        held = _VIEW_TAILS[overlay.shard] = (weakref.ref(sh), FileTails(kept + _files(overlay.shard, 1)))
    return held[1]


# A path by convention: a frame that says where a module is, not where its file is ---------------------

MAX_READ = 16           # files sharing a JVM frame's file name whose package is read (more: too common a name)
_INSTALLED = ("site-packages", "dist-packages", "node_modules")
# a package clause before the first brace (Java's `package a.b;`, Kotlin's and Groovy's `package a.b`,
# Scala's chained `package a` / `package b` and its `package a.b {` block; a `package object` is no package)
_PACKAGE_CLAUSE = re.compile(r"^[ \t]*package[ \t]+(?!object\b)([A-Za-z_][\w.]*)[ \t]*;?[ \t]*$", re.M)
_COMMENT = re.compile(r"/\*.*?(?:\*/|\Z)|//[^\n]*", re.S)
_PACKAGE_NAMES: "WeakKeyDictionary[FileTails, dict[str, str]]" = WeakKeyDictionary()   # folder -> package.json name
_DECLARED: "WeakKeyDictionary[FileTails, dict[Spot, str]]" = WeakKeyDictionary()       # a JVM file -> its package


def module_files(sh: "Shard", target: str, overlay: "StoreOverlay | None" = None) -> list[Place] | None:
    """The files of ``sh`` an installed copy's path is (None: ``target`` is none, read it by its tail).
    After ``site-packages/`` or ``dist-packages/`` comes a module's path (``shop/cart.py``: shop.cart,
    ``six.py``: six): the repository's file with that path under a folder that is no package, which for
    a top-level module must be a source root (``FileTails.module_root``: six.py, src/six.py). After
    ``node_modules/<package>/`` comes a path in that package: the repository's file only under a folder
    whose package.json names that package (the repository, or a workspace linked there); a third-party
    package's ``lib/router/index.js`` is not the repository's file of that path."""
    got = _installed_copy(target)
    if got is None:
        return None         # no installed copy (python3.11/json/...: the standard library, read by its tail)
    folder, package, rel = got
    t = tails(sh, overlay)
    if folder == "node_modules":
        k = len(rel)
        return [_place(spot, sh, overlay) for c, spot in t.by_name.get(rel[-1], ())
                if c[-k:] == rel and _package_name(t, sh, overlay, "/".join(c[:-k])) == package] if k else []
    k = len(rel)
    return [_place(spot, sh, overlay) for c, spot in t.by_name.get(rel[-1], ())
            if c[-k:] == rel and "/".join(c[:-k]) not in t.packages
            and (k > 1 or t.module_root("/".join(c[:-1])))] if k else []


def installed(shards: Sequence["Shard"], target: str, asked: str) -> NotFound | None:
    """The refusal of an installed copy's path no file of the repository is (``module_files``):
    get said only "no node", as for a typo."""
    got = _installed_copy(target)
    if got is None or not (got[1] or got[2]) or any(module_files(sh, target) for sh in shards):
        return None
    folder, package, rel = got
    if folder == "node_modules":
        homes = sorted({d or "the repository's root" for sh in shards for d in _named_package(sh, package)})
        what = (f"package {echo(package)!r}, which is {', '.join(homes)} here, and that has no file "
                f"{echo('/'.join(rel))!r}" if homes else f"package {echo(package)!r}, and no package.json here names it")
    else:
        module = ".".join(rel).removesuffix(".py")
        what = f"module {echo(module)!r}, and no file here is that module under a source root"
    return NotFound(f"no file {echo(asked)!r}: it is an installed copy ({folder}/) of {what}")


def _installed_copy(target: str) -> tuple[str, str, list[str]] | None:
    """(install folder, node package or "", the path after them) of an installed copy's path
    (``site-packages/shop/cart.py``, ``node_modules/@acme/web/lib/x.js``), None when it is none; an
    egg's own folder is left out (``six-1.16-py3.11.egg/six.py``: setuptools' eggs hold the package
    tree one level down)."""
    segs = _segments(target)
    lib = max((i for i, s in enumerate(segs) if _LIB_ROOT.fullmatch(s)), default=-1)
    if lib < 0 or segs[lib] not in _INSTALLED:
        return None
    rel = segs[lib + 1:]
    if segs[lib] == "node_modules":
        n = 2 if rel and rel[0].startswith("@") else 1
        return segs[lib], "/".join(rel[:n]), rel[n:]
    return segs[lib], "", rel[1:] if rel and rel[0].endswith(".egg") else rel


def _named_package(sh: "Shard", package: str) -> list[str]:
    """The folders of ``sh`` whose package.json names ``package`` ("" for the root)."""
    t = tails(sh)
    return [d for p in t.at if p.rpartition("/")[2] == "package.json"
            and _package_name(t, sh, None, d := p.rpartition("/")[0]) == package]


def _package_name(t: FileTails, sh: "Shard", overlay: "StoreOverlay | None", folder: str) -> str:
    """The ``name`` the package.json in ``folder`` gives ("" when none does), read once per file set."""
    names = _PACKAGE_NAMES.setdefault(t, {})
    if folder not in names:
        spot = t.at.get(f"{folder}/package.json" if folder else "package.json")
        got = None
        if spot is not None:
            src, row = _place(spot, sh, overlay)
            try:
                got = json.loads(src.record(row)["full"] or "")
            except ValueError:
                got = None      # a broken package.json names no package
        names[folder] = got["name"] if isinstance(got, dict) and isinstance(got.get("name"), str) else ""
    return names[folder]


def class_files(sh: "Shard", package: str, file: str, overlay: "StoreOverlay | None" = None) -> list[Place]:
    """The files of ``sh`` a JVM frame's class is in: ``at com.shop.Cart.total(Cart.java:12)`` prints
    only the file's name beside the class's ``package`` ("": the default package). A file of that
    name under its package's folders (com/shop/Cart.java below any source root); else, among at most
    MAX_READ files of that name, those that declare that package (``declared_package``): a default-
    package class's file declares none and sits at a source root, wherever that is, and Kotlin and
    Scala may keep a packaged file in another folder. A file's name alone is no name for ``get``;
    beside its class's package it is."""
    t = tails(sh, overlay)
    files = t.by_name.get(file, [])
    if package:
        want = [*package.split("."), file]
        k = len(want)
        got = [_place(spot, sh, overlay) for c, spot in files if c[-k:] == want]
        if got:
            return got
    if len(files) > MAX_READ:
        return []
    read = _DECLARED.setdefault(t, {})      # once per file set: a JVM trace repeats its classes' files
    out = []
    for _, spot in files:
        src, row = _place(spot, sh, overlay)
        if spot not in read:
            read[spot] = declared_package(src.record(row)["full"] or "")
        if read[spot] == package:
            out.append((src, row))
    return out


def declared_package(text: str) -> str:
    """The package a JVM source file declares ("": none, the default package), read from its head:
    comments removed, up to the first brace."""
    head = _COMMENT.sub("", text[:8192]).partition("{")[0]
    return ".".join(m.group(1) for m in _PACKAGE_CLAUSE.finditer(head))


def printed_root(sh: "Shard", paths: Sequence[str], overlay: "StoreOverlay | None" = None) -> tuple[str, ...] | None:
    """Where a traceback's machine kept the repository, read off its frames' absolute paths: the
    folder under which the most of them (two files at least, more than under any other folder) are
    files of the repository at the very paths left (``/app`` for /app/shop/cart.py and /app/manage.py,
    a Docker image's WORKDIR). None when no folder is: a frame alone is read as get reads it."""
    t = tails(sh, overlay)
    votes: dict[tuple[str, ...], int] = {}
    for path in dict.fromkeys(paths):
        if not _absolute(path):
            continue
        segs = _segments(path)
        if any(_LIB_ROOT.fullmatch(s) for s in segs):
            continue        # an installed copy's folders say nothing of where the repository is
        for i in range(len(segs)):
            if "/".join(segs[i:]) in t.at:
                votes[tuple(segs[:i])] = votes.get(tuple(segs[:i]), 0) + 1
    best = max(votes.values(), default=0)
    top = [r for r, n in votes.items() if n == best]
    return top[0] if best >= 2 and len(top) == 1 else None


def under_root(sh: "Shard", path: str, root: tuple[str, ...] | None,
               overlay: "StoreOverlay | None" = None) -> Place | None:
    """The file an absolute ``path`` is under a traceback's ``root`` (``printed_root``); None when the
    path is not under it or the repository has no file at the path left."""
    if root is None or not _absolute(path):
        return None
    segs = _segments(path)
    if len(segs) <= len(root) or tuple(segs[:len(root)]) != root:
        return None
    spot = tails(sh, overlay).at.get("/".join(segs[len(root):]))
    return None if spot is None else _place(spot, sh, overlay)


__all__ = ["SHOWN", "MAX_READ", "Place", "Spot", "named_files", "named_file", "names", "crossed", "crossing",
           "crossing_why", "tied", "ambiguous", "recorded", "FileTails", "tails", "module_files", "class_files",
           "declared_package", "printed_root", "under_root"]
