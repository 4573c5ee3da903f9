"""Raw imports -> import edges between file nodes, plus counted external references.

``pipeline.parse`` extracts each file's imports as :class:`ImportRef` records (what the code says);
:func:`resolve` maps them onto files of the repository (pure: it sees only paths and the text of
manifests such as ``go.mod`` / ``Cargo.toml`` / ``package.json`` / ``tsconfig.json``). An import
that does not land on a repository file is kept as an external reference (``stratum.schema.EXTERNAL_IMPORTS``), never dropped silently.

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
  Through re-exports: a name read off a package (``from flask import Blueprint``, or ``import
  flask`` then ``flask.Flask`` in the file) that its ``__init__`` binds with a ``from`` import
  (``from .blueprints import Blueprint as Blueprint``) also reaches the module that import lands
  on, followed through further ``__init__`` re-exports (``werkzeug`` -> ``werkzeug.wrappers`` ->
  ``wrappers/response.py``; a cycle ends); the ``__init__`` edge stays (importing runs it). Only
  the names the file reads: a bare ``import flask`` using ``flask.Flask`` reaches ``app.py``, not
  every module the package re-exports. ``from .x import *`` re-exports are not followed (what
  they bind is not known from imports alone).
- JavaScript/TypeScript: relative specifiers (``./``, ``../``, ``/``) with the exact file, then the
  extensions ``.ts .tsx .d.ts .js .jsx .mjs .cjs .mts .cts``, then ``index.*``; an ESM ``./x.js``
  also finds ``x.ts``. A bare specifier naming the repository's own code (``pipeline.jsworkspace``):
  a tsconfig/jsconfig ``paths`` alias (``"@vue/*": ["packages/*/src"]``) or ``baseUrl``, else a
  workspace package by its ``package.json`` name (``@vue/shared`` -> its entry, TypeScript source
  first; ``@vue/shared/x`` -> its ``exports["./x"]`` or file ``x``); other bare specifiers
  (packages, ``node:``) are external. Through a barrel: a name imported from a module that
  re-exports it by name (``export {HTTPError} from './errors/HTTPError.js'`` in ``index.ts``) also
  reaches the module it is re-exported from (followed through further barrels); ``export * from``
  is not followed here (which names it brings is not known from imports alone; ``pipeline.calls``
  follows it for calls).
  A CommonJS module that is another one whole (express's ``index.js``: ``module.exports =
  require('./lib/express')``) is followed from every import of it, whatever it takes (``require``,
  a default import): ``require('..')`` reaches ``lib/express.js`` too, through ``index.js``.
- C/C++: ``#include "x.h"`` against the including directory, then the include roots (repository
  root, ``include/``, ``src/`` and every directory named ``include``), then a unique path-suffix
  match; ``#include <x.h>`` only against directories named ``include``; otherwise external.
- Go: import paths under a ``go.mod`` module path (longest module wins) -> every non-test ``.go``
  file of that package directory.
- Java: ``com.x.Y`` -> a file whose path ends in ``com/x/Y.java`` (any source root such as
  ``src/main/java``; the shortest such path wins); nested classes fall back to their outer class
  file; ``com.x.*`` -> every ``.java`` file of that package directory; static imports -> the class;
  a name no ``.java`` file holds -> the Kotlin or Scala file declaring it in that package
  (``FooKt`` -> ``Foo.kt``; ``JvmPackages.java``).
- Kotlin and Scala (``languages.jvmpackages``): ``a.b.C`` -> the files of package ``a.b`` that
  declare ``C`` at their top (a file's ``package`` line and its declared names: one class per file
  is no rule there), a nested name ``a.b.C.D`` those declaring ``C``; ``a.b.*`` (Scala ``_``) ->
  every file of package ``a.b``; else by path as Java: ``a/b/C.kt`` / ``.scala`` / ``.java``.
- Rust (``pipeline.rustmods``): ``mod x;`` -> ``x.rs`` or ``x/mod.rs`` under the declaring module,
  beside it for a crate root (``lib.rs``, ``main.rs``, ``tests/*.rs``, ``src/bin/*.rs``,
  ``examples/``, ``benches/``, ``build.rs``); ``use crate::a::b`` / ``self::`` / ``super::`` /
  ``<workspace crate>::`` -> the deepest module file that exists (``a/b.rs``, ``a/b/mod.rs``,
  ``a.rs`` ... the crate root file); a ``use`` in an inline ``mod tests { }`` climbs that module
  first (``use super::*`` there is the file's own module); ``use util::f`` after ``mod util;``
  -> the module file; ``std``/``core``/``alloc`` and a manifest's dependencies are outside.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from pipeline.jsworkspace import JsWorkspace
from pipeline.languages.jvmpackages import PACKAGE, JvmPackages
from pipeline.pyimports import PythonModules, is_module, python_reexports
from pipeline.relpaths import join as _join, norm as _norm, parent as _dir
from pipeline.rustmods import RustModules
from stratum.ids import node_id


@dataclass(frozen=True, slots=True)
class ImportRef:
    """One import as written in a file.

    ``kind``: python import/from; js import/export/require/dynamic, and ``value``: a definition of
    the file is the module's value (``module.exports = f``, ``export default f``: ``names`` (f), bound
    as ``module.exports`` / ``default``, ``target`` empty: the file itself); c quote/angle; go import;
    java import/static; kotlin/scala import, and package (the file's own package, ``names`` what
    it declares: no import); rust mod/use/extern. ``target`` is the module or specifier as written
    (``os.path``, ``./util``, ``util.h``, ``github.com/x/y``, ``com.x.Y``, ``crate::a::b``).
    ``names`` holds the names of a Python ``from`` import, or ``("*",)`` for a wildcard/glob;
    JavaScript/TypeScript: the names an ES import or ``export ... from`` takes (``default`` for a
    default import, ``*`` for ``* as F`` and ``export *``), and a ``require`` declaring a variable
    (``const x = require('./m')``: ``*`` bound as ``x``; ``const {a, b: c} = require``); a CommonJS ``module.exports =
    require('./x')`` is an ``export`` of ``WHOLE`` bound as ``WHOLE`` (every name, as ``export *``,
    and the module itself: followed, unlike ``export *``; an ES record never has ``bound`` equal to
    ``names``).
    ``level`` is the number of leading dots of a Python relative import. ``bound``: the names a
    ``from`` import (JS/TS: an ES import or re-export) binds, one per name, when an ``as`` renames
    one (else empty), or the one ``import a.b as c`` (Go: ``c "a/b"``; Rust: ``use a::b as c``)
    binds. Rust: a ``use`` written inside inline modules is recorded as seen from the file's
    module (``mod tests { use super::*; }``: ``self``). Python only:
    ``uses``, the attributes the file reads off what the import binds when that may be a module:
    ``import flask`` + ``flask.Flask`` -> ``("Flask",)``; ``from werkzeug import routing as r``
    + ``r.Map`` -> ``("routing.Map",)`` (the imported name, then the attribute).
    """

    kind: str
    target: str
    names: tuple[str, ...] = ()
    level: int = 0
    line: int = 0
    text: str = ""
    bound: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()
    scoped: bool = False    # Python: written in a function's or class's body (binds no module attribute)

    def __post_init__(self) -> None:
        # records read back from a stored file node's JSON meta carry lists
        for f in ("names", "bound", "uses"):
            v = getattr(self, f)
            if not isinstance(v, tuple):
                object.__setattr__(self, f, tuple(v))


@dataclass(frozen=True, slots=True)
class FileImports:
    """What :func:`resolve` needs from one parsed file."""

    path: str
    language: str | None
    imports: tuple[ImportRef, ...]


_JS_LANGS = ("javascript", "typescript", "tsx")
WHOLE = ("*",)               # a JS module that is another one whole: its record's names and bound
VALUE = "value"             # a JS record of the module's own value (``ImportRef``): no import, the file itself
_REEXPORT_DEPTH = 3          # JS/TS barrels followed from one import
_JS_EXTS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
_JS_ESM_SWAP = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
_GO_MAJOR = re.compile(r"v[0-9]+")
_GO_DOTTED_VERSION = re.compile(r"\.v[0-9]+$")
_GO_MODULE = re.compile(r"^\s*module\s+\"?([^\s\"]+)\"?", re.M)


class _Resolver:
    def __init__(self, paths: set[str], manifests: dict[str, str],
                 reexports: dict[str, dict[str, ImportRef]] | None = None,
                 js_reexports: dict[str, dict[str, ImportRef]] | None = None):
        self.paths = paths
        self.reexports = reexports or {}
        self.js_reexports = js_reexports or {}
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
        self._py: PythonModules | None = None
        self._c_roots: list[str] | None = None
        self._suffix: dict[str, list[str]] | None = None
        self._go: list[tuple[str, str]] | None = None
        self._rust: RustModules | None = None
        self._js_ws: JsWorkspace | None = None

    # -- python --------------------------------------------------------------------------
    def python(self, path: str, ref: ImportRef) -> list[tuple[str, str | None]]:
        return self.py().resolve(path, ref)

    def py(self) -> PythonModules:
        if self._py is None:
            self._py = PythonModules(self.paths, self.dirs, self.reexports)
        return self._py

    # -- javascript / typescript --------------------------------------------------------------
    def js(self, path: str, ref: ImportRef) -> list[str]:
        spec = ref.target.split("?", 1)[0].split("#", 1)[0]
        if spec.startswith("/"):
            base = _norm(spec.lstrip("/"))
        elif spec.startswith("./") or spec.startswith("../") or spec in (".", ".."):
            base = _norm(_join(_dir(path), spec))
        else:
            got = self.js_ws().resolve(path, spec)      # a workspace package, a tsconfig alias
            return [got] if got else []
        if base is None:
            return []
        got = self.js_file(base)
        return [got] if got else []

    def js_ws(self) -> JsWorkspace:
        if self._js_ws is None:
            self._js_ws = JsWorkspace(self.manifests, self.js_file)
        return self._js_ws

    def js_file(self, base: str) -> str | None:
        """The file a relative specifier's repository path (``a/b``) lands on: the exact file,
        then with an extension, then its ``index.*``."""
        cands = [base] if base else []
        cands += [base + e for e in _JS_EXTS]
        root, ext = posixpath.splitext(base)
        for alt in _JS_ESM_SWAP.get(ext, ()):
            cands.append(root + alt)
        cands += [_join(base, "index" + e) for e in _JS_EXTS]
        for c in cands:
            if c in self.paths:
                return c
        return None

    def js_through(self, path: str, names: Iterable[str], depth: int = 0) -> list[tuple[str, str | None]]:
        """The modules a JS/TS module (a barrel, ``path``) re-exports ``names`` from by name
        (``export {HTTPError} from './errors/HTTPError.js'``), followed through further barrels (a
        cycle ends), each with the barrel it was reached through."""
        out: list[tuple[str, str | None]] = []
        table = self.js_reexports.get(path, {})
        for n in names:
            ref = table.get(n)
            if ref is None:
                continue
            for t in self.js(path, ref):
                if t != path:
                    out.append((t, path))
                    if depth < _REEXPORT_DEPTH:
                        out.extend(self.js_through(t, ref.names, depth + 1))
        return out

    def js_whole(self, path: str) -> list[tuple[str, str | None]]:
        """The modules a JS/TS module is, whole (``module.exports = require('./lib/express')``),
        followed through further such modules (a cycle ends), each with the module it was
        reached through."""
        out: list[tuple[str, str | None]] = []
        seen = {path}
        ref = self.js_reexports.get(path, {}).get("*")
        while ref is not None and ref.bound == WHOLE and len(out) < _REEXPORT_DEPTH:
            got = [t for t in self.js(path, ref) if t not in seen]
            if not got:
                break
            out.append((got[0], path))
            path = got[0]
            seen.add(path)
            ref = self.js_reexports.get(path, {}).get("*")
        return out

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
    def rust(self, path: str, ref: ImportRef) -> list[str]:
        if self._rust is None:
            self._rust = RustModules(self.paths, self.manifests)
        return self._rust.resolve(path, ref.kind, ref.target)

    def rust_outside(self, ref: ImportRef) -> bool:
        """A ``use`` of a crate outside the repository (``std``, a manifest's dependency)."""
        if self._rust is None:
            self._rust = RustModules(self.paths, self.manifests)
        return ref.kind == "use" and ref.target.split("::", 1)[0] in self._rust.outside()


def _resolved(files: Iterable[FileImports], all_paths: Iterable[str], manifests: dict[str, str] | None,
              context: Iterable[FileImports] = (), by_name: bool = False
              ) -> Iterator[tuple[FileImports, ImportRef, list[tuple[str, str | None]], bool, dict | None]]:
    """Yield (file, ref, targets, outside, names) for every import of every file in a supported
    language; a target is (path, the package ``__init__`` or JS/TS barrel it was reached through,
    else None); ``outside``: an import with no targets names a module outside the repository
    (JS/TS, Go, Java, Kotlin, Scala; Rust: a ``use`` of ``std`` or a manifest's dependency), whose names are none
    of ours; ``names`` (with ``by_name``; else None): a Python ``from`` import reaching several
    files: each name -> the files it reaches itself (``PythonModules.by_name``)."""
    files = list(files)
    every = [*context, *files]
    r = _Resolver(set(all_paths), manifests or {}, python_reexports(every), js_reexports(every))
    jvm = JvmPackages(every, r.paths)
    by_lang = {"javascript": r.js, "typescript": r.js, "tsx": r.js, "c": r.c,
               "cpp": r.c, "go": r.go, "java": lambda p, ref: jvm.java(ref, r.java(p, ref)), "rust": r.rust, "kotlin": jvm.resolve, "scala": jvm.resolve}
    for f in files:
        if f.language == "python":
            for ref in f.imports:
                reached = r.python(f.path, ref)
                names = None
                if by_name and ref.kind == "from" and len(reached) > 1:
                    names = r.py().by_name(f.path, ref, {t for t, _ in reached})
                yield f, ref, reached, False, names
            continue
        fn = by_lang.get(f.language or "")
        if fn is None:
            continue
        for ref in f.imports:
            if ref.kind == PACKAGE:         # a Kotlin/Scala file's own package and names: no import
                continue
            if ref.kind == VALUE:           # the module's own value: a binding of the file, to itself
                yield f, ref, [(f.path, None)], False, None
                continue
            got: list[tuple[str, str | None]] = [(t, None) for t in fn(f.path, ref)]
            if got and f.language in _JS_LANGS:
                ends = [got[0][0]]
                for t, via in r.js_whole(got[0][0]):
                    got.append((t, via))
                    ends.append(t)
                if ref.kind in ("import", "export"):
                    for e in ends:
                        got += r.js_through(e, ref.names)
                got = list(dict.fromkeys(got))
            yield f, ref, got, not got and (f.language != "rust" or r.rust_outside(ref)), None


def js_reexports(files: Iterable[FileImports]) -> dict[str, dict[str, ImportRef]]:
    """JS/TS module path -> each name it re-exports by name (``export {Account as Acct} from
    './account'``) -> that record, of the one name (``Account``). ``export *`` is left out: which
    names it re-exports is not known from the imports alone (``pipeline.calls`` reads it against
    the definitions); a module that is another whole (``WHOLE``) has that record under ``*``."""
    out: dict[str, dict[str, ImportRef]] = {}
    for f in files:
        if f.language not in _JS_LANGS:
            continue
        table = out[f.path] = {}                 # a file given twice: the later one
        for ref in f.imports:
            if ref.kind == "export" and ref.bound == WHOLE:
                table["*"] = ref
            elif ref.kind == "export":
                for i, n in enumerate(ref.names):
                    if n != "*":
                        table[ref.bound[i] if ref.bound else n] = replace(ref, names=(n,), bound=())
    return out


def external_target(language: str, ref: ImportRef) -> str:
    """How an unresolved import is recorded: the module as written (dots kept for relative ones)."""
    tgt = ("." * ref.level + (ref.target or ",".join(ref.names))) if ref.level else ref.target
    if language in ("c", "cpp"):
        return f"<{tgt}>" if ref.kind == "angle" else f'"{tgt}"'
    return tgt


def _go_package(path: str) -> str:
    """The name a Go import path's package goes by, as its path says it: the last part, below a
    major version (``a/b/v2`` -> b), without ``go-`` or a ``.vN`` (``gopkg.in/yaml.v3`` -> yaml)."""
    parts = path.split("/")
    name = parts[-2] if len(parts) > 1 and _GO_MAJOR.fullmatch(parts[-1]) else parts[-1]
    name = name.removeprefix("go-")
    return _GO_DOTTED_VERSION.sub("", name)


def _bound_names(language: str, ref: ImportRef, landing: str) -> list[tuple[str, str]]:
    """(the name an import binds in the importer, the name it has where it comes from). Python:
    ``import x`` binds x, ``import a.b as c`` c; ``import a.b`` binds the package a, kept here
    under ``a.b``, the receiver its calls write (``a.b.f()``); each only when the import lands on
    that module (``landing``), not on a package it fell back to. ``from m import n as k`` binds
    k, which is n in m. JavaScript/TypeScript: ``{percent as pct}`` binds pct (percent there),
    ``* as F`` F (the module: ``*``), as ``const F = require('./m')`` does (``{a: b} = require``: b,
    a there), a default import its local name (``default``); ``export
    ... from`` re-exports likewise (a barrel's ``export *`` as ``*``, every name of that module).
    Go: a package binds its name (``c "example.com/shop/pkg/cart"``: c; else its path's last
    part, as packages are named: ``example.com/shop`` binds shop) to the package ("").
    Java: ``import a.b.C`` binds C (``C`` there), ``import static a.b.C.f`` f (``C.f``), ``import
    static a.b.C.*`` every member of C (``*``: ``C``). Rust: ``use a::b::C`` binds C, ``use
    a::C as D`` D, ``use a::b::{self}`` b (a glob binds no name it says)."""
    if language in _JS_LANGS:
        return list(zip(ref.bound or ref.names, ref.names))
    if language == "go":
        return [(ref.bound[0] if ref.bound else _go_package(ref.target), "")]
    if language == "java":
        return _java_bound(ref, landing)
    if language in ("kotlin", "scala"):     # import a.b.C binds C, ``as D`` / ``{C => D}`` D; a wildcard none
        if ref.kind != "import" or ref.names:
            return []
        name = ref.target.rsplit(".", 1)[-1]
        return [(ref.bound[0] if ref.bound else name, name)]
    if language == "rust":
        if ref.kind != "use" or ref.names:
            return []
        segs = ref.target.split("::")
        name = segs[-2] if segs[-1] == "self" and len(segs) > 1 else segs[-1]
        local = ref.bound[0] if ref.bound else name
        return [] if local in ("_", "self", "super", "crate") else [(local, name)]
    if language != "python":
        return []
    if ref.kind == "import":
        local = ref.bound[0] if ref.bound else ref.target
        return [(local, ref.target)] if ref.target and is_module(landing, ref.target) else []
    return [(ref.bound[i] if ref.bound else n, n) for i, n in enumerate(ref.names) if n != "*"]


def _java_bound(ref: ImportRef, landing: str) -> list[tuple[str, str]]:
    """What a Java import binds (``_bound_names``): the name where it comes from is qualified from
    the class its file declares (``com.shop.util.Money.round`` in ``Money.java``: ``Money.round``;
    a nested class ``a.Outer.Inner``: ``Outer.Inner``); an outside class's name, none of ours."""
    parts = ref.target.split(".")
    stem = posixpath.basename(landing)[:-5] if landing.endswith(".java") else ""
    at = len(parts) - 1 - parts[::-1].index(stem) if stem in parts else -1
    if ref.names == ("*",):      # a package's every class binds nothing known; a class's static members
        return [("*", ".".join(parts[at:]))] if ref.kind == "static" and at >= 0 else []
    if not landing:
        return [(parts[-1], "")]
    return [(parts[-1], ".".join(parts[at:]) if at >= 0 else parts[-1])]


def resolve(repo: str, files: Iterable[FileImports], all_paths: Iterable[str],
            manifests: dict[str, str] | None = None, context: Iterable[FileImports] = (),
            bindings: dict[str, dict[str, list[tuple[int, str, bool, list[str]]]]] | None = None
            ) -> tuple[list[dict], list[dict]]:
    """Resolve every file's raw imports.

    Returns ``(edges, externals)``: ``imports`` edges between file node ids (``meta``: JSON with
    the first import text and line, ``n``, how many imports of the importer land on that file, and
    ``via``, the package ``__init__`` whose re-export the first one was followed through, if so)
    and ``EXTERNAL_IMPORTS`` records (one per importer and target) for imports outside the
    repository. ``all_paths`` are the paths that have file nodes (parsed or not; a file skipped
    when read has no node, so an import of it counts as external); ``manifests`` maps the paths of
    ``go.mod`` / ``Cargo.toml`` / ``package.json`` / tsconfig / jsconfig files to their text
    (``pipeline.files.read_manifests``).
    A self-import (a package ``__init__`` importing its own names) makes no edge. ``context``:
    imports of files not resolved here (an overlay's unchanged base files), read only for what
    their package ``__init__`` files re-export; ``files`` override them. ``bindings``, when given,
    is filled with each Python file's imported names -> each import of it (its line, the name where
    it comes from, whether it binds the name in a function's or class's body alone: ``ImportRef.scoped``,
    the files the import reaches for that name: the module, what it re-exports the name from),
    and likewise each JavaScript/TypeScript file's imported and re-exported names and each Go
    file's imported packages, each Java file's imported classes and static members and each
    Rust file's ``use`` names (``_bound_names``; an outside module's with no files), for
    ``pipeline.calls``.
    """
    edges: dict[tuple[str, str], dict] = {}
    metas: dict[tuple[str, str], dict] = {}
    externals: dict[tuple[str, str], dict] = {}
    for f, ref, targets, outside, names in _resolved(files, all_paths, manifests, context, bindings is not None):
        if bindings is not None and (targets or outside):
            # a name bound by an outside module's import too (no files): it is none of ours
            got = [t for t, _ in targets]
            for local, orig in _bound_names(f.language or "", ref, got[0] if got else ""):
                bindings.setdefault(f.path, {}).setdefault(local, []).append(
                    (ref.line, orig, ref.scoped, names.get(orig, got) if names else got))
        if not targets:
            tgt = external_target(f.language or "", ref)
            if (f.path, tgt) not in externals:
                externals[(f.path, tgt)] = {"src": node_id(repo, f.path, "file", ""), "path": f.path,
                                            "language": f.language, "target": tgt}
            continue
        for t, via in targets:
            if t == f.path:
                continue
            key = (f.path, t)
            if key in metas:
                metas[key]["n"] += 1
                continue
            metas[key] = {"text": ref.text, "line": ref.line, "n": 1}
            if via is not None:
                metas[key]["via"] = via
            edges[key] = {"src": node_id(repo, f.path, "file", ""), "dst": node_id(repo, t, "file", ""),
                          "kind": "imports"}
    for key, e in edges.items():
        e["meta"] = json.dumps(metas[key], ensure_ascii=False)
    return list(edges.values()), list(externals.values())


def resolve_paths(files: Iterable[FileImports], all_paths: Iterable[str],
                  manifests: dict[str, str] | None = None, context: Iterable[FileImports] = ()
                  ) -> set[tuple[str, str]]:
    """The resolved (importer path, imported path) pairs: the path view of :func:`resolve`."""
    return {(f.path, t) for f, _, targets, _, _ in _resolved(files, all_paths, manifests, context)
            for t, _ in targets if t != f.path}


__all__ = ["ImportRef", "FileImports", "resolve", "resolve_paths", "external_target", "js_reexports", "WHOLE", "VALUE"]
