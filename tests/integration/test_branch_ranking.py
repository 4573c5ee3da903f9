"""In a session on a branch, the branch's code ranks where it would if the default branch's index held
it (stratum.branchscore): its text score is placed among the default branch's lists, not taken from
the overlay's own tiny fused list, where every node of a changed file ranked 1..k and the file's
aggregate counted them all. Over a real git repository indexed by the real pipeline and the real
branch overlay builder."""

from __future__ import annotations

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False)
SHAPES = ("circle", "square", "triangle", "hexagon", "ellipse", "rhombus", "pentagon", "trapezoid", "octagon",
          "kite", "annulus", "sector", "parallelogram", "heptagon", "decagon", "crescent", "star", "arrow",
          "cross", "lens", "nonagon", "oval", "spiral", "wedge")
GEOMETRY = "shop/geometry.py"
CARTS = 30                  # cart files: with their folders, more rows than a search list's window (50)


def _repo(tmp_path) -> str:
    """main: a shop whose cart and pricing code the queries are about, and an unrelated geometry
    module of many functions; branch feature adds one geometry function and one refund function."""
    r = Repo(tmp_path / "repo")
    files = {"shop/__init__.py": "",
             "shop/pricing.py": "def discount(total, pct):\n    '''the cart total after a percentage coupon'''\n"
                                "    return total * (1 - pct / 100)\n"}
    for i in range(CARTS):
        files[f"shop/cart{i}.py"] = (f"def cart_total_{i}(items):\n    '''the cart total of the items, never negative'''\n"
                                     f"    return max(0, sum(items) + {i})\n")
    files[GEOMETRY] = "".join(f"def area_of_{s}(size):\n    '''the area of a {s} of the given size'''\n"
                              f"    return size * size * {k + 1}\n\n\n" for k, s in enumerate(SHAPES))
    r.commit("init", files)
    store = tmp_path / "store"
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "feature")
    r.commit("shapes and refunds", {
        GEOMETRY: files[GEOMETRY] + "def area_of_blob(size):\n    '''the area of a blob'''\n    return size\n",
        "shop/refunds.py": "def refund_coupon_credit(wallet, order):\n"
                           "    '''give the coupon credit of a refunded order back to the customer's wallet'''\n"
                           "    wallet.balance += order.coupon_credit\n"})
    git(r.path, "checkout", "-q", "main")
    return str(store)


def _best(items, path: str) -> tuple[int, float]:
    """(position, score) of the first item of PATH on a page, (len(items), 0.0) when none is."""
    return next(((k, it.score) for k, it in enumerate(items) if it.path == path), (len(items), 0.0))


def test_a_file_the_branch_touched_ranks_no_higher_than_on_the_default_branch(tmp_path):
    store = _repo(tmp_path)
    t = Tools.open([store], overlay_builder=builder(CFG))
    base = t.open_session().data["session"]
    feature = t.open_session(branch="feature").data["session"]
    for query in ("coupon discount on the cart total", "the cart total of the items is never negative"):
        k_main, s_main = _best(t.search(base, query, page_size=80).items, GEOMETRY)
        items = t.search(feature, query, page_size=80).items
        k, s = _best(items, GEOMETRY)
        # the overlay's own list put geometry.py near the top ("text; 25 symbols") of a query about carts
        assert k >= k_main - 1 and s <= s_main * 1.05 + 1e-4, (query, k, k_main, s, s_main, items[k].why)
    t.close()


def test_a_function_only_the_branch_has_is_found_by_words(tmp_path):
    store = _repo(tmp_path)
    t = Tools.open([store], overlay_builder=builder(CFG))
    feature = t.open_session(branch="feature").data["session"]
    base = t.open_session().data["session"]
    query = "give the coupon credit of a refunded order back to the wallet"
    items = t.search(feature, query).items
    assert any(it.name == "refund_coupon_credit" for it in items), [(it.name, it.why) for it in items]
    assert not any(it.name == "refund_coupon_credit" for it in t.search(base, query, page_size=80).items)
    t.close()
