"""What Kotlin and Scala put in scope without naming it, as ``pipeline.calls`` reads it: a file's
package (its other files need no import), a package path written before a name, and extension
functions.

- A file's package is its own ``package`` record (``languages.jvmimports``, in the file node's
  ``meta``); the files of one package see each other's top-level names.
- ``a.b.Square(2.0)``, ``a.b.Registry.register(s)``, Scala ``new scopt.OptionParser[C](...)``: the
  longest leading path that is a package of the repository is that package, the rest a name in one
  of its files (``packaged``), as ``import a.b.Square`` would reach it.
- An extension of a type ``T``: a Kotlin ``fun T.f()`` or a Scala 3 ``extension (t: T) def f``
  (a definition ``T.f`` whose owner ``T`` is no definition of its file), or a method of a Scala
  ``implicit class Ops(val t: T)``. ``t.f()`` on a receiver of type ``T`` (or of a class ``T``
  derives from) reaches it when it lies in the caller's file, package or an imported file
  (``extension``): ``cart.itemCount()`` with ``cart: Cart`` and ``fun Cart.itemCount()`` beside it.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Iterable

from pipeline.callindex import Index, one, parent_qual

JVM = ("kotlin", "scala")
# implicit class CartOps(val c: Cart): its methods extend Cart (the signature as ``parse`` keeps it)
_IMPLICIT = re.compile(r"\bimplicit\s+(?:final\s+)?class\s+\w+\s*(?:\[[^\]]*\])?\s*\(\s*"
                       r"(?:(?:private\s+)?va[lr]\s+)?\w+\s*:\s*([\w.]+)")


def _last(qual: str) -> str:
    return qual.rsplit(".", 1)[-1]


class JvmScope:
    """Packages and extensions of the Kotlin and Scala definitions of ``ix``; ``nodes``: the file
    nodes (their ``meta`` holds the package record) and the classes (their signature says
    ``implicit``); ``imported``: path -> the files its imports reach."""

    def __init__(self, ix: Index, nodes: Iterable[dict], imported: dict[str, list[str]]):
        self.ix, self.imported = ix, imported
        self.package: dict[str, str] = {}                        # path -> its package
        self.files: dict[str, set[str]] = defaultdict(set)       # package -> its files
        self.ext: dict[tuple[str, str], list[str]] = defaultdict(list)    # (type's simple name, name) -> ids
        self._imported: dict[str, frozenset[str]] = {}
        implicit: dict[tuple[str, str], str] = {}                # (path, class qual) -> the type it extends
        for n in nodes:
            lang = n.get("language")
            if lang not in JVM:
                continue
            if n["kind"] == "file" and '"package"' in (meta := n.get("meta") or ""):
                for ref in json.loads(meta).get("imports", ()):
                    if ref.get("kind") == "package" and ref.get("target"):
                        self.package.setdefault(n["path"], ref["target"])
                        self.files[ref["target"]].add(n["path"])
            elif n["kind"] == "class" and lang == "scala" and (m := _IMPLICIT.search(n.get("signature") or "")):
                implicit[(n["path"], n["qualname"])] = _last(m[1])
        for d in ix.defs.values():
            if d.lang not in JVM or d.kind == "class" or "." not in d.qual:
                continue
            owner = parent_qual(d.qual)
            extended = implicit.get((d.path, owner))
            if extended is None and (d.path, owner) not in ix.by_qual:
                extended = _last(owner)         # fun Cart.itemCount(), extension (c: Cart) def size2
            if extended is not None:
                self.ext[(extended, _last(d.qual))].append(d.id)

    def same_package(self, path: str) -> set[str]:
        """The files of ``path``'s package (itself included), or none when it declares none."""
        pkg = self.package.get(path)
        return self.files.get(pkg, set()) if pkg is not None else set()

    def _sees(self, path: str, other: str) -> bool:
        if other == path or (other in self.same_package(path)):
            return True
        got = self._imported.get(path)
        if got is None:
            got = self._imported[path] = frozenset(self.imported.get(path, ()))
        return other in got

    def extension(self, path: str, types: Iterable[str], name: str) -> str | None:
        """The one extension ``name`` of one of ``types`` (simple names: a class's own, then its
        bases') that ``path`` sees: in it, its package or a file it imports."""
        for t in types:
            got = one(i for i in self.ext.get((t, name), ()) if self._sees(path, self.ix.defs[i].path))
            if got is not None:
                return got
        return None

    def packaged(self, recv: str, name: str) -> str | None:
        """``name`` written after ``recv`` that begins with a package of the repository
        (``a.b.Registry.register``): the one definition of the rest (``Registry.register``) among
        that package's files; the longest such package decides."""
        parts = recv.split(".")
        for k in range(len(parts), 0, -1):
            files = self.files.get(".".join(parts[:k]))
            if files:
                qual = ".".join([*parts[k:], name])
                return one(i for f in files if (i := self.ix.by_qual.get((f, qual))) is not None)
        return None


__all__ = ["JvmScope", "JVM"]
