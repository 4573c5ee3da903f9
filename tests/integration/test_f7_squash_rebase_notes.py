"""A note written on a branch about code the branch changed, after the branch lands by a squash merge
or a rebase (a probe, session 28): the default branch's history never holds the note's commit, so it
read "written on branch feature ..., not merged into the default branch yet" forever (also with the
branch deleted, also after --full) and search lifted its code in full. Once the default branch's code
there is no longer the version it had when the note was written, the note is judged as any note:
stale when the code differs from the note's (the branch changed it again after the note), fresh
when the branch's version landed as the note saw it. Real git, the real index, the real Tools."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git
from tests.pages import search_all

CFG = IndexConfig(num_cpus=1, ray=False)
DISCOUNT = "shop/pricing.py::discount"
PRICING = "def discount(total, pct):\n    return total * (1 - pct / 100)\n"
FLOOR = "def discount(total, pct, floor=0.0):\n    return max(floor, total * (1 - pct / 100))\n"
FLOOR2 = "def discount(total, pct, floor=1.0):\n    return max(floor, total * (1 - pct / 100))\n"
CART = "def cart_total(items):\n    return sum(items)\n"
TEXT = "the floor keeps discount from going negative"


def _noted(tmp_path, later: str | None) -> tuple[Repo, str, str]:
    """main indexed; feature changes discount (c1), a branch session notes it, then (LATER) feature
    changes it again: (repo, store, the note's id)."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/pricing.py": PRICING, "shop/cart.py": CART})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "feature")
    r.commit("floor", {"shop/pricing.py": FLOOR})
    git(r.path, "checkout", "-q", "main")
    t = Tools.open([store], overlay_builder=builder(CFG))
    nid = t.remember(t.open_session(branch="feature").data["session"], "rca", TEXT, [DISCOUNT]).data["note_id"]
    t.close()
    if later is not None:
        git(r.path, "checkout", "-q", "feature")
        r.commit("floor again", {"shop/pricing.py": later})
        git(r.path, "checkout", "-q", "main")
    return r, store, nid


def _land(r: Repo, how: str) -> None:
    """The branch lands on main by HOW, and is deleted (what a host does after a squash merge)."""
    r.commit("readme", {"README.md": "shop\n"})         # main moved on: a rebase rewrites feature's commits
    if how == "squash":
        git(r.path, "merge", "-q", "--squash", "feature")
        git(r.path, "commit", "-q", "-m", "feature, squashed")
    else:
        git(r.path, "checkout", "-q", "feature")
        git(r.path, "rebase", "-q", "main")
        git(r.path, "checkout", "-q", "main")
        git(r.path, "merge", "-q", "--ff-only", "feature")
    git(r.path, "branch", "-q", "-D", "feature")


def _said(t: Tools, ms: str, nid: str) -> tuple[list[str], list[dict], str]:
    """(the note's own warnings, the notes the code's item carries, search's why of the note)."""
    own = t.get(ms, nid).items[0].warnings
    attached = [n for n in t.get(ms, DISCOUNT).items[0].notes if n["id"] == nid]
    why = next(i for i in search_all(t, ms, "discount floor negative", 10)[0] if i.id == nid).why
    return own, attached, why


@pytest.mark.parametrize("how", ["squash", "rebase"])
def test_a_branch_note_goes_stale_after_a_squash_or_rebase_when_the_branch_changed_its_code_again(tmp_path, how):
    r, store, nid = _noted(tmp_path, later=FLOOR2)
    _land(r, how)
    for full in (False, True):
        index_repository(r.path, store, replace(CFG, full=full))
        t = Tools.open([store], overlay_builder=builder(CFG))
        own, attached, why = _said(t, t.open_session().data["session"], nid)
        t.close()
        assert any(w.startswith(f"stale: {DISCOUNT} changed since") for w in own), (full, own)
        assert not any(w.startswith("written on") for w in own), (full, own)        # "not merged ... yet"
        assert [n["stale"] for n in attached] == [True] and "on branch feature" not in attached[0]["line"], attached
        assert "stale" in why, why                                              # counted x0.5, as stale


@pytest.mark.parametrize("how", ["squash", "rebase"])
def test_a_branch_note_lands_fresh_after_a_squash_or_rebase_of_the_version_it_saw(tmp_path, how):
    r, store, nid = _noted(tmp_path, later=None)
    _land(r, how)
    index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    own, attached, why = _said(t, t.open_session().data["session"], nid)
    t.close()
    assert not any(w.startswith(("stale", "written on")) for w in own), own
    assert [n["stale"] for n in attached] == [False] and "on branch" not in attached[0]["line"], attached
    assert "stale" not in why, why


def test_an_unmerged_branch_note_is_about_its_version_until_the_default_branch_changes_that_code(tmp_path):
    """The branch not merged: "written on branch feature" while main's discount is the version the
    note was written beside; main changing discount itself is a change since the note there."""
    r, store, nid = _noted(tmp_path, later=None)
    r.commit("readme", {"README.md": "shop\n"})
    index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    own = t.get(t.open_session().data["session"], nid).items[0].warnings
    t.close()
    assert any(w.startswith("written on branch feature") for w in own) and not any(
        w.startswith("stale") for w in own), own
    r.commit("rounding", {"shop/pricing.py": PRICING.replace("total *", "round(total) *")})
    index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    own = t.get(t.open_session().data["session"], nid).items[0].warnings
    fs = t.open_session(branch="feature").data["session"]      # the branch still has the version it saw
    on_branch = [n["stale"] for n in t.get(fs, DISCOUNT).items[0].notes if n["id"] == nid]
    t.close()
    assert any(w.startswith(f"stale: {DISCOUNT} changed since") for w in own), own
    assert on_branch == [False], on_branch
