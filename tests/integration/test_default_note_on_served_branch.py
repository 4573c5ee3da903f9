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
    rc, out, err = run(capsys, "notes", "show", nid, "--store", store, "--json")
    assert rc == 0 and said[0] in json.dumps(json.loads(out)), out
    git(r.path, "checkout", "-q", "main")
    index_repository(r.path, store, CFG)
    assert _warnings(store, nid) == []                  # back on main: attached, nothing to say

