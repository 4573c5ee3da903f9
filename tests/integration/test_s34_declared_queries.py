"""A query written as a definition's head finds that definition (a scale probe on sympy):
``def simplify`` and ``def simplify(expr`` lost ``simplify.py::simplify`` (not on the page:
``nc_simplify`` and ``test_simplify_*`` instead), ``class Flask`` had flask's class outside its
first three (a docs page holding the phrase "class Flask" first). An agent types what it saw; the
plain word alone reads as prose and keeps its ranking. Real git repository, real index."""

from __future__ import annotations

import pytest

from stratum.codetokens import declared_name
from tests.gitrepo import indexed_tools

FILES = {
    "algebra/simplify.py": 'def simplify(expr):\n    """Return a simpler form of expr."""\n    return expr\n',
    "algebra/noncommutative.py": "".join(
        f'def nc_simplify_{i}(expr):\n    """Simplify a non-commutative expression: simplify the words, simplify '
        f'the powers, simplify step {i}."""\n    return expr\n\n\n' for i in range(12)),
    "tests/test_simplify.py": "".join(
        f'def test_simplify_{i}():\n    """simplify must simplify case {i}: simplify(x) is x."""\n    assert True\n\n\n'
        for i in range(20)),
    "engine/core.py": 'class Engine:\n    """Run the rules."""\n\n    def run(self):\n        return 1\n',
    "docs/engine.md": "# Writing rules\n\nSubclass it: `class Engine` is the base of every rule engine, and a "
                      "class Engine subclass overrides run.\n",
}


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    with indexed_tools(tmp_path_factory.mktemp("declared"), FILES) as got:
        yield got


def _top(t, sid, q, n=1):
    return [f"{i.path}::{i.qualname}" for i in t.search(sid, q, page_size=10).items[:n]]


@pytest.mark.parametrize("query", ["def simplify", "def simplify(expr", "def simplify(expr):"])
def test_a_def_head_finds_its_function_first(shop, query):
    t, sid = shop
    assert _top(t, sid, query) == ["algebra/simplify.py::simplify"]


def test_a_class_head_finds_its_class_first(shop):
    t, sid = shop
    assert _top(t, sid, "class Engine") == ["engine/core.py::Engine"]


def test_the_declared_name_is_read_from_heads_only():
    assert declared_name("async def send(self") == "send"
    assert declared_name("func (c *Command) Find(args []string)") == "Find"
    assert declared_name("fn main()") == "main"
    assert declared_name("simplify") is None and declared_name("how to simplify an expression") is None
    assert declared_name("class of problems with simplify") is None
    for prose in ("type hints", "class hierarchy", "function overloading", "enum values", "struct padding",
                  "interface segregation"):
        assert declared_name(prose) is None, prose
    assert declared_name("class Config(dict)") == "Config" and declared_name("type user_id") == "user_id"
    assert declared_name("struct Command") == "Command" and declared_name("def simplify") == "simplify"
