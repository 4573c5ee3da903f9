"""Raw imports -> import edges between file nodes, plus counted external references.

``pipeline.parse`` extracts each file's imports as :class:`ImportRef` records (what the code says);
:func:`resolve` maps them onto files of the repository (pure: it sees only paths and the text of
manifests such as ``go.mod`` / ``Cargo.toml``). An import that does not land on a repository file is
kept as an external reference (``stratum.schema.EXTERNAL_IMPORTS``), never dropped silently.

Resolution rules, per language (one edge per (importer, imported file) pair; self-edges dropped):

- Python: ``import a.b.c`` -> the deepest existing module of ``a.b.c`` (``a/b/c.py`` or
  ``a/b/c/__init__.py``, else ``a/b``...). ``from m import y`` -> ``m.y`` when ``y`` is a module,
  else ``m``; relative imports count dots from the importer's package (never beyond its
  top-level package, as in Python). Modules are looked up under
  package roots: the importer's own root first (the parent of its highest regular package, or its
  own directory for a script outside any package: sibling imports), then roots containing it
  (deepest first), then the repository root, ``src/`` and the parent of every top-level package
  (a directory with ``__init__.py`` and no such ancestor). Directories without ``__init__.py``
  inside a package are namespace subpackages of it, as Python sees them.
- JavaScript/TypeScript: relative specifiers (``./``, ``../``, ``/``) with the exact file, then the
  extensions ``.ts .tsx .d.ts .js .jsx .mjs .cjs .mts .cts``, then ``index.*``; an ESM ``./x.js``
  also finds ``x.ts``. Bare specifiers (packages, ``node:``) are external; tsconfig ``paths`` aliases
  are not read.
- C/C++: ``#include "x.h"`` against the including directory, then the include roots (repository
  root, ``include/``, ``src/`` and every directory named ``include``), then a unique path-suffix
  match; ``#include <x.h>`` only against directories named ``include``; otherwise external.
- Go: import paths under a ``go.mod`` module path (longest module wins) -> every non-test ``.go``
  file of that package directory.
- Java: ``com.x.Y`` -> a file whose path ends in ``com/x/Y.java`` (any source root such as
  ``src/main/java``; the shortest such path wins); nested classes fall back to their outer class
  file; ``com.x.*`` -> every ``.java`` file of that package directory; static imports -> the class.
- Rust: ``mod x;`` -> ``x.rs`` or ``x/mod.rs`` beside (or under) the declaring module;
  ``use crate::a::b`` / ``self::`` / ``super::`` / ``<workspace crate>::`` -> the deepest module file
  that exists (``a/b.rs``, ``a/b/mod.rs``, ``a.rs`` ... the crate root file).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from stratum.ids import node_id


@dataclass(frozen=True, slots=True)
class ImportRef:
    """One import as written in a file.

    ``kind``: python import/from; js import/export/require/dynamic; c quote/angle; go import;
    java import/static; rust mod/use/extern. ``target`` is the module or specifier as written
    (``os.path``, ``./util``, ``util.h``, ``github.com/x/y``, ``com.x.Y``, ``crate::a::b``).
    ``names`` holds the names of a Python ``from`` import, or ``("*",)`` for a wildcard/glob.
    ``level`` is the number of leading dots of a Python relative import.
    """

    kind: str
    target: str
    names: tuple[str, ...] = ()
    level: int = 0
    line: int = 0
    text: str = ""


@dataclass(frozen=True, slots=True)
class FileImports:
    """What :func:`resolve` needs from one parsed file."""

    path: str
    language: str | None
    imports: tuple[ImportRef, ...]


_JS_LANGS = ("javascript", "typescript", "tsx")
_JS_EXTS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
_JS_ESM_SWAP = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
_GO_MODULE = re.compile(r"^\s*module\s+\"?([^\s\"]+)\"?", re.M)
_CARGO_NAME = re.compile(r"^\s*name\s*=\s*\"([^\"]+)\"", re.M)


def _dir(path: str) -> str:
    return posixpath.dirname(path)


def _join(*parts: str) -> str:
    parts = tuple(p for p in parts if p)
    return posixpath.join(*parts) if parts else ""


def _norm(path: str) -> str | None:
    """Normalise a repository-relative path; None if it climbs out of the repository."""
    n = posixpath.normpath(path)
    if n.startswith("../") or n == ".." or n.startswith("/"):
        return None
    return "" if n == "." else n


class _Python:
    """Module name -> file, under the package roots of the repository."""

    def __init__(self, paths: set[str], all_dirs: set[str]):
        self.paths = paths
        self.packages = {_dir(p) for p in paths
                         if posixpath.basename(p) in ("__init__.py", "__init__.pyi") and _dir(p)}
        self._tops: dict[str, str | None] = {}
        roots = {""}
        if "src" in all_dirs:
            roots.add("src")
        roots.update(_dir(self.top_package(pkg) or pkg) for pkg in self.packages)   # a package is its own top at least
        self.roots = roots
        self._order: dict[str, list[str]] = {}

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

    def resolve(self, importer: str, ref: ImportRef) -> list[str]:
        """Files the import lands on ([] when none: external)."""
        parts = ref.target.split(".") if ref.target else []
        if ref.level:
            # as Python does: within the importer's package, never beyond its top-level package
            base = _dir(importer)
            top = self.top_package(base)
            depth = 0 if top is None else base.count("/") - top.count("/") + 1
            if ref.level > depth:
                return []
            for _ in range(ref.level - 1):
                base = _dir(base)
            return self._from(base, parts, ref.names)
        if ref.kind == "from":
            for root in self.roots_for(importer):
                mod = _join(root, "/".join(parts))
                if self.file_at(mod) is not None or any(
                        self.file_at(_join(mod, n)) is not None for n in ref.names if n != "*"):
                    return self._from(root, parts, ref.names)
        for root in self.roots_for(importer):
            f = self.deepest(root, parts)
            if f is not None:
                return [f]
        return []

    def _from(self, base: str, parts: list[str], names: tuple[str, ...]) -> list[str]:
        """``from <base/parts> import names``: submodules where they exist, else the module."""
        mod = _join(base, "/".join(parts))
        itself = self.file_at(mod) if parts else self.file_at(base)
        if itself is None and parts:
            itself = self.deepest(base, parts)
        out: list[str] = []
        for n in names or ("*",):
            sub = self.file_at(_join(mod, n)) if n != "*" else None
            if sub is not None:
                out.append(sub)
            elif itself is not None:
                out.append(itself)
        return out


class _Resolver:
    def __init__(self, paths: set[str], manifests: dict[str, str]):
        self.paths = paths
        dirs: set[str] = set()
        by_dir: dict[str, list[str]] = defaultdict(list)
        for p in paths:
            d = _dir(p)
            by_dir[d].append(p)
            while d and d not in dirs:
                dirs.add(d)
                d = _dir(d)
        dirs.add("")
        self.dirs = dirs
        self.by_dir = by_dir
        self.manifests = manifests
        self._py: _Python | None = None
        self._c_roots: list[str] | None = None
        self._suffix: dict[str, list[str]] | None = None
        self._go: list[tuple[str, str]] | None = None
        self._crates: dict[str, str] | None = None

    # -- python --------------------------------------------------------------------------
    def python(self, path: str, ref: ImportRef) -> list[str]:
        if self._py is None:
            self._py = _Python(self.paths, self.dirs)
        return self._py.resolve(path, ref)

    # -- javascript / typescript --------------------------------------------------------------
    def js(self, path: str, ref: ImportRef) -> list[str]:
        spec = ref.target.split("?", 1)[0].split("#", 1)[0]
        if spec.startswith("/"):
            base = _norm(spec.lstrip("/"))
        elif spec.startswith("./") or spec.startswith("../") or spec in (".", ".."):
            base = _norm(_join(_dir(path), spec))
        else:
            return []
        if base is None:
            return []
        cands = [base] if base else []
        cands += [base + e for e in _JS_EXTS]
        root, ext = posixpath.splitext(base)
        for alt in _JS_ESM_SWAP.get(ext, ()):
            cands.append(root + alt)
        cands += [_join(base, "index" + e) for e in _JS_EXTS]
        for c in cands:
            if c in self.paths:
                return [c]
        return []

    # -- c / c++ ------------------------------------------------------------------------------
    def c(self, path: str, ref: ImportRef) -> list[str]:
        if self._c_roots is None:
            inc = sorted(d for d in self.dirs if posixpath.basename(d) == "include")
            self._c_roots = ["", "include", "src"] + [d for d in inc if d != "include"]
            self._c_inc = ["include"] + [d for d in inc if d != "include"]
        spec = ref.target
        if ref.kind == "angle":
            for r in self._c_inc:
                c = _norm(_join(r, spec))
                if c and c in self.paths:
                    return [c]
            return []
        c = _norm(_join(_dir(path), spec))
        if c and c in self.paths:
            return [c]
        for r in self._c_roots:
            c = _norm(_join(r, spec))
            if c and c in self.paths:
                return [c]
        hits = self.suffix_index().get(posixpath.basename(spec), [])
        hits = [h for h in hits if h == spec or h.endswith("/" + spec.lstrip("./"))]
        if len(hits) == 1:
            return hits
        if hits:
            here = _dir(path).split("/")
            def shared(h: str) -> int:
                n = 0
                for a, b in zip(here, h.split("/")):
                    if a != b:
                        break
                    n += 1
                return n
            best = max(shared(h) for h in hits)
            top = sorted(h for h in hits if shared(h) == best)
            return top[:1]
        return []

    def suffix_index(self) -> dict[str, list[str]]:
        if self._suffix is None:
            idx: dict[str, list[str]] = defaultdict(list)
            for p in self.paths:
                idx[posixpath.basename(p)].append(p)
            self._suffix = idx
        return self._suffix

    # -- go -------------------------------------------------------------------------------------
    def go(self, path: str, ref: ImportRef) -> list[str]:
        if self._go is None:
            mods = []
            for mpath, text in self.manifests.items():
                if posixpath.basename(mpath) == "go.mod":
                    m = _GO_MODULE.search(text)
                    if m:
                        mods.append((m.group(1), _dir(mpath)))
            mods.sort(key=lambda x: len(x[0]), reverse=True)
            self._go = mods
        for mod, d in self._go:
            if ref.target == mod or ref.target.startswith(mod + "/"):
                pkg = _join(d, ref.target[len(mod):].lstrip("/"))
                files = sorted(p for p in self.by_dir.get(pkg, ())
                               if p.endswith(".go") and not p.endswith("_test.go"))
                return files
        return []

    # -- java -----------------------------------------------------------------------------------
    def java(self, path: str, ref: ImportRef) -> list[str]:
        parts = ref.target.split(".")
        if ref.names == ("*",):
            # package wildcard (or static members of a class: com.x.Y.*)
            pkg = "/".join(parts)
            out = self._java_dir(pkg)
            if out:
                return out
            f = self._java_class(parts)
            return [f] if f else []
        if ref.kind == "static":
            parts = parts[:-1]
        f = self._java_class(parts)
        return [f] if f else []

    def _java_class(self, parts: list[str]) -> str | None:
        for k in range(len(parts), 0, -1):
            rel = "/".join(parts[:k]) + ".java"
            hits = [p for p in self.suffix_index().get(posixpath.basename(rel), ())
                    if p == rel or p.endswith("/" + rel)]
            if hits:
                return min(hits, key=lambda p: (len(p), p))
            if k < len(parts) and not parts[k - 1][:1].isupper():
                break                            # only class names may hold nested classes
        return None

    def _java_dir(self, pkg: str) -> list[str]:
        best: list[str] = []
        for d in self.dirs:
            if d == pkg or d.endswith("/" + pkg):
                files = sorted(p for p in self.by_dir.get(d, ()) if p.endswith(".java"))
                if files and (not best or len(d) < len(_dir(best[0]))):
                    best = files
        return best

    # -- rust -----------------------------------------------------------------------------------
    def crates(self) -> dict[str, str]:
        """Workspace crate name -> its src dir."""
        if self._crates is None:
            out = {}
            for mpath, text in self.manifests.items():
                if posixpath.basename(mpath) != "Cargo.toml":
                    continue
                sect = re.search(r"^\[package\](.*?)(^\[|\Z)", text, re.M | re.S)
                m = _CARGO_NAME.search(sect.group(1)) if sect else None
                if m:
                    out[m.group(1).replace("-", "_")] = _join(_dir(mpath), "src")
            self._crates = out
        return self._crates

    def crate_src(self, path: str) -> str | None:
        d = _dir(path)
        while True:
            if _join(d, "Cargo.toml") in self.paths or _join(d, "Cargo.toml") in self.manifests:
                src = _join(d, "src")
                return src if path.startswith(src + "/") else None
            if _join(d, "lib.rs") in self.paths or _join(d, "main.rs") in self.paths:
                return d
            if not d:
                return None
            d = _dir(d)

    def crate_root_file(self, src: str) -> str | None:
        for n in ("lib.rs", "main.rs"):
            if _join(src, n) in self.paths:
                return _join(src, n)
        return None

    @staticmethod
    def module_dir(path: str) -> str:
        """Directory holding the child modules of the module defined in ``path``."""
        base = posixpath.basename(path)
        if base in ("mod.rs", "lib.rs", "main.rs"):
            return _dir(path)
        return path[:-3]

    def module_segments(self, path: str, src: str) -> list[str]:
        rel = path[len(src) + 1:] if src else path
        rel = rel[:-3]
        segs = rel.split("/")
        if segs[-1] in ("mod",):
            segs = segs[:-1]
        if segs in (["lib"], ["main"]):
            return []
        return segs

    def rust_module(self, src: str, segs: list[str]) -> str | None:
        for k in range(len(segs), 0, -1):
            base = _join(src, "/".join(segs[:k]))
            for c in (base + ".rs", base + "/mod.rs"):
                if c in self.paths:
                    return c
        return self.crate_root_file(src)

    def rust(self, path: str, ref: ImportRef) -> list[str]:
        if ref.kind == "extern":
            src = self.crates().get(ref.target)
            f = self.crate_root_file(src) if src else None
            return [f] if f else []
        if ref.kind == "mod":
            d = self.module_dir(path)
            for c in (_join(d, ref.target + ".rs"), _join(d, ref.target, "mod.rs")):
                if c in self.paths:
                    return [c]
            return []
        segs = [s for s in ref.target.split("::") if s]
        if not segs:
            return []
        head = segs[0]
        if head in ("crate", "self", "super"):
            src = self.crate_src(path)
            if src is None:
                return []
            here = self.module_segments(path, src) if path.startswith(src + "/" if src else "") else []
            rest = segs[1:]
            if head == "crate":
                absolute = rest
            else:
                absolute = list(here)
                while segs and segs[0] in ("self", "super"):
                    if segs[0] == "super":
                        if not absolute:
                            return []
                        absolute = absolute[:-1]
                    segs = segs[1:]
                absolute += segs
            f = self.rust_module(src, absolute)
            return [f] if f else []
        src = self.crates().get(head)
        if src is None:
            return []
        f = self.rust_module(src, segs[1:])
        return [f] if f else []


def _resolved(files: Iterable[FileImports], all_paths: Iterable[str], manifests: dict[str, str] | None):
    """Yield (file, ref, targets) for every import of every file in a supported language."""
    r = _Resolver(set(all_paths), manifests or {})
    by_lang = {"python": r.python, "javascript": r.js, "typescript": r.js, "tsx": r.js, "c": r.c,
               "cpp": r.c, "go": r.go, "java": r.java, "rust": r.rust}
    for f in files:
        fn = by_lang.get(f.language or "")
        if fn is None:
            continue
        for ref in f.imports:
            yield f, ref, fn(f.path, ref)


def external_target(language: str, ref: ImportRef) -> str:
    """How an unresolved import is recorded: the module as written (dots kept for relative ones)."""
    tgt = ("." * ref.level + (ref.target or ",".join(ref.names))) if ref.level else ref.target
    if language in ("c", "cpp"):
        return f"<{tgt}>" if ref.kind == "angle" else f'"{tgt}"'
    return tgt


def resolve(repo: str, files: Iterable[FileImports], all_paths: Iterable[str],
            manifests: dict[str, str] | None = None) -> tuple[list[dict], list[dict]]:
    """Resolve every file's raw imports.

    Returns ``(edges, externals)``: ``imports`` edges between file node ids (``meta``: JSON with
    the first import text and line, and ``n``, how many imports of the importer land on that file)
    and ``EXTERNAL_IMPORTS`` records (one per importer and target) for imports outside the
    repository. ``all_paths`` are the paths that have file nodes (parsed or not; a file skipped
    when read has no node, so an import of it counts as external); ``manifests`` maps the paths of
    ``go.mod`` / ``Cargo.toml`` files to their text (``pipeline.files.read_manifests``).
    A self-import (a package ``__init__`` importing its own names) makes no edge.
    """
    edges: dict[tuple[str, str], dict] = {}
    metas: dict[tuple[str, str], dict] = {}
    externals: dict[tuple[str, str], dict] = {}
    for f, ref, targets in _resolved(files, all_paths, manifests):
        if not targets:
            tgt = external_target(f.language or "", ref)
            if (f.path, tgt) not in externals:
                externals[(f.path, tgt)] = {"src": node_id(repo, f.path, "file", ""), "path": f.path,
                                            "language": f.language, "target": tgt}
            continue
        for t in targets:
            if t == f.path:
                continue
            key = (f.path, t)
            if key in metas:
                metas[key]["n"] += 1
                continue
            metas[key] = {"text": ref.text, "line": ref.line, "n": 1}
            edges[key] = {"src": node_id(repo, f.path, "file", ""), "dst": node_id(repo, t, "file", ""),
                          "kind": "imports"}
    for key, e in edges.items():
        e["meta"] = json.dumps(metas[key], ensure_ascii=False)
    return list(edges.values()), list(externals.values())


def resolve_paths(files: Iterable[FileImports], all_paths: Iterable[str],
                  manifests: dict[str, str] | None = None) -> set[tuple[str, str]]:
    """The resolved (importer path, imported path) pairs: the path view of :func:`resolve`."""
    return {(f.path, t) for f, _, targets in _resolved(files, all_paths, manifests) for t in targets
            if t != f.path}


__all__ = ["ImportRef", "FileImports", "resolve", "resolve_paths", "external_target"]
