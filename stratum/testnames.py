"""Tests a search query names: the failing test an agent pastes, or types, leads to its node.

A test written as a call (``pipeline.testblocks``: a JS/TS ``describe``/``it``/``test`` block, a test a
Rust macro defines) has no keyword document and no vector (``textprep.searched``: their titles repeat the
words of the code they test and crowded "where is X" questions), so neither its title nor its name found
it: ``search r1159_invalid_flag`` on ripgrep, an agent's first search after ``cargo test`` failed, did
not, nor a pasted Vitest ``FAIL  path > suite > test`` header without a stack (a probe). Here a query is
read for the tests it names, and ``tracebacks.placed`` puts their nodes first (after a traceback's frames):

- a test runner's header of a failing test: Vitest's ``FAIL  packages/x/__tests__/a.spec.ts > suite >
  test`` (its path and title path), Jest's ``● suite › test``, cargo's ``---- regression::r1159 stdout
  ----`` and ``test regression::r1159 ... FAILED``;
- a whole query that is a test's qualified title as a runner prints it (``scheduler > queueJob > basic
  usage``, or as the index names it, ``scheduler.queueJob.basic usage``), or a Rust path ending in a
  test's name (``regression::r1159_invalid_flag``);
- googletest's own name of a test, ``CacheTest.Erase``, typed or in its log (``[  FAILED  ] CacheTest.Erase``,
  the last ``[ RUN      ]`` one a crash cut short), for the node ``cppmacros.test_name`` names
  ``CacheTest.CacheTest_Erase_Test``;
- a whole query that is one identifier naming a test (``r1159_invalid_flag``), only when no searched
  node has that name (``defineCustomElement`` is the function, not the describe block named after it)
  and at most ``MAX_TESTS`` tests share it (``works``: a common title, no pointer).

A prose query is never read as a title (``custom element props reflection`` stays a question about the
code, as the s33 re-probe wanted). A test is looked up among the shard's test blocks by its qualified
name (a repeated title's ``#2`` too), kept per shard (a published shard is immutable).
"""

from __future__ import annotations

import re
import threading
import weakref
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stratum.textprep import TEST_BLOCKS

if TYPE_CHECKING:
    from stratum.shard import Shard

TEST_WHY = "test named: "   # how a named test's item says why it leads (search attaches its notes)
MAX_TESTS = 3               # tests one name may lead to; more share it: a common title, not a pointer
MAX_NAMED = 8               # test headers read from one paste (a run's summary lists each failure again)

# Vitest: ` FAIL  packages/x/__tests__/a.spec.ts > suite > test` (also its `×`/`✗` lines with a path)
_VITEST = re.compile(r"^[ \t]*(?:FAIL|×|✗|✖)[ \t]+(?P<path>[^\s>]+\.[A-Za-z]\w{0,5})[ \t]+>[ \t]+(?P<titles>[^\n]+?)"
                     r"(?:[ \t]+\d+m?s)?[ \t]*$", re.M)
# Jest: `  ● suite › test`
_JEST = re.compile(r"^[ \t]*●[ \t]+(?P<titles>[^\n›]+(?:[ \t]›[ \t][^\n›]+)*)$", re.M)
# googletest: `[  FAILED  ] CacheTest.Erase (3 ms)`, `[ RUN      ] CacheTest.Erase`; TEST_P's `Inst/ParamTest.Case/0`,
# TYPED_TEST's `TypedTest/0.Case`
_GTEST = re.compile(r"^\[ *(?P<what>FAILED|RUN|OK) *\] (?:\w+/)?(?P<suite>[A-Za-z_]\w*)(?:/\d+)?\.(?P<name>[A-Za-z_]\w*)"
                    r"(?:/\d+)?\b", re.M)
_GTEST_TYPED = re.compile(r"(?P<suite>[A-Za-z_]\w*)\.(?P<name>[A-Za-z_]\w*)")
# cargo: `---- regression::r1159 stdout ----`, `test regression::r1159 ... FAILED`
_CARGO = re.compile(r"^(?:---- (?P<a>[\w:]+) stdout ----|test (?P<b>[\w:]+) \.\.\. FAILED)[ \t]*$", re.M)
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
_RUST_PATH = re.compile(r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)+")
_NUMBERED = re.compile(r"#\d+$")


class Named(NamedTuple):
    """A test a query names."""
    path: str                   # the file the header names ("" when it names none)
    titles: tuple[str, ...]     # its title path (a Rust test: its module path and name), outermost first
    pasted: bool                # from a runner's header (a failure paste); False: the query typed
    module: bool = False        # a Rust path: its leading parts are modules, which the index may not name
    gtest: bool = False         # googletest's ``Suite.Name``: the node is named ``Suite.Suite_Name_Test``


def named(query: str) -> list[Named]:
    """The tests ``query`` names (see the module docstring), in the order it prints them."""
    q = query.strip()
    if not q:
        return []
    out: list[Named] = []
    if ">" in q:
        for m in _VITEST.finditer(q):
            out.append(Named(m.group("path"), _titles(m.group("titles"), " > "), True))
    if "●" in q:
        for m in _JEST.finditer(q):
            out.append(Named("", _titles(m.group("titles"), " › "), True))
    if "] " in q:
        out += _gtest(q)
    if "----" in q or "FAILED" in q:
        for m in _CARGO.finditer(q):
            out.append(Named("", tuple((m.group("a") or m.group("b")).split("::")), True, True))
    if out:
        return list(dict.fromkeys(out))[:MAX_NAMED]
    if "\n" in q:
        return []
    for sep in (" > ", " › "):
        if sep in q:
            return [Named("", _titles(q, sep), False)]
    if _RUST_PATH.fullmatch(q):
        return [Named("", tuple(q.split("::")), False, True)]
    typed = [Named("", (q,), False)] if _IDENT.fullmatch(q) or "." in q else []   # `r1159_invalid_flag`; `a.b c`
    gt = _GTEST_TYPED.fullmatch(q)
    return typed + ([Named("", (gt.group("suite"), gt.group("name")), False, gtest=True)] if gt else [])


def _gtest(q: str) -> list[Named]:
    """The tests a googletest log names: each ``[  FAILED  ]`` one, and the last ``[ RUN      ]`` one
    no ``[       OK ]`` or ``FAILED`` line follows (a crash ends the log inside it)."""
    out: list[Named] = []
    ran: tuple[str, str] | None = None
    for m in _GTEST.finditer(q):
        test = (m.group("suite"), m.group("name"))
        if m.group("what") == "RUN":
            ran = test
            continue
        if m.group("what") == "FAILED":
            out.append(Named("", test, True, gtest=True))
        if ran == test:
            ran = None
    return out + ([Named("", ran, True, gtest=True)] if ran is not None else [])


def _titles(text: str, sep: str) -> tuple[str, ...]:
    """A printed title path's parts, whitespace runs as one space (as ``testblocks`` names them); a
    title copied from source with its escaped quote (``doesn\\'t``) read as the runner prints it."""
    return tuple(" ".join(t.replace("\\'", "'").replace('\\"', '"').split()) for t in text.split(sep) if t.strip())


class _Table(NamedTuple):
    by_qual: dict[str, list[int]]     # a test block's qualified name (without its ``#N``) -> rows
    by_name: dict[str, list[int]]     # its own title or name -> rows


_TABLES: "weakref.WeakKeyDictionary[object, _Table]" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def _table(sh: "Shard") -> _Table:
    """The shard's test blocks by qualified name and by name, read once per shard by one thread
    while the others wait (as ``declpairs.counterparts``: a server's first queries each scanned)."""
    got = _TABLES.get(sh)
    if got is not None:
        return got
    with _LOCK:
        got = _TABLES.get(sh)
        return got if got is not None else _build(sh)


def _build(sh: "Shard") -> _Table:
    sub = sh.col("subkind").array
    mask = pc.fill_null(pc.is_in(sub, value_set=pa.array(sorted(TEST_BLOCKS))), False)
    rows = np.flatnonzero(mask.to_numpy(zero_copy_only=False)).tolist()
    by_qual: dict[str, list[int]] = {}
    by_name: dict[str, list[int]] = {}
    if rows:
        kinds = sh.col("kind").take(rows)
        quals, names = sh.col("qualname").take(rows), sh.col("name").take(rows)
        for r, kind, qual, name in zip(rows, kinds, quals, names):
            if kind != "function":
                continue
            by_qual.setdefault(_NUMBERED.sub("", qual or ""), []).append(int(r))
            by_name.setdefault(_NUMBERED.sub("", name or ""), []).append(int(r))
    got = _Table(by_qual, by_name)
    _TABLES[sh] = got
    return got


def rows_of(sh: "Shard", test: Named) -> list[int]:
    """The rows of ``sh``'s test blocks that ``test`` names (at most MAX_TESTS; [] when more do, or
    none): its whole title path as a qualified name (``.``-joined, as ``testblocks`` names it), in the
    file its header names when it names one; else the longest end of it that is one (cargo's
    ``regression::r1159`` is ``r1159`` of tests/regression.rs), those whose path holds the rest first;
    a typed identifier only when no searched node has that name (``searched_name``)."""
    if test.gtest:
        return _gtest_rows(sh, test.titles)
    table = _table(sh)
    if not table.by_qual:
        return []
    parts = test.titles
    col = sh.col("path")
    for k in range(len(parts) if test.module else 1):
        rest = parts[k:]
        if not test.pasted and len(rest) == 1 and searched_name(sh, rest[0]):
            return []           # typed, and a searched node's name: that code (``exact_names``), not a test
        rows = table.by_qual.get(".".join(rest), [])
        if not rows and not test.pasted and len(parts) == 1 and _IDENT.fullmatch(parts[0]):
            rows = table.by_name.get(parts[0], [])      # a typed name of a test nested in a describe or mod
        if test.path:
            rows = [r for r in rows if _same_file(col[r] or "", test.path)]
        if not rows:
            continue
        if k:           # the leading parts (a module path) in the file's path first
            lead = {p.lower() for p in parts[:k]}
            rows = [r for r in rows if lead & _segments(col[r] or "")] or rows
        return rows if len(rows) <= MAX_TESTS else []
    return []


def _gtest_rows(sh: "Shard", titles: tuple[str, ...]) -> list[int]:
    """The googletest tests gtest calls ``Suite.Name``: the functions named ``Suite.Suite_Name_Test``
    (``cppmacros.test_name``: the class the macro defines, in the suite's scope)."""
    kw = sh.warm.searcher.keywords if sh.warm is not None else None
    if kw is None:
        return []
    cls = f"{titles[0]}.{titles[0]}_{titles[1]}_Test"
    name, kind = sh.col("name"), sh.col("kind")
    rows = [int(r) for r in kw.name_rows(cls).tolist() if name[r] == cls and kind[r] == "function"]
    return rows if len(rows) <= MAX_TESTS else []


def searched_name(sh: "Shard", name: str) -> bool:
    """Whether a searched node (the keyword index's name list) has ``name`` as its name or
    qualified name: then the query names that code, and ``exact_names`` puts it first."""
    kw = sh.warm.searcher.keywords if sh.warm is not None else None
    return kw is not None and len(kw.name_rows(name)) > 0


def _segments(path: str) -> set[str]:
    """A path's folder and file names, the file's without its extension, lower-cased."""
    segs = path.replace("\\", "/").split("/")
    return {s.lower() for s in segs[:-1]} | {segs[-1].rsplit(".", 1)[0].lower()}


def _same_file(path: str, printed: str) -> bool:
    """Whether a runner's printed path (relative to its root, a package folder, or absolute) is ``path``."""
    p = printed.replace("\\", "/").removeprefix("./")
    return path == p or path.endswith("/" + p) or p.endswith("/" + path)


__all__ = ["Named", "named", "rows_of", "searched_name", "TEST_WHY", "MAX_TESTS", "MAX_NAMED"]
