"""A branch session places a note about one of several same-named definitions (``add``, ``add#2``...)
where the branch has the code it was written about, as the merge does once the branch is merged
(``stratum.placement``), on a real repository, the real index job, overlay builder and Tools.

Before: ``BranchCode.locate`` had the merge's first three steps but not its renumbered-overload
step, so a branch that added an ``add`` above the one a note was about showed the note, stale
("changed since this note was written"), on the new neighbour ``add#2`` while ``add#3``, its code
unchanged, had no note; once merged and re-indexed the merge placed it right."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git, noted_repo

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
FAST = ("if sys.version_info >= (3, 12):\n    def add(items, item, n):\n        \"\"\"Add n copies at once.\"\"\"\n"
        "        items.extend([item] * n)\n")
COUPON = ("elif sys.version_info >= (3, 10):\n    def add(items, item, n, coupon=None):\n"
          "        \"\"\"Add one with a coupon.\"\"\"\n        items.append((item, coupon))\n")
CHECKED = ("else:\n    def add(items, item, n):\n        \"\"\"Add n copies, one by one.\"\"\"\n"
           "        if n < 0:\n            raise ValueError(n)\n        for _ in range(n):\n"
           "            items.append(item)\n")
TEXT = "add(items, item, n) must reject n < 0 before the loop"


def cart(*branches: str) -> str:
    return '"""Cart."""\nimport sys\n\n' + "".join(branches)


def _notes(t: Tools, sid: str, target: str) -> dict[str, bool]:
    """note id -> stale, of the notes TARGET's item carries."""
    return {n["id"]: n["stale"] for n in t.get(sid, target).items[0].notes}


def _stale(warnings: list[str]) -> list[str]:
    return [w for w in warnings if w.startswith("stale")]


def _noted(tmp_path, merged: bool) -> tuple[Repo, str, str]:
    """A note about ``add#2`` written on the default branch (MERGED: re-indexed since), and a branch
    ``feature`` that adds an ``add`` between ``add`` and it: (repo, store, note id)."""
    r, store, nid = noted_repo(tmp_path, {"shop/__init__.py": "", "shop/cart.py": cart(FAST, CHECKED)},
                               "shop/cart.py::add#2", TEXT, CFG)
    t = Tools.open([store])
    try:                                    # the note is about the checked add (the premise)
        assert "n < 0" in t.get(t.open_session().data["session"], "shop/cart.py::add#2", "full").items[0].text
    finally:
        t.close()
    if merged:
        index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "feature")
    r.commit("coupons", {"shop/cart.py": cart(FAST, COUPON, CHECKED)})
    return r, store, nid


@pytest.mark.parametrize("merged", [False, True], ids=["unmerged", "merged"])
def test_a_branch_session_reads_the_note_as_about_its_unchanged_overload(tmp_path, merged):
    """get and search of the note in the branch session: not stale (before: "stale:
    shop/cart.py::add#2 changed since this note was written", the neighbour's code)."""
    _, store, nid = _noted(tmp_path, merged)
    t = Tools.open([store], overlay_builder=builder(CFG))
    try:
        fs = t.open_session(branch="feature").data["session"]
        assert "n < 0" in t.get(fs, "shop/cart.py::add#3", "full").items[0].text
        assert not _stale(t.get(fs, nid).items[0].warnings), t.get(fs, nid).items[0].warnings
        found = {i.id: i for i in t.search(fs, "reject n < 0 before the loop", kinds=["rca"]).items}
        assert nid in found and not _stale(found[nid].warnings), found.get(nid)
    finally:
        t.close()


@pytest.mark.parametrize("merged", [False, True], ids=["unmerged", "merged"])
def test_a_branch_session_attaches_the_note_to_its_overload_not_the_neighbour(tmp_path, merged):
    """get of the overloads in the branch session: the note on add#3 (its code), fresh; not on the
    new add#2 (before: there, stale, and add#3 had none). The default branch's session still has
    it on add#2: a branch session rewrites nothing."""
    _, store, nid = _noted(tmp_path, merged)
    t = Tools.open([store], overlay_builder=builder(CFG))
    try:
        fs = t.open_session(branch="feature").data["session"]
        assert _notes(t, fs, "shop/cart.py::add#3") == {nid: False}
        assert nid not in _notes(t, fs, "shop/cart.py::add#2")
        assert _notes(t, fs, "shop/cart.py::add") == {}
        assert nid in _notes(t, fs, "shop/cart.py")                 # the file's item carries its symbols' notes
        main = t.open_session().data["session"]
        assert _notes(t, main, "shop/cart.py::add#2") == {nid: False}
    finally:
        t.close()


def test_the_merge_places_the_note_on_its_overload_once_the_branch_is_merged(tmp_path):
    """Unchanged by the shared rule: merged and re-indexed, the note is on add#3, fresh, and says so."""
    r, store, nid = _noted(tmp_path, merged=False)
    git(r.path, "checkout", "-q", "main")
    git(r.path, "merge", "-q", "--ff-only", "feature")
    rep = index_repository(r.path, store, CFG)
    assert rep.notes["orphaned"] == 0, rep.notes
    t = Tools.open([store])
    try:
        s = t.open_session(author="reader").data["session"]
        assert _notes(t, s, "shop/cart.py::add#3") == {nid: False}
        assert nid not in _notes(t, s, "shop/cart.py::add#2")
        note = t.get(s, nid, "full").items[0]
        assert "add#3" in note.text, note.text
    finally:
        t.close()
