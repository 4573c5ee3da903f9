"""A branch session's walk places notes where the branch has their code, as its get does
(``Memory.branch_notes``, ``BranchCode.locate``), on real repositories with a branch, the real
index job, the real overlay builder and Tools.

Before: ``walk(symbol, edges=["notes"])`` read the notes by the symbol's raw id, and walking out from
a note read its unplaced targets. On a branch that renamed a file, the walk of the renamed symbol
listed none of its notes and the note's walk listed no code; on a branch that added a same-named
definition above a note's overload, the new neighbour's walk listed the note and the note's walk
led to the neighbour. A default-branch session is unchanged."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git
from tests.integration.test_placement_overloads import CHECKED, COUPON, FAST   # the overloads, one source

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
CART = ('"""Cart."""\n\n\nclass Cart:\n    """Cart."""\n\n    def add(self, name):\n        """Add."""\n'
        "        return name\n\n    def subtotal(self):\n        \"\"\"Sum.\"\"\"\n        return 0\n")


def _overloads(*parts: str) -> str:
    return '"""Cart."""\nimport sys\n\n' + "".join(parts)


def _notes_of(t: Tools, sid: str, target: str) -> set[str]:
    return {i.id for i in t.walk(sid, target, edges=["notes"]).items}


def _about(t: Tools, sid: str, nid: str) -> list[tuple[str, str]]:
    return [(i.path, i.qualname) for i in t.walk(sid, nid, edges=["about"]).items]


def _store(tmp_path, files: dict[str, str], target: str, merged: bool) -> tuple[Repo, str, str]:
    """A repository of FILES indexed, a note about TARGET written on the default branch (MERGED:
    re-indexed since), then a branch ``feature`` checked out: (repo, store, note id)."""
    r = Repo(tmp_path / "repo")
    r.commit("init", files)
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    t = Tools.open([store])
    try:
        nid = t.remember(t.open_session(author="writer").data["session"], "rca", "the cause is here",
                         [target]).data["note_id"]
    finally:
        t.close()
    if merged:
        index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "feature")
    return r, store, nid


@pytest.mark.parametrize("merged", [False, True], ids=["unmerged", "merged"])
def test_a_branch_rename_walks_to_and_from_the_note(tmp_path, merged):
    r, store, nid = _store(tmp_path, {"shop/__init__.py": "", "shop/cart.py": CART},
                           "shop/cart.py::Cart.subtotal", merged)
    r.mv("shop/cart.py", "shop/basket.py")
    r.commit("rename cart to basket")
    t = Tools.open([store], overlay_builder=builder(CFG))
    try:
        fs = t.open_session(branch="feature").data["session"]
        assert nid in {n["id"] for n in t.get(fs, "shop/basket.py::Cart.subtotal").items[0].notes}   # as get has it
        assert nid in _notes_of(t, fs, "shop/basket.py::Cart.subtotal")
        assert _about(t, fs, nid) == [("shop/basket.py", "Cart.subtotal")]
        main = t.open_session().data["session"]          # the default branch: as it was
        assert nid in _notes_of(t, main, "shop/cart.py::Cart.subtotal")
        assert _about(t, main, nid) == [("shop/cart.py", "Cart.subtotal")]
    finally:
        t.close()


@pytest.mark.parametrize("merged", [False, True], ids=["unmerged", "merged"])
def test_a_renumbered_overload_walks_to_its_code_not_the_neighbour(tmp_path, merged):
    r, store, nid = _store(tmp_path, {"shop/__init__.py": "", "shop/cart.py": _overloads(FAST, CHECKED)},
                           "shop/cart.py::add#2", merged)
    r.commit("coupons", {"shop/cart.py": _overloads(FAST, COUPON, CHECKED)})
    t = Tools.open([store], overlay_builder=builder(CFG))
    try:
        fs = t.open_session(branch="feature").data["session"]
        assert nid in _notes_of(t, fs, "shop/cart.py::add#3")
        assert nid not in _notes_of(t, fs, "shop/cart.py::add#2")
        assert _about(t, fs, nid) == [("shop/cart.py", "add#3")]
        main = t.open_session().data["session"]
        assert nid in _notes_of(t, main, "shop/cart.py::add#2")
        assert _about(t, main, nid) == [("shop/cart.py", "add#2")]
    finally:
        t.close()


def test_a_withdrawn_note_follows_the_rename_in_the_walk(tmp_path):
    """A retracted note is listed by the walk of its code (the item says it is withdrawn), on the
    branch at the renamed code as on the default branch at its own."""
    r, store, nid = _store(tmp_path, {"shop/__init__.py": "", "shop/cart.py": CART},
                           "shop/cart.py::Cart.add", merged=False)
    t = Tools.open([store], overlay_builder=builder(CFG))
    try:
        t.retract(t.open_session(author="writer").data["session"], nid, "wrong")
    finally:
        t.close()
    r.mv("shop/cart.py", "shop/basket.py")
    r.commit("rename cart to basket")
    t = Tools.open([store], overlay_builder=builder(CFG))
    try:
        assert nid in _notes_of(t, t.open_session().data["session"], "shop/cart.py::Cart.add")
        assert nid in _notes_of(t, t.open_session(branch="feature").data["session"], "shop/basket.py::Cart.add")
    finally:
        t.close()
