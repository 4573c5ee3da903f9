"""Go links as a user walks them, on a real repository through the real index job:

- a call through an aliased import (``c "example.com/shop/pkg/cart"`` then ``c.New()``) links to
  that package's ``New`` (``pipeline.imports`` binds ``c``; only a receiver named like the
  package's folder linked before);
- a test is linked to the files whose definitions it calls (``by: "use"``), in its own package or
  an imported one, not to every file of a package it imports (a Go import lands on all of them:
  cobra's ``doc/*_test.go`` were the tests of every cobra file); the test's name-linked file comes
  first.
"""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.slow

FILES = {
    "go.mod": "module example.com/shop\n\ngo 1.22\n",
    "cart.go": "package shop\n\n// New makes a cart.\nfunc New() int {\n\treturn 1\n}\n",
    "price.go": "package shop\n\n// Price of one item.\nfunc Price() int {\n\treturn 2\n}\n",
    "report.go": "package shop\n\n// Report prints.\nfunc Report() string {\n\treturn \"r\"\n}\n",
    "cart_test.go": ("package shop\n\nimport \"testing\"\n\n"
                     "func TestNew(t *testing.T) {\n\tif New()+Price() != 3 {\n\t\tt.Fatal(\"x\")\n\t}\n}\n"),
    "all_test.go": ("package shop\n\nimport \"testing\"\n\n"
                    "func TestAll(t *testing.T) {\n\t_ = New()\n}\n"),
    "doc/doc.go": "package doc\n\n// Gen writes docs.\nfunc Gen() string {\n\treturn \"d\"\n}\n",
    "errors.go": "package shop\n\ntype flagErr struct{}\n\n// Error says it.\nfunc (e flagErr) Error() string {\n\treturn \"e\"\n}\n",
    "doc/doc_test.go": ("package doc\n\nimport (\n\t\"testing\"\n\n\t\"example.com/shop\"\n)\n\n"
                        "func TestGen(t *testing.T) {\n\t_ = shop.New()\n\t_ = Gen()\n\tt.Error(\"no\")\n}\n"),
    # two packages define New: only the import says which c.New() is
    "pkg/cart/cart.go": "package cart\n\n// New makes a cart.\nfunc New(id string) string {\n\treturn id\n}\n",
    "pkg/list/list.go": "package list\n\n// New makes a list.\nfunc New(id string) string {\n\treturn id\n}\n",
    "cmd/shop/main.go": ("package main\n\nimport (\n\t\"fmt\"\n\n\tc \"example.com/shop/pkg/cart\"\n"
                         "\tl \"example.com/shop/pkg/list\"\n)\n\n"
                         "func main() {\n\tfmt.Println(c.New(\"a\"))\n}\n\n"
                         "func other() {\n\tfmt.Println(l.New(\"b\"))\n}\n"),
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from pipeline.job import index_repository
    from stratum.tools import Tools
    from tests.clirun import NO_EMBED
    from tests.gitrepo import Repo

    base = tmp_path_factory.mktemp("links22go")
    r = Repo(base / "repo")
    r.commit("shop", FILES)
    index_repository(r.path, base / "store", NO_EMBED)
    t = Tools.open([str(base / "store")])
    try:
        yield t, t.open_session(author="agent"), base / "store"
    finally:
        t.close()


def _walk(tools, target: str, edge: str, direction: str = "out") -> list[str]:
    t, opened, _ = tools
    return [f"{i.path}::{i.qualname}" if i.qualname else i.path
            for i in t.walk(opened.data["session"], target, edges=[edge], direction=direction).items]


def test_a_call_through_an_aliased_import_links_that_package(tools):
    assert _walk(tools, "cmd/shop/main.go::main", "calls") == ["pkg/cart/cart.go::New"]
    assert _walk(tools, "cmd/shop/main.go::other", "calls") == ["pkg/list/list.go::New"]


def test_a_method_of_an_outside_type_is_not_the_repositorys(tools):
    # t *testing.T: t.Error() is testing's, not errors.go's flagErr.Error (the one Error in reach)
    assert _walk(tools, "doc/doc_test.go::TestGen", "calls") == ["cart.go::New", "doc/doc.go::Gen"]


def test_a_go_file_is_tested_by_the_tests_that_call_it(tools):
    assert _walk(tools, "price.go", "tests", "in") == ["cart_test.go"]      # same package, by use
    assert _walk(tools, "report.go", "tests", "in") == []                   # nothing calls it
    assert _walk(tools, "errors.go", "tests", "in") == []
    # its own test by name first, then those that call New (the doc test imports the package)
    got = _walk(tools, "cart.go", "tests", "in")
    assert got[0] == "cart_test.go" and sorted(got[1:]) == ["all_test.go", "doc/doc_test.go"]
    assert _walk(tools, "doc/doc_test.go", "tests") == ["doc/doc.go", "cart.go"]


def test_the_store_says_how_each_go_test_was_linked(tools):
    from stratum.store import Store

    snap = Store(tools[2]).snapshot()
    paths = {r["id"]: r["path"] for r in snap.read("nodes", columns=["id", "path"], where="kind = 'file'").to_pylist()}
    got = {(paths[e["src"]], paths[e["dst"]]): json.loads(e["meta"])["by"]
           for e in snap.read("edges", where="kind = 'tests'").to_pylist()}
    assert got == {("cart_test.go", "cart.go"): "name", ("cart_test.go", "price.go"): "use", ("all_test.go", "cart.go"): "use",
                   ("doc/doc_test.go", "doc/doc.go"): "name", ("doc/doc_test.go", "cart.go"): "use"}
