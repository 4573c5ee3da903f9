"""A search for a target as ``get`` takes it (``path::Qualified.name``, the form answers print and
agents copy) puts that node first as an exact name, as ``Cart.remove_item`` does; the path is part
of the name: a same-named definition in another file is not lifted. A probe found
``tests/test_cart.py::test_total`` 13th with no exact name."""

from __future__ import annotations

import pytest
from tests.pages import search_all

pytestmark = pytest.mark.slow

CART = '''"""Shopping cart."""


class Cart:
    """A cart of line items."""

    class Line:
        """One line of a cart."""

        def total(self):
            return self.price * self.qty

    def __init__(self):
        self.items = []

    def add_item(self, name, price, qty=1):
        self.items.append((name, price, qty))

    def remove_item(self, name):
        self.items = [i for i in self.items if i[0] != name]

    def total(self, discount=0):
        return sum(p * q for _, p, q in self.items) - discount


def total(items):
    return sum(items)
'''

TEST_CART = '''from shop.cart import Cart


def test_total():
    c = Cart()
    c.add_item("a", 10, 2)
    assert c.total() == 20


class TestCart:
    def test_remove(self):
        c = Cart()
        c.add_item("a", 10)
        c.remove_item("a")
        assert c.total() == 0
'''

TEST_ORDERS = '''from shop.cart import Cart, total


def test_total():
    assert total([1, 2]) == 3


def test_total_of_an_empty_cart():
    assert Cart().total() == 0
'''


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("targets"), {
            "shop/__init__.py": "from shop.cart import Cart\n", "shop/cart.py": CART,
            "tests/test_cart.py": TEST_CART, "tests/test_orders.py": TEST_ORDERS}, "initial shop") as got:
        yield got


def _name(it) -> str:
    return f"{it.path}::{it.qualname}" if it.qualname else it.path


def _exact(items) -> list[str]:
    return [_name(i) for i in items if "exact name" in i.why]


@pytest.mark.parametrize("target, want", [
    ("tests/test_cart.py::test_total", "tests/test_cart.py::test_total"),
    ("shop/cart.py::Cart.remove_item", "shop/cart.py::Cart.remove_item"),
    ("shop/cart.py::Cart.total", "shop/cart.py::Cart.total"),             # a method, beside Line.total and total
    ("shop/cart.py::Cart.Line.total", "shop/cart.py::Cart.Line.total"),   # a nested class's method
    ("shop/cart.py::total", "shop/cart.py::total"),
    ("./shop/cart.py::Cart.Line", "shop/cart.py::Cart.Line"),             # as get takes the path
    ("tests/test_cart.py::TestCart::test_remove", "tests/test_cart.py::TestCart.test_remove"),   # pytest's id
])
def test_a_target_is_an_exact_name_and_ranks_its_node_first(tools, target, want):
    t, s = tools
    items = t.search(s, target, page_size=10).items
    assert _name(items[0]) == want and items[0].why.startswith("exact name"), (target, items[0])
    assert _exact(items) == [want]                  # only that node: the path is part of the name
    if "::TestCart::" not in target:
        assert items[0].id == t.get(s, target, "summary").items[0].id    # the node `get` answers


def test_a_same_named_definition_in_another_file_is_not_lifted(tools):
    t, s = tools
    items = search_all(t, s, "tests/test_orders.py::test_total", 10)[0]
    assert _name(items[0]) == "tests/test_orders.py::test_total" and items[0].why.startswith("exact name")
    other = [i for i in items if _name(i) == "tests/test_cart.py::test_total"]
    assert other and "exact name" not in other[0].why


@pytest.mark.parametrize("target", [
    "tests/test_nope.py::test_total",       # a path that names no file
    "shop/cart.py::remove_item",            # a file that holds no such top-level name
])
def test_a_target_naming_no_node_lifts_nothing(tools, target):
    t, s = tools
    items = t.search(s, target, page_size=10).items
    assert items and _exact(items) == [], target


def test_a_path_with_an_empty_name_is_its_file(tools):
    t, s = tools
    assert _exact(t.search(s, "shop/cart.py::", page_size=10).items) == ["shop/cart.py"]


def test_under_a_filter_a_target_is_exact_only_where_it_passes(tools):
    t, s = tools
    assert _exact(t.search(s, "shop/cart.py::Cart.total", kinds=["function"], page_size=10).items) == []
    items = t.search(s, "shop/cart.py::Cart.total", kinds=["method"], page_size=10).items
    assert _name(items[0]) == "shop/cart.py::Cart.total" and items[0].why.startswith("exact name")


@pytest.mark.parametrize("module, want", [("shop.cart", "shop/cart.py")])
def test_a_dotted_module_name_is_its_file(tools, module, want):
    """As an import writes it: `shop.cart` led with the class Cart, and a module with no same-named
    definition (`flask.helpers`) found no file (a probe)."""
    t, s = tools
    first = t.search(s, module, page_size=5).items[0]
    assert (first.kind, first.path) == ("file", want) and first.why.startswith("exact name"), (module, first)
