"""Java calls as a user walks them, on a real repository through the real index job:

- a call of an overloaded method links to the overload its arguments fit: by their count
  (``add(item)`` vs ``add(item, 3)``), then by the types the syntax says (``3`` is no String,
  ``Foo.class`` is a Class before a Type, an outside ``List`` is no repository ``Node``); where
  several still fit, to each, ``how`` saying ``one of N overloads`` (every call went to the first
  overload: gson's ``toJson#2..#8`` had no callers);
- a method a static import binds (``import static com.shop.util.Money.round``, ``...Money.*``) is
  called by its bare name;
- a name an outside import binds (``import java.util.Collections``) is never the repository's
  (``Collections.sort(items)`` was ``Cart.sort``, the one ``sort`` in reach).
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

J = "src/main/java/com/shop/"
FILES = {
    J + "Cart.java": (
        "package com.shop;\n\nimport java.util.ArrayList;\nimport java.util.Collections;\nimport java.util.List;\n"
        "import static com.shop.util.Money.round;\n\n"
        "public class Cart {\n  private final List<Item> items = new ArrayList<>();\n\n"
        "  public void add(Item item) {\n    items.add(item);\n  }\n\n"
        "  public void add(Item item, String coupon) {\n    add(item);\n  }\n\n"
        "  public void add(Item item, int n) {\n    for (int i = 0; i < n; i++) {\n      add(item);\n    }\n  }\n\n"
        "  public double total() {\n    Collections.sort(items);\n    return round(2.0);\n  }\n\n"
        "  static void sort(List<Item> l) {\n  }\n\n"
        "  public static class Item {\n    public Item(double price) {\n    }\n  }\n}\n"),
    J + "Checkout.java": (
        "package com.shop;\n\nimport static com.shop.util.Money.*;\n\n"
        "public class Checkout {\n  public double pay() {\n    Cart c = new Cart();\n"
        "    c.add(new Cart.Item(2.0), 3);\n    c.add(new Cart.Item(1.0), \"SAVE\");\n"
        "    return cents(2);\n  }\n\n"
        "  void guess(Cart c) {\n    c.add(item(), code());\n  }\n\n"
        "  Cart.Item item() {\n    return null;\n  }\n\n  Object code() {\n    return null;\n  }\n}\n"),
    J + "util/Money.java": (
        "package com.shop.util;\n\npublic final class Money {\n"
        "  public static double round(double v) {\n    return v;\n  }\n\n"
        "  public static long cents(int v) {\n    return v;\n  }\n}\n"),
    J + "json/Node.java": "package com.shop.json;\n\npublic class Node {\n}\n",
    J + "json/Codec.java": (
        "package com.shop.json;\n\nimport java.io.Reader;\nimport java.lang.reflect.Type;\nimport java.util.List;\n\n"
        "public class Codec {\n"
        "  public <T> T fromJson(String json, Class<T> c) {\n    return null;\n  }\n\n"
        "  public <T> T fromJson(Reader json, Class<T> c) {\n    return null;\n  }\n\n"
        "  public <T> T fromJson(String json, Type t) {\n    return null;\n  }\n\n"
        "  public String toJson(Object o) {\n    return \"\";\n  }\n\n"
        "  public String toJson(Node n) {\n    return \"\";\n  }\n\n"
        "  void use(List<String> list, Node node) {\n    fromJson(\"{}\", Node.class);\n"
        "    toJson(list);\n    toJson(node);\n  }\n}\n"),
    "src/test/java/com/shop/CartTest.java": (
        "package com.shop;\n\nimport static org.junit.Assert.assertEquals;\n\nimport org.junit.Test;\n\n"
        "public class CartTest {\n  @Test\n  public void totalRounds() {\n    Cart cart = new Cart();\n"
        "    cart.add(new Cart.Item(1.005));\n    assertEquals(1.0, cart.total(), 0.01);\n  }\n}\n"),
}


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.clirun import session_over

    with session_over(tmp_path_factory.mktemp("links22bjava") / "repo", FILES) as opened:
        yield opened


def _walk(tools, target: str, direction: str = "out") -> dict[str, str]:
    t, sid = tools
    return {f"{i.path.rsplit('/', 1)[-1]}::{i.qualname}": i.meta["how"]
            for i in t.walk(sid, target, edges=["calls"], direction=direction).items}


def test_a_call_links_to_the_overload_its_arguments_fit(tools):
    assert _walk(tools, J + "Cart.java::Cart.add", "in") == {
        "Cart.java::Cart.add#2": "own class, by argument count",
        "Cart.java::Cart.add#3": "own class, by argument count",
        "CartTest.java::CartTest.totalRounds": "variable's class, by argument count"}
    # add(item, 3) and add(item, "SAVE"): two arguments each, told apart by their types
    for overload in ("Cart.add#2", "Cart.add#3"):
        assert _walk(tools, f"{J}Cart.java::{overload}", "in") == {
            "Checkout.java::Checkout.pay": "variable's class, by argument types",
            "Checkout.java::Checkout.guess": "variable's class, one of 2 overloads"}


def test_overloads_the_arguments_do_not_tell_apart_are_each_linked_as_such(tools):
    # c.add(item(), code()): an Item and an Object (what the calls return is not read), so
    # add(Item, String) or add(Item, int) is not known: both, and the edge says so
    got = _walk(tools, J + "Checkout.java::Checkout.guess")
    assert {k: v for k, v in got.items() if "Cart.add" in k} == {
        "Cart.java::Cart.add#2": "variable's class, one of 2 overloads",
        "Cart.java::Cart.add#3": "variable's class, one of 2 overloads"}


def test_argument_types_pick_the_most_specific_overload(tools):
    assert _walk(tools, J + "json/Codec.java::Codec.use") == {
        "Codec.java::Codec.fromJson": "own class, by argument types",     # "{}", Node.class: (String, Class)
        "Codec.java::Codec.toJson": "own class, by argument types",       # an outside List is no Node
        "Codec.java::Codec.toJson#2": "own class, by argument types",     # a Node: toJson(Node)
    }


def test_a_static_import_binds_its_method(tools):
    assert _walk(tools, J + "Cart.java::Cart.total") == {"Money.java::Money.round": "imported name"}
    assert _walk(tools, J + "Checkout.java::Checkout.pay")["Money.java::Money.cents"] == "imported name"


def test_a_name_an_outside_import_binds_is_not_the_repositorys(tools):
    # Collections.sort(items): java.util's, not Cart.sort; assertEquals: junit's
    assert "Cart.java::Cart.sort" not in _walk(tools, J + "Cart.java::Cart.total")
    assert _walk(tools, J + "Cart.java::Cart.sort", "in") == {}


def test_a_python_function_named_arity_is_no_overload_record(tmp_path):
    """A scale probe's crash: the overload table tested a node's meta for the text ``"arity"``, which
    a call list naming a function ``arity`` also holds (KeyError: 'arity' for all of sympy)."""
    from tests.clirun import session_over

    with session_over(tmp_path / "r", {"m.py": "def arity(f):\n    return 1\n\n\ndef use(g):\n    return arity(g)\n"}) as (t, s):
        assert [i.name for i in t.walk(s, "m.py::use", ["calls"], "out").items] == ["arity"]
