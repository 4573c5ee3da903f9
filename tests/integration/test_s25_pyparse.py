"""Python structure a user could not see right (session 25, h5), through the real index job and
the real Tools:

- a name bound to a lambda through a chain (``to_cents = cents = lambda x: ...``) or a tuple
  (``add, scale = helper, lambda v: ...``, ``(low, high) = (lambda a: ..., lambda b: ...)``) was
  no node, where the single form (``single = lambda x: ...``) is a function: ``get`` said "no
  node", the outline left them out and their callers and callees linked nowhere;
- an import in a function's body counted for the whole module: another function's ``clamp()``
  linked to what one function imports for itself (it was the nearest import above), a call of a
  name only a function imports linked through that import (or as the one definition of that
  name among the files the module imports), and a module reading ``jobs.clamp``
  off ``jobs`` got the function's ``clamp``, not the one ``jobs`` imports at its top.
"""

from __future__ import annotations

import pytest

from stratum.errors import NotFound

pytestmark = pytest.mark.slow

PRICING = (
    '"""Pricing rules."""\n'
    "\n"
    "\n"
    "def helper(x):\n"
    "    return x\n"                                                # 5
    "\n"
    "\n"
    "single = lambda x: helper(x)\n"                                # 8
    "to_cents = cents = lambda x: helper(x) * 100\n"                # 9
    "add, scale = helper, lambda v: helper(v)\n"                    # 10
    "(low, high) = (lambda a: a, lambda b: helper(b))\n"            # 11
    "first, *rest = lambda: 1, 2\n"                                 # 12: starred: not paired
    "\n"
    "\n"
    "class Sorter:\n"                                               # 15
    "    key = rank = lambda self, v: v.rank\n"                     # 16
    "\n"
    "    def order(self, items):\n"
    "        return sorted(items, key=lambda i: self.rank(i))\n"
)

TEST_PRICING = (
    "from shop.pricing import cents, high, scale, to_cents\n"
    "\n"
    "\n"
    "def test_cents():\n"
    "    assert to_cents(1) == cents(1) == scale(100) == high(100)\n"
)

JOBS = (
    "from other.nums import clamp\n"                                # 1: the module's clamp
    "\n"
    "\n"
    "def dump(x):\n"
    "    from util import fmt\n"                                    # 5: dump's own
    "    from util.nums import clamp\n"
    "    from util.fmt import loads\n"
    "\n"
    "    def inner():\n"
    "        return loads(x)\n"                                     # 10
    "    return fmt.dumps(clamp(x)), inner\n"
    "\n"
    "\n"
    "def later(x):\n"
    "    return fmt.loads(clamp(x)) + loads(x)\n"                   # 15
)

USER = (
    "import jobs\n"
    "from jobs import clamp\n"
    "\n"
    "\n"
    "def run():\n"
    "    return jobs.clamp(1) + clamp(2)\n"
)

FILES = {
    "shop/__init__.py": "",
    "shop/pricing.py": PRICING,
    "tests/test_pricing.py": TEST_PRICING,
    "util/__init__.py": "",
    "util/fmt.py": "def dumps(x):\n    return x\n\n\ndef loads(x):\n    return x\n",
    "util/nums.py": "def clamp(x):\n    return x\n",
    "other/__init__.py": "",
    "other/nums.py": "def clamp(x):\n    return -x\n",
    "other/codec.py": "def loads(x):\n    return x\n",          # a second loads: no unique name
    "jobs.py": JOBS,
    "user.py": USER,
    # a package whose __init__ imports only inside a function: no re-export of `run`
    "kit/__init__.py": "def setup():\n    from .impl import run\n    return run()\n",
    "kit/impl.py": "def run():\n    return 1\n",
    "kituser.py": "from kit import run\n\n\ndef go():\n    return run()\n",
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    from tests.clirun import NO_EMBED
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("pyparse"), FILES, "all", NO_EMBED) as got:
        yield got


def _get(repo, target: str, level: str = "summary"):
    t, sid = repo
    return t.get(sid, target, level=level).items[0]


def _walk(repo, target: str, direction: str = "out") -> list[str]:
    t, sid = repo
    return sorted(f"{i.path}::{i.qualname}" for i in t.walk(sid, target, edges=["calls"], direction=direction).items)


def test_each_name_a_chain_binds_to_a_lambda_is_a_function_like_the_single_form(repo):
    single = _get(repo, "shop/pricing.py::single", "api")
    assert (single.kind, single.start_line, single.end_line, single.text) == ("function", 8, 8, "single = lambda x")
    for name in ("to_cents", "cents"):
        got = _get(repo, f"shop/pricing.py::{name}", "api")
        assert (got.kind, got.qualname, got.start_line, got.end_line) == ("function", name, 9, 9)
        assert got.text == f"{name} = lambda x"                 # its own name and lambda (s25 g2)
        assert _get(repo, f"shop/pricing.py::{name}").text == f"lambda {name}: {name} = lambda x"
        assert _get(repo, f"shop/pricing.py::{name}", "full").text == "to_cents = cents = lambda x: helper(x) * 100"
    for name in ("key", "rank"):            # in a class body: methods, as `key = lambda self, v: ...` is
        got = _get(repo, f"shop/pricing.py::Sorter.{name}", "api")
        assert (got.kind, got.start_line) == ("method", 16)
    t, sid = repo
    members = [i.qualname for i in t.walk(sid, "shop/pricing.py::Sorter", edges=["contains"]).items]
    assert members == ["Sorter.key", "Sorter.rank", "Sorter.order"]


def test_a_tuple_pairs_names_with_lambdas_element_by_element(repo):
    t, sid = repo
    for name, line in (("scale", 10), ("low", 11), ("high", 11)):
        got = _get(repo, f"shop/pricing.py::{name}", "api")
        assert (got.kind, got.start_line, got.end_line) == ("function", line, line)
        assert name in got.text
    assert _get(repo, "shop/pricing.py::scale", "api").text == "scale = lambda v"
    assert _get(repo, "shop/pricing.py::high", "api").text == "high = lambda b"    # not low's lambda too
    assert _get(repo, "shop/pricing.py:10").qualname == "scale"           # was the file
    for none in ("add", "first", "rest"):       # bound to a function's name; a starred pairing
        with pytest.raises(NotFound):
            t.get(sid, f"shop/pricing.py::{none}")
    outline = _get(repo, "shop/pricing.py", "api").text
    assert outline.index("\nsingle = lambda x\n") < outline.index("\nscale = lambda v\n") \
        < outline.index("\nlow = lambda a\nhigh = lambda b\n") < outline.index("\nclass Sorter")
    lines = outline.splitlines()            # each name of a chain once (the chain was there twice)
    assert lines.count("to_cents = lambda x") == lines.count("cents = lambda x") == 1
    assert sum("to_cents" in x for x in lines) == 1


def test_calls_in_and_out_of_chained_and_tuple_lambdas_link(repo):
    # each lambda's own calls: `low`'s lambda calls nothing, `high`'s calls helper
    assert _walk(repo, "shop/pricing.py::high") == ["shop/pricing.py::helper"]
    assert _walk(repo, "shop/pricing.py::low") == []
    assert _walk(repo, "shop/pricing.py::to_cents") == _walk(repo, "shop/pricing.py::cents") == \
        ["shop/pricing.py::helper"]
    assert _walk(repo, "shop/pricing.py::helper", "in") == [
        "shop/pricing.py::cents", "shop/pricing.py::high", "shop/pricing.py::scale", "shop/pricing.py::single",
        "shop/pricing.py::to_cents"]
    for name in ("to_cents", "cents", "scale", "high"):
        assert _walk(repo, f"shop/pricing.py::{name}", "in") == ["tests/test_pricing.py::test_cents"]
    assert _walk(repo, "shop/pricing.py::Sorter.rank", "in") == ["shop/pricing.py::Sorter.order"]


def test_a_functions_own_import_is_seen_in_that_function_only(repo):
    # dump's own imports serve dump (and its nested inner)
    assert _walk(repo, "jobs.py::dump") == ["util/fmt.py::dumps", "util/fmt.py::loads", "util/nums.py::clamp"]
    # later's clamp is the module's (it was dump's: the import nearest above); its fmt and loads
    # are nobody's (they were dump's, and loads then the one loads among the files jobs imports)
    assert _walk(repo, "jobs.py::later") == ["other/nums.py::clamp"]


def test_a_module_attribute_is_what_the_module_imports_at_its_top(repo):
    # jobs.clamp and `from jobs import clamp` are other.nums' clamp, not the one dump imports
    assert _walk(repo, "user.py::run") == ["other/nums.py::clamp"]


def test_a_package_init_s_function_local_import_is_no_re_export(repo):
    # `from kit import run` linked through kit/__init__'s `def setup(): from .impl import run` to
    # kit/impl.py::run, and kituser.py imported kit/impl.py through it
    assert _walk(repo, "kit/__init__.py::setup") == ["kit/impl.py::run"]
    assert _walk(repo, "kituser.py::go") == []
    t, sid = repo
    imported = sorted(i.path for i in t.walk(sid, "kituser.py", edges=["imports"]).items)
    assert imported == ["kit/__init__.py"], imported
