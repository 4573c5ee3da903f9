"""Rust modules -> repository files: ``mod x;``, ``use`` paths, ``extern crate``, and which crates
are outside the repository (the rules are listed in ``pipeline.imports``, which resolves every
language and builds the edges). Pure: paths and the text of ``Cargo.toml`` files only.

A crate's root is ``src/lib.rs``, ``src/main.rs``, or a file directly in a package's ``tests/``,
``examples/``, ``benches/`` or ``src/bin/`` folder (each its own crate, as Cargo builds them), or
its ``build.rs``: a root's ``mod x;`` is the file ``x.rs`` / ``x/mod.rs`` beside it (ripgrep's
``tests/tests.rs`` declares ``mod util;``: ``tests/util.rs``, not ``tests/tests/util.rs``).
"""

from __future__ import annotations

import posixpath
import re

_CARGO_NAME = re.compile(r"^\s*name\s*=\s*\"([^\"]+)\"", re.M)
_SECTION = re.compile(r"^\s*\[([^\[\]]+)\]\s*$", re.M)
_KEY = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*(?:\.[A-Za-z0-9_.-]+\s*)?=", re.M)
_DEPS = re.compile(r"^(?:target\..+\.)?(?:dev-|build-)?dependencies(?:\.([A-Za-z0-9_-]+))?$")
_ROOT_DIRS = ("tests", "examples", "benches")
# crates every Rust program may name without a manifest line
STD_CRATES = frozenset({"std", "core", "alloc", "proc_macro", "test"})


def _dir(path: str) -> str:
    return posixpath.dirname(path)


def _join(*parts: str) -> str:
    parts = tuple(p for p in parts if p)
    return posixpath.join(*parts) if parts else ""


def dependencies(text: str) -> set[str]:
    """The crates a ``Cargo.toml`` depends on (``[dependencies]``, ``[dev-dependencies]``, a
    target's, ``[dependencies.foo]``), as code names them (``serde-json`` -> ``serde_json``)."""
    out: set[str] = set()
    heads = list(_SECTION.finditer(text))
    for i, h in enumerate(heads):
        m = _DEPS.match(h.group(1).strip().replace('"', "").replace("'", ""))
        if m is None:
            continue
        if m.group(1):
            out.add(m.group(1))
            continue
        body = text[h.end():heads[i + 1].start() if i + 1 < len(heads) else len(text)]
        out.update(k.group(1) for k in _KEY.finditer(body))
    return {n.replace("-", "_") for n in out}


class RustModules:
    """Module paths -> files of the repository's crates."""

    def __init__(self, paths: set[str], manifests: dict[str, str]):
        self.paths = paths
        self.manifests = manifests
        self._crates: dict[str, str] | None = None
        self._outside: frozenset[str] | None = None

    def _package(self, d: str) -> bool:
        """``d`` holds a ``Cargo.toml`` (a package's folder)."""
        m = _join(d, "Cargo.toml")
        return m in self.paths or m in self.manifests

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

    def outside(self) -> frozenset[str]:
        """The crates a ``use`` may name that are not the repository's: the standard ones and every
        manifest's dependencies that are no workspace crate."""
        if self._outside is None:
            deps = set(STD_CRATES)
            for mpath, text in self.manifests.items():
                if posixpath.basename(mpath) == "Cargo.toml":
                    deps |= dependencies(text)
            self._outside = frozenset(deps - set(self.crates()))
        return self._outside

    def is_root(self, path: str) -> bool:
        """``path`` is a crate's root file (see the module's docstring)."""
        d, base = posixpath.split(path)
        if base in ("lib.rs", "main.rs"):
            return True
        if base == "build.rs":
            return self._package(d)
        parent, folder = posixpath.split(d)
        if folder in _ROOT_DIRS:
            return self._package(parent)
        return folder == "bin" and posixpath.basename(parent) == "src" and self._package(_dir(parent))

    def crate_src(self, path: str) -> str | None:
        """The folder module paths of ``path``'s crate start from: a package's ``src``, the folder
        of a ``lib.rs``/``main.rs``, the folder of another root (``tests/x.rs``, ``src/bin/x.rs``:
        its modules lie beside it), or a package's ``tests/`` (``examples/``, ``benches/``) folder
        for the files below it."""
        d = _dir(path)
        if posixpath.basename(path) not in ("lib.rs", "main.rs") and self.is_root(path):
            return d
        while True:
            if self._package(d):
                src = _join(d, "src")
                if path.startswith(src + "/"):
                    return src
                top = path[len(d) + 1:].split("/", 1)[0] if d else path.split("/", 1)[0]
                return _join(d, top) if top in _ROOT_DIRS else None
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

    def module_dir(self, path: str) -> str:
        """Directory holding the child modules of the module defined in ``path``."""
        if posixpath.basename(path) == "mod.rs" or self.is_root(path):
            return _dir(path)
        return path[:-3]

    def module_segments(self, path: str, src: str) -> list[str]:
        if self.is_root(path):
            return []
        rel = path[len(src) + 1:] if src else path
        segs = rel[:-3].split("/")
        return segs[:-1] if segs[-1] == "mod" else segs

    def rust_module(self, src: str, segs: list[str]) -> str | None:
        for k in range(len(segs), 0, -1):
            base = _join(src, "/".join(segs[:k]))
            for c in (base + ".rs", base + "/mod.rs"):
                if c in self.paths:
                    return c
        return self.crate_root_file(src)

    def _child(self, d: str, name: str) -> str | None:
        for c in (_join(d, name + ".rs"), _join(d, name, "mod.rs")):
            if c in self.paths:
                return c
        return None

    def relative(self, path: str, segs: list[str]) -> str | None:
        """``a::b`` named from ``path`` by a module of its own (``mod util; use util::f;``): the
        deepest module file of it below ``path``'s module, or None when ``a`` is no such file."""
        d, found = self.module_dir(path), None
        for s in segs:
            hit = self._child(d, s)
            if hit is None:
                break
            found, d = hit, self.module_dir(hit)
        return found

    def resolve(self, path: str, kind: str, target: str) -> list[str]:
        """The file a ``mod`` / ``use`` / ``extern crate`` record lands on, as a list (empty: none)."""
        if kind == "extern":
            src = self.crates().get(target)
            f = self.crate_root_file(src) if src else None
            return [f] if f else []
        if kind == "mod":
            # a root's module beside it; else below it (a file Cargo never reads: the one beside)
            f = self._child(self.module_dir(path), target) or self._child(_dir(path), target)
            return [f] if f else []
        segs = [s for s in target.split("::") if s]
        if not segs:
            return []
        head = segs[0]
        if head in ("crate", "self", "super"):
            src = self.crate_src(path)
            if src is None:
                return []
            here = self.module_segments(path, src) if path.startswith(src + "/" if src else "") else []
            if head == "crate":
                absolute = segs[1:]
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
            f = self.relative(path, segs) if head not in self.outside() else None
            return [f] if f else []
        f = self.rust_module(src, segs[1:])
        return [f] if f else []


__all__ = ["RustModules", "dependencies", "STD_CRATES"]
