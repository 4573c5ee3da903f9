"""Branch sessions place a note where the branch has its code and judge it by that node's hash
(``stratum.branchcode``), on real repositories with branches and a worktree, the real index job,
the real overlay builder and Tools.

A probe (session 23, P4) found: a note about shop/cart.py::Cart.count, then ``git mv cart.py
basket.py`` on the same branch, read "stale: shop/cart.py::Cart.count [branch fg at ...] no longer
exists" and was attached nowhere; a default-branch rename, once re-indexed, cut a worktree's note off
its own code; notes about functions a branch did not touch were stale because it changed another
function of their file; a worktree note about uncommitted code said "no longer exists" on its
branch; remember of a function the branch deleted said only "not ... of the indexed code"."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig
from stratum.errors import NoteRejected
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False)
CART = ('"""Cart."""\n\n\nclass Cart:\n    """Cart."""\n\n    def add(self, name):\n        """Add."""\n'
        "        return name\n\n    def subtotal(self):\n        \"\"\"Sum.\"\"\"\n        return 0\n")
COUNT = "\n    def count(self):\n        \"\"\"Count.\"\"\"\n        return 1\n"
PRICING = ('"""Pricing."""\n\n\ndef discount(total, rate):\n    """Discount."""\n    return round(total * (1 - rate), 2)\n'
           '\n\ndef shipping(weight):\n    """Shipping."""\n    return 5.0 + weight\n'
           '\n\ndef refund(x):\n    """Refund."""\n    return x\n')


def _repo(tmp_path) -> tuple[Repo, str]:
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART, "shop/pricing.py": PRICING})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    return r, store


def _tools(store: str) -> Tools:
    return Tools.open([store], overlay_builder=builder(CFG))


def _attached(t: Tools, sid: str, target: str) -> dict[str, bool]:
    """note id -> stale, of the notes TARGET's item carries."""
    return {n["id"]: n["stale"] for n in t.get(sid, target).items[0].notes}


def _warned(t: Tools, sid: str, nid: str) -> list[str]:
    return t.get(sid, nid).items[0].warnings


def _walked(t: Tools, sid: str, target: str) -> set[str]:
    return {i.id for i in t.walk(sid, target, edges=["notes"]).items}


def test_a_branch_rename_keeps_the_notes_about_the_file(tmp_path):
    r, store = _repo(tmp_path)
    t = _tools(store)
    main = t.open_session().data["session"]
    n_main = t.remember(main, "rca", "subtotal returns a float", ["shop/cart.py::Cart.subtotal"]).data["note_id"]
    git(r.path, "checkout", "-q", "-b", "fg")
    r.commit("count", {"shop/cart.py": CART + COUNT})
    before = t.open_session(branch="fg").data["session"]
    n_fg = t.remember(before, "rca", "count ignores the quantity", ["shop/cart.py::Cart.count"]).data["note_id"]
    r.mv("shop/cart.py", "shop/basket.py")
    r.commit("rename cart to basket")                                   # content unchanged

    fg = t.open_session(branch="fg").data["session"]
    assert _attached(t, fg, "shop/basket.py::Cart.count") == {n_fg: False}
    assert _attached(t, fg, "shop/basket.py::Cart.subtotal") == {n_main: False}
    assert {n_fg, n_main} <= _walked(t, fg, "shop/basket.py")
    for nid in (n_fg, n_main):
        assert not [w for w in _warned(t, fg, nid) if w.startswith("stale")], _warned(t, fg, nid)
    found = {i.id: i for i in t.search(fg, "count ignores the quantity", kinds=["rca"]).items}
    assert "x0.5" not in found[n_fg].why and not [w for w in found[n_fg].warnings if w.startswith("stale")]
    # the session that was open across the rename follows it too
    assert _attached(t, before, "shop/basket.py::Cart.count") == {n_fg: False}
    t.close()


def test_a_default_branch_rename_reindexed_leaves_a_worktree_note_on_its_code(tmp_path):
    r, store = _repo(tmp_path)
    wt = tmp_path / "wt"
    git(r.path, "worktree", "add", "-q", str(wt), "-b", "fw")
    (wt / "shop/cart.py").write_text(CART.replace("return name", "return name.strip()"))
    git(wt, "commit", "-qam", "fw: strip")
    t = _tools(store)
    sid = t.open_session(worktree=str(wt)).data["session"]
    nid = t.remember(sid, "rca", "add strips names", ["shop/cart.py::Cart.add"]).data["note_id"]
    t.close()
    r.mv("shop/cart.py", "shop/basket.py")       # after the note on git's clock (the merge's cut)
    git(r.path, "commit", "-qm", "main: rename cart to basket", date="2099-01-01T12:00:00+00:00")
    index_repository(r.path, store, CFG)                                # the merge moves the note to basket.py

    t = _tools(store)
    main = t.open_session().data["session"]
    assert t.get(main, nid).items[0].path == "shop/basket.py"           # the merge's rule, as it was
    for kw in ({"worktree": str(wt)}, {"branch": "fw"}):
        sid = t.open_session(**kw).data["session"]
        assert _attached(t, sid, "shop/cart.py::Cart.add") == {nid: False}, kw
        assert nid in _walked(t, sid, "shop/cart.py")
        assert not [w for w in _warned(t, sid, nid) if w.startswith("stale")], (kw, _warned(t, sid, nid))
    t.close()


def test_notes_are_judged_by_their_function_not_their_file(tmp_path):
    r, store = _repo(tmp_path)
    t = _tools(store)
    main = t.open_session().data["session"]
    ship = t.remember(main, "rca", "heavy parcels", ["shop/pricing.py::shipping"]).data["note_id"]
    gone = t.remember(main, "rca", "refund has no check", ["shop/pricing.py::refund"]).data["note_id"]
    disc = t.remember(main, "rca", "discount rounds to cents", ["shop/pricing.py::discount"]).data["note_id"]
    git(r.path, "checkout", "-q", "-b", "fc")
    r.commit("fc: discount precision, drop refund",
             {"shop/pricing.py": PRICING[:PRICING.index("\n\n\ndef refund")].replace("), 2)", "), 3)") + "\n"})
    fc = t.open_session(branch="fc").data["session"]
    assert _attached(t, fc, "shop/pricing.py::shipping") == {ship: False}         # untouched: same hash
    assert _attached(t, fc, "shop/pricing.py::discount") == {disc: True}          # the branch changed it
    assert not [w for w in _warned(t, fc, ship) if w.startswith("stale")]
    said = [w for w in _warned(t, fc, gone) if w.startswith("stale")]
    assert said and "shop/pricing.py::refund no longer exists on branch fc" in said[0], said
    assert "in a file" not in said[0]
    said = [w for w in _warned(t, fc, disc) if w.startswith("stale")]
    assert said and "shop/pricing.py::discount changed since" in said[0], said
    found = {i.id: i for i in t.search(fc, "heavy parcels", kinds=["rca"]).items}
    assert "x0.5" not in found[ship].why
    t.close()


def test_a_worktree_note_about_uncommitted_code_is_not_gone_from_its_branch(tmp_path):
    r, store = _repo(tmp_path)
    wt = tmp_path / "wt"
    git(r.path, "worktree", "add", "-q", str(wt), "-b", "fw")
    (wt / "shop/pricing.py").write_text(PRICING + '\n\ndef bulk(n):\n    """Uncommitted."""\n    return n\n')
    t = _tools(store)
    sid = t.open_session(worktree=str(wt)).data["session"]
    nid = t.remember(sid, "insight", "bulk is a helper", ["shop/pricing.py::bulk"]).data["note_id"]
    assert not [w for w in _warned(t, sid, nid) if w.startswith("stale")]
    fw = t.open_session(branch="fw").data["session"]                   # the committed branch lacks it
    said = [w for w in _warned(t, fw, nid) if w.startswith("stale")]
    assert said and "is not in that commit: it was uncommitted work in a worktree" in said[0], said
    assert "no longer exists" not in said[0]
    t.close()


def test_remember_says_the_branch_deleted_the_code(tmp_path):
    r, store = _repo(tmp_path)
    git(r.path, "checkout", "-q", "-b", "fc")
    r.commit("drop refund", {"shop/pricing.py": PRICING[:PRICING.index("\n\n\ndef refund")] + "\n"})
    t = _tools(store)
    fc = t.open_session(branch="fc").data["session"]
    with pytest.raises(NoteRejected) as e:
        t.remember(fc, "rca", "refund has no check", ["shop/pricing.py::refund"])
    assert "not on branch 'fc' (the branch changed or deleted its file)" in str(e.value)
    t.close()
