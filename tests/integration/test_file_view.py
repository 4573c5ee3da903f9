"""Search's file view (``kinds=["file"]``, stratum.fileview) on a real repository indexed by the job.

The repository has a module whose own docstring is about coupon discounts but whose code is not
(``shop/legacy.py``), and the module where coupons are applied (``shop/cart.py``, three matching
functions). Ranked by file summaries alone, the docstring won; the file view ranks what the whole
search ranks, file by file, and a note lifts its file without being served itself.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

CART = '''"""The shopping cart."""


def apply_coupon(cart: dict, code: str) -> float:
    """Apply the coupon CODE to the cart and return the discount."""
    return coupon_discount(code) * cart["total"]


def coupon_discount(code: str) -> float:
    """The discount rate a coupon code gives."""
    return {"TEN": 0.1}.get(code, 0.0)


def remove_coupon(cart: dict) -> None:
    """Remove the coupon from the cart."""
    cart.pop("coupon", None)
'''

LEGACY = '''"""Coupon discount rules of the old shop, coupon codes and discount tables, kept for reference."""


def noop() -> None:
    return None
'''

TAX = '''"""Taxes."""


def round_tax(amount: float) -> float:
    """Round a tax amount to cents."""
    return round(amount * 0.2, 2)
'''

QUERY = "coupon discount applied to the cart"


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from tests.gitrepo import Repo

    base = tmp_path_factory.mktemp("shop")
    r = Repo(base / "shop")
    r.commit("initial shop", {"shop/__init__.py": "", "shop/cart.py": CART, "shop/legacy.py": LEGACY,
                              "shop/tax.py": TAX, "docs/coupons.md": "# Coupons\n\ncoupon discount cart\n"})
    store = base / "store"
    index_repository(r.path, store, IndexConfig(num_cpus=1, ray=False))
    return store


def _tools(store, tmp_path):
    import shutil

    from stratum.tools import Tools

    shutil.copytree(store, tmp_path / "s")
    tools = Tools.open([str(tmp_path / "s")])
    return tools, tools.open_session(author="agent").data["session"]


def test_the_file_view_ranks_files_by_their_code_and_says_which_symbol(shop, tmp_path):
    tools, s = _tools(shop, tmp_path)
    try:
        page = tools.search(s, QUERY, kinds=["file"])
        paths = [it.path for it in page.items]
        assert {it.kind for it in page.items} == {"file"}
        assert len(paths) == len(set(paths)), paths                 # each file once
        assert paths[0] == "shop/cart.py", paths                    # its functions, not legacy's docstring
        assert paths.index("shop/cart.py") < paths.index("shop/legacy.py")
        assert any(f in page.items[0].why for f in ("apply_coupon", "coupon_discount", "remove_coupon")), \
            page.items[0].why                                       # the symbol to open it at
        assert page.items[0].tokens > 0
    finally:
        tools.close()


def test_a_note_lifts_its_file_in_the_file_view_and_is_not_served(shop, tmp_path):
    tools, s = _tools(shop, tmp_path)
    try:
        before = {it.path: it for it in tools.search(s, QUERY, kinds=["file"]).items}
        got = tools.remember(s, "rca", "Coupon discount applied to the cart twice: the cause is round_tax, "
                                       "which rounds the discounted total again.", about=["shop/tax.py::round_tax"])
        nid = got.data["note_id"]
        page = tools.search(s, QUERY, kinds=["file"])
        assert all(it.kind == "file" and it.id != nid for it in page.items)
        tax = next(it for it in page.items if it.path == "shop/tax.py")
        assert tax.score > before["shop/tax.py"].score              # lifted by the note
        assert "round_tax" in tax.why and "rca note" in tax.why, tax.why    # what lifted it, and where
        assert "note" not in before["shop/tax.py"].why
    finally:
        tools.close()


def test_the_file_view_keeps_the_path_filter_and_pages(shop, tmp_path):
    tools, s = _tools(shop, tmp_path)
    try:
        page = tools.search(s, QUERY, kinds=["file"], path_prefix="shop/", page_size=2)
        assert [it.path for it in page.items][0] == "shop/cart.py"
        assert all(it.path.startswith("shop/") for it in page.items)
        assert page.envelope.has_more
        rest = tools.search(s, QUERY, kinds=["file"], path_prefix="shop/", page_size=2,
                            page_token=page.envelope.next_page_token)
        seen = [it.path for it in page.items] + [it.path for it in rest.items]
        assert len(seen) == len(set(seen)), seen                    # no file on two pages
        mixed = tools.search(s, QUERY, kinds=["file", "function"])  # not the file view: functions served
        assert "function" in {it.kind for it in mixed.items}
    finally:
        tools.close()


def test_a_branch_session_file_view_serves_the_branchs_files_once(tmp_path):
    """The file view of a branch session reads the default branch's list and the overlay's own as
    files: a file the branch changed is served once, as the branch's file node, and a file the
    branch deleted is not served."""
    from pipeline.job import index_repository
    from pipeline.overlay import builder
    from stratum.config import IndexConfig
    from stratum.tools import Tools
    from tests.gitrepo import Repo, git

    cfg = IndexConfig(num_cpus=1, ray=False)
    r = Repo(tmp_path / "shop")
    r.commit("initial shop", {"shop/__init__.py": "", "shop/cart.py": CART, "shop/legacy.py": LEGACY,
                              "shop/tax.py": TAX})
    store = tmp_path / "store"
    index_repository(r.path, store, cfg)
    git(r.path, "checkout", "-q", "-b", "feature")
    r.commit("coupon totals; drop legacy", {"shop/cart.py": CART + '''

def coupon_total(cart: dict) -> float:
    """The cart total after the coupon discount."""
    return cart["total"] - apply_coupon(cart, cart.get("coupon", ""))
'''}, delete=["shop/legacy.py"])
    git(r.path, "checkout", "-q", "main")
    tools = Tools.open([str(store)], overlay_builder=builder(cfg))
    try:
        feature = tools.open_session(branch="feature").data["session"]
        items = tools.search(feature, QUERY, kinds=["file"]).items
        paths = [it.path for it in items]
        assert {it.kind for it in items} == {"file"}
        assert paths.count("shop/cart.py") == 1 and paths[0] == "shop/cart.py", paths
        assert "shop/legacy.py" not in paths                        # deleted on the branch
        main = tools.open_session().data["session"]
        on_main = tools.search(main, QUERY, kinds=["file"]).items
        mains = next(it for it in on_main if it.path == "shop/cart.py")
        assert "4 functions" in items[0].text and "3 functions" in mains.text, (items[0].text, mains.text)
        assert "shop/legacy.py" in [it.path for it in on_main]
    finally:
        tools.close()


def test_a_traceback_frames_file_carries_its_notes_and_the_count_is_exact(shop, tmp_path):
    tools, s = _tools(shop, tmp_path)
    try:
        nid = tools.remember(s, "failure", "Tried a default total in apply_coupon: KeyError stayed, the cart "
                                           "dict comes without a total from the API.",
                             about=["shop/cart.py::apply_coupon"]).data["note_id"]
        tb = ('Traceback (most recent call last):\n  File "/srv/app/shop/cart.py", line 6, in apply_coupon\n'
              '    return coupon_discount(code) * cart["total"]\nKeyError: \'total\'\n')
        page = tools.search(s, tb, kinds=["file"])
        first = page.items[0]
        assert first.path == "shop/cart.py" and first.why.startswith("traceback frame"), first.why
        assert "apply_coupon" in first.why
        assert nid in [n.get("id") for n in first.notes], first.notes     # as the frame's own item carries it
        every = tools.search(s, QUERY, kinds=["file"], page_size=50)       # every file fits: the count is exact
        while every.envelope.has_more:      # its pages end where the evidence drops (stratum.pagecut)
            every = tools.search(s, QUERY, kinds=["file"], page_size=50, page_token=every.envelope.next_page_token)
        assert not any("more weaker matches" in w for w in every.envelope.warnings), every.envelope.warnings
        assert tools.search(s, QUERY, kinds=["file"], path_prefix=".").items     # "." is the repository
        assert [it.path for it in tools.search(s, QUERY, kinds=["file"], path_prefix="shop/.").items][0] == "shop/cart.py"
    finally:
        tools.close()
