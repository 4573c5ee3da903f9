"""A note about several symbols, one of which changed since: where it is attached to an item (get,
walk, prefetch) or lifts a file in search, it is judged by ITS targets there (``stratum.targetstale``).
A probe: an rca note about ``shop/cart.py::total`` and ``shop/pricing.py::discount``, then only
``discount`` changed; ``get shop/cart.py::total`` said "stale: the code changed since" and search
counted its lift of ``cart.py`` x0.5, though ``total`` never changed. The note's own item still says
which target changed. Real repositories, the real index job, the real Tools and CLI."""

from __future__ import annotations

import json

import pytest

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.cli import main
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git
from tests.pages import search_all

CFG = IndexConfig(num_cpus=1, ray=False)
TOTAL, DISCOUNT = "shop/cart.py::total", "shop/pricing.py::discount"
CART = "def total(items):\n    return sum(items)\n\n\ndef count(items):\n    return len(items)\n"
TEXT = "both total and discount drop cents on coupons"


def _pricing(rate: str) -> str:
    return f"def discount(p):\n    return p * {rate}\n"


def _noted(tmp_path) -> tuple[Repo, str, str]:
    """A repository indexed, an rca note about total and discount, then only discount changed,
    committed and indexed again: (repo, store, note id)."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART, "shop/pricing.py": _pricing("0.9")})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    t = Tools.open([store])
    sid = t.open_session(author="agent").data["session"]
    nid = t.remember(sid, "rca", TEXT, [TOTAL, DISCOUNT]).data["note_id"]
    t.close()
    r.commit("change discount", {"shop/pricing.py": _pricing("0.8")})
    index_repository(r.path, store, CFG)
    return r, store, nid


def _note_on(items, nid: str) -> dict:
    """Note NID as the one item of ITEMS carries it."""
    return next(n for it in items for n in it.notes if n["id"] == nid)


def _item(items, path: str, kind: str):
    return next(i for i in items if i.path == path and i.kind == kind)


def test_a_note_is_stale_only_on_the_items_whose_target_changed(tmp_path):
    _, store, nid = _noted(tmp_path)
    t = Tools.open([store])
    sid = t.open_session(author="agent").data["session"]
    # get: the function that never changed, and its file, carry the note fresh; discount's say stale
    for target, stale in ((TOTAL, False), ("shop/cart.py", False), (DISCOUNT, True), ("shop/pricing.py", True)):
        n = _note_on(t.get(sid, target, level="summary").items, nid)
        assert n["stale"] is stale and ("stale: the code changed since" in n["line"]) is stale, (target, n)
    # walk and prefetch carry it as get does
    walked = [i for i in t.walk(sid, "shop/cart.py", edges=["contains"]).items if i.notes]   # total's item
    assert [(i.kind, _note_on([i], nid)["stale"]) for i in walked] == [("function", False)]
    pre = {i.path: _note_on([i], nid)["stale"] for i in t.prefetch(sid, [TOTAL, DISCOUNT]).items}
    assert pre == {"shop/cart.py": False, "shop/pricing.py": True}, pre
    # search: cart.py's lift by the note is whole, pricing.py's halved; the note's own item names discount
    found = search_all(t, sid, TEXT, 10)[0]
    total = _item(found, "shop/cart.py", "function")
    assert "rca note" in total.why and "stale" not in total.why and "x0.5" not in total.why, total.why
    discount = _item(found, "shop/pricing.py", "function")
    assert "rca note" in discount.why and "x0.5" in discount.why, discount.why
    own = next(i for i in found if i.id == nid)
    assert any(w.startswith("stale: shop/pricing.py::discount changed") for w in own.warnings), own.warnings
    assert not any("cart.py" in w for w in own.warnings), own.warnings
    files = search_all(t, sid, TEXT, 10, kinds=["file"])[0]
    assert "x0.5" not in _item(files, "shop/cart.py", "file").why and "x0.5" in _item(files, "shop/pricing.py", "file").why
    t.close()


def test_two_targets_in_one_file_and_both_changed(tmp_path):
    """A note about total and count (one file), then only total changed: count's item carries it
    fresh, total's and the file's (a target there changed) stale; the rca note, whose targets both
    changed now, is stale on each of its items."""
    r, store, nid = _noted(tmp_path)
    t = Tools.open([store])
    sid = t.open_session(author="agent").data["session"]
    fid = t.remember(sid, "insight", "count and total read items twice", ["shop/cart.py::count", TOTAL]).data["note_id"]
    t.close()
    r.commit("change total", {"shop/cart.py": CART.replace("sum(items)", "round(sum(items), 2)")})
    index_repository(r.path, store, CFG)
    t = Tools.open([store])
    sid = t.open_session(author="agent").data["session"]
    said = {target: {n["id"]: n["stale"] for n in t.get(sid, target).items[0].notes}
            for target in ("shop/cart.py::count", TOTAL, "shop/cart.py", DISCOUNT)}
    assert said == {"shop/cart.py::count": {fid: False}, TOTAL: {fid: True, nid: True},
                    "shop/cart.py": {fid: True, nid: True}, DISCOUNT: {nid: True}}, said
    # the file's line names both its targets there (it named the first found, beside "stale": a probe)
    on_file = _note_on(t.get(sid, "shop/cart.py").items, fid)
    assert " on count, total" in on_file["line"] or " on total, count" in on_file["line"], on_file
    t.close()


def test_a_branch_session_judges_each_target_on_its_item(tmp_path):
    """On a branch that changed discount only, a note written on main about total and discount:
    total's item and file carry it fresh and lift whole; discount's say stale (``BranchCode``)."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART, "shop/pricing.py": _pricing("0.9")})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    nid = t.remember(t.open_session().data["session"], "rca", TEXT, [TOTAL, DISCOUNT]).data["note_id"]
    git(r.path, "checkout", "-q", "-b", "feature")
    r.commit("change discount", {"shop/pricing.py": _pricing("0.8")})
    git(r.path, "checkout", "-q", "main")
    sid = t.open_session(branch="feature").data["session"]
    assert _note_on(t.get(sid, TOTAL).items, nid)["stale"] is False
    assert _note_on(t.get(sid, "shop/cart.py").items, nid)["stale"] is False
    assert _note_on(t.get(sid, DISCOUNT).items, nid)["stale"] is True
    found = t.search(sid, TEXT).items
    assert "x0.5" not in _item(found, "shop/cart.py", "function").why
    assert "x0.5" in _item(found, "shop/pricing.py", "function").why
    t.close()


@pytest.mark.slow
def test_the_cli_get_and_search_judge_the_note_by_its_targets_there(tmp_path, capsys):
    _, store, nid = _noted(tmp_path)
    capsys.readouterr()
    assert main(["get", TOTAL, "--store", store, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["items"][0]["notes"]
    assert [n["stale"] for n in got if n["id"] == nid] == [False], got
    assert main(["get", TOTAL, "--store", store]) == 0
    out = capsys.readouterr().out
    assert f"rca note {nid}" in out and "stale" not in out, out
    assert main(["search", "drop cents", "--kind", "file", "--store", store]) == 0
    lines = capsys.readouterr().out.splitlines()
    cart = next(ln for ln in lines if "file shop/cart.py" in ln)
    pricing = next(ln for ln in lines if "file shop/pricing.py" in ln)
    assert "rca note" in cart and "x0.5" not in cart and "stale" not in cart, cart
    assert "x0.5" in pricing, pricing
