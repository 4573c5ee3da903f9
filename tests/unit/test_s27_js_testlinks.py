"""``pipeline.testlinks.link_tests``' JavaScript rules from session 27's express probe, on the
paths and import edges an index hands it: a test named after a definition (express's
``test/res.send.js``) links to the file defining it when ``defines`` are given; a ``utils.js`` no
file imports is a test, one a test imports a helper; no name link into an example's assets."""

from __future__ import annotations

import json

from pipeline.testlinks import link_tests
from stratum.ids import node_id

PATHS = ["package.json", "index.js", "lib/response.js", "lib/request.js", "lib/utils.js",
         "examples/static/public/js/app.js", "examples/res.send.js", "test/res.send.js", "test/req.get.js",
         "test/app.js", "test/utils.js", "test/support/utils.js", "test/helpers.js", "test/x.js"]
DEFINES = [("lib/response.js", "res.send"), ("lib/request.js", "req.get"), ("lib/request.js", "req.header"),
           ("examples/static/public/js/app.js", "res.send"), ("test/x.js", "req.get")]


def _imp(src: str, dst: str) -> dict:
    return {"src": node_id("r", src, "file", ""), "dst": node_id("r", dst, "file", ""), "kind": "imports"}


def _links(defines=()) -> list[tuple[str, str, str]]:
    name = {node_id("r", p, "file", ""): p for p in PATHS}
    imports = [_imp("test/x.js", "test/helpers.js"), _imp("test/res.send.js", "test/support/utils.js")]
    return sorted((name[e["src"]], name[e["dst"]], json.loads(e["meta"])["by"])
                  for e in link_tests("r", PATHS, imports, defines))


def test_a_test_named_after_a_definition_tests_its_file():
    got = _links(DEFINES)
    assert ("test/res.send.js", "lib/response.js", "name") in got
    assert ("test/req.get.js", "lib/request.js", "name") in got
    assert not any(d.startswith("examples/") for _, d, _ in got)
    assert not any(s == "test/res.send.js" for s, _, _ in _links())          # without definitions: none


def test_a_utils_test_no_file_imports_is_a_test_an_imported_one_a_helper():
    got = _links()
    assert ("test/utils.js", "lib/utils.js", "name") in got
    assert not any("helpers" in s or "support" in s for s, _, _ in got)
    assert not any(s == "test/app.js" for s, _, _ in got)                     # only an example's asset so named


def test_a_python_package_named_public_keeps_its_tests():
    """The examples/assets rule is JavaScript's: a Python package `shop/public` is code (the rule lost
    tests/test_catalog.py -> shop/public/catalog.py, review r1)."""
    paths = ["shop/__init__.py", "shop/public/__init__.py", "shop/public/catalog.py", "tests/test_catalog.py"]
    name = {node_id("r", p, "file", ""): p for p in paths}
    got = [(name[e["src"]], name[e["dst"]]) for e in link_tests("r", paths, [])]
    assert ("tests/test_catalog.py", "shop/public/catalog.py") in got
