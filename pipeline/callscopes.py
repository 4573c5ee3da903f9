"""The scopes around a definition and a class's members, as ``pipeline.calls`` reads them: the
enclosing classes and namespaces a bare name is looked up in first (C++, Java, Kotlin, Scala, Rust,
TypeScript), a class's method through its bases (``inherits``, ``INHERIT_DEPTH`` levels), and the
class a method's ``self`` is. Split from ``pipeline.calls`` (the rules in order, in its docstring):
the class side of the linker, under the import side (``pipeline.callbindings``)."""

from __future__ import annotations

import posixpath

from pipeline.callbindings import Bindings
from pipeline.callindex import MODULES, Def, Index, one, parent_qual

FIELDS = ("java", "kotlin", "scala")       # a class's fields and methods are read by their bare names in it
SCOPED = ("cpp", *FIELDS, *MODULES)        # a bare name is looked up in the scopes around it first
INHERIT_DEPTH = 3


class ClassScopes(Bindings):
    """``Bindings`` plus the resolved bases of each class and the scopes around each definition."""

    def __init__(self, ix: Index, imported: dict[str, list[str]], bound: dict[str, dict[str, list]],
                 files: set[str] | frozenset[str] = frozenset()):
        super().__init__(ix, imported, bound, files)
        self.bases: dict[str, list[str]] = {}          # class id -> base class ids
        self.scoped: dict[str, list[tuple[str, str | None]]] = {}   # definition id -> the scopes around it

    def _scopes(self, d: Def) -> list[tuple[str, str | None]]:
        """The scopes around ``d`` a bare name written in it is looked up in before its file's top
        level, innermost first, as its language reads them: (qualified name, the class's id, or None
        for a namespace). C++: every enclosing class (its members and its bases') and namespace (a
        scope that is no class of the file nor of an included header is a namespace, or a class
        whose out-of-line members this file defines); Java: the enclosing classes; Rust, TypeScript:
        the file's own ``mod``/``namespace`` blocks (not a class: ``Self::f``, ``this.f``)."""
        if d.lang not in SCOPED or "." not in d.qual:
            return []
        got = self.scoped.get(d.id)
        if got is not None:
            return got
        ix, got = self.ix, []
        parts = d.qual.split(".")
        for k in range(len(parts) - 1, 0, -1):
            s = ".".join(parts[:k])
            own = ix.by_qual.get((d.path, s))
            cls = own if own is not None and ix.defs[own].kind == "class" else None
            if d.lang == "cpp":
                if own is None:     # ``void Shape::area() {...}`` with Shape in an included header
                    cls = one(i for t in self.imported.get(d.path, ())
                               if (i := ix.by_qual.get((t, s))) is not None and ix.defs[i].kind == "class")
                got.append((s, cls))
            elif d.lang in FIELDS:
                if cls is not None:
                    got.append((s, cls))
            elif own is None and (d.path, s) in ix.spaces:
                got.append((s, None))
        self.scoped[d.id] = got
        return got

    def _in_scope(self, d: Def, scope: str, cls: str | None, name: str) -> tuple[str | None, str]:
        """``name`` in one of ``d``'s scopes (``_scopes``): a class's member (or its bases'; its
        own name is the class), a namespace's definition in the file or (C++) an included one."""
        ix = self.ix
        if cls is not None:
            how = "own class" if d.kind != "class" and scope == parent_qual(d.qual) else "enclosing class"
            if ix.defs[cls].qual.rsplit(".", 1)[-1] == name:
                return cls, how     # C++/Java: a class's name inside it is the class (not its constructor)
            got = self._member(cls, name)
            if got is not None and (c := ix.defs[got]).kind != "class" and c.qual.endswith(f"{name}.{name}"):
                # a base's name in its derived class is that base (found as its constructor)
                got, how = ix.by_qual.get((c.path, parent_qual(c.qual)), got), "base class"
            return (got, how) if got is not None else (None, "")
        qual = f"{scope}.{name}"
        got = ix.by_qual.get((d.path, qual))
        if got is not None:
            return got, "same file"
        if d.lang == "cpp":         # a namespace spans files: the one in an included header
            got = self._in_imports(d.path, qual)
            if got is not None:
                return got, "imported file"
        return None, ""

    def _member(self, cls: str, name: str, depth: int = 0) -> str | None:
        """Method ``name`` of class ``cls`` (an id) or of its bases."""
        c = self.ix.defs[cls]
        got = self.ix.by_qual.get((c.path, f"{c.qual}.{name}"))
        if got is None and c.lang == "go":
            got = one(self.ix.dir_qual.get((posixpath.dirname(c.path), f"{c.qual}.{name}"), ()))
        if got is not None or depth >= INHERIT_DEPTH:
            return got
        for b in self.bases.get(cls, ()):
            got = self._member(b, name, depth + 1)
            if got is not None:
                return got
        return None

    def _class_of(self, caller: Def | None) -> str | None:
        """The class a method's ``self`` is (an id), or None (C++ ``int A::f()``: ``A`` of a header too)."""
        if caller is None or caller.kind != "method":
            return None
        q = parent_qual(caller.qual)
        got = self.ix.by_qual.get((caller.path, q)) or next((c for s, c in self._scopes(caller) if s == q and c), None)
        if got is None and caller.lang == "go":
            got = one(self.ix.dir_qual.get((posixpath.dirname(caller.path), q), ()))
        return got if got is not None and self.ix.defs[got].kind == "class" else None


__all__ = ["ClassScopes", "FIELDS", "SCOPED", "INHERIT_DEPTH"]
