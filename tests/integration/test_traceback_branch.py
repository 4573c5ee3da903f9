"""A traceback pasted in a branch session names the code as the branch has it: the agent runs the
tests of the files it is changing, so their frames are in the branch's versions (lines the indexed
base does not have, files only the branch adds). Real git repository, real index and branch overlay."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git

pytestmark = pytest.mark.slow

PRICES = '''"""Unit prices."""

PRICES = {"apple": 0.5}


def unit_price(sku: str) -> float:
    """The unit price of SKU in euros."""
    return PRICES[sku]
'''

CART = '''"""The shopping cart."""

from shop.prices import unit_price


class Cart:
    """Items a customer intends to buy."""

    def __init__(self):
        self.lines = []

    def total(self) -> float:
        """The sum of the line prices."""
        return sum(unit_price(s) * q for s, q in self.lines)
'''

# the branch: Cart grows a method below the base's last line, and a new module
CART_FEAT = CART + '''
    def discounted(self, code: str) -> float:
        """The total less the coupon CODE's share."""
        from shop.coupons import share
        return self.total() * (1 - share(code))
'''

COUPONS = '''"""Coupon codes."""

SHARES = {"SPRING": 0.1}


def share(code: str) -> float:
    """The share of the price a coupon takes off."""
    return SHARES[code]
'''

DISC_LINE = CART_FEAT.splitlines().index("        return self.total() * (1 - share(code))") + 1
SHARE_LINE = COUPONS.splitlines().index("    return SHARES[code]") + 1
PRICE_LINE = PRICES.splitlines().index("    return PRICES[sku]") + 1
TOTAL_LINE = CART.splitlines().index("        return sum(unit_price(s) * q for s, q in self.lines)") + 1

# outermost first, as Python prints it: the innermost frame is the new module's
TRACE = f'''Traceback (most recent call last):
  File "/work/shop/src/shop/cart.py", line {DISC_LINE}, in discounted
    return self.total() * (1 - share(code))
  File "/work/shop/src/shop/coupons.py", line {SHARE_LINE}, in share
    return SHARES[code]
KeyError: 'WINTER'
'''

# a frame in the changed file and one in a file the branch leaves as it is: innermost first across both
TRACE2 = f'''Traceback (most recent call last):
  File "/work/shop/src/shop/cart.py", line {DISC_LINE}, in discounted
  File "/work/shop/src/shop/cart.py", line {TOTAL_LINE}, in total
  File "/work/shop/src/shop/prices.py", line {PRICE_LINE}, in unit_price
KeyError: 'pear'
'''


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    root = tmp_path_factory.mktemp("tbbranch")
    r = Repo(root / "shop")
    r.commit("initial shop", {"src/shop/__init__.py": "", "src/shop/cart.py": CART, "src/shop/prices.py": PRICES})
    index_repository(r.path, root / "store", IndexConfig(num_cpus=1, ray=False))
    git(r.path, "checkout", "-q", "-b", "coupons")
    r.commit("coupons", {"src/shop/cart.py": CART_FEAT, "src/shop/coupons.py": COUPONS})
    git(r.path, "checkout", "-q", "main")
    t = Tools.open([str(root / "store")], overlay_builder=builder())
    try:
        yield t
    finally:
        t.close()


def _name(it) -> str:
    return f"{it.path}::{it.qualname}" if it.qualname else it.path


def _frames(items) -> list[str]:
    return [_name(i) for i in items if i.why.startswith("traceback frame")]


def test_a_branch_sessions_traceback_names_the_branch_code_innermost_first(shop):
    sid = shop.open_session(branch="coupons").data["session"]
    items = shop.search(sid, TRACE, page_size=5).items
    # the new module's function, then the method only the branch's cart.py has
    assert [_name(i) for i in items[:2]] == ["src/shop/coupons.py::share", "src/shop/cart.py::Cart.discounted"]
    assert items[0].why.startswith(f"traceback frame: src/shop/coupons.py:{SHARE_LINE} in share")
    assert items[1].why.startswith(f"traceback frame: src/shop/cart.py:{DISC_LINE} in discounted")


def test_frames_in_base_and_branch_files_merge_innermost_first(shop):
    sid = shop.open_session(branch="coupons").data["session"]
    items = shop.search(sid, TRACE2, page_size=5).items
    assert _frames(items) == ["src/shop/prices.py::unit_price", "src/shop/cart.py::Cart.total",
                              "src/shop/cart.py::Cart.discounted"]
    assert _frames(items) == [_name(i) for i in items[:3]]


def test_the_default_branch_session_knows_no_branch_code(shop):
    sid = shop.open_session().data["session"]
    names = [_name(i) for i in shop.search(sid, TRACE, page_size=10).items]
    assert "src/shop/cart.py::Cart.discounted" not in names
    assert not any(n.startswith("src/shop/coupons.py") for n in names)


def test_get_takes_a_printed_path_of_a_file_only_the_branch_has(shop):
    sid = shop.open_session(branch="coupons").data["session"]
    it = shop.get(sid, f"/work/shop/src/shop/coupons.py:{SHARE_LINE}", "api").items[0]
    assert (it.path, it.qualname) == ("src/shop/coupons.py", "share")
    it = shop.get(sid, f"/work/shop/src/shop/cart.py:{DISC_LINE}", "api").items[0]
    assert (it.path, it.qualname) == ("src/shop/cart.py", "Cart.discounted")
