"""JavaScript and Go definitions and test links an express user expects, on a real git repository
through the real index job and ``Tools`` (an express-shaped repository: session 27's probe):

- a chained assignment defines every name (``res.set = res.header = function header``, express's
  ``lib/response.js``), one function's body and lines, its calls shared;
- an object literal's functions are definitions: ``module.exports = { parse: function () {} }``
  (the module's functions), ``Router.prototype = { handle() {} }`` (``Router.handle``);
- a Go package-level ``var Handler = func(...) {...}`` is a function;
- tests reach the module a ``module.exports = require('./lib/express')`` index is, whole;
  ``test/utils.js`` (no file imports it) is a test of ``lib/utils.js``; ``test/app.js`` tests no
  browser asset of an example (``examples/static/public/js/app.js``).
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

FILES = {
    "package.json": '{"name": "r"}\n',
    "index.js": "module.exports = require('./lib/express')\n",
    "lib/express.js": ("var res = require('./response')\n"
                       "function createApplication() { return res }\n"
                       "exports = module.exports = createApplication\n"),
    "lib/response.js": ("var res = module.exports = {}\n"
                        "/** Set a header field. */\n"
                        "res.set =\n"
                        "res.header = function header(field, val) {\n"
                        "  return this.type(val)\n"
                        "}\n"
                        "res.contentType = res.type = function contentType(type) { return type }\n"
                        "res.send = function send(body) { this.set('Content-Type', 'text/html'); return this }\n"),
    "lib/utils.js": ("module.exports = {\n"
                     "  parse: function (s) { return s },\n"
                     "  format(s) { return String(s) },\n"
                     "  limit: 3,\n"
                     "}\n"),
    "lib/chain.js": "exports = module.exports = {\n  open() { return 1 },\n  close: function () { return 2 },\n}\n",
    "lib/router.js": ("function Router() {}\n"
                      "Router.prototype = {\n"
                      "  handle(req) { function inner() { return req } return inner() },\n"
                      "}\n"
                      "module.exports = Router\n"),
    "test/app.js": "var express = require('..')\nit('runs', function () { express() })\n",
    "test/utils.js": ("var utils = require('../lib/utils')\n"
                      "describe('utils.parse', function () { it('parses', function () { utils.parse('x') }) })\n"),
    "test/support/utils.js": "exports.shouldHave = function (x) { return x }\n",
    "test/res.send.js": ("var express = require('../')\nvar h = require('./support/utils')\n"
                         "it('sends', function () { h.shouldHave(express()) })\n"),
    "examples/static/public/js/app.js": "document.title = 'x'\n",
    "go.mod": "module example.com/gox\n",
    "pkg/stack.go": ("package pkg\n\n"
                     "// Handler doubles x.\n"
                     "var Handler = func(x int) int { return x * 2 }\n\n"
                     "var (\n\tLimit = func() int { return 3 }\n\tN, M = 1, 2\n)\n\n"
                     "func Run() int { var local = func() int { return 1 }; return local() }\n"),
    "pkg/stack_test.go": ("package pkg\n\nimport \"testing\"\n\n"
                          "func TestHandler(t *testing.T) { if Handler(2) != 4 { t.Fatal(Handler(2)) } }\n"),
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("s27js"), FILES, "express-like") as got:
        yield got


def _walk(tools, target: str, edge: str, direction: str = "out") -> list[str]:
    t, sid = tools
    return [f"{i.path}::{i.qualname}" if i.qualname else i.path
            for i in t.walk(sid, target, edges=[edge], direction=direction, page_size=50).items]


def _span(tools, target: str) -> tuple[str, str, int, int]:
    t, sid = tools
    it = t.get(sid, target, level="summary").items[0]
    return it.kind, it.qualname, it.start_line, it.end_line


def test_a_chained_assignment_defines_every_name(tools):
    assert _span(tools, "lib/response.js::res.set") == ("method", "res.set", 3, 6)
    assert _span(tools, "lib/response.js::res.header") == ("method", "res.header", 3, 6)
    assert _span(tools, "lib/response.js::res.contentType")[:2] == ("method", "res.contentType")
    assert _span(tools, "lib/response.js::res.type")[:2] == ("method", "res.type")
    # a line of the shared function is one of the two (no longer the whole file)
    assert _span(tools, "lib/response.js:5")[1] in ("res.set", "res.header")
    # this.set(...) in res.send reaches a definition; each name has the body's calls
    assert _walk(tools, "lib/response.js::res.send", "calls") == ["lib/response.js::res.set"]
    assert _walk(tools, "lib/response.js::res.header", "calls") == ["lib/response.js::res.type"]
    assert _walk(tools, "lib/response.js::res.set", "calls") == ["lib/response.js::res.type"]


def test_an_object_literals_functions_are_definitions(tools):
    assert sorted(_walk(tools, "lib/utils.js", "contains")) == ["lib/utils.js::format", "lib/utils.js::parse"]
    assert _span(tools, "lib/utils.js::parse") == ("function", "parse", 2, 2)
    # the chained form too (review r1: exports = module.exports = {...} defined nothing)
    assert sorted(_walk(tools, "lib/chain.js", "contains")) == ["lib/chain.js::close", "lib/chain.js::open"]
    assert sorted(_walk(tools, "lib/router.js", "contains")) == ["lib/router.js::Router", "lib/router.js::Router.handle"]
    assert _span(tools, "lib/router.js::Router.handle") == ("method", "Router.handle", 3, 3)   # inner: its code


def test_a_go_function_variable_is_a_function(tools):
    assert sorted(_walk(tools, "pkg/stack.go", "contains")) == [
        "pkg/stack.go::Handler", "pkg/stack.go::Limit", "pkg/stack.go::Run"]        # local: Run's code
    assert _span(tools, "pkg/stack.go::Handler") == ("function", "Handler", 4, 4)
    assert _walk(tools, "pkg/stack_test.go::TestHandler", "calls") == ["pkg/stack.go::Handler"]


def test_tests_reach_the_module_an_index_is_and_no_example_asset(tools):
    assert _walk(tools, "lib/express.js", "tests", "in") == ["test/app.js", "test/res.send.js"]
    # a test named after a definition tests the file defining it (review r1: the index never passed them)
    assert _walk(tools, "lib/response.js", "tests", "in") == ["test/res.send.js"]
    assert _walk(tools, "index.js", "tests", "in") == ["test/app.js", "test/res.send.js"]
    assert _walk(tools, "test/app.js", "tests") == ["index.js", "lib/express.js"]
    assert _walk(tools, "examples/static/public/js/app.js", "tests", "in") == []


def test_a_utils_test_no_file_imports_is_a_test(tools):
    assert _walk(tools, "lib/utils.js", "tests", "in") == ["test/utils.js"]
    assert _walk(tools, "test/utils.js", "tests") == ["lib/utils.js"]
    assert _walk(tools, "test/support/utils.js", "tests") == []                 # a helper, imported
