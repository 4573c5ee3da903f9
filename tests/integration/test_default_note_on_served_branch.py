"""A note of the default branch read while the hooks serve a feature branch's index that lacks its
code (a session-30 leftover): it read "pending: its code ... is on branch main at ..., not in the
default branch's index yet (it attaches once merged and re-indexed)" though main is the default
branch and has it, and the index served was fz's. Now the wording names the index served (and of
code on a branch behind the one served, that this branch no longer has it). Real git, the real
index, the real Tools and CLI."""

from __future__ import annotations

import json

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.clirun import run
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False)
CART = "def total(x):\n    return x\n"
ZETA = CART + "\n\ndef zeta(y):\n    return y\n"


def _noted_on_main(r: Repo, store: str) -> str:
    index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    nid = t.remember(t.open_session().data["session"], "rca", "zeta frobnicates totals", ["shop/cart.py::zeta"]
                     ).data["note_id"]
    t.close()
    return nid


def _warnings(store: str, nid: str) -> list[str]:
    t = Tools.open([store], overlay_builder=builder(CFG))
    try:
        return t.get(t.open_session().data["session"], nid).items[0].warnings
    finally:
        t.close()


def test_a_default_branch_note_on_an_index_of_a_branch_cut_before_its_code(tmp_path, capsys):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART})
    git(r.path, "branch", "fz")
    main = r.commit("add zeta", {"shop/cart.py": ZETA})
    store = str(tmp_path / "store")
    nid = _noted_on_main(r, store)
    git(r.path, "checkout", "-q", "fz")
    assert index_repository(r.path, store, CFG).notes["pending"] == 1
    said = _warnings(store, nid)
    assert said == [f"pending: its code (shop/cart.py::zeta) is on branch main at {main[:12]}, the default branch, "
                    "not in this index of branch fz (it attaches once main is indexed again, or fz has it)"], said
    t = Tools.open([store], overlay_builder=builder(CFG))          # a session on fz, the index served: the same
    assert t.get(t.open_session(branch="fz").data["session"], nid).items[0].warnings == said
    t.close()
    rc, out, err = run(capsys, "notes", "show", nid, "--store", store, "--json")
    assert rc == 0 and said[0] in json.dumps(json.loads(out)), out
    git(r.path, "checkout", "-q", "main")
    index_repository(r.path, store, CFG)
    assert _warnings(store, nid) == []                  # back on main: attached, nothing to say


def test_a_branch_note_read_on_an_index_of_another_feature_branch_names_that_one(tmp_path):
    """fb's note about its version of total, read on fz's index: "the default branch's differs (not
    merged into the default branch yet)" (a review); the index read is fz's."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART})
    git(r.path, "branch", "fz")
    git(r.path, "checkout", "-q", "-b", "fb")
    fb = r.commit("fb: total doubles", {"shop/cart.py": "def total(x):\n    return 2 * x\n"})
    git(r.path, "checkout", "-q", "main")
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    nid = t.remember(t.open_session(branch="fb").data["session"], "rca", "fb doubles the total",
                     ["shop/cart.py::total"]).data["note_id"]
    t.close()
    git(r.path, "checkout", "-q", "fz")
    index_repository(r.path, store, CFG)
    assert _warnings(store, nid) == [f"written on branch fb at {fb[:12]}, about that version of shop/cart.py::total: "
                                     "branch fz's differs (not merged into branch fz yet)"]

