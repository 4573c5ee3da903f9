"""What a traceback's shown line calls, resolved through the index's calls edges: ``self.save()``
in the frame is its own class's ``save`` even when three classes define one (the name alone is a
common word there and would name nothing)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

STORES = '''"""Where orders are kept."""


class Disk:
    def save(self, order):
        return None


class Memory:
    def save(self, order):
        self.kept = order
        return order


class Remote:
    def save(self, order):
        return order
'''

ORDERS = '''"""Orders."""

from shop.stores import Disk


class Orders(Disk):
    def place(self, order):
        return self.save(order)["id"]
'''

PLACE_LINE = ORDERS.splitlines().index('        return self.save(order)["id"]') + 1


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    from tests.gitrepo import indexed_tools

    with indexed_tools(tmp_path_factory.mktemp("callees"), {
            "src/shop/__init__.py": "", "src/shop/stores.py": STORES, "src/shop/orders.py": ORDERS},
            "initial shop") as got:
        yield got


def test_a_frame_calls_edge_names_the_callee_a_common_name_hides(tools):
    t, s = tools
    trace = ("Traceback (most recent call last):\n"
             f'  File "/srv/app/shop/orders.py", line {PLACE_LINE}, in place\n'
             '    return self.save(order)["id"]\n'
             "TypeError: 'NoneType' object is not subscriptable\n")
    items = t.search(s, trace, page_size=3).items
    got = [f"{i.path}::{i.qualname}" for i in items[:2]]
    assert got == ["src/shop/orders.py::Orders.place", "src/shop/stores.py::Disk.save"], got
    assert items[1].why.startswith("called on a traceback line: save()")
    walked = t.walk(s, "src/shop/orders.py::Orders.place", edges=["calls"]).items
    assert [(i.qualname, i.meta["how"]) for i in walked] == [("Disk.save", "own class")]
