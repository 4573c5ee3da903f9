"""Traceback frames in a search query lead to the code they name (an agent pastes the error it saw).

A traceback names definitions by place: Python's ``File "/venv/lib/python3.11/site-packages/flask/app.py",
line 1511, in wsgi_app``, pytest's ``src/flask/app.py:1511: in wsgi_app`` or ``app.py:88: KeyError``, a
JavaScript ``at render (src/view.js:40:7)``, a Vitest ``❯ flushJobs src/scheduler.ts:280:5``, a JVM
``at com.shop.Cart.total(Cart.java:42)``, a Go panic's ``shop.Total(...)`` over ``\t/src/shop/cart.go:12``, a
sanitizer's or gdb's ``#0 0x55d1c2 in leveldb::Table::BlockReader(void*, ...) table/table.cc:170:20`` (each
form read by ``stratum.traceframes``). Its words are mostly paths, so neither the text lists nor
the name list read it: the frames' functions came out anywhere in the answer. Here each frame whose
file is in the index names the innermost definition around its line (``linerange.enclosing``, as
``get path:LINE`` does). A frame's path names a file as get reads it (``pathtails.named_files``): by its
longest tail that an indexed file ends with, a tail holding a folder or a root file's whole path, not
going on into another folder the repository has; a path get refuses adds nothing. When the frame says its
function, it chooses among the files the path names (a tail two files share equally, else a shorter
one: a container's ``/app/manage.py`` is the root manage.py that defines ``run``, not app/manage.py); when
the definition at that line has another name (the installed version differs from the indexed one), the
file's definition of that name is taken instead. Frames that name a module by convention are read
by it (``pathtails.class_files``, ``module_files``, ``printed_root``): ``at com.shop.Cart.total(Cart.java:12)``
is a Cart.java declaring package com.shop (under com/shop/, as a rule), ``at Cart.total(Cart.java:12)`` one
declaring none; ``site-packages/six.py`` is the module six at a source root (six.py, src/six.py);
``node_modules/<package>/...`` is the repository's file only where a package.json of it names that
package; and a container's ``/app/manage.py`` is the root manage.py when the other frames are files
of the repository under /app.

The frames found go first in the search answer, the innermost first (where the error was raised:
the frame Python prints last, the one a JavaScript, Vitest, JVM, Go or native stack prints first), each
with why ``traceback frame: <file>:<line> in <function>``. Frames outside the repository (the standard
library, other packages) find no file and are left out.
"""

from __future__ import annotations

import builtins
import re
from typing import TYPE_CHECKING, NamedTuple, Sequence

from stratum import pathtails as PT
from stratum.limits import MAX_TRACEBACK_CHARS, query_too_long
from stratum.memory import Target
from stratum.testnames import MAX_NAMED, MAX_TESTS, TEST_WHY, Named, named, rows_of
from stratum.traceframes import MAX_FRAMES, Frame, frames

if TYPE_CHECKING:
    from stratum.branchview import BranchView, StoreOverlay
    from stratum.shard import Shard

Place = PT.Place                # (shard, row) of a file

FRAME_WHY = "traceback frame: "    # how a frame's item says why it leads (search attaches its notes)
CALLED_WHY = "called on a traceback line: "    # and a definition a shown line calls (``callees``)
MAX_CALLED = 3           # definitions a traceback's lines call, placed after its frames (a page keeps text room)
CALLED_DEFS = 2          # a name more definitions share is a common word, not a pointer
MAX_TIED = 16            # files a frame's path names equally that its function may choose among (more: too common a tail)
MAX_ERROR_LINE = 300     # characters of one error line in ``condensed`` (a repr can be a whole object)

_CALLEE = MAX_FRAMES + MAX_NAMED * MAX_TESTS     # a callee's place: after every frame and named test (``Located.frame``)
_SYMBOLS = ("class", "function", "method")
_CALLABLE = ("function", "method")


# an exception line: Python's `KeyError: 'pear'`, `shop.errors.OutOfStock: ...`, pytest's `E   KeyError: ...`
# and `E   assert 1 == 2`, JavaScript's `TypeError: Cannot read ...`, Java's `Exception in thread "main"
# java.lang.IllegalStateException: ...` and `Caused by: ...`, Go's `panic: ...`, Rust's `thread 'main' panicked
# at ...`; inside an exception group's `|` margin too (spaces, tabs and `|` only before it: `\s*`
# would read on over the next lines, quadratic in a paste of blank lines)
_ERROR_LINE = re.compile(r"^(?:E[ \t]+(?P<e>\S.*)|[ \t]*(?:[|+][ \t]*)*(?:Exception in thread \"[^\"\n]*\" |Caused by: )?"
                         r"(?P<x>(?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt|Fault|Failure)\b.*)"
                         r"|(?P<p>(?:panic|fatal error): .*|thread '[^'\n]*' panicked at .*))$", re.M)


def condensed(query: str, found: list[Frame], limit: int) -> str:
    """What the text lists read of a traceback pasted whole (longer than a query may be, ``limit``
    characters): the innermost frames' function names (a frame naming none: its file's name), its
    error lines (the exception, pytest's ``E`` lines) in printed order, the last ones kept when not
    all fit, then as much of the paste's end as still fits (the innermost frames' echoed source,
    which may call the definition that returned a bad value). The embedding model reads only the
    first ~256 word pieces of a text: in a whole pytest failure, the outermost frames."""
    funcs = " ".join(dict.fromkeys(_named(f) for f in found))
    room = limit - len(funcs)
    kept: dict[str, int] = {}
    for m in reversed(list(_ERROR_LINE.finditer(query))):
        line = (m.group("e") or m.group("x") or m.group("p")).strip()[:MAX_ERROR_LINE]
        if line not in kept and len(line) + 1 <= room:
            kept[line] = m.start()
            room -= len(line) + 1
    head = "\n".join([funcs, *sorted(kept, key=kept.__getitem__)] if funcs else sorted(kept, key=kept.__getitem__))
    if not head:
        return ""
    rest = limit - len(head) - 1
    return f"{head}\n{query[-rest:]}" if rest > 0 else head


_CALL = re.compile(r"\b(?P<name>[A-Za-z_]\w*)\(")
_BUILTINS = frozenset(dir(builtins))


def called(query: str) -> list[str]:
    """The names a traceback's lines call (``self.get_source(env, name)``: ``get_source``), the last
    printed first: the definition that returned a bad value has left the stack when its caller
    trips over the value, but the line that called it is often shown (pytest echoes the innermost
    frames' source). Builtins and dunders are left out."""
    if "(" not in query:
        return []
    out: dict[str, None] = {}
    for m in reversed(list(_CALL.finditer(query))):
        n = m.group("name")
        if n not in _BUILTINS and not n.startswith("__"):
            out.setdefault(n, None)
    return list(out)


def callees(sh: "Shard", names: list[str], located: list[Located]) -> list[Located]:
    """The functions and methods of this shard that ``names`` (``called``) name, after the frames
    (``located``), at most MAX_CALLED, skipping the frames' own definitions: first those a frame's
    ``calls`` edges reach under one of the names (the index resolved ``self.save()`` in that
    frame to its class's ``save``), innermost frame first; then, for the names left, the
    definitions of that name unless more than CALLED_DEFS share it (``get``, ``run``: a common
    word, not a pointer)."""
    kw = sh.warm.searcher.keywords if sh.warm is not None else None
    if kw is None or not names:
        return []
    col = sh.col
    taken = {f.id for f in located}
    out: list[Located] = []
    left = dict.fromkeys(names)
    for f in located:
        if f.shard is not sh:
            continue
        for r, _, _, _ in sh.neighbors(f.row, ("calls",), "out"):
            name = col("name")[r]
            if name in left and col("kind")[r] in _CALLABLE:
                left.pop(name)
                nid = col("id")[r]
                if nid not in taken:
                    taken.add(nid)
                    out.append(Located(_CALLEE + len(out), sh, nid, int(r), f"{CALLED_WHY}{name}()"))
        if len(out) >= MAX_CALLED:
            return out[:MAX_CALLED]
    for name in left:
        rows = [r for r in kw.name_rows(name).tolist() if col("name")[r] == name and col("kind")[r] in _CALLABLE]
        if not rows or len(rows) > CALLED_DEFS:
            continue
        for r in rows:
            nid = col("id")[r]
            if nid not in taken:
                taken.add(nid)
                out.append(Located(_CALLEE + len(out), sh, nid, int(r), f"{CALLED_WHY}{name}()"))
        if len(out) >= MAX_CALLED:
            break
    return out[:MAX_CALLED]


def _named(f: Frame) -> str:
    if f.func and not f.func.startswith("<"):
        return f.func.rsplit(".", 1)[-1]
    return f.path.replace("\\", "/").rsplit("/", 1)[-1].split(".", 1)[0]


class Paste(NamedTuple):
    """A search query read as a traceback (``read``)."""
    frames: list[Frame]     # innermost first ([]: no traceback)
    calls: list[str]        # the names its lines call (``called``; [] without frames)
    text: str               # what the text lists read: the query, or ``condensed`` of a whole failure
    tests: list[Named] = []     # the tests it names (``testnames.named``: a runner's header, a test's name)


_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")     # a terminal's colour and cursor codes (CSI sequences)


def read(query: str, limit: int, *, sent: int | None = None) -> Paste:
    """The query's frames, the names its lines call, and what the text lists read: the query itself
    up to ``limit`` characters, ``condensed`` of a longer one (a whole pasted failure); terminal
    colour codes removed first. A longer one with no frame and no error line is an InvalidArgument
    naming both limits and ``sent``, the length the caller sent (the query may come trimmed: "tax "
    700 times was said to be 2799 characters, a probe); by default, its length as given here."""
    sent = len(query) if sent is None else sent     # before colour codes go: what the caller sent
    if "\x1b" in query:                # colour codes (pytest --color=yes, a CI log): as the terminal shows it
        query = _ANSI.sub("", query)
    found = frames(query)
    text = query
    if len(query) > limit:
        text = condensed(query, found, limit)
        if not text:
            raise query_too_long(sent, limit)
    return Paste(found, called(query) if found else [], text, named(query))


def placed(sh: "Shard", paste: Paste, overlay: "StoreOverlay | None" = None, kinds: Sequence[str] = (),
           path_prefix: str = "", language: str = "") -> list["Located"]:
    """What a search puts first for a pasted traceback, in this shard: its frames' definitions
    (``locate``, as the session sees the files), then the definitions its lines call (``callees``),
    those the filters let through (``passing``). The tests it names (``testnames``) follow its frames."""
    if not paste.frames and not paste.tests:
        return []
    located = locate(sh, paste.frames, overlay)
    if paste.tests:
        located += named_tests(sh, paste.tests, located, overlay)
    if paste.calls:
        located += callees(sh, paste.calls, located)
    if located and (kinds or path_prefix or language):
        located = passing(located, kinds, path_prefix, language)
    return located


def leads(why: str) -> bool:
    """Whether a search item's why says a traceback put it first (it carries its notes then)."""
    return why.startswith((FRAME_WHY, CALLED_WHY, TEST_WHY))


def named_tests(sh: "Shard", tests: list[Named], located: list[Located],
                overlay: "StoreOverlay | None" = None) -> list[Located]:
    """The test blocks the paste names (``testnames.rows_of``), after the frames (``located``, whose
    nodes are not repeated), in the paste's order: as the session sees the files, a branch's
    version of a test file first (its overlay shard), else the base's."""
    taken = {f.id for f in located}
    out: list[Located] = []
    sources = [overlay.shard] if overlay is not None and overlay.shard is not None else []
    for t in tests:
        for src in [*sources, sh]:
            rows = rows_of(src, t)
            for r in rows:
                nid = src.col("id")[r]
                if nid not in taken:
                    taken.add(nid)
                    out.append(Located(MAX_FRAMES + len(out), src, nid, int(r), f"{TEST_WHY}{src.col('qualname')[r]}"))
            if rows:
                break
    return out


def _named_in(sh: "Shard", file_row: int, name: str, line: int) -> int | None:
    """The definition called ``name`` in the file (down the contains edges), nearest to ``line``."""
    best: tuple[int, int] | None = None
    todo = [file_row]
    while todo:
        r = todo.pop()
        for n, _, _, _ in sh.neighbors(r, ("contains",), "out"):
            if sh.col("kind")[n] not in _SYMBOLS or sh.col("path")[n] != sh.col("path")[file_row]:
                continue
            todo.append(n)
            if sh.col("name")[n] == name:
                gap = abs(int(sh.col("start_line")[n] or 0) - line)
                if best is None or gap < best[0]:
                    best = (gap, n)
    return best[1] if best else None


def printed_in_view(shards: list["Shard"], view: "BranchView", target: str) -> Place | None:
    """(shard, row) of a path as a traceback printed it, among the files as a branch session sees
    them (``tails`` with each store's overlay); None for a target that is no printed path, or a
    repository path a base shard holds as it is (``Memory.resolve`` answers those)."""
    if "/" not in target and "\\" not in target:
        return None
    for sh in shards:
        if sh.resolve(target) is not None:
            return None
        # get's rules off a branch too (``pathtails.named_file``): `get nope/x.py` served deep/a/b/x.py
        # in a branch session (a helper saw it)
        got = PT.named_file(sh, target, view.of(sh))
        if got is not None:
            return got
    return None


class Located(NamedTuple):
    frame: int              # its frame's place in ``frames``' order (0: the innermost); a named test's
                            # MAX_FRAMES + its place, a callee's _CALLEE + its place, so they rank after
                            # every frame, in that order (``frames_first``)
    shard: "Shard"          # the base shard, or a branch's overlay shard
    id: str
    row: int
    why: str


def locate(sh: "Shard", fs: list[Frame], overlay: "StoreOverlay | None" = None) -> list[Located]:
    """Each frame's definition in this shard (through a branch ``overlay`` of it: as the branch has
    the file), in the frames' order (innermost first), each node once. A frame's file is one its
    path names as ``get`` reads it (``pathtails.named_files``): get's answer, unless the frame's
    function is defined in none of get's files and in one file a shorter tail names (a container's
    ``/app/manage.py ... in run`` with an app/ package: the root manage.py, which defines ``run``).
    Some frames say where a module is by convention, not where its file is (``_named_files``): a JVM
    frame's class, an installed copy's module path, a path under the folder the other frames show the
    repository was in on the traceback's machine. A frame whose path names no file adds nothing
    (the query's text still ranks)."""
    out: dict[str, Located] = {}
    root = PT.printed_root(sh, [f.path for f in fs if f.package is None], overlay)
    for i, f in enumerate(fs):
        got = _frame_node(sh, f, overlay, root)
        if got is None:
            continue
        src, file_row, at = got
        nid = src.col("id")[at]
        if nid not in out:
            where = f"{src.col('path')[file_row]}:{f.line}" + (f" in {f.func}" if f.func else "")
            out[nid] = Located(i, src, nid, int(at), f"{FRAME_WHY}{where}")
    return list(out.values())


def _frame_node(sh: "Shard", f: Frame, overlay: "StoreOverlay | None",
                root: tuple[str, ...] | None = None) -> tuple["Shard", int, int] | None:
    """(shard, file row, node row) of a frame (``locate``): the first of its files (``_named_files``),
    or the one file the frame's function is defined in, among the first (a tie) or else the nearest
    next; a tie of files defining it, or of more than MAX_TIED files, is not guessed."""
    ask = bool(f.func) and not f.func.startswith("<")     # <module>, <lambda>, <anonymous>: no name to choose by
    at_root = PT.under_root(sh, f.path, root, overlay) if f.package is None else None
    if at_root is not None:
        at, hit = _in_file(*at_root, f)
        if hit or not ask:      # the file at that path under the traceback's root (no tails compared)
            return (*at_root, at)
    groups = _named_files(sh, f, overlay, at_root, ask)
    if not groups:
        return None
    first = groups[0]
    if not ask:
        return (*first[0], _in_file(*first[0], f)[0]) if len(first) == 1 else None
    seen = [(src, row, *_in_file(src, row, f)) for src, row in first] if len(first) <= MAX_TIED else []
    defining = [(src, row, at) for src, row, at, hit in seen if hit]
    if not defining:
        for group in groups[1:]:
            if len(group) <= MAX_TIED:
                defining = [(src, row, at) for src, row in group for at, hit in [_in_file(src, row, f)] if hit]
            if defining:
                break
    if len(defining) == 1:
        return defining[0]
    return (*first[0], seen[0][2]) if len(first) == 1 else None     # get's file: the function defined in none


def _named_files(sh: "Shard", f: Frame, overlay: "StoreOverlay | None", at_root: Place | None,
                 shorter: bool) -> list[list[Place]]:
    """The files a frame names, in groups, the likeliest first: a JVM frame's, its class's
    (``pathtails.class_files``); an installed copy's, its module's (``pathtails.module_files``);
    else the files its path names as get reads it (``pathtails.named_files``; ``shorter``: shorter
    tails' too), after ``at_root``, the file at the path left under the traceback's root
    (``pathtails.printed_root``: a function-less ``/app/manage.py`` is the root manage.py when the
    other frames are files under /app)."""
    by_convention = (PT.class_files(sh, f.package, f.path.rpartition("/")[2], overlay) if f.package is not None
                     else PT.module_files(sh, f.path, overlay))
    if by_convention is not None:
        return [by_convention] if by_convention else []
    groups = PT.named_files(sh, f.path, overlay, shorter=shorter)
    if at_root is None:
        return groups
    return [[at_root], *([p for p in g if p != at_root] for g in groups)]


def _in_file(src: "Shard", row: int, f: Frame) -> tuple[int, bool]:
    """The definition of file ROW that frame ``f`` is in: the innermost around its line
    (``linerange.enclosing``, as ``get path:LINE``), or the file's definition of the frame's function
    nearest that line when the one there has another name (the installed version differs); and
    whether it is a definition of that function."""
    from stratum.linerange import enclosing

    at = row
    if 1 <= f.line <= int(src.col("end_line")[row] or 0):
        at = enclosing(Target(src, row, None), f.line, f"{src.col('path')[row]}:{f.line}").row or row
    if not f.func or f.func.startswith("<"):
        return at, False
    if at != row and src.col("name")[at] == f.func:
        return at, True
    named = _named_in(src, row, f.func, f.line)
    return (at, False) if named is None else (named, True)


def passing(located: list[Located], kinds: Sequence[str], path_prefix: str, language: str) -> list[Located]:
    """The frames' definitions a search's filters let through, as its text lists filter rows: kind
    among ``kinds``, path starting with ``path_prefix``, ``language`` (any case)."""
    lang = language.lower()
    out = []
    for f in located:
        col = f.shard.col
        if kinds and col("kind")[f.row] not in kinds:
            continue
        if path_prefix and not (col("path")[f.row] or "").startswith(path_prefix):
            continue
        if lang and (col("language")[f.row] or "").lower() != lang:
            continue
        out.append(f)
    return out


__all__ = ["FRAME_WHY", "CALLED_WHY", "TEST_WHY", "named_tests", "Frame", "Located", "Paste", "read", "placed", "leads", "frames", "condensed",
           "called", "callees", "locate", "passing", "printed_in_view", "MAX_FRAMES", "MAX_CALLED",
           "CALLED_DEFS", "MAX_ERROR_LINE"]
