"""A walk over `tests` edges says how each test was linked (``by``: name, import or use), as a walk
over calls says how each call was: a probe saw every tests item with ``meta {}``, so an agent could
not tell the test named after the file from one that only imports its package."""

from __future__ import annotations

from stratum.tools import Tools
from tests.clirun import indexed_repo


def test_a_tests_walk_item_says_how_the_test_was_linked(tmp_path):
    _repo, store = indexed_repo(tmp_path / "shop", {
        "shop/__init__.py": "",
        "shop/cart.py": "def cart_total(items):\n    return sum(items)\n",
        "shop/pricing.py": "from shop.cart import cart_total\n\ndef price(items):\n    return cart_total(items)\n",
        "tests/test_cart.py": "from shop.cart import cart_total\n\ndef test_total():\n    assert cart_total([1]) == 1\n",
        "tests/test_checkout.py": "from shop.cart import cart_total\n\ndef test_checkout():\n    assert cart_total([]) == 0\n",
    })
    t = Tools.open([store])
    try:
        s = t.open_session(author="agent").data["session"]
        items = t.walk(s, "shop/cart.py", ["tests"], "in").items
        by = {it.path: it.meta.get("by") for it in items}
        assert by.get("tests/test_cart.py") == "name", [(it.path, it.meta) for it in items]
        assert by.get("tests/test_checkout.py") == "import", [(it.path, it.meta) for it in items]
        assert [it.path for it in items][0] == "tests/test_cart.py"      # the name link first
    finally:
        t.close()
