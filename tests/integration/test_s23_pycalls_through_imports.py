"""Python calls through a module's own imports, walked as a user walks them (``pipeline.calls``),
on a real repository through the real index job:

- the most common refactor, a function moved out with an import left in its old module
  (``pricing.py``: ``from ..util.helpers import round_price``): ``from shop.core.pricing import
  round_price`` + ``round_price()``, ``from shop.core import pricing as P`` + ``P.round_price()``
  and ``pricing.round_price()`` still reach the function (only a package ``__init__``'s imports
  were followed; with a second ``round_price`` in the repository no fallback found it either);
  an alias (``fmt as format_price``) and a class imported back (``Money.of()``) likewise;
- a chained package attribute, ``core.pricing.discount()`` with ``from shop import core``, and
  ``shop.core.pricing.discount()`` with ``import shop`` (a package's submodule);
- a call through ``cls`` reads ``as cls.helper`` (was ``self.helper``), linked as before.
"""

from __future__ import annotations

import pytest
from stratum.config import default_store_path

pytestmark = pytest.mark.slow

BEFORE = {
    "shop/__init__.py": "",
    "shop/util/__init__.py": "",
    "shop/util/helpers.py": "def log(msg):\n    print(msg)\n",
    "shop/core/__init__.py": "from . import pricing\n",
    "shop/core/pricing.py": (
        "def round_price(x):\n    return int(x)\n\n\n"
        "def discount(x):\n    return round_price(x * 0.9)\n"),
    "shop/core/cart.py": (
        "from . import pricing\n\n\nclass Cart:\n    def total(self):\n"
        "        return pricing.round_price(3)\n"),
    # a second round_price: no unique-name rule can pick helpers.py's
    "shop/plugins/lazy_mod.py": "def round_price(v):\n    return v\n",
}

MOVED = {
    "shop/util/helpers.py": (
        "def log(msg):\n    print(msg)\n\n\n"
        "def round_price(x):\n    return int(x)\n\n\n"
        "def fmt(x):\n    return f'{x:.2f}'\n\n\n"
        "class Money:\n    @classmethod\n    def of(cls, x):\n        return cls.norm(x)\n\n"
        "    @classmethod\n    def norm(cls, x):\n        return x\n"),
    "shop/core/pricing.py": (
        "from ..util.helpers import round_price, Money\n"
        "from ..util.helpers import fmt as format_price\n\n\n"
        "def discount(x):\n    return round_price(x * 0.9)\n"),
    "shop/compat.py": (
        "from shop.core.pricing import round_price, Money\n"
        "from shop.core import pricing as P\n\n\n"
        "def a():\n    return round_price(1)\n\n\n"
        "def b():\n    return P.round_price(2)\n\n\n"
        "def c():\n    return P.format_price(2)\n\n\n"
        "def d():\n    return Money.of(1)\n"),
    "shop/more.py": (
        "import shop\nfrom shop import core\n\n\n"
        "def user():\n    return core.pricing.discount(1)\n\n\n"
        "def deep():\n    return shop.core.pricing.discount(2)\n\n\n"
        "def missing():\n    return core.pricing.nothing_here(3) + P.round_price(4)\n"),
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    """The repository indexed before the move, then again (incrementally) after it."""
    from pipeline.job import index_repository
    from stratum.tools import Tools
    from tests.clirun import NO_EMBED
    from tests.gitrepo import Repo

    r = Repo(tmp_path_factory.mktemp("s23pycalls") / "repo")
    r.commit("init", BEFORE)
    index_repository(r.path, None, NO_EMBED)
    r.commit("move round_price to util.helpers, keep an import", MOVED)
    index_repository(r.path, None, NO_EMBED)
    t = Tools.open([str(default_store_path(r.path))])
    try:
        yield t, t.open_session(author="agent").data["session"]
    finally:
        t.close()


def _walk(tools, target: str, direction: str = "out") -> dict[str, tuple[str, str]]:
    t, sid = tools
    return {f"{i.path}::{i.qualname}": (i.meta["as"], i.meta["how"])
            for i in t.walk(sid, target, edges=["calls"], direction=direction).items}


def test_a_moved_function_is_still_called_through_its_old_module(tools):
    helper = "shop/util/helpers.py::round_price"
    assert _walk(tools, "shop/core/cart.py::Cart.total") == {helper: ("pricing.round_price", "imported module")}
    assert _walk(tools, "shop/compat.py::a") == {helper: ("round_price", "imported name")}
    assert _walk(tools, "shop/compat.py::b") == {helper: ("P.round_price", "imported module")}
    # who calls it: every caller, through whichever import it wrote
    assert set(_walk(tools, helper, "in")) == {"shop/core/cart.py::Cart.total", "shop/compat.py::a",
                                                "shop/compat.py::b", "shop/core/pricing.py::discount"}


def test_an_alias_and_a_class_imported_back_are_followed(tools):
    assert _walk(tools, "shop/compat.py::c") == {"shop/util/helpers.py::fmt": ("P.format_price", "imported module")}
    assert _walk(tools, "shop/compat.py::d") == {"shop/util/helpers.py::Money.of": ("Money.of", "imported module")}


def test_a_chained_package_attribute_reaches_the_module_function(tools):
    discount = "shop/core/pricing.py::discount"
    assert _walk(tools, "shop/more.py::user") == {discount: ("core.pricing.discount", "imported module")}
    assert _walk(tools, "shop/more.py::deep") == {discount: ("shop.core.pricing.discount", "imported module")}
    # a name the module neither defines nor imports, and a receiver nothing binds: no edge
    assert _walk(tools, "shop/more.py::missing") == {}


def test_a_call_through_cls_says_cls(tools):
    assert _walk(tools, "shop/util/helpers.py::Money.of") == {
        "shop/util/helpers.py::Money.norm": ("cls.norm", "own class")}
