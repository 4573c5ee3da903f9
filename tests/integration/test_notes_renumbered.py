"""A note stays with its overload when an insertion renumbers same-named definitions (probe P2 of
session 22: an rca note about ``Cart.add#2``, i.e. ``add(Item, int)``, was shown, stale, on a new
``add(Item, String)`` committed above it, and ``add#3``, the code it was about, had no note)."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow
CFG = IndexConfig(embed=EmbedConfig(enabled=False), ray=False)

ITEM = "class Item {\n    double price;\n}\n"
ADD_ONE = "    void add(Item item) {\n        items.add(item);\n    }\n"
ADD_N = ("    void add(Item item, int n) {\n        if (n < 0) throw new IllegalArgumentException();\n"
         "        for (int i = 0; i < n; i++) items.add(item);\n    }\n")
ADD_COUPON = "    void add(Item item, String coupon) {\n        items.add(item);\n        this.coupon = coupon;\n    }\n"


def cart(*methods: str) -> str:
    return ("package shop;\n\nimport java.util.*;\n\npublic class Cart {\n    List<Item> items = new ArrayList<>();\n"
            "    String coupon;\n\n" + "\n".join(methods) + "}\n")


def notes_on(t: Tools, s: str, target: str) -> list[dict]:
    return t.get(s, target, "api").items[0].notes


def test_a_note_follows_its_overload_when_one_is_added_above(tmp_path):
    repo = Repo(tmp_path / "shop")
    repo.commit("cart", {"src/shop/Cart.java": cart(ADD_ONE, ADD_N), "src/shop/Item.java": ITEM})
    store = tmp_path / "store"
    index_repository(repo.path, store, CFG)
    t = Tools.open([str(store)])
    try:
        s = t.open_session(author="writer").data["session"]
        got = t.get(s, "src/shop/Cart.java::Cart.add#2", "full").items[0]
        assert "int n" in got.text
        nid = t.remember(s, "rca", "add(item, n) must reject n < 0 before the loop.",
                         about=["src/shop/Cart.java::Cart.add#2"]).data["note_id"]
    finally:
        t.close()
    repo.commit("coupons", {"src/shop/Cart.java": cart(ADD_ONE, ADD_COUPON, ADD_N)})
    rep = index_repository(repo.path, store, CFG)
    assert rep.notes["orphaned"] == 0, rep.notes
    t = Tools.open([str(store)])
    try:
        s = t.open_session(author="reader").data["session"]
        assert "int n" in t.get(s, "src/shop/Cart.java::Cart.add#3", "full").items[0].text
        on_n = notes_on(t, s, "src/shop/Cart.java::Cart.add#3")
        assert [n["id"] for n in on_n] == [nid] and on_n[0]["stale"] is False
        assert nid not in [n["id"] for n in notes_on(t, s, "src/shop/Cart.java::Cart.add#2")]
        note = t.get(s, nid, "full").items[0]            # the note itself names where it is now
        assert "Cart.add#3" in str(note.meta) or "Cart.add#3" in note.text, (note.meta, note.text)
    finally:
        t.close()


def test_a_note_on_changed_code_stays_where_it_was(tmp_path):
    """No same-named node holds the code it was about (the overload itself changed): the note stays
    on its id and says stale, as before."""
    repo = Repo(tmp_path / "shop")
    repo.commit("cart", {"src/shop/Cart.java": cart(ADD_ONE, ADD_N), "src/shop/Item.java": ITEM})
    store = tmp_path / "store"
    index_repository(repo.path, store, CFG)
    t = Tools.open([str(store)])
    try:
        s = t.open_session(author="writer").data["session"]
        nid = t.remember(s, "rca", "add(item, n) must reject n < 0.",
                         about=["src/shop/Cart.java::Cart.add#2"]).data["note_id"]
    finally:
        t.close()
    repo.commit("edit", {"src/shop/Cart.java": cart(ADD_ONE, ADD_N.replace("n < 0", "n <= 0"))})
    index_repository(repo.path, store, CFG)
    t = Tools.open([str(store)])
    try:
        s = t.open_session(author="reader").data["session"]
        on_n = notes_on(t, s, "src/shop/Cart.java::Cart.add#2")
        assert [n["id"] for n in on_n] == [nid] and on_n[0]["stale"] is True
    finally:
        t.close()
