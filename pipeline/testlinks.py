"""Test file -> the file it tests, by naming convention and by what the test imports or calls.

A file is a test when its name follows its language's convention (``test_x.py``, ``x_test.py``,
``x.test.ts``, ``x.spec.js``, anything under ``__tests__/``, ``x_test.go``, ``XTest.java``,
``XTests.java``, ``TestX.java``, ``XIT.java`` (Kotlin's ``XTest.kt`` alike), Scala's ``XSpec.scala``,
``XSuite.scala``, ``XTest.scala``, ``x_test.rs``, a ``.rs`` file directly in a
``tests/`` directory, ``test_x.c``, ``x_unittest.cc`` ..., and Django-style ``tests.py``); a
JavaScript/TypeScript file in a ``test/`` or ``tests/`` folder at the repository's top or a
package's (beside a ``package.json``), as AVA, mocha and tap keep them (``test/retry.ts``), unless
it is a helper (in a ``helpers``/``fixtures``/... folder below, ``_x.js``, ``index``, ``setup``; a
``utils.js``, ``helpers.js``... only when a file of the repository imports it: express's
``test/utils.js``, which no test imports, holds the tests of ``lib/utils.js``).

- ``by: "name"``: the test's subject (``x``) is matched to a non-test file of the same language
  family named ``x`` of the test's own package (Go: only in the test's own directory; Rust: of the
  test's own crate, the nearest folder with a ``Cargo.toml``; a module a test crate declares,
  ``mod util;`` in ``tests/tests.rs``, has no subject by name: it is part of that test;
  JavaScript/TypeScript: of the nearest folder with a ``package.json``, Python: with a
  ``pyproject.toml``, ``setup.py`` or ``setup.cfg``, a manifest inside a test folder not counted;
  a test under no such folder may name any file): a monorepo's ``packages/admin/src/cart.test.ts``
  is no test of ``packages/web/src/cart.ts``, while its imports still reach across packages
  (``by: "import"``). A repository with one manifest at its top is one package. A JavaScript/TypeScript
  file in an examples, demo or static-asset folder the test is not in is no subject (express's
  ``test/app.js`` does not test ``examples/static-files/public/js/app.js``). A JavaScript/TypeScript
  test whose subject names no file is matched to the file defining a definition so named (given
  ``defines``): express's ``test/res.send.js`` tests ``res.send`` of ``lib/response.js``. When several
  match, the one whose directories best mirror the test's wins (``tests/pkg/test_mod.py`` ->
  ``src/pkg/mod.py``), then the one sharing the longest directory prefix with it, then the
  shortest path. Weight 2: listed before the other links of a file.
- ``by: "import"``: every in-repository file the test imports that is neither a test nor inside a
  test directory (fixtures and helpers are not what a test tests). A pair found both ways is
  recorded once, as ``name``. The imports include the modules a package's ``__init__`` re-exports
  the test's names from (``from flask import Blueprint`` -> ``flask/blueprints.py`` as well as
  ``flask/__init__.py``; ``import flask`` + ``flask.Flask`` -> ``flask/app.py``; see
  ``pipeline.imports``), so a test of a re-exported class links to the class's module.
- ``by: "unit"``: a Rust test in a code file (``#[cfg(test)] mod tests``, marked ``TEST_MARK`` by
  the parse) tests that file: the edge runs from the test's node to its file's.
- ``by: "header"``: a test of a C/C++ header (by name or import) tests the source files that
  implement it too: each C/C++ source (``.c``, ``.cc``, ``.cpp``...) with the header's stem that
  includes it (``db/db_impl.cc`` including ``db/db_impl.h``), neither a test nor in a test folder,
  unless the pair is linked another way; the edge's ``meta`` names the header. A test reaches a
  class through its header, while the methods it calls are defined in the source: `walk
  db/db_impl.cc --edge tests --direction in` listed nothing though ``db/db_test.cc`` tests it (a
  probe). The stem and the include are what a parse gives every run, a branch's overlay too: which
  file defines a header's methods out of line would need every definition's node.
- ``by: "use"`` (Go, in place of ``import``): a Go import lands on every file of the package, so
  a test is linked to the files of its own package or an imported one whose definitions its code
  calls (``used_by_tests``, from ``pipeline.calls``' edges): cobra's ``doc/*_test.go`` import
  cobra but test the doc package; ``completions_test.go`` calls ``MarkFlagFilename`` in
  ``shell_completions.go``.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from typing import NamedTuple

from pipeline.languages import EXTENSIONS
from stratum.ids import node_id

TEST_DIRS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testdata", "fixtures"})
# Language -> test-naming family; the extensions come from the language registry (one table).
_FAMILY_OF = {"python": "py", "javascript": "js", "typescript": "js", "tsx": "js", "go": "go", "java": "java",
              "kotlin": "java", "scala": "scala", "rust": "rs", "c": "c", "cpp": "c"}   # Kotlin: Java's convention
_FAMILIES = {ext: _FAMILY_OF[lang] for ext, lang in EXTENSIONS.items() if lang in _FAMILY_OF}
_C_SOURCES = (".c", ".cc", ".cpp", ".cxx", ".c++")
_C_HEADERS = (".h", ".hh", ".hpp", ".hxx", ".h++")
C_SOURCES, C_HEADERS = _C_SOURCES, _C_HEADERS     # read by the overlay (``overlay._header_sources``)
_PY = re.compile(r"^(?:test_(?P<a>.+)|(?P<b>.+?)_tests?)$")
_JS = re.compile(r"^(?P<a>.+)\.(?:test|spec)$")
_GO = re.compile(r"^(?P<a>.+)_test$")
_JAVA = re.compile(r"^(?:(?P<a>[A-Z]\w*?)(?:Tests?|IT|TestCase)|Test(?P<b>[A-Z]\w*))$")
_SCALA = re.compile(r"^(?P<a>[A-Z]\w*?)(?:Tests?|Spec|Suite|IT)$")       # ScalaTest, specs2, MUnit
_RS = re.compile(r"^(?:test_(?P<a>.+)|(?P<b>.+?)_tests?)$")
_C = re.compile(r"^(?:test_(?P<a>.+)|(?P<b>.+?)_(?:unit)?tests?)$")
_RULES = {"py": _PY, "js": _JS, "go": _GO, "java": _JAVA, "scala": _SCALA, "rs": _RS, "c": _C}
_JS_TEST_FOLDERS = ("test", "tests")
# a test folder's helpers, not tests: folders below it and file stems (AVA leaves out helpers,
# fixtures and _-prefixed files)
_JS_AIDS = frozenset({"helpers", "helper", "fixtures", "fixture", "__fixtures__", "support", "mocks", "__mocks__",
                      "utils", "util", "testdata", "types"})
_JS_AID_STEMS = frozenset({"helpers", "helper", "fixtures", "fixture", "support", "mocks", "utils", "util", "index",
                           "setup", "teardown", "globals", "global-setup", "common"})
# of those, the stems a test of the module so named may have too: a helper when something imports it
_JS_NAMED_AIDS = frozenset({"helpers", "helper", "fixtures", "fixture", "support", "mocks", "utils", "util", "common"})
# folders of examples and static or built assets: no test's subject by name from outside them
_ASIDE = frozenset({"examples", "example", "demo", "demos", "public", "static", "assets", "vendor", "dist"})
JS_DEFINES = frozenset({"javascript", "typescript", "tsx"})     # the languages ``defines`` is read for
_JS_DEFINED = "js#def"          # the name index's family key of the definitions (``link_tests(defines=)``)
TEST_MARK = '"test":1'      # in a test's node ``meta`` (``pipeline.parse`` writes it; a substring test)
BY_NAME_WEIGHT = 2.0            # a file's name-linked test before those that import or call it
UNIT_WEIGHT = 0.5               # a file's own inline tests after its test files (a re-probe: ripgrep's
                                # gitignore.rs listed 74 inline tests before its two tests/*.rs files)
# the files whose folder is a package of a family, within which a test's subject is named
_MANIFESTS = {"js": ("package.json",), "py": ("pyproject.toml", "setup.py", "setup.cfg")}


class Defined(NamedTuple):
    """A definition ``link_tests`` reads (``defines``): its path and qualified name, and its node id
    when it is a Rust test (``TEST_MARK``), which tests the code file it is in."""

    path: str
    qualname: str
    test: str = ""


def js_definitions(nodes: Iterable[dict]) -> list[Defined]:
    """The JS/TS functions and methods among ``nodes`` (a test named after a definition tests its
    file) and the Rust tests (a unit test in a code file tests that file): what ``link_tests``
    reads its ``defines`` from."""
    return [Defined(n["path"], n["qualname"], n["id"] if n.get("language") == "rust" else "") for n in nodes
            if n["kind"] in ("function", "method") and (
                n.get("language") in JS_DEFINES or (n.get("language") == "rust" and TEST_MARK in (n.get("meta") or "")))]


def unit_tests(repo: str, defines: Iterable[tuple[str, ...]], tests: Collection[str]) -> list[dict]:
    """``tests`` edges (``by: "unit"``) from each Rust test of a code file (not a test, not in a test
    folder: ``#[cfg(test)] mod tests`` in ``src/searcher/mod.rs``) to that file: a unit test tests
    the module it is in."""
    return [tests_edge(d[2], node_id(repo, d[0], "file", ""), "unit") for d in defines
            if len(d) > 2 and d[2] and d[0] not in tests and not in_test_dir(d[0])]


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


def js_roots(paths: Iterable[str]) -> set[str]:
    """The folders a JavaScript/TypeScript test folder may sit in: the repository's top and every
    package's (a folder holding a ``package.json``)."""
    return {""} | {posixpath.dirname(p) for p in paths if posixpath.basename(p) == "package.json"}


def _in_js_test_folder(path: str, roots: Collection[str], imported: Collection[str] | None = None) -> bool:
    """``test/retry.ts``, ``packages/a/tests/unit/x.js`` (ROOTS: ``js_roots``), not a helper there
    (IMPORTED: the paths some file imports, when known: a ``utils.js`` no file imports is a test)."""
    parts = path.split("/")
    for i, part in enumerate(parts[:-1]):
        if part in _JS_TEST_FOLDERS and "/".join(parts[:i]) in roots:
            stem = _split(path)[1]
            if stem.startswith("_") or any(p in _JS_AIDS for p in parts[i + 1:-1]):
                return False
            if stem in _JS_NAMED_AIDS and imported is not None:
                return path not in imported
            return stem not in _JS_AID_STEMS
    return False


def subject(path: str, roots: Collection[str] = ("",), imported: Collection[str] | None = None) -> str | None:
    """The name of what a test file tests (``test_app.py`` -> ``app``), else None. ``roots``:
    ``js_roots``, where a JavaScript/TypeScript test folder counts (default: the top only);
    ``imported``: the paths some file imports (``_in_js_test_folder``)."""
    d, stem, _ = _split(path)
    fam = family(path)
    if fam is None:
        return None
    if fam in ("java", "scala") and "/src/main/" in f"/{d}/":
        return None     # Maven/Gradle/sbt keep tests in src/test: kotlinpoet's src/main TestProcessor.kt is code
    m = _RULES[fam].match(stem)
    if m and fam == "scala" and not stem.endswith(("Test", "Tests")) and not in_test_dir(path):
        m = None        # an `ApiSpec.scala` among the code is a spec of an API, not a ScalaTest spec
    if m:
        return next(g for g in m.groups() if g)
    if fam == "js" and ("__tests__" in path.split("/")[:-1] or _in_js_test_folder(path, roots, imported)):
        return stem
    if fam == "rs" and posixpath.basename(d) == "tests":
        return stem
    return None


def is_test_path(path: str, packages: Collection[str] = (), roots: Collection[str] = ("",),
                 imported: Collection[str] | None = None) -> bool:
    """``packages``: folders holding an ``__init__.py``. A ``test.py`` module inside one (outside a
    test folder) is the package's own code, e.g. werkzeug's test client ``src/werkzeug/test.py``;
    ``tests.py`` there stays a test (Django apps keep their tests so). ``roots``: ``js_roots``;
    ``imported``: the paths some file imports (``_in_js_test_folder``)."""
    fam = family(path)
    if fam is None:
        return False
    base = posixpath.basename(path)
    if fam == "py" and base in ("tests.py", "test.py", "conftest.py"):
        if base == "test.py" and posixpath.dirname(path) in packages and not in_test_dir(path):
            return False
        return base != "conftest.py"
    return subject(path, roots, imported) is not None


def _aside(test: str, cand: str) -> bool:
    """Whether CAND lies in an examples, demo or static-asset folder (``_ASIDE``) that TEST is not in."""
    parts = cand.split("/")[:-1]
    return any(p in _ASIDE and not test.startswith("/".join(parts[:i + 1]) + "/") for i, p in enumerate(parts))


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


def _package_of(path: str, packages: Collection[str]) -> str | None:
    """The nearest folder above ``path`` among ``packages`` (the folders holding a ``Cargo.toml``,
    a ``package.json``...), or None."""
    d = path
    while d:
        d = posixpath.dirname(d)
        if d in packages:
            return d
    return None


def _package_dirs(paths: Iterable[str]) -> dict[str, set[str]]:
    """Family -> the folders holding a package manifest of it (``_MANIFESTS``), not those in a test
    folder (``test/package.json`` saying ``{"type": "module"}`` makes no package of its tests)."""
    out: dict[str, set[str]] = {fam: set() for fam in _MANIFESTS}
    for p in paths:
        d, base = posixpath.split(p)
        for fam, names in _MANIFESTS.items():
            if base in names and not in_test_dir(p):
                out[fam].add(d)
    return out


def _name_targets(test: str, index: dict[tuple[str, str], list[str]], roots: Collection[str] = ("",),
                  crates: Collection[str] = (), packages: Mapping[str, Collection[str]] | None = None,
                  imported: Collection[str] | None = None) -> list[str]:
    """The file ``test`` tests by its name, of its own package (``packages``: ``_package_dirs``),
    for JavaScript/TypeScript none in an examples or assets folder it is not in (``_aside``)."""
    subj = subject(test, roots, imported)
    fam = family(test)
    if not subj or fam is None:
        return []
    cands = [c for c in index.get((fam, subj), []) if fam != "js" or not _aside(test, c)]   # a Python package may be `public`
    if fam == "js" and not cands:           # test/res.send.js: the file defining res.send
        cands = [c for c in dict.fromkeys(index.get((_JS_DEFINED, subj), [])) if not _aside(test, c)]
    bound = (packages or {}).get(fam)
    if fam == "go":
        d = posixpath.dirname(test)
        cands = [c for c in cands if posixpath.dirname(c) == d]
    elif fam == "rs" and crates:        # a Rust test's subject is of its own crate
        own = _package_of(test, crates)
        cands = [c for c in cands if _package_of(c, crates) == own]
    elif bound and (own := _package_of(test, bound)) is not None:     # of its own package
        cands = [c for c in cands if _package_of(c, bound) == own]
    elif fam == "c":
        sources = [c for c in cands if c.endswith(_C_SOURCES)]
        cands = sources or cands
    if not cands:
        return []
    best = max(cands, key=lambda c: (_score(test, c), c))
    return [best]


def link_tests(repo: str, paths: Iterable[str], import_edges: Iterable[dict],
               defines: Iterable[tuple[str, ...]] = ()) -> list[dict]:
    """``tests`` edges (src: test file id, dst: tested file id, meta ``{"by": "name"|"import"|"header"}``;
    a Go test's other links are ``used_by_tests``'; a Rust unit test's, from its node, ``unit_tests``').
    ``defines``: (path, qualified name) of the definitions (``js_definitions``), for a
    JavaScript/TypeScript test whose subject names a definition, not a file, and the Rust tests."""
    paths = sorted(set(paths))
    import_edges = list(import_edges)
    packages = {posixpath.dirname(p) for p in paths if posixpath.basename(p) == "__init__.py"}
    crates = {posixpath.dirname(p) for p in paths if posixpath.basename(p) == "Cargo.toml"}
    manifests = _package_dirs(paths)
    roots = js_roots(paths)
    by_id = {node_id(repo, p, "file", ""): p for p in paths}
    imported = {p for e in import_edges if (p := by_id.get(e["dst"])) is not None and by_id.get(e["src"]) != p}
    tests = {p for p in paths if is_test_path(p, packages, roots, imported)}
    unnamed = _rust_test_modules(repo, paths, import_edges)      # a test crate's modules: no subject by name
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
    defines = list(defines)
    for p, qual, *_ in defines:
        if family(p) == "js" and "." in qual and p not in tests and not in_test_dir(p):
            index[(_JS_DEFINED, qual)].append(p)        # express's res.send: a method, qualified
    found: dict[tuple[str, str], tuple[str, ...]] = {}       # (test, file) -> (by, its header)
    for t in sorted(tests - unnamed):
        for target in _name_targets(t, index, roots, crates, manifests, imported):
            found[(t, target)] = ("name",)
    for e in import_edges:
        src, dst = by_id.get(e["src"]), by_id.get(e["dst"])
        if src in tests and dst is not None and dst not in tests and not in_test_dir(dst) and family(src) != "go":
            found.setdefault((src, dst), ("import",))
    headers = _implementing(by_id, import_edges, tests)
    for t, h in list(found):
        for src in headers.get(h, ()):
            if src != t:
                found.setdefault((t, src), ("header", h))
    return [tests_edge(node_id(repo, s, "file", ""), node_id(repo, d, "file", ""), *by)
            for (s, d), by in sorted(found.items())] + unit_tests(repo, defines, tests)


def _implementing(by_id: Mapping[str, str], import_edges: Iterable[dict], tests: Collection[str]) -> dict[str, list[str]]:
    """C/C++ header path -> the sources implementing it (``by: "header"``): a C/C++ source of the
    header's stem that includes it, neither a test nor in a test folder."""
    out: dict[str, list[str]] = defaultdict(list)
    for e in import_edges:
        src, dst = by_id.get(e["src"]), by_id.get(e["dst"])
        if src is None or dst is None or not dst.lower().endswith(_C_HEADERS) or not src.lower().endswith(_C_SOURCES):
            continue
        if _split(src)[1] == _split(dst)[1] and src not in tests and not in_test_dir(src) and src not in out[dst]:
            out[dst].append(src)
    return out


def _rust_test_modules(repo: str, paths: Iterable[str], import_edges: Iterable[dict]) -> set[str]:
    """The ``.rs`` files of a test folder that another of its files imports: modules its test crate
    declares (``mod util;`` in ripgrep's ``tests/tests.rs``), helpers or parts of that test, not tests
    of the module their name says (``tests/util.rs`` is no test of ``crates/printer/src/util.rs``);
    what they import is still the test's."""
    by_id = {node_id(repo, p, "file", ""): p for p in paths if p.endswith(".rs") and in_test_dir(p)}
    return {d for e in import_edges if (s := by_id.get(e["src"])) is not None
            and (d := by_id.get(e["dst"])) is not None and s != d}


def tests_edge(src: str, dst: str, by: str, header: str = "") -> dict:
    """A ``tests`` edge between two file ids, linked ``by`` name (listed first), import, use, unit
    (listed last) or header (``header``: the header's path, which its meta names)."""
    meta = {"by": by, "header": header} if header else {"by": by}
    weight = BY_NAME_WEIGHT if by == "name" else UNIT_WEIGHT if by == "unit" else 1.0
    return {"src": src, "dst": dst, "kind": "tests", "weight": weight,
            "meta": json.dumps(meta)}


def used_by_tests(used: Iterable[tuple[str, str]], imported: Mapping[str, Collection[str]]) -> list[tuple[str, str]]:
    """Go ``by: "use"`` links: the (test, file) pairs among USED (a file's code calls, or embeds, a
    definition of the other: ``pipeline.calls``, a method-name guess left out) whose test is a
    ``_test.go`` file and whose other end is code of the test's own package or one it imports
    (IMPORTED: path -> the paths its imports land on), not a test, a test folder's file or the
    test's name-linked file (that pair is ``name``'s)."""
    out = set()
    for t, dst in used:
        if t == dst or not t.endswith("_test.go") or not dst.endswith(".go") or dst.endswith("_test.go") \
                or in_test_dir(dst):
            continue
        d = posixpath.dirname(t)
        if posixpath.dirname(dst) != d and dst not in imported.get(t, ()):
            continue
        if dst == posixpath.join(d, f"{subject(t)}.go"):
            continue
        out.add((t, dst))
    return sorted(out)


__all__ = ["link_tests", "js_definitions", "Defined", "unit_tests", "TEST_MARK", "used_by_tests", "tests_edge", "is_test_path", "subject", "in_test_dir", "family",
           "js_roots", "TEST_DIRS", "BY_NAME_WEIGHT", "UNIT_WEIGHT", "C_SOURCES", "C_HEADERS"]
