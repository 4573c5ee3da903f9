"""Python import edges agree with an independent ``ast``-based resolver on real code.

The reference works in module-name space: ``ast`` finds the imports, ``importlib.util.resolve_name``
turns relative imports into absolute names (so it refuses what Python refuses), and a per-root index
of dotted module names maps names to files. It follows the rules documented in
``pipeline/imports.py`` (package roots, search order, ``from m import y`` where ``y`` is a module),
but shares no code with our tree-sitter extraction and directory-walking resolver.

Samples: this project's own source tree and a sample of the CPython standard library (the
interpreter running the tests), each treated as a repository root.
"""

from __future__ import annotations

import ast
import importlib.util
import posixpath
import subprocess
import sysconfig
from pathlib import Path

import pytest

from pipeline.imports import FileImports, resolve_paths
from pipeline.parse import parse_file

pytestmark = pytest.mark.slow

PROJECT = Path(__file__).resolve().parents[2]
STDLIB = Path(sysconfig.get_paths()["stdlib"])
STDLIB_PACKAGES = ("json", "email", "http", "importlib", "concurrent", "asyncio", "logging", "urllib",
                   "xml", "collections", "unittest", "re", "tomllib", "zoneinfo", "wsgiref", "html")


class Reference:
    def __init__(self, paths: set[str]):
        self.paths = paths
        self.packages = {posixpath.dirname(p) for p in paths if posixpath.basename(p) == "__init__.py"} - {""}
        dirs = {posixpath.dirname(p) for p in paths}
        roots = {""} | {self.own_root(p + "/__init__.py") for p in self.packages}
        if any(p.startswith("src/") for p in paths):
            roots.add("src")
        self.roots = roots
        self.index: dict[str, dict[str, str]] = {}
        for r in roots | dirs:              # script directories are roots of their own files
            idx = {}
            for p in sorted(paths, key=lambda p: p.endswith("__init__.py")):
                if r and not p.startswith(r + "/"):
                    continue
                rel = p[len(r) + 1:] if r else p
                name = rel[:-3].replace("/", ".")
                if name.endswith("__init__"):
                    name = name[: -len("__init__")].rstrip(".")
                if name:
                    idx.setdefault(name, p)
            self.index[r] = idx

    def own_root(self, path: str) -> str:
        """Parent of the highest ancestor package (``__init__.py``), else the file's directory."""
        parts = posixpath.dirname(path).split("/") if posixpath.dirname(path) else []
        for k in range(1, len(parts) + 1):
            if "/".join(parts[:k]) in self.packages:
                return "/".join(parts[:k - 1])
        return "/".join(parts)

    def package(self, path: str) -> str:
        d, root = posixpath.dirname(path), self.own_root(path)
        rel = d[len(root):].lstrip("/") if root else d
        return rel.replace("/", ".")

    def order(self, path: str) -> list[str]:
        d = posixpath.dirname(path)
        own = self.own_root(path)
        inside = sorted((r for r in self.roots if r == "" or d == r or d.startswith(r + "/")), key=len, reverse=True)
        rest = sorted((r for r in self.roots if r not in inside), key=lambda r: (r.count("/"), r))
        return [own] + [r for r in inside + rest if r != own]

    def deepest(self, root: str, name: str) -> str | None:
        parts = name.split(".")
        for k in range(len(parts), 0, -1):
            hit = self.index[root].get(".".join(parts[:k]))
            if hit:
                return hit
        return None

    def edges(self, path: str, tree: ast.AST) -> set[tuple[str, str]]:
        out: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    for r in self.order(path):
                        hit = self.deepest(r, alias.name)
                        if hit:
                            out.add(hit)
                            break
            elif isinstance(node, ast.ImportFrom):
                names = [a.name for a in node.names]
                if node.level:
                    try:
                        mod = importlib.util.resolve_name("." * node.level + (node.module or ""), self.package(path))
                    except (ImportError, ValueError):
                        continue
                    roots = [self.own_root(path)]
                    mod = mod.strip(".")
                else:
                    mod = node.module or ""
                    roots = [r for r in self.order(path)
                             if mod in self.index[r] or any(f"{mod}.{n}" in self.index[r] for n in names)]
                    if not roots:
                        for r in self.order(path):
                            hit = self.deepest(r, mod)
                            if hit:
                                out.add(hit)
                                break
                        continue
                root = roots[0]
                itself = self.index[root].get(mod) if mod else self.index[root].get("")
                if itself is None and mod:
                    itself = self.deepest(root, mod)
                for n in names:
                    sub = self.index[root].get(f"{mod}.{n}" if mod else n) if n != "*" else None
                    if sub:
                        out.add(sub)
                    elif itself:
                        out.add(itself)
        out.discard(path)
        return {(path, t) for t in out}


def agreement(root: Path, paths: list[str]) -> tuple[float, set, set, int]:
    ours_in, ref_edges = [], set()
    ref = Reference(set(paths))
    for p in paths:
        data = (root / p).read_bytes()
        pf = parse_file("agree", p, data)
        ours_in.append(FileImports(p, pf.language, tuple(pf.imports)))
        try:
            tree = ast.parse(data, filename=p)
        except SyntaxError:
            continue
        ref_edges |= ref.edges(p, tree)
    ours = resolve_paths(ours_in, set(paths))
    union = ours | ref_edges
    score = len(ours & ref_edges) / len(union) if union else 1.0
    return score, ours - ref_edges, ref_edges - ours, len(union)


def test_agreement_on_this_project():
    out = subprocess.run(["git", "-C", str(PROJECT), "ls-files", "-z", "--cached", "--others",
                          "--exclude-standard"], capture_output=True, check=True).stdout
    paths = sorted(p for p in out.decode().split("\0")
                   if p.endswith(".py") and (PROJECT / p).is_file() and not (PROJECT / p).is_symlink())
    assert len(paths) > 30
    score, only_ours, only_ref, n = agreement(PROJECT, paths)
    print(f"project: {len(paths)} files, {n} edges, agreement {score:.4f}")
    assert n > 50
    assert score >= 0.98, (sorted(only_ours)[:10], sorted(only_ref)[:10])


def test_agreement_on_stdlib_sample():
    paths = sorted(p.relative_to(STDLIB).as_posix() for p in STDLIB.glob("*.py"))
    for pkg in STDLIB_PACKAGES:
        paths += sorted(p.relative_to(STDLIB).as_posix() for p in (STDLIB / pkg).rglob("*.py")
                        if "test" not in p.relative_to(STDLIB / pkg).parts[:-1])
    assert len(paths) > 250
    score, only_ours, only_ref, n = agreement(STDLIB, paths)
    print(f"stdlib: {len(paths)} files, {n} edges, agreement {score:.4f}")
    assert n > 500
    assert score >= 0.98, (sorted(only_ours)[:10], sorted(only_ref)[:10])
