"""Python imports -> repository files: module lookup under package roots, relative imports, and
names followed through the re-exports of package ``__init__`` files (the rules are listed in
``pipeline.imports``, which resolves every language and builds the edges). Pure: paths and raw
imports only."""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Callable, Collection, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pipeline.imports import FileImports, ImportRef

_INITS = ("__init__.py", "__init__.pyi")


def _dir(path: str) -> str:
    return posixpath.dirname(path)


def _join(*parts: str) -> str:
    parts = tuple(p for p in parts if p)
    return posixpath.join(*parts) if parts else ""


class PythonModules:
    """Module name -> file, under the package roots of the repository (rules: ``pipeline.imports``)."""

    def __init__(self, paths: set[str], all_dirs: set[str], reexports: dict[str, dict[str, ImportRef]]):
        self.paths = paths
        self.packages = {_dir(p) for p in paths
                         if posixpath.basename(p) in _INITS and _dir(p)}
        self._tops: dict[str, str | None] = {}
        roots = {""}
        if "src" in all_dirs:
            roots.add("src")
        roots.update(_dir(self.top_package(pkg) or pkg) for pkg in self.packages)   # a package is its own top at least
        self.roots = roots
        self._order: dict[str, list[str]] = {}
        self.reexports = reexports
        self._members: dict[tuple[str, str], str | None] = {}

    def top_package(self, d: str) -> str | None:
        """The highest regular package (``__init__.py``) among ``d`` and its ancestors.

        Directories without ``__init__.py`` below it are namespace subpackages of it, as Python
        sees them (``flask/sansio/`` inside ``flask/``).
        """
        if d not in self._tops:
            top, cur = None, d
            while cur:
                if cur in self.packages:
                    top = cur
                cur = _dir(cur)
            self._tops[d] = top
        return self._tops[d]

    def file_at(self, base: str) -> str | None:
        """The module file of a module whose path (without suffix) is ``base``."""
        for cand in (base + ".py", base + "/__init__.py", base + ".pyi", base + "/__init__.pyi"):
            if cand in self.paths:
                return cand
        return None

    def roots_for(self, importer: str) -> list[str]:
        """Search order: the importer's own root (out of its packages), roots containing it
        (deepest first), then the other roots."""
        d = _dir(importer)
        got = self._order.get(d)
        if got is None:
            top = self.top_package(d)
            own = _dir(top) if top is not None else d
            inside = sorted((r for r in self.roots if r == "" or d == r or d.startswith(r + "/")),
                            key=len, reverse=True)
            rest = sorted((r for r in self.roots if r not in inside), key=lambda r: (r.count("/"), r))
            got = [own] + [r for r in inside + rest if r != own]
            self._order[d] = got
        return got

    def deepest(self, root: str, parts: list[str]) -> str | None:
        for k in range(len(parts), 0, -1):
            f = self.file_at(_join(root, "/".join(parts[:k])))
            if f is not None:
                return f
        return None

    def resolve(self, importer: str, ref: ImportRef) -> list[tuple[str, str | None]]:
        """Files the import reaches ([] when none: external), each with the package ``__init__``
        it was reached through (None: the import lands on it)."""
        landing, reads = self.land(importer, ref)
        out: dict[str, str | None] = dict.fromkeys(landing)
        for module, name in reads:
            f = self.member(module, name)
            if f is not None:
                out.setdefault(f, module)
        return list(out.items())

    def by_name(self, importer: str, ref: ImportRef, got: Collection[str]) -> dict[str, list[str]]:
        """Each name of a ``from`` import -> those of the files it reaches (``got``) that name reaches:
        the module or the submodule it is, where a package re-exports it from (``from kb import
        fast, run`` with ``from .impl import fast`` in ``kb/__init__.py`` reaches ``kb/impl.py`` for
        ``fast`` alone: ``run`` is not found there by the file)."""
        out: dict[str, list[str]] = {}
        for n in ref.names:
            if n != "*":
                one = dataclasses.replace(ref, names=(n,), bound=(),
                                          uses=tuple(u for u in ref.uses if u.partition(".")[0] == n))
                out[n] = [t for t, _ in self.resolve(importer, one) if t in got] or list(got)
        return out

    def land(self, importer: str, ref: ImportRef) -> tuple[list[str], list[tuple[str, str]]]:
        """The files the import lands on, and the (module file, name) pairs of the names it reads
        off a module: ``from m import n`` (n not a submodule) and the ``uses`` of a module it binds."""
        parts = ref.target.split(".") if ref.target else []
        if ref.level:
            # as Python does: within the importer's package, never beyond its top-level package
            base = _dir(importer)
            top = self.top_package(base)
            depth = 0 if top is None else base.count("/") - top.count("/") + 1
            if ref.level > depth:
                return [], []
            for _ in range(ref.level - 1):
                base = _dir(base)
            return self._from(base, parts, ref.names, ref.uses)
        if ref.kind == "from":
            for root in self.roots_for(importer):
                mod = _join(root, "/".join(parts))
                if self.file_at(mod) is not None or any(
                        self.file_at(_join(mod, n)) is not None for n in ref.names if n != "*"):
                    return self._from(root, parts, ref.names, ref.uses)
        for root in self.roots_for(importer):
            f = self.deepest(root, parts)
            if f is not None:
                whole = bool(ref.uses) and f == self.file_at(_join(root, "/".join(parts)))
                return [f], [(f, a) for a in ref.uses] if whole else []
        return [], []

    def _from(self, base: str, parts: list[str], names: tuple[str, ...], uses: tuple[str, ...] = ()
              ) -> tuple[list[str], list[tuple[str, str]]]:
        """``from <base/parts> import names``: submodules where they exist, else the module."""
        mod = _join(base, "/".join(parts))
        itself = self.file_at(mod) if parts else self.file_at(base)
        if itself is None and parts:
            itself = self.deepest(base, parts)
        out: list[str] = []
        reads: list[tuple[str, str]] = []
        for n in names or ("*",):
            sub = self.file_at(_join(mod, n)) if n != "*" else None
            if sub is not None:
                out.append(sub)
                reads += [(sub, u[len(n) + 1:]) for u in uses if u.startswith(n + ".")]
            elif itself is not None:
                out.append(itself)
                if n != "*" and itself == self.file_at(mod if parts else base):
                    reads.append((itself, n))
        return out, reads

    def member(self, module: str, name: str) -> str | None:
        """The file that defines ``name`` read off ``module``, when that is a package ``__init__``
        holding it as a submodule or re-exporting it (``from .blueprints import Blueprint``),
        followed through re-exports of re-exports; None when the name is the module's own, it is
        not a package, or the re-exports go round in a cycle (nothing defines the name)."""
        key = (module, name)
        if key not in self._members:
            try:
                self._members[key] = self._member(module, name, set())
            except _Cycle:
                self._members[key] = _CYCLIC
        got = self._members[key]
        return None if got is _CYCLIC else got

    def _member(self, module: str, name: str, seen: set[tuple[str, str]]) -> str | None:
        if posixpath.basename(module) not in _INITS:
            return None
        known = self._members.get((module, name), "")
        if known is _CYCLIC or (module, name) in seen:
            raise _Cycle
        if known != "":
            return known
        seen.add((module, name))
        sub = self.file_at(_join(_dir(module), name))
        if sub is not None:
            return sub
        ref = self.reexports.get(module, {}).get(name)
        if ref is None:
            return None
        landing, reads = self.land(module, ref)
        for m, n in reads:                       # one name: one read at most
            return self._member(m, n, seen) or (m if m != module else None)
        return landing[0] if landing and landing[0] != module else None


def is_module(path: str, target: str) -> bool:
    """Whether ``path`` is the module ``target`` itself (``a/b.py``, ``a/b/__init__.py`` under a
    root), not a package ``import a.b`` fell back to because ``a.b`` is no file of the repository."""
    base = posixpath.splitext(path)[0]
    if posixpath.basename(base) == "__init__":
        base = _dir(base)
    want = target.replace(".", "/")
    return base == want or base.endswith("/" + want)


def dotted_modules(binding: Callable[[str, str, int], tuple[str, list[str]]], path: str, recv: str,
                   line: int, files: Collection[str]) -> list[str]:
    """The module files a dotted Python receiver names (``core.pricing`` with ``from shop import
    core``, ``shop.core.pricing`` with ``import shop``): its longest head a ``binding`` of
    ``path`` (``pipeline.calls``': file, name, line -> the name where it comes from, the files)
    binds to a module, then each further part as that module's own import of a module (``from .
    import pricing``) or, off a package, its submodule among ``files``; [] when a part is none."""
    parts = recv.split(".")
    for k in range(len(parts), 0, -1):
        orig, got = binding(path, ".".join(parts[:k]), line)
        if got:
            break
    else:
        return []
    mods = [f for f in got if is_module(f, orig)]
    for part in parts[k:]:
        nxt: list[str] = []
        for m in mods:
            orig, further = binding(m, part, 1 << 62)       # the module's last binding of it
            sub = [f for f in further if is_module(f, orig)]
            if not further and posixpath.basename(m) in _INITS:
                base = _join(_dir(m), part)
                sub = [f for f in (base + ".py", base + "/__init__.py", base + ".pyi", base + "/__init__.pyi")
                       if f in files][:1]
            nxt += sub
        mods = nxt
        if not mods:
            break
    return mods


class _Cycle(Exception):
    """Re-exports that lead back to where they started."""


_CYCLIC = "\0cycle"       # the answer cached for a (module, name) whose re-exports go round


def python_reexports(files: Iterable[FileImports]) -> dict[str, dict[str, ImportRef]]:
    """Package ``__init__`` path -> each name it binds with a ``from`` import -> that import, of
    the one name (the last binding wins, as when Python runs it). Wildcards are left out: what
    ``from .x import *`` binds is not known from the imports alone."""
    out: dict[str, dict[str, ImportRef]] = {}
    for f in files:
        if f.language != "python" or posixpath.basename(f.path) not in _INITS:
            continue
        table = out[f.path] = {}                 # a file given twice: the later one
        for ref in f.imports:
            if ref.kind != "from" or ref.scoped:     # a function's own import is no attribute of the package
                continue
            for i, n in enumerate(ref.names):
                if n != "*":
                    table[ref.bound[i] if ref.bound else n] = dataclasses.replace(ref, names=(n,), bound=(), uses=())
    return out


__all__ = ["PythonModules", "python_reexports", "is_module", "dotted_modules"]
