"""Python definitions a user could not reach (probe p8 of session 23), as get, walk and search
show them on a real repository through the real index job:

- a name bound to a lambda (``to_cents = lambda x: ...``; ``key = lambda self, v: ...`` in a class)
  was no node: ``get pricing.py::to_cents`` said "no node", the file's outline left it out, a
  test's call of it linked nowhere and ``search to_cents`` found nothing;
- ``@overload`` stubs were dropped, so a stub's line (``get pricing.py:17``) gave the whole file
  and the api lost the typed signatures: the implementation's node now starts at its first stub.

A JavaScript arrow function bound to a ``const`` stays the function node it was.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

PRICING = (
    '"""Pricing rules."""\n'
    "from typing import Callable, overload\n"
    "\n"
    "\n"
    "@overload\n"                                                  # 5
    "def discount(x: int) -> int: ...\n"
    "@overload\n"
    "def discount(x: float) -> float: ...\n"
    "def discount(x):\n"
    '    """Apply the discount."""\n'                              # 10
    "    return x * 0.9\n"
    "\n"
    "\n"
    "to_cents = lambda x: int(x * 100)\n"                          # 14
    "scale: Callable[[int], int] = lambda v: to_cents(v)\n"
    "\n"
    "\n"
    "class Sorter:\n"                                              # 18
    "    key = lambda self, v: v.rank\n"
    "\n"
    "    def order(self, items):\n"
    "        return sorted(items, key=lambda i: self.key(i))\n"   # 22: a lambda in a body: no node
)

TEST_PRICING = (
    "from shop.pricing import to_cents\n"
    "\n"
    "\n"
    "def test_cents():\n"
    "    assert to_cents(1) == 100\n"
)

FILES = {
    "shop/__init__.py": "",
    "shop/pricing.py": PRICING,
    "tests/test_pricing.py": TEST_PRICING,
    "web/fmt.js": "/** Double it. */\nconst double = (x) => x * 2;\n\nmodule.exports = { double };\n",
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    from pipeline.job import index_repository
    from stratum.tools import Tools
    from tests.clirun import NO_EMBED
    from tests.gitrepo import Repo

    base = tmp_path_factory.mktemp("pydefs")
    r = Repo(base / "repo")
    r.commit("all", FILES)
    index_repository(r.path, base / "store", NO_EMBED)
    t = Tools.open([str(base / "store")])
    try:
        yield t, t.open_session(author="agent").data["session"]
    finally:
        t.close()


def _get(repo, target: str, level: str = "summary"):
    t, sid = repo
    return t.get(sid, target, level=level).items[0]


def test_a_name_bound_to_a_lambda_is_a_function_node(repo):
    got = _get(repo, "shop/pricing.py::to_cents", "api")
    assert (got.kind, got.qualname, got.start_line, got.end_line) == ("function", "to_cents", 14, 14)
    assert got.text == "to_cents = lambda x"
    assert _get(repo, "shop/pricing.py::to_cents").text == "lambda to_cents: to_cents = lambda x"
    assert _get(repo, "shop/pricing.py::scale", "api").text == "scale: Callable[[int], int] = lambda v"
    assert _get(repo, "shop/pricing.py:14").qualname == "to_cents"            # was the file
    outline = _get(repo, "shop/pricing.py", "api").text
    assert "\nto_cents = lambda x\nscale: Callable[[int], int] = lambda v\nclass Sorter" in outline


def test_a_lambda_a_class_attribute_holds_is_a_method_and_one_in_a_body_is_not(repo):
    t, sid = repo
    key = _get(repo, "shop/pricing.py::Sorter.key", "api")
    assert (key.kind, key.text, key.start_line) == ("method", "key = lambda self, v", 19)
    assert _get(repo, "shop/pricing.py::Sorter", "api").text == \
        "class Sorter\n    key = lambda self, v\n    def order(self, items)"
    assert _get(repo, "shop/pricing.py:22").qualname == "Sorter.order"
    members = [i.qualname for i in t.walk(sid, "shop/pricing.py::Sorter", edges=["contains"]).items]
    assert members == ["Sorter.key", "Sorter.order"]


def test_calls_of_a_lambda_link_and_search_finds_it(repo):
    t, sid = repo
    callers = {f"{i.path}::{i.qualname}" for i in
               t.walk(sid, "shop/pricing.py::to_cents", edges=["calls"], direction="in").items}
    assert callers == {"tests/test_pricing.py::test_cents", "shop/pricing.py::scale"}
    key_callers = t.walk(sid, "shop/pricing.py::Sorter.key", edges=["calls"], direction="in").items
    assert [i.qualname for i in key_callers] == ["Sorter.order"]        # self.key(i), in order's own lambda
    found = t.search(sid, "to_cents", page_size=3).items
    assert f"{found[0].path}::{found[0].qualname}" == "shop/pricing.py::to_cents"


def test_overload_stubs_are_their_implementations_first_lines(repo):
    impl = _get(repo, "shop/pricing.py::discount", "full")
    assert (impl.start_line, impl.end_line) == (5, 11)
    assert impl.text.startswith("@overload\ndef discount(x: int) -> int: ...\n@overload\n")
    for line in (5, 6, 8, 9):
        assert _get(repo, f"shop/pricing.py:{line}").qualname == "discount"     # 6 and 8 were the file
    api = _get(repo, "shop/pricing.py::discount", "api").text
    assert api == ("@overload def discount(x: int) -> int\n@overload def discount(x: float) -> float\n"
                   "def discount(x)\n    Apply the discount.")
    assert _get(repo, "shop/pricing.py::discount").text == \
        "function discount: def discount(x) \u2014 Apply the discount."
    assert "\n@overload def discount(x: int) -> int\n@overload def discount(x: float) -> float\n" \
        "def discount(x)\n    Apply the discount.\n" in _get(repo, "shop/pricing.py", "api").text


def test_a_js_arrow_function_const_stays_a_function_node(repo):
    got = _get(repo, "web/fmt.js::double")
    assert (got.kind, got.text) == ("function", "function double: const double = (x) \u2014 Double it.")
