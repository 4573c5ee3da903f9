"""Two stores served together (fleet probes):
- one moved away before any search: an unscoped search answers from the other store and names the
  one it left out (every unscoped search failed with that store's StoreDamaged, though a search
  scoped to the other store answered); with every store gone it fails;
- one re-indexed between two pages: the stale page token names the store that published (it said
  "issued at store version 115008268024779, now 279701134726215");
- ``billing:`` alone names that store's repository, as ``billing:.`` does (get and remember said
  "no node 'billing:'" / "unknown target")."""

from __future__ import annotations

import os

import pytest

from stratum import errors as E
from stratum.tools import Tools
from stratum.config import default_store_path
from tests.clirun import NO_EMBED
from tests.gitrepo import Repo

SHOP = {"shop/cart.py": "def add_item(cart, item):\n    '''Add an item to the shopping cart.'''\n    cart.append(item)\n",
        "shop/pricing.py": "def cart_total(cart):\n    '''The shopping cart total price.'''\n    return sum(cart)\n"}
BILLING = {"billing/invoice.py": "def invoice_total(cart):\n    '''An invoice for the shopping cart.'''\n    return sum(cart)\n"}


def _indexed(path, files: dict[str, str]) -> tuple[Repo, str]:
    """A repository whose files change together in four commits (co-change edges, read when a
    search first lifts a partner), indexed into its own ``.stratum``."""
    from pipeline.job import index_repository

    r = Repo(path)
    r.commit("init", files)
    for i in range(4):
        r.commit(f"change {i}", {p: t + f"# {i}\n" for p, t in files.items()})
    index_repository(r.path, None, NO_EMBED)
    return r, str(default_store_path(r.path))


@pytest.fixture()
def two_stores(tmp_path):
    _, shop = _indexed(tmp_path / "shop", SHOP)
    billing_repo, billing = _indexed(tmp_path / "billing", {**BILLING, "billing/tax.py": "def tax(total):\n    return total * 0.2\n"})
    tools = Tools.open([shop, billing])
    try:
        yield tools, shop, billing, billing_repo
    finally:
        tools.close()


def test_a_store_moved_away_is_left_out_of_a_search_with_a_warning(two_stores):
    tools, shop, billing, _ = two_stores
    sid = tools.open_session(author="agent").data["session"]
    os.rename(billing, billing + ".away")
    try:
        r = tools.search(sid, "shopping cart total", page_size=10)
        paths = {it.path for it in r.items}
        assert "shop/pricing.py" in paths and not any(p.startswith("billing/") for p in paths)
        said = [w for w in r.envelope.warnings if "left out of this answer" in w]
        assert len(said) == 1 and "billing" in said[0], r.envelope.warnings
        # the file view too
        files = tools.search(sid, "shopping cart total", kinds=["file"], page_size=10)
        assert any(it.path == "shop/pricing.py" for it in files.items)
    finally:
        os.rename(billing + ".away", billing)


def test_every_store_gone_is_an_error_not_an_empty_answer(two_stores):
    # (what a store had loaded still answers: here the co-change edges a search reads were not)
    tools, shop, billing, _ = two_stores
    sid = tools.open_session(author="agent").data["session"]
    for s in (shop, billing):
        os.rename(s, s + ".away")
    try:
        with pytest.raises(E.StoreError):
            tools.search(sid, "shopping cart total", page_size=10)
    finally:
        for s in (shop, billing):
            os.rename(s + ".away", s)


def test_a_stale_page_token_names_the_store_that_published(two_stores):
    from pipeline.job import index_repository

    tools, _, _, repo = two_stores
    sid = tools.open_session(author="agent").data["session"]
    first = tools.search(sid, "cart total", page_size=1)
    assert first.envelope.next_page_token
    repo.commit("more", {"billing/refund.py": "def refund(total):\n    return -total\n"})
    index_repository(repo.path, None, NO_EMBED)
    tools.memory.reload()
    with pytest.raises(E.InvalidPageToken) as info:
        tools.search(sid, "cart total", page_size=1, page_token=first.envelope.next_page_token)
    msg = info.value.message
    assert "'billing'" in msg and "'shop'" not in msg and "published a new version" in msg, msg


def test_a_store_name_alone_names_its_repository(two_stores):
    tools, _, _, _ = two_stores
    sid = tools.open_session(author="agent").data["session"]
    got = tools.get(sid, "billing:", level="summary").items[0]
    assert got.kind == "repo" and got.repo == "billing"
    nid = tools.remember(sid, "insight", "Billing rounds totals to cents before tax.", ["billing:"]).data["note_id"]
    shown = tools.get(sid, nid, level="summary").items[0]
    assert shown.repo == "billing", shown
