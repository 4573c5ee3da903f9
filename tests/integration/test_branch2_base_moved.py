"""A base note about code the default branch changed after a branch forked: in a session on the
branch, which still has that code as the note saw it, the note is not stale (it read "stale:
shop/pricing.py::discount is in a file 'feature' changed since this note was written", though
feature never touched the file). The overlay records the paths only the default branch changed since
the fork (``base_moved``); there a base note is judged by its hashes, as the default branch judges
it. A file the branch itself changed keeps the rule it had: a base note about it is stale there."""

from __future__ import annotations

from pipeline.job import index_repository
from pipeline.overlay import build, builder
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False)
DISCOUNT = "shop/pricing.py::discount"
TOTAL = "shop/cart.py::total"


def _pricing(pct: int) -> str:
    return f"def discount(t):\n    return t * (1 - {pct} / 100)\n\n\ndef rate():\n    return 7\n"


def _stale(t: Tools, sid: str, nid: str, target: str, text: str) -> dict[str, bool]:
    """Whether note NID is stale on TARGET's item (get), as its own item, in walk and in search."""
    said = [w for w in t.get(sid, nid).items[0].warnings if w.startswith("stale")]
    walked = next(i for i in t.walk(sid, target, edges=["notes"]).items if i.id == nid)
    found = next(i for i in t.search(sid, text, kinds=["insight"]).items if i.id == nid)
    return {"get": {n["id"]: n["stale"] for n in t.get(sid, target).items[0].notes}[nid], "item": bool(said),
            "walk": any(w.startswith("stale") for w in walked.warnings),
            "search": any(w.startswith("stale") for w in found.warnings) or "x0.5" in found.why}


def test_a_base_note_about_code_main_changed_after_the_fork_is_fresh_on_the_branch(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/pricing.py": _pricing(10),
                      "shop/cart.py": "def total(xs):\n    return sum(xs)\n"})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    base = t.open_session().data["session"]
    ten, carts = "discount takes ten percent off", "total sums the cart"
    n_ten = t.remember(base, "insight", ten, [DISCOUNT]).data["note_id"]
    n_cart = t.remember(base, "insight", carts, [TOTAL]).data["note_id"]
    t.close()
    git(r.path, "checkout", "-q", "-b", "feature")                 # forks here: changes cart.py only
    r.commit("cart", {"shop/cart.py": "def total(xs):\n    return sum(xs) + 0\n"})
    git(r.path, "checkout", "-q", "main")
    r.commit("twenty percent", {"shop/pricing.py": _pricing(20)})  # main moves discount after the fork
    index_repository(r.path, store, CFG)
    assert build(store, "feature", CFG)["base_moved"] == ["shop/pricing.py"]

    t = Tools.open([store], overlay_builder=builder(CFG))
    base = t.open_session().data["session"]
    twenty = "discount takes twenty percent off"
    n_twenty = t.remember(base, "insight", twenty, [DISCOUNT]).data["note_id"]     # about main's new version
    sid = t.open_session(branch="feature").data["session"]
    fresh, stale = dict.fromkeys(("get", "item", "walk", "search"), False), dict.fromkeys(("get", "item", "walk", "search"), True)
    assert _stale(t, base, n_ten, DISCOUNT, ten) == stale                 # main changed it: stale there
    assert _stale(t, sid, n_ten, DISCOUNT, ten) == fresh                  # the branch has it as the note saw it
    assert _stale(t, sid, n_twenty, DISCOUNT, twenty) == stale            # the branch has the older code
    assert _stale(t, sid, n_cart, TOTAL, carts) == stale                  # the branch changed that file itself
    said = [w for w in t.get(sid, n_cart).items[0].warnings if w.startswith("stale")]
    assert said and "shop/cart.py::total changed since" in said[0], said
    t.close()
