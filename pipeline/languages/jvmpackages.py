"""Kotlin and Scala imports -> repository files (the rules are listed in ``pipeline.imports``, which
resolves every language and builds the edges). Pure: paths and raw imports only.

Neither language keeps one class per file (a Kotlin ``Money.kt`` may hold ``Money``, ``Currency``
and top-level functions), so the package records each file carries (``languages.jvmimports``: its
package, the names it declares at its top) are the index: ``import a.b.C`` lands on the files of
package ``a.b`` declaring ``C`` (``a.b.C.D``, a nested class or an object's member, on those
declaring ``C``); ``a.b.*`` on every file of package ``a.b``, or the files declaring ``C`` for
``a.b.C.*`` (a class's members). What no package record answers (a Java class, a file an
overlay did not read) is looked for by its path as Java's are: ``a/b/C.kt`` / ``.scala`` /
``.java`` under any source root (the shortest path wins), a wildcard on every such file of the
package's folder. A Java import of a class no ``.java`` file holds is read the same way
(``JvmPackages.java``): Java code importing a Kotlin or Scala class reaches its file.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pipeline.imports import FileImports, ImportRef

LANGUAGES = ("kotlin", "scala")
PACKAGE = "package"      # the kind of a file's own package record (``languages.jvmimports``)
_EXTS = (".kt", ".scala", ".java")       # what a JVM import may name by its path


class JvmPackages:
    """Package -> the files declaring each name at their top, and its files."""

    def __init__(self, files: Iterable[FileImports], paths: Iterable[str]):
        latest: dict[str, FileImports] = {}
        for f in files:                          # a file given twice: the later one (an overlay's own)
            if f.language in LANGUAGES:
                latest[f.path] = f
        self.declared: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        self.files: dict[str, set[str]] = defaultdict(set)
        for f in latest.values():
            for ref in f.imports:
                if ref.kind == PACKAGE:
                    self.files[ref.target].add(f.path)
                    for n in ref.names:
                        self.declared[ref.target][n].add(f.path)
        self.paths = paths
        self._by_name: dict[str, list[str]] | None = None
        self._by_dir: dict[str, list[str]] | None = None

    def resolve(self, path: str, ref: ImportRef) -> list[str]:
        """The files an import of ``path`` lands on ([] when none of the repository's)."""
        if ref.kind == PACKAGE:
            return []
        parts = ref.target.split(".")
        if ref.names == ("*",):
            got = self.files.get(ref.target)
            if got:
                return sorted(got)
            return self._declaring(parts) or self._folder(parts) or self._by_path(parts)
        return self._declaring(parts) or self._by_path(parts)

    def java(self, ref: ImportRef, own: list[str]) -> list[str]:
        """The files a Java import lands on, given those Java's own rules found (``own``: ``.java``
        files by path): a class no ``.java`` file holds is looked for as a Kotlin or Scala import
        of it is (``import com.x.Foo;``, ``import static com.x.Foo.bar;``: the files of package
        ``com.x`` declaring ``Foo``), ``FooKt`` as the Kotlin file ``Foo.kt`` of its package (the
        class of its top-level functions); a wildcard adds the package's Kotlin and Scala files."""
        if own and ref.names != ("*",):
            return own
        got = self.resolve("", ref) or self._facade(ref.target.split("."))
        return sorted({*own, *got})

    def _facade(self, parts: list[str]) -> list[str]:
        """``a.b.FooKt`` (``a.b.FooKt.f``): the Kotlin file ``Foo.kt`` of package ``a.b``."""
        for k in range(len(parts) - 1, 0, -1):
            if parts[k].endswith("Kt") and len(parts[k]) > 2:
                stem = parts[k][:-2] + ".kt"
                got = sorted(p for p in self.files.get(".".join(parts[:k]), ()) if posixpath.basename(p) == stem)
                if got:
                    return got
        return []

    def _declaring(self, parts: list[str]) -> list[str]:
        """The files declaring the longest package prefix's next name (``a.b.C.D``: ``C`` of
        ``a.b`` when ``a.b.C`` declares no ``D``)."""
        for k in range(len(parts) - 1, 0, -1):
            pkg = self.declared.get(".".join(parts[:k]))
            if pkg is not None and parts[k] in pkg:
                return sorted(pkg[parts[k]])
        return []

    def _by_path(self, parts: list[str]) -> list[str]:
        if self._by_name is None:
            self._by_name = defaultdict(list)
            for p in self.paths:
                if p.endswith(_EXTS):
                    self._by_name[posixpath.basename(p)].append(p)
        for k in range(len(parts), 0, -1):
            rel = "/".join(parts[:k])
            hits = [p for e in _EXTS for p in self._by_name.get(posixpath.basename(rel) + e, ())
                    if p == rel + e or p.endswith("/" + rel + e)]
            if hits:
                return [min(hits, key=lambda p: (len(p), p))]
            if k < len(parts) and not parts[k - 1][:1].isupper():
                break                            # only class names may hold nested classes
        return []

    def _folder(self, parts: list[str]) -> list[str]:
        """Every JVM source file of the package's folder (the shortest such folder)."""
        if self._by_dir is None:
            self._by_dir = defaultdict(list)
            for p in self.paths:
                if p.endswith(_EXTS):
                    self._by_dir[posixpath.dirname(p)].append(p)
        pkg = "/".join(parts)
        best = [d for d in self._by_dir if d == pkg or d.endswith("/" + pkg)]
        return sorted(self._by_dir[min(best, key=lambda d: (len(d), d))]) if best else []


__all__ = ["JvmPackages", "LANGUAGES", "PACKAGE"]
