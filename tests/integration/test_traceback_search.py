"""A traceback pasted into search leads to the code its frames name, on a real git repository
indexed by the real pipeline (stratum.tracebacks): the innermost frame's function first, an
installed copy's path matched to the repository's file, the standard library left out, and a
frame whose line moved since (another version) found by its function's name."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

CART = '''"""The shopping cart."""

from shop.prices import unit_price


class Cart:
    """Items a customer intends to buy."""

    def __init__(self):
        self.lines = []

    def add(self, sku: str, qty: int = 1) -> None:
        """Add QTY of SKU to the cart."""
        self.lines.append((sku, qty))

    def total(self) -> float:
        """The sum of the line prices."""
        return sum(unit_price(s) * q for s, q in self.lines)
'''

PRICES = '''"""Unit prices."""

PRICES = {"apple": 0.5}


def unit_price(sku: str) -> float:
    """The unit price of SKU in euros."""
    return PRICES[sku]
'''

JSONPKG = '''"""JSON helpers of the shop."""


def dumps(obj) -> str:
    """Serialise OBJ with the shop's defaults."""
    import json
    return json.dumps(obj)
'''

TOTAL_LINE = CART.splitlines().index("        return sum(unit_price(s) * q for s, q in self.lines)") + 1
PRICE_LINE = PRICES.splitlines().index("    return PRICES[sku]") + 1
ADD_LINE = CART.splitlines().index("        self.lines.append((sku, qty))") + 1

TRACE = f'''Traceback (most recent call last):
  File "/srv/app/venv/lib/python3.11/site-packages/shop/cart.py", line {TOTAL_LINE}, in total
    return sum(unit_price(s) * q for s, q in self.lines)
  File "/usr/lib/python3.11/json/__init__.py", line 231, in dumps
  File "/srv/app/venv/lib/python3.11/site-packages/shop/prices.py", line {PRICE_LINE}, in unit_price
    return PRICES[sku]
KeyError: 'pear'
'''


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("trace"), {
            "src/shop/__init__.py": "", "src/shop/cart.py": CART, "src/shop/prices.py": PRICES,
            "src/shop/json/__init__.py": JSONPKG, "README.md": "# shop\n"}, "initial shop") as got:
        yield got


def _name(it) -> str:
    return f"{it.path}::{it.qualname}" if it.qualname else it.path


def test_the_frames_come_first_innermost_first_with_their_place(tools):
    t, s = tools
    items = t.search(s, TRACE, page_size=5).items
    assert [_name(i) for i in items[:2]] == ["src/shop/prices.py::unit_price", "src/shop/cart.py::Cart.total"]
    assert items[0].why.startswith(f"traceback frame: src/shop/prices.py:{PRICE_LINE} in unit_price")
    assert items[1].why.startswith(f"traceback frame: src/shop/cart.py:{TOTAL_LINE} in total")
    # the standard library's json/__init__.py is not the shop's json package
    assert not any("traceback frame" in i.why for i in items[2:])


def test_a_frame_from_another_version_is_found_by_its_functions_name(tools):
    t, s = tools
    moved = f'File "/opt/venv/lib/python3.11/site-packages/shop/cart.py", line {ADD_LINE}, in total\nKeyError'
    items = t.search(s, moved, page_size=3).items
    assert _name(items[0]) == "src/shop/cart.py::Cart.total"
    assert items[0].why.startswith(f"traceback frame: src/shop/cart.py:{ADD_LINE} in total")


def test_a_checkout_path_and_a_bare_place_name_their_definitions(tools):
    t, s = tools
    q = f"/home/me/work/shop/src/shop/prices.py:{PRICE_LINE}: KeyError in the price lookup"
    items = t.search(s, q, page_size=3).items
    assert _name(items[0]) == "src/shop/prices.py::unit_price"
    # a frame of a file the index does not hold lifts nothing
    other = t.search(s, "price lookup KeyError\nlib/other.py:3: in f", page_size=5).items
    assert not any("traceback frame" in i.why for i in other)


def test_get_takes_a_path_as_the_traceback_printed_it(tools):
    from stratum.errors import NotFound

    t, s = tools
    it = t.get(s, f"/srv/app/venv/lib/python3.11/site-packages/shop/prices.py:{PRICE_LINE}", "api").items[0]
    assert (it.path, it.qualname) == ("src/shop/prices.py", "unit_price")
    assert t.get(s, "/home/me/work/shop/src/shop/cart.py", "summary").items[0].path == "src/shop/cart.py"
    with pytest.raises(NotFound):           # the standard library's json is not the shop's json package
        t.get(s, "/usr/lib/python3.11/json/__init__.py", "summary")


def test_the_path_tails_do_not_keep_a_released_shard_alive(tools):
    """A shard's tails are cached per shard (weakly, so an old version is freed after a reload): they
    must hold no reference to the shard itself, or the cache would keep every version ever read."""
    import gc
    import weakref

    from stratum.shard import Shard
    from stratum.store import Store
    from stratum.pathtails import tails

    t, _ = tools
    sh = Shard(Store(next(iter(t.memory)).store.root))
    assert tails(sh).row_of("/srv/venv/lib/python3.11/site-packages/shop/prices.py") is not None
    gone = weakref.ref(sh)
    del sh
    gc.collect()
    assert gone() is None


def test_a_whole_pytest_failure_longer_than_a_query_is_read(tools):
    """An agent pastes the whole failure pytest printed (often 3-10 KB, over the 2,000 characters a
    query may hold): its frames still lead, and a long text that is no traceback is still refused."""
    from stratum.errors import InvalidArgument
    from stratum.limits import MAX_QUERY_CHARS

    t, s = tools
    noise = "".join(f'  File "/usr/lib/python3.11/unittest/case.py", line {100 + i}, in run\n'
                    f"    result = self._outcome.run(testMethod, self, {'x' * 40})\n" for i in range(30))
    failure = ("=" * 30 + " FAILURES " + "=" * 30 + "\n" + noise + TRACE + "\n-- captured log --\n" + "debug line\n" * 50)
    assert len(failure) > 2 * MAX_QUERY_CHARS
    items = t.search(s, failure, page_size=5).items
    assert [_name(i) for i in items[:2]] == ["src/shop/prices.py::unit_price", "src/shop/cart.py::Cart.total"]
    assert items[0].why.startswith("traceback frame: src/shop/prices.py")
    with pytest.raises(InvalidArgument, match=f"the limit is {MAX_QUERY_CHARS}"):
        t.search(s, "price of a pear " * 200)


def test_under_a_filter_the_frames_that_pass_it_lead(tools):
    t, s = tools
    items = t.search(s, TRACE, path_prefix="src/shop/cart", page_size=3).items
    assert _name(items[0]) == "src/shop/cart.py::Cart.total" and items[0].why.startswith("traceback frame:")
    assert all(i.path.startswith("src/shop/cart") for i in items)
    fns = t.search(s, TRACE, kinds=["function"], page_size=3).items      # unit_price is a function, total a method
    assert _name(fns[0]) == "src/shop/prices.py::unit_price" and fns[0].why.startswith("traceback frame:")
    assert all(i.kind == "function" for i in fns)
    assert t.search(s, TRACE, language="python", page_size=1).items[0].why.startswith("traceback frame:")
    from stratum.errors import InvalidArgument
    with pytest.raises(InvalidArgument, match="no code in language"):     # no frame slips past the filter
        t.search(s, TRACE, language="javascript")


def test_a_definition_a_shown_line_calls_follows_the_frames(tools):
    """unit_price returned None and left the stack; the frame where the value blew up shows the
    line that called it: it comes right after the frames, saying so."""
    t, s = tools
    trace = ("Traceback (most recent call last):\n"
             f'  File "/srv/app/venv/lib/python3.11/site-packages/shop/cart.py", line {TOTAL_LINE}, in total\n'
             "    return sum(unit_price(s) * q for s, q in self.lines)\n"
             "TypeError: unsupported operand type(s) for *: 'NoneType' and 'int'\n")
    items = t.search(s, trace, page_size=3).items
    assert [_name(i) for i in items[:2]] == ["src/shop/cart.py::Cart.total", "src/shop/prices.py::unit_price"]
    assert items[1].why.startswith("called on a traceback line: unit_price()")


def test_a_frame_carries_the_notes_left_on_its_code(tools):
    """Last in this file: it writes a note to the shared store. An agent that pastes yesterday's
    traceback sees, on the frame where the error was raised, what was tried there."""
    t, s = tools
    before = t.search(s, TRACE, page_size=5).items[0]
    assert not before.notes
    t.remember(s, "failure", "Defaulting unknown SKUs to price 0 hid missing prices in the totals; reverted",
               about=["src/shop/prices.py::unit_price"])
    items = t.search(s, TRACE, page_size=5).items
    assert _name(items[0]) == "src/shop/prices.py::unit_price"
    assert [n["kind"] for n in items[0].notes] == ["failure"] and "Defaulting unknown SKUs" in items[0].notes[0]["line"]
    from stratum.tokens import count_cached
    # the note line counts in its tokens (its why grew too: the note lends the function its evidence)
    assert items[0].tokens - count_cached(items[0].why) == \
        before.tokens - count_cached(before.why) + items[0].notes[0]["tokens"]
    plain = t.search(s, "unit price of a sku", page_size=5).items       # no traceback: items carry no notes
    assert all(not i.notes for i in plain)


def test_a_filtered_search_keeps_the_frames_of_a_pasted_traceback(tmp_path):
    """A review: a filter's search kept only its own items after the rerank, and dropped the frames
    the traceback put first when its text list lacked them (many look-alike methods here)."""
    from tests.gitrepo import indexed_tools

    files = {"src/shop/__init__.py": ""}
    for k in range(40):
        files[f"src/shop/m{k:02d}.py"] = '"""Module."""\n\n' + "".join(
            f"class C{k}_{j}:\n    def place(self, order):\n        \"\"\"Traceback, most recent call last: File "
            f"srv app shop orders, line, in place. TypeError: NoneType object is not subscriptable.\"\"\"\n"
            f"        return order.place_{k}_{j}()\n\n\n" for j in range(8))
    orders = ('"""Orders."""\n\n\nclass Orders:\n    def place(self, order):\n        return self.keep(order)["id"]\n\n'
              '    def keep(self, order):\n        return None\n')
    files["src/shop/orders.py"] = orders
    line = orders.splitlines().index('        return self.keep(order)["id"]') + 1
    trace = ("Traceback (most recent call last):\n"
             f'  File "/srv/app/shop/orders.py", line {line}, in place\n'
             "TypeError: 'NoneType' object is not subscriptable\n")
    with indexed_tools(tmp_path, files) as (t, s):
        for filt in ({}, {"kinds": ["method"]}, {"path_prefix": "src/shop/"}):
            first = t.search(s, trace, page_size=3, **filt).items[0]
            assert (first.path, first.qualname) == ("src/shop/orders.py", "Orders.place"), filt
            assert first.why.startswith("traceback frame"), filt
