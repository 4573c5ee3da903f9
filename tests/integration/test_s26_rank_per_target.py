"""Search judges a note per target ITEM, as ``get`` does: a note about two functions of one file,
one of which changed since, lifts the unchanged one's item whole and says it is fresh there, and the
changed one's at x0.5, saying stale. A probe: the note about ``total`` and ``count`` in cart.py, then
only ``count`` changed: search's why on ``total`` said "stale: code changed since ..., x0.5" where
``get shop/cart.py::total`` said the note was fresh (ranking judged the whole file). Real
repositories, the real index job and the real Tools."""

from __future__ import annotations

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git
from tests.pages import search_all

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
TOTAL, COUNT = "shop/cart.py::total", "shop/cart.py::count"
CART = ("def total(items):\n    return sum(items)\n\n\ndef count(items):\n    return len(items)\n\n\n"
        "def empty(items):\n    return not items\n")
TEXT = "total and count walk the basket items twice"


def _item(items, qual: str):
    return next(i for i in items if i.kind == "function" and i.name == qual)


def test_search_says_fresh_on_the_unchanged_target_and_stale_on_the_changed_one(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART, "shop/util.py": "def noop():\n    pass\n"})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    t = Tools.open([store])
    nid = t.remember(t.open_session(author="agent").data["session"], "rca", TEXT, [TOTAL, COUNT]).data["note_id"]
    t.close()
    r.commit("count skips None", {"shop/cart.py": CART.replace("len(items)", "len([i for i in items if i])")})
    index_repository(r.path, store, CFG)
    t = Tools.open([store])
    try:
        sid = t.open_session(author="agent").data["session"]
        got = {q: next(n for n in t.get(sid, q).items[0].notes if n["id"] == nid)["stale"] for q in (TOTAL, COUNT)}
        assert got == {TOTAL: False, COUNT: True}, got          # get judges each target (session 25)
        found = search_all(t, sid, TEXT)[0]
        total, count = _item(found, "total"), _item(found, "count")
        assert f"rca note {nid[:8]}" in total.why and "stale" not in total.why and "x0.5" not in total.why, total.why
        assert f"rca note {nid[:8]}" in count.why and "stale" in count.why and "x0.5" in count.why, count.why
        # the unchanged target's lift is whole: it ranks above the changed one, whose text ties it
        assert total.score > count.score, (total.score, total.why, count.score, count.why)
        # the note's own item is the note judged whole: it names the target that changed
        own = next(i for i in found if i.id == nid)
        assert any(w.startswith("stale: shop/cart.py::count changed") for w in own.warnings), own.warnings
        files = t.search(sid, TEXT, kinds=["file"]).items        # the file view: cart.py by its best item, total
        cart = next(i for i in files if i.path == "shop/cart.py")
        assert cart.why.startswith("total: ") and "x0.5" not in cart.why, cart.why
    finally:
        t.close()


def test_a_branch_session_judges_each_target_in_one_file_on_its_item(tmp_path):
    """On a branch that changed only ``count``, a note written on main about total and count: the
    branch's search lifts total whole (fresh) and count at x0.5 (stale), as its get says."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    try:
        nid = t.remember(t.open_session().data["session"], "rca", TEXT, [TOTAL, COUNT]).data["note_id"]
        git(r.path, "checkout", "-q", "-b", "feature")
        r.commit("count skips None", {"shop/cart.py": CART.replace("len(items)", "len([i for i in items if i])")})
        git(r.path, "checkout", "-q", "main")
        sid = t.open_session(branch="feature").data["session"]
        got = {q: next(n for n in t.get(sid, q).items[0].notes if n["id"] == nid)["stale"] for q in (TOTAL, COUNT)}
        assert got == {TOTAL: False, COUNT: True}, got
        found = search_all(t, sid, TEXT)[0]
        total, count = _item(found, "total"), _item(found, "count")
        assert f"rca note {nid[:8]}" in total.why and "stale" not in total.why, total.why
        assert f"rca note {nid[:8]}" in count.why and "x0.5" in count.why, count.why
    finally:
        t.close()
