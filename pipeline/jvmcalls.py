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
  The receiver type is matched as written: ``fun FunSpec.Builder.jvmStatic()`` extends the class
  whose qualified name ends so, not ``PropertySpec.Builder`` (a bare ``Builder`` fits either);
  when several extensions fit (two receivers, overloads ``f#2``) there is no edge.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Iterable

from pipeline.callindex import Index, one, parent_qual, unnumbered
from pipeline.languages.jvmpackages import LANGUAGES as JVM

# implicit class CartOps(val c: Cart): its methods extend Cart (the signature as ``parse`` keeps it)
_IMPLICIT = re.compile(r"\bimplicit\s+(?:final\s+)?class\s+\w+\s*(?:\[[^\]]*\])?\s*\(\s*"
                       r"(?:(?:private\s+)?va[lr]\s+)?\w+\s*:\s*([\w.]+)")
_GENERIC = re.compile(r"<[^<>]*>")          # one innermost type-argument list (``Map<K, List<V>>``: twice)


def _last(qual: str) -> str:
    return qual.rsplit(".", 1)[-1]


def receiver(signature: str, name: str) -> str | None:
    """The receiver type of Kotlin's ``fun <T> a.B<T>?.name(...)`` as written, without type
    arguments (``a.B``), or None when the signature does not read so."""
    head, fun, rest = signature.partition("fun ")
    if not fun:
        return None
    for _ in range(4):
        rest, k = _GENERIC.subn("", rest)
        if not k:
            break
    m = re.search(r"([\w.]+?)\??\s*\.\s*`?" + re.escape(name) + r"`?\s*\(", rest)
    return m[1] if m else None


def fits(written: str, full: str, exact: bool) -> bool:
    """Whether an extension's receiver ``written`` (``FunSpec.Builder``, ``Builder``) names the type
    ``full``: a class's qualified name with its package (``exact``: its last parts must be
    ``written``), or a type as a variable's declaration writes it (either may be the shorter)."""
    w, f = f".{written}", f".{full}"
    return f.endswith(w) or (not exact and w.endswith(f))


class JvmScope:
    """Packages and extensions of the Kotlin and Scala definitions of ``ix``; ``nodes``: the file
    nodes (their ``meta`` holds the package record) and the classes (their signature says
    ``implicit``); ``imported``: path -> the files its imports reach."""

    def __init__(self, ix: Index, nodes: Iterable[dict], imported: dict[str, list[str]]):
        self.ix, self.imported = ix, imported
        self.package: dict[str, str] = {}                        # path -> its package
        self.files: dict[str, set[str]] = defaultdict(set)       # package -> its files
        # (type's simple name, name without ``#2``) -> (id, the receiver type as written)
        self.ext: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
        self._imported: dict[str, frozenset[str]] = {}
        implicit: dict[tuple[str, str], str] = {}                # (path, class qual) -> the type it extends
        signature: dict[str, str] = {}                           # a Kotlin member's id -> its signature
        for n in nodes:
            lang = n.get("language")
            if lang not in JVM:
                continue
            if lang == "kotlin" and n["kind"] != "class" and "." in (n.get("qualname") or ""):
                signature[n["id"]] = n.get("signature") or ""
            if n["kind"] == "file" and '"package"' in (meta := n.get("meta") or ""):
                for ref in json.loads(meta).get("imports", ()):
                    if ref.get("kind") == "package" and ref.get("target"):
                        self.package.setdefault(n["path"], ref["target"])
                        self.files[ref["target"]].add(n["path"])
            elif n["kind"] == "class" and lang == "scala" and (m := _IMPLICIT.search(n.get("signature") or "")):
                implicit[(n["path"], n["qualname"])] = m[1]
        for d in ix.defs.values():
            if d.lang not in JVM or d.kind == "class" or "." not in d.qual:
                continue
            owner, name = parent_qual(d.qual), unnumbered(_last(d.qual))
            extended = implicit.get((d.path, owner))
            if extended is None and (d.path, owner) not in ix.by_qual:
                # fun Cart.itemCount(), fun FunSpec.Builder.f() (its qual says ``Builder.f``),
                # extension (c: Cart) def size2
                extended = receiver(signature.get(d.id, ""), name) or owner
            if extended is not None:
                self.ext[(_last(extended), name)].append((d.id, extended))

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

    def full_name(self, cls: str) -> str:
        """Class ``cls``'s qualified name with its file's package (``com.x.FunSpec.Builder``)."""
        d = self.ix.defs[cls]
        pkg = self.package.get(d.path)
        return f"{pkg}.{d.qual}" if pkg else d.qual

    def extension(self, path: str, types: Iterable[tuple[str, bool]], name: str) -> str | None:
        """The one extension ``name`` of the nearest of ``types`` that has any ``path`` sees (in it,
        its package or a file it imports): ``types`` are (name, exact) of a class's own then its
        bases' (``full_name``) or of a type as written (``fits``). Several: None (which one is
        not known)."""
        for t, exact in types:
            got = {i for i, written in self.ext.get((_last(t), name), ())
                   if fits(written, t, exact) and self._sees(path, self.ix.defs[i].path)}
            if got:
                return one(got)
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
