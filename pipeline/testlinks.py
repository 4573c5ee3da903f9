"""Test file -> the file it tests, by naming convention and by what the test imports.

A file is a test when its name follows its language's convention (``test_x.py``, ``x_test.py``,
``x.test.ts``, ``x.spec.js``, anything under ``__tests__/``, ``x_test.go``, ``XTest.java``,
``XTests.java``, ``TestX.java``, ``XIT.java``, ``x_test.rs``, a ``.rs`` file directly in a
``tests/`` directory, ``test_x.c``, ``x_unittest.cc`` ..., and Django-style ``tests.py``).

- ``by: "name"``: the test's subject (``x``) is matched to a non-test file of the same language
  family named ``x`` (Go: only in the test's own directory). When several match, the one whose
  directories best mirror the test's wins (``tests/pkg/test_mod.py`` -> ``src/pkg/mod.py``), then
  the one sharing the longest directory prefix with it, then the shortest path.
- ``by: "import"``: every in-repository file the test imports that is neither a test nor inside a
  test directory (fixtures and helpers are not what a test tests). A pair found both ways is
  recorded once, as ``name``. The imports include the modules a package's ``__init__`` re-exports
  the test's names from (``from flask import Blueprint`` -> ``flask/blueprints.py`` as well as
  ``flask/__init__.py``; ``import flask`` + ``flask.Flask`` -> ``flask/app.py``; see
  ``pipeline.imports``), so a test of a re-exported class links to the class's module.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections import defaultdict
from collections.abc import Collection, Iterable

from pipeline.languages import EXTENSIONS
from stratum.ids import node_id

TEST_DIRS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testdata", "fixtures"})
# Language -> test-naming family; the extensions come from the language registry (one table).
_FAMILY_OF = {"python": "py", "javascript": "js", "typescript": "js", "tsx": "js", "go": "go", "java": "java",
              "rust": "rs", "c": "c", "cpp": "c"}
_FAMILIES = {ext: _FAMILY_OF[lang] for ext, lang in EXTENSIONS.items() if lang in _FAMILY_OF}
_C_SOURCES = (".c", ".cc", ".cpp", ".cxx", ".c++")
_PY = re.compile(r"^(?:test_(?P<a>.+)|(?P<b>.+?)_tests?)$")
_JS = re.compile(r"^(?P<a>.+)\.(?:test|spec)$")
_GO = re.compile(r"^(?P<a>.+)_test$")
_JAVA = re.compile(r"^(?:(?P<a>[A-Z]\w*?)(?:Tests?|IT|TestCase)|Test(?P<b>[A-Z]\w*))$")
_RS = re.compile(r"^(?:test_(?P<a>.+)|(?P<b>.+?)_tests?)$")
_C = re.compile(r"^(?:test_(?P<a>.+)|(?P<b>.+?)_(?:unit)?tests?)$")
_RULES = {"py": _PY, "js": _JS, "go": _GO, "java": _JAVA, "rs": _RS, "c": _C}


def _split(path: str) -> tuple[str, str, str]:
    """(directory, stem, extension); ``a/b.test.ts`` -> ("a", "b.test", ".ts")."""
    d, base = posixpath.split(path)
    stem, ext = posixpath.splitext(base)
    if ext == ".ts" and stem.endswith(".d"):
        stem, ext = stem[:-2], ".d.ts"
    return d, stem, ext.lower()


def family(path: str) -> str | None:
    return _FAMILIES.get(_split(path)[2])


def in_test_dir(path: str) -> bool:
    return any(part in TEST_DIRS for part in path.split("/")[:-1])


def subject(path: str) -> str | None:
    """The name of what a test file tests (``test_app.py`` -> ``app``), else None."""
    d, stem, _ = _split(path)
    fam = family(path)
    if fam is None:
        return None
    m = _RULES[fam].match(stem)
    if m:
        return next(g for g in m.groups() if g)
    if fam == "js" and "__tests__" in path.split("/")[:-1]:
        return stem
    if fam == "rs" and posixpath.basename(d) == "tests":
        return stem
    return None


def is_test_path(path: str, packages: Collection[str] = ()) -> bool:
    """``packages``: folders holding an ``__init__.py``. A ``test.py`` module inside one (outside a
    test folder) is the package's own code, e.g. werkzeug's test client ``src/werkzeug/test.py``;
    ``tests.py`` there stays a test (Django apps keep their tests so)."""
    fam = family(path)
    if fam is None:
        return False
    base = posixpath.basename(path)
    if fam == "py" and base in ("tests.py", "test.py", "conftest.py"):
        if base == "test.py" and posixpath.dirname(path) in packages and not in_test_dir(path):
            return False
        return base != "conftest.py"
    return subject(path) is not None


def _score(test: str, cand: str) -> tuple[int, int, int]:
    tdirs = [p for p in posixpath.dirname(test).split("/") if p and p not in TEST_DIRS]
    cdirs = [p for p in posixpath.dirname(cand).split("/") if p]
    mirror = 0
    for a, b in zip(reversed(tdirs), reversed(cdirs)):
        if a != b:
            break
        mirror += 1
    prefix = 0
    for a, b in zip(posixpath.dirname(test).split("/"), cdirs):
        if a != b:
            break
        prefix += 1
    return mirror, prefix, -len(cand)


def _name_targets(test: str, index: dict[tuple[str, str], list[str]]) -> list[str]:
    subj = subject(test)
    fam = family(test)
    if not subj or fam is None:
        return []
    cands = index.get((fam, subj), [])
    if fam == "go":
        d = posixpath.dirname(test)
        cands = [c for c in cands if posixpath.dirname(c) == d]
    elif fam == "c":
        sources = [c for c in cands if c.endswith(_C_SOURCES)]
        cands = sources or cands
    if not cands:
        return []
    best = max(cands, key=lambda c: (_score(test, c), c))
    return [best]


def link_tests(repo: str, paths: Iterable[str], import_edges: Iterable[dict]) -> list[dict]:
    """``tests`` edges (src: test file id, dst: tested file id, meta ``{"by": "name"|"import"}``)."""
    paths = sorted(set(paths))
    packages = {posixpath.dirname(p) for p in paths if posixpath.basename(p) == "__init__.py"}
    tests = {p for p in paths if is_test_path(p, packages)}
    index: dict[tuple[str, str], list[str]] = defaultdict(list)
    for p in paths:
        fam = family(p)
        if fam is None or p in tests or in_test_dir(p):
            continue
        d, stem, _ = _split(p)
        index[(fam, stem)].append(p)
        if fam == "rs" and stem == "mod":
            index[(fam, posixpath.basename(d))].append(p)
        if fam == "py" and stem == "__init__":
            index[(fam, posixpath.basename(d))].append(p)
    found: dict[tuple[str, str], str] = {}
    for t in sorted(tests):
        for target in _name_targets(t, index):
            found[(t, target)] = "name"
    by_id = {node_id(repo, p, "file", ""): p for p in paths}
    for e in import_edges:
        src, dst = by_id.get(e["src"]), by_id.get(e["dst"])
        if src in tests and dst is not None and dst not in tests and not in_test_dir(dst):
            found.setdefault((src, dst), "import")
    return [{"src": node_id(repo, s, "file", ""), "dst": node_id(repo, d, "file", ""), "kind": "tests",
             "meta": json.dumps({"by": by})} for (s, d), by in sorted(found.items())]


__all__ = ["link_tests", "is_test_path", "subject", "in_test_dir", "family", "TEST_DIRS"]
