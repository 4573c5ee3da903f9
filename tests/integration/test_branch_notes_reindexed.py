"""A branch session after the default branch is re-indexed: the notes written on the branch stay
reachable there (a merged note carries its code's path, and a file the branch changed hid them
with its code: get NotFound, search dropped them), and walk --edge notes of a file lists its
symbols' notes as get carries them (a session probe)."""

from __future__ import annotations

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False)
PRICING = "def discount(total, pct):\n    return total * (1 - pct / 100)\n"
CART = "def cart_total(items):\n    return sum(items)\n"


def _repo(tmp_path) -> tuple[Repo, str]:
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/pricing.py": PRICING, "shop/cart.py": CART})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "feature")
    r.commit("floor", {"shop/pricing.py": "def discount(total, pct):\n    return max(0.0, total * (1 - pct / 100))\n",
                       "shop/coupons.py": "def stack_coupons(codes):\n    return sorted(codes)\n"})
    git(r.path, "checkout", "-q", "main")
    return r, store


def test_branch_notes_stay_reachable_in_the_branch_after_a_reindex_of_the_default_branch(tmp_path):
    r, store = _repo(tmp_path)
    t = Tools.open([store], overlay_builder=builder(CFG))
    fs = t.open_session(branch="feature").data["session"]
    on_changed = t.remember(fs, "rca", "discount floor protects negatives", ["shop/pricing.py::discount"]).data["note_id"]
    on_added = t.remember(fs, "insight", "stack_coupons must cap at the total", ["shop/coupons.py::stack_coupons"]).data["note_id"]
    t.close()
    r.commit("readme", {"README.md": "shop\n"})            # the nightly re-index of the default branch
    index_repository(r.path, store, CFG)

    t = Tools.open([store], overlay_builder=builder(CFG))
    fs = t.open_session(branch="feature").data["session"]
    for nid, words in ((on_changed, "discount floor protects negatives"), (on_added, "stack_coupons must cap at the total")):
        assert t.get(fs, nid).items[0].id == nid                  # it was NotFound: "not on 'feature'"
        assert nid in [i.id for i in t.search(fs, words).items], words
    assert on_changed in [i.id for i in t.walk(fs, "shop/pricing.py::discount", edges=["notes"]).items]
    # a file's walk lists its symbols' notes, as its get carries them
    walked = [i.id for i in t.walk(fs, "shop/pricing.py", edges=["notes"]).items]
    carried = [n["id"] for n in t.get(fs, "shop/pricing.py").items[0].notes]
    assert on_changed in carried and on_changed in walked, (carried, walked)
    t.close()


def test_a_branch_walk_of_an_unchanged_file_lists_its_symbols_notes(tmp_path):
    r, store = _repo(tmp_path)
    t = Tools.open([store], overlay_builder=builder(CFG))
    ms, fs = t.open_session().data["session"], t.open_session(branch="feature").data["session"]
    nid = t.remember(ms, "failure", "memoizing cart_total broke coupons", ["shop/cart.py::cart_total"]).data["note_id"]
    assert nid in [i.id for i in t.walk(ms, "shop/cart.py", edges=["notes"]).items]
    assert nid in [i.id for i in t.walk(fs, "shop/cart.py", edges=["notes"]).items]     # it was left out
    t.close()
