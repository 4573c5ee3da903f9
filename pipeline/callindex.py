"""The definitions ``pipeline.calls`` links calls to, by the keys its name rules look up: a
file's qualified names, a language family's top-level names and qualified names, a Go package's
names, the method names, C/C++ prototypes and bodies, where a Python file's imports are seen
(``Scopes``). Split from ``pipeline.calls``: what is known before any call is read."""

from __future__ import annotations

import dataclasses
import json
import posixpath
import re
from collections import defaultdict
from typing import Iterable

from pipeline import javaargs
from pipeline.callrefs import DECL
from pipeline.parse import TEST_MARK


CODE = ("class", "function", "method")
C_FAMILY = ("c", "cpp")
JS_FAMILY = ("javascript", "typescript", "tsx")
# the languages one name rule spans: a .tsx file calls the .ts files' functions, and a project that
# mixes JS and TS calls across them (the key of the by-name tables; "tsx" alone matched nothing in "typescript")
FAMILY = {"tsx": "typescript", "javascript": "typescript"}
MODULES = ("rust", "typescript", "tsx")    # an inline ``mod`` / ``namespace``: a file's own scope
# a JS/TS definition that is its module's own value, as its signature (``parse._signature``) writes it:
# ``module.exports = function f`` (``exports = module.exports = ...``: CommonJS), ``export default function f``
MODULE_VALUE = re.compile(r"(?:exports\s*=\s*)?module\.exports\s*=|(export\s+default)\b")
_OVERLOAD = re.compile(r"#\d+$")           # ``Gson.toJson#2``: the second of its name in the file


def unnumbered(qual: str) -> str:
    """A qualified name without its overload number: ``Builder.add#2`` -> ``Builder.add``."""
    return _OVERLOAD.sub("", qual)
_ARITY_KEY = '{"arity":'
_ARITY = re.compile(r'\{"arity":\[(-?\d+),(-?\d+)\],"params":(\[(?:"[^"]*",?)*\])')    # without the calls' JSON


@dataclasses.dataclass(slots=True)
class Def:
    id: str
    path: str
    qual: str
    kind: str
    lang: str


def family(lang: str) -> str:
    return FAMILY.get(lang, lang)


def parent_qual(qual: str) -> str:
    return qual.rsplit(".", 1)[0] if "." in qual else ""


class Index:
    """Definitions by the keys the rules look up."""

    def __init__(self, nodes: Iterable[dict]):
        self.by_qual: dict[tuple[str, str], str] = {}
        self.defs: dict[str, Def] = {}
        self.top: dict[tuple[str, str], list[str]] = defaultdict(list)          # (family, name) -> ids
        self.quals: dict[tuple[str, str], list[str]] = defaultdict(list)        # (family, qual) -> ids
        self.dir_qual: dict[tuple[str, str], list[str]] = defaultdict(list)     # (dir, qual) -> ids (Go)
        self.methods: dict[tuple[str, str], list[str]] = defaultdict(list)      # (path, name) -> ids
        self.method_names: dict[tuple[str, str], set[str]] = defaultdict(set)   # (family, name) -> ids
        self.declared: set[str] = set()                                         # C/C++ prototypes
        self.names: set[str] = set()                                            # last parts of quals
        self.bodies: dict[str, list[str]] = defaultdict(list)                   # C/C++ qual -> defined ids
        self.owners: set[tuple[str, str]] = set()                               # (path, qual) with members
        self.spaces: set[tuple[str, str]] = set()       # (path, qual) of a Rust mod / TS namespace (no node)
        self.tests: set[str] = set()                    # gtest tests: callers, never a call's target
        self.arity: dict[str, tuple[int, int]] = {}     # an overload's [fewest, most] arguments (Java)
        self.params: dict[str, list[str]] = {}          # an overload's parameters' simple types
        self.overloads: dict[tuple[str, str, str], list[str]] = defaultdict(list)   # (path, kind, name) -> ids
        self.scopes = Scopes()
        # JS/TS path -> (its definition that is the module's value, whether by ``export default``)
        self.module_value: dict[str, tuple[str, bool] | None] = {}
        self._files_of: dict[str, list[tuple[str, str]]] | None = None     # ``files_defining``
        for n in nodes:
            if n["kind"] not in CODE:
                continue
            if n.get("language") == "python":
                self.scopes.add(n)
            d = Def(n["id"], n["path"], n["qualname"], n["kind"], n.get("language") or "")
            self.defs[d.id] = d
            if (meta := n.get("meta") or "").startswith(_ARITY_KEY):     # an overload (callrefs writes it first)
                m = _ARITY.match(meta)
                a, params = (((int(m[1]), int(m[2])), json.loads(m[3])) if m else
                             ((got := json.loads(meta))["arity"], got.get("params") or []))
                self.arity[d.id] = (a[0], a[1])
                self.params[d.id] = params
                self.overloads[(d.path, d.kind, unnumbered(d.qual))].append(d.id)
            if TEST_MARK in (n.get("meta") or ""):     # TEST(Logging, NumberToString) is no NumberToString()
                self.tests.add(d.id)
                continue
            self.names.add(d.qual.rsplit(".", 1)[-1])
            if d.lang in C_FAMILY and d.kind != "class":
                if DECL in (n.get("meta") or ""):       # the parse's own word: a prototype
                    self.declared.add(d.id)
                else:
                    self.bodies[d.qual].append(d.id)
            self.by_qual.setdefault((d.path, d.qual), d.id)
            self.quals[(family(d.lang), d.qual)].append(d.id)
            if "." not in d.qual:
                self.top[(family(d.lang), d.qual)].append(d.id)
                if d.lang in JS_FAMILY and (m := MODULE_VALUE.match(n.get("signature") or "")):
                    # two in one file (a module reassigned): which one a caller holds is not known
                    self.module_value[d.path] = None if d.path in self.module_value else (d.id, bool(m[1]))
            if d.lang == "go":
                self.dir_qual[(posixpath.dirname(d.path), d.qual)].append(d.id)
        for d in self.defs.values():
            if "." not in d.qual or d.id in self.tests:
                continue
            self.owners.add((d.path, parent_qual(d.qual)))
            if d.lang in MODULES and d.kind != "method":
                # what holds a function or a class and is no definition is a module: a method's
                # owner may be an object (JS-style ``res.json = function``), whose names no bare call sees
                parts = d.qual.split(".")
                for k in range(1, len(parts)):
                    if (d.path, q := ".".join(parts[:k])) not in self.by_qual:
                        self.spaces.add((d.path, q))
            name = d.qual.rsplit(".", 1)[1]
            self.method_names[(family(d.lang), name)].add(d.id)
            if d.lang in JS_FAMILY and d.kind == "method":
                owner = self.by_qual.get((d.path, parent_qual(d.qual)))
                if owner is None or self.defs[owner].kind != "class":
                    continue    # an object's own method (``res.get = function``): not app.get's
            self.methods[(d.path, name)].append(d.id)

    def files_defining(self, qual: str) -> list[tuple[str, str]]:
        """(path, id) of ``by_qual``'s definitions of ``qual``, one a file: a lookup among a file's
        imports reads these few instead of every imported file (an index made on first use)."""
        if self._files_of is None:
            self._files_of = defaultdict(list)
            for (path, q), i in self.by_qual.items():
                self._files_of[q].append((path, i))
        return self._files_of.get(qual, [])


class Scopes:
    """Where a Python file's imports bind their names: one in a function's body (or a class's)
    binds a name of that function alone (its nested functions, hidden in its node, included),
    not of the module: a call in another function, or a module reading the name off this one
    (``from jobs import clamp``, ``jobs.clamp()``, ``pipeline.callbindings.LAST_LINE``), does not
    see it; but a name the body declares ``global`` is the module's (a lazy import: the binding
    record's ``scoped`` is False, ``ImportRef.scoped``). A scope is the innermost function, method
    or class node around a line (a lambda's node is a statement of its own scope); nodes read
    without their lines give none: their imports count as the module's (an overlay reads its
    base's lines, ``pipeline.overlay``)."""

    def __init__(self) -> None:
        self.spans: dict[str, list[tuple[int, int]]] = defaultdict(list)     # path -> (first, last line)
        self._lines: dict[str, list[tuple[int, int] | None]] = {}      # path -> line -> ``at``'s answer
        self._reach: dict[str, dict[str, set[tuple[int, int] | None]]] = {}    # path -> ``_reached``

    def add(self, n: dict) -> None:
        first, last = n.get("start_line"), n.get("end_line")
        if first is not None and last is not None and n.get("subkind") != "lambda":
            self.spans[n["path"]].append((first, last))
            self._lines.pop(n["path"], None)

    def at(self, path: str, line: int) -> tuple[int, int] | None:
        """The innermost scope holding ``line`` of ``path`` (None: the module's own code): of the
        spans holding it, the one starting last (the shortest of those starting there). Read off a
        table of the file's lines, made once a file (``_table``): a scan of every span for each
        line asked was ~15% of a large repository's call linking (sympy: ~300 spans a file)."""
        lines = self._lines.get(path)
        if lines is None:
            lines = self._lines[path] = self._table(self.spans.get(path, ()))
        return lines[line] if 0 <= line < len(lines) else None

    @staticmethod
    def _table(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int] | None]:
        """Line -> innermost span: each span written over its lines in ascending (first line,
        -last line) order, so each line keeps the greatest of the spans holding it. A span
        starting below line 0 holds no line a call has (the lines are 1-based)."""
        ordered = sorted({(s, e) for s, e in spans if e >= s and e >= 0}, key=lambda se: (se[0], -se[1]))
        table: list[tuple[int, int] | None] = [None] * (max((e for _, e in ordered), default=-1) + 1)
        for s, e in ordered:
            lo = max(s, 0)
            table[lo:e + 1] = [(s, e)] * (e + 1 - lo)
        return table

    def of(self, path: str, b: tuple) -> tuple[int, int] | None:
        """The scope a binding record (``(line, name there, scoped, files)``) binds in."""
        return self.at(path, b[0]) if b[2] else None

    def visible(self, path: str, seen: list | None, line: int) -> list:
        """Of ``seen`` (the imports of a name in ``path``: binding records), those a call at
        ``line`` sees: the module's, and those of the scope the call is in (the call's own scope
        is looked for only when one of them is in a scope: most names are the module's)."""
        if not seen or path not in self.spans or all(self.of(path, b) is None for b in seen):
            return seen or []
        here = self.at(path, line)
        return [b for b in seen if (s := self.of(path, b)) is None or s == here]

    def unseen(self, path: str, names: dict[str, list] | None, line: int) -> frozenset[str]:
        """The files only imports in scopes other than ``line``'s reach (of ``names``: the
        name -> binding records of ``path``): an import edge of the file,
        yet not what a call there imports (``from util.nums import clamp`` in one function, a
        bare ``clamp()`` in another)."""
        reach = self._reach.get(path)
        if reach is None:
            reach = self._reach[path] = self._reached(path, names or {})
        if not reach:
            return frozenset()
        here = self.at(path, line)
        return frozenset(f for f, scopes in reach.items() if here not in scopes)

    def _reached(self, path: str, names: dict[str, list]) -> dict[str, set[tuple[int, int] | None]]:
        """File -> the scopes whose imports reach it, for the files no module-level import reaches."""
        if path not in self.spans:
            return {}
        got: dict[str, set[tuple[int, int] | None]] = defaultdict(set)
        for seen in names.values():
            for b in seen:
                scope = self.of(path, b)
                for f in b[3]:
                    got[f].add(scope)
        return {f: s for f, s in got.items() if None not in s}


def defined(ix: Index, got: str | None, how: str) -> tuple[str | None, str]:
    """A C/C++ prototype (a header's declaration, what an included file offers) as the one
    definition with a body of that name, when there is one: where a reader goes to read it."""
    if got is None or got not in ix.declared:
        return got, how
    body = one(ix.bodies.get(ix.defs[got].qual, ()))
    return (body, f"{how}, its definition") if body is not None else (got, how)


def by_arity(ix: Index, got: str | None, how: str, args: int, types: str = "",
             known: dict[str, set[str]] | None = None) -> list[tuple[str | None, str]]:
    """A call of ``args`` arguments (-1: not counted) of the types ``types`` says ("String,,Class":
    "" unknown; ``pipeline.javaargs``) that landed on an overload (``got``): the one overload of its
    name in that file that takes them (``how`` says ``by argument count``, or ``by argument
    types``, also when the types match one overload's exactly, as Java picks the most specific),
    else each that may (or, when none may, each of them), ``how`` saying ``one of N overloads``.
    ``known``: ``javaargs.fits``' (``classes``)."""
    if got is None or args < 0 or got not in ix.arity:
        return [(got, how)]
    d = ix.defs[got]
    sibs = ix.overloads.get((d.path, d.kind, unnumbered(d.qual)), [got])
    if len(sibs) < 2:
        return [(got, how)]
    fit = [i for i in sibs if (a := ix.arity[i])[0] <= args and (a[1] < 0 or args <= a[1])]
    if len(fit) == 1:
        return [(fit[0], f"{how}, by argument count")]
    if types and fit:
        said = types.split(",")
        fit = [i for i in fit if all(javaargs.fits(t, p, known) for t, p in zip(said, ix.params[i]))] or fit
        if len(fit) > 1:        # the most specific: most parameters of the argument's own type
            score = {i: sum(javaargs.exact(t, p) for t, p in zip(said, ix.params[i])) for i in fit}
            best = max(score.values())
            if best and sum(v == best for v in score.values()) == 1:
                fit = [i for i in fit if score[i] == best]
        if len(fit) == 1:
            return [(fit[0], f"{how}, by argument types")]
    pool = fit or sibs
    return [(i, f"{how}, one of {len(pool)} overloads") for i in pool]


def classes(ix: Index, bases: dict[str, list[str]], lang: str = "java") -> dict[str, set[str]]:
    """The classes of ``lang`` by simple name -> the simple names of what each is (itself, its
    bases' and theirs, from ``bases``: class id -> resolved base ids), for ``javaargs.fits``."""
    out: dict[str, set[str]] = {}
    for d in ix.defs.values():
        if d.kind != "class" or d.lang != lang:
            continue
        got, todo = set(), [d.id]
        while todo:
            c = todo.pop()
            name = ix.defs[c].qual.rsplit(".", 1)[-1]
            if name not in got:
                got.add(name)
                todo.extend(bases.get(c, ()))
        out.setdefault(d.qual.rsplit(".", 1)[-1], set()).update(got)
    return out


STUB_FILES = (".d.ts", ".d.mts", ".d.cts")     # declarations only: types of code elsewhere (or none of ours)


def named(ix: Index, ids: Iterable[str]) -> str | None:
    """``one`` of ``ids`` found by a name alone, across the repository: a ``.d.ts`` declaration is
    none of them (vue's ``dts-test/utils.d.ts`` ``test`` stub took every spec file's ``test(``);
    an import that binds one still reaches it."""
    return one(i for i in ids if not ix.defs[i].path.endswith(STUB_FILES))


def one(ids: Iterable[str]) -> str | None:
    got = set(ids)
    return next(iter(got)) if len(got) == 1 else None


def unique(ix: Index, ids: Iterable[str]) -> str | None:
    """The one definition among ``ids``, a C/C++ prototype counted as the one body of its name
    (a header's declaration and its .cpp's definition are one function); a prototype nothing
    defines is none (an outside API, or a member of a class the parse did not read as one:
    ``class EXPORT_MACRO Batch { void Put(); }``)."""
    got = one(defined(ix, i, "")[0] or i for i in ids)
    return None if got in ix.declared else got


__all__ = ["Index", "Def", "Scopes", "family", "parent_qual", "unnumbered", "defined", "by_arity", "classes", "one", "unique",
           "named", "STUB_FILES",
           "CODE", "C_FAMILY", "JS_FAMILY", "MODULES"]
