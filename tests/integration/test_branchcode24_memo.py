"""A branch session places each note once per overlay (``Memory.branch_code`` keeps where its
``BranchCode`` placed each note on the overlay), and a branch that moves on places afresh; on a real
repository, the real index job, overlay builder and Tools.

The default branch has ``fmt`` and ``fmt#2``; a note is about ``fmt#2``; branch ``feat`` adds a
``fmt`` above both (the note's code is ``fmt#3`` there). Before: every caller built its own
``BranchCode``, so ``locate``'s cache lasted one call and a walk of the file placed the note three
times (walklinks, branch_notes, answernotes), a get of the file once per item and again for tools."""

from __future__ import annotations

from pipeline.overlay import builder
from stratum import placement
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git, noted_repo
from tests.integration.test_branchplace24_notes import FIRST, SECOND, ZEROTH, _m   # one source of the fmt module

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
MINUS = 'def fmt(x):\n    """Minus-one fmt: bytes."""\n    return bytes(x)\n\n\n'


def _setup(tmp_path) -> tuple[Repo, str, str]:
    r, store, nid = noted_repo(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": _m(FIRST, SECOND)},
                               "pkg/m.py::fmt#2", "the repr fmt double-quotes strings", CFG)
    git(r.path, "checkout", "-q", "-b", "feat")
    r.commit("zeroth", {"pkg/m.py": _m(ZEROTH, FIRST, SECOND)})
    git(r.path, "checkout", "-q", "main")
    return r, store, nid


def test_a_branch_walk_places_each_note_once(tmp_path, monkeypatch):
    """The walk of the file lists the note (on fmt#3, its code on the branch) and placed it once;
    the next answer on the same overlay places it no more."""
    r, store, nid = _setup(tmp_path)
    placed: list[str] = []
    real = placement.place

    def counting(about, code, written, leads):
        placed.append(",".join(t.node_id for t in about))
        return real(about, code, written, leads)

    monkeypatch.setattr(placement, "place", counting)
    t = Tools.open([store], overlay_builder=builder(CFG))
    try:
        fs = t.open_session(branch="feat").data["session"]
        assert nid in {i.id for i in t.walk(fs, "pkg/m.py", edges=["notes"]).items}
        assert len(placed) == 1, placed
        assert [n["id"] for n in t.get(fs, "pkg/m.py::fmt#3").items[0].notes] == [nid]
        assert len(placed) == 1, placed
    finally:
        t.close()


def test_a_branch_that_moves_on_gets_a_new_placement(tmp_path):
    """The branch adds another ``fmt`` above: the session follows it, and the note is on fmt#4
    (its code there), not the fmt#3 the first commit's overlay placed it on."""
    r, store, nid = _setup(tmp_path)
    t = Tools.open([store], overlay_builder=builder(CFG))
    try:
        fs = t.open_session(branch="feat").data["session"]
        assert [n["id"] for n in t.get(fs, "pkg/m.py::fmt#3").items[0].notes] == [nid]
        git(r.path, "checkout", "-q", "feat")
        r.commit("minus", {"pkg/m.py": _m(MINUS, ZEROTH, FIRST, SECOND)})
        git(r.path, "checkout", "-q", "main")
        assert [n["id"] for n in t.get(fs, "pkg/m.py::fmt#4").items[0].notes] == [nid]
        assert [n["id"] for n in t.get(fs, "pkg/m.py::fmt#3").items[0].notes] == []
    finally:
        t.close()
