"""Calls and bases written inside a scope link as the language reads them (``pipeline.calls``):
C++ namespaces (one spread over a header and its .cpp files) and classes, Rust inline ``mod``s,
TypeScript ``namespace``s and Java classes; and a Python class a package ``__init__`` re-exports
under another name (``from .api import Client as PublicClient``) is called through that name.
Real git repositories, the real index job, ``Tools.walk``."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

FILES = {
    # a namespace over a header and two .cpp files; a top-level twice the namespace's hides
    "geo/shape.hpp": ("#pragma once\nnamespace geo {\nclass Shape {\n public:\n"
                      "  virtual double area() const = 0;\n  double scaled(double k) const;\n};\n"
                      "double twice(double v);\n}\n"),
    "geo/shape.cpp": ('#include "shape.hpp"\nnamespace geo {\ndouble twice(double v) { return v + v; }\n'
                      "double Shape::scaled(double k) const { return twice(k); }\n}\n"),
    "geo/square.cpp": ('#include "shape.hpp"\nnamespace geo {\nclass Square : public Shape {\n public:\n'
                       "  double area() const override { return twice(side()); }\n"
                       "  double side() const { return 2; }\n};\n}\n"),
    "main.cpp": ('#include "geo/shape.hpp"\nstatic double twice(double v) { return v * 2; }\n'
                 "double run() { return twice(1.0); }\n"
                 "namespace geo {\ndouble run2() { return twice(3.0); }\n}\n"),
    # the same name in two namespaces: a caller in a third links neither
    "one/one.cpp": "namespace one {\nint helper() { return 1; }\n}\n",
    "two/two.cpp": "namespace two {\nint helper() { return 2; }\n}\n",
    "three/three.cpp": "namespace three {\nint f() { return helper(); }\n}\n",
    "one/user.cpp": "namespace one {\nint g() { return helper(); }\n}\n",
    "src/lib.rs": ("pub fn top() -> i32 { 0 }\n\nmod util {\n    pub struct S;\n\n    impl S {\n"
                   "        fn b() -> i32 { 2 }\n        pub fn c(&self) -> i32 { b() }\n    }\n\n"
                   "    pub fn a() -> i32 { b() }\n\n    fn b() -> i32 { 1 }\n}\n\n"
                   "mod tests {\n    use super::*;\n\n    fn t() -> i32 { top() }\n}\n"),
    "web/ns.ts": ("export namespace Geo {\n  export function a(): number { return b(); }\n"
                  "  function b(): number { return 1; }\n  export class Base {}\n"
                  "  export class Sq extends Base { area(): number { return b(); } }\n}\n"
                  "export const res: any = {};\nres.json = function json() { return send(); };\n"
                  "res.send = function send() { return 1; };\n"),
    "java/A.java": ("class A {\n  A() {}\n  void f() { g(); }\n  void g() {}\n"
                    "  class Inner { void h() { g(); } }\n}\n\n"
                    "class B extends A {\n  A make() { return new A(); }\n  void k() { f(); }\n}\n"),
    "pkg/__init__.py": ("from .api import Client as PublicClient\nfrom .api import Client\n"
                        "from .sub import Impl as Deep\n"),
    "pkg/api.py": ("class Client:\n    def run(self):\n        return 1\n\n\n"
                   "class Other:\n    def run(self):\n        return 2\n"),
    "pkg/sub/__init__.py": "from .core import Engine as Impl\n",
    "pkg/sub/core.py": "class Engine:\n    def go(self):\n        return 3\n",
    "tests/test_api.py": ("import pkg\nfrom pkg import Client, Deep, PublicClient\n\n\n"
                          "def test_alias():\n    c = PublicClient()\n    c.run()\n\n\n"
                          "def test_attr_alias():\n    x = pkg.PublicClient()\n    x.run()\n\n\n"
                          "def test_plain():\n    c = Client()\n    c.run()\n\n\n"
                          "def test_two_renames():\n    e = Deep()\n    e.go()\n"),
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("scoped"), FILES, "scopes") as got:
        yield got


def _linked(tools, target: str, edge: str = "calls") -> dict[str, str]:
    t, sid = tools
    return {f"{i.path}::{i.qualname}": i.meta["how"] for i in t.walk(sid, target, edges=[edge]).items}


@pytest.mark.parametrize("target, edge, want", [
    # a base declared in the header, used in another .cpp inside the same namespace
    ("geo/square.cpp::geo.Square", "inherits", {"geo/shape.hpp::geo.Shape": "imported file"}),
    # the header's prototype, read at its one definition; a member of its own class
    ("geo/square.cpp::geo.Square.area", "calls", {"geo/shape.cpp::geo.twice": "imported file, its definition",
                                                  "geo/square.cpp::geo.Square.side": "own class"}),
    # an out-of-line member (its class in the header) calling its namespace's function
    ("geo/shape.cpp::geo.Shape.scaled", "calls", {"geo/shape.cpp::geo.twice": "same file"}),
    ("main.cpp::run", "calls", {"main.cpp::twice": "same file"}),
    ("main.cpp::geo.run2", "calls", {"geo/shape.cpp::geo.twice": "imported file, its definition"}),
    ("one/user.cpp::one.g", "calls", {"one/one.cpp::one.helper": "unique name"}),
    ("three/three.cpp::three.f", "calls", {}),
    # Rust: the module's function, not the impl's associated one; a test module's use super::*
    ("src/lib.rs::util.a", "calls", {"src/lib.rs::util.b": "same file"}),
    ("src/lib.rs::util.S.c", "calls", {"src/lib.rs::util.b": "same file"}),
    ("src/lib.rs::tests.t", "calls", {"src/lib.rs::top": "same file"}),
    # TypeScript: the namespace's function and class; an object's function sees no sibling bare
    ("web/ns.ts::Geo.a", "calls", {"web/ns.ts::Geo.b": "same file"}),
    ("web/ns.ts::Geo.Sq.area", "calls", {"web/ns.ts::Geo.b": "same file"}),
    ("web/ns.ts::Geo.Sq", "inherits", {"web/ns.ts::Geo.Base": "same file"}),
    ("web/ns.ts::res.json", "calls", {}),
    # Java: the class's members, an inner class's outer ones, a base's; a base's name is the class
    ("java/A.java::A.f", "calls", {"java/A.java::A.g": "own class"}),
    ("java/A.java::A.Inner.h", "calls", {"java/A.java::A.g": "enclosing class"}),
    ("java/A.java::B.k", "calls", {"java/A.java::A.f": "own class"}),
    ("java/A.java::B.make", "calls", {"java/A.java::A": "base class"}),
])
def test_a_name_written_in_a_scope_links_as_its_language_reads_it(tools, target, edge, want):
    assert _linked(tools, target, edge) == want


@pytest.mark.parametrize("fn, want", [
    ("test_alias", {"pkg/api.py::Client": "imported name", "pkg/api.py::Client.run": "variable's class"}),
    ("test_attr_alias", {"pkg/api.py::Client": "imported module", "pkg/api.py::Client.run": "variable's class"}),
    ("test_plain", {"pkg/api.py::Client": "imported name", "pkg/api.py::Client.run": "variable's class"}),
    ("test_two_renames", {"pkg/sub/core.py::Engine": "imported name",
                          "pkg/sub/core.py::Engine.go": "variable's class"}),
])
def test_a_class_re_exported_under_another_name_is_called_through_it(tools, fn, want):
    assert _linked(tools, f"tests/test_api.py::{fn}") == want


def test_an_incremental_index_re_links_unchanged_callers_as_a_full_one_does(tmp_path):
    """A second ``one::helper`` in a new file makes the unchanged ``one::g``'s call ambiguous:
    both runs drop its edge and hold the same calls and inherits edges."""
    import shutil

    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from stratum.store import Store
    from tests.gitrepo import Repo

    r = Repo(tmp_path / "repo")
    r.commit("scopes", FILES)
    inc, full = tmp_path / "inc", tmp_path / "full"
    index_repository(r.path, inc, IndexConfig(num_cpus=1))
    r.commit("another helper", {"four/four.cpp": "namespace one {\nint helper() { return 4; }\n}\n"})
    shutil.copytree(inc, full)
    assert index_repository(r.path, inc, IndexConfig(num_cpus=1)).incremental
    index_repository(r.path, full, IndexConfig(num_cpus=1, full=True))

    def linked(store) -> list[tuple]:
        snap = Store(store).snapshot()
        name = {n["id"]: f"{n['path']}::{n['qualname']}" for n in snap.read(
            "nodes", columns=["id", "path", "qualname"]).to_pylist()}
        return sorted((e["kind"], name[e["src"]], name[e["dst"]], e["meta"]) for e in snap.read(
            "edges", columns=["src", "dst", "kind", "meta"], where="kind IN ('calls', 'inherits')").to_pylist())

    got = linked(inc)
    assert got == linked(full)
    assert not [e for e in got if e[1] == "one/user.cpp::one.g"]
    assert ("inherits", "geo/square.cpp::geo.Square", "geo/shape.hpp::geo.Shape") in {e[:3] for e in got}
