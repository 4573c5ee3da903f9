"""A note written about code the agent just edited (uncommitted) is about that version: after the
commit and the re-index it is fresh (a steering probe: it read "stale: changed since this note was
written ... counted x0.5", the change having come before the note). Without a way to read the work
tree, remember says the note is tied to the indexed version and names --worktree."""

from __future__ import annotations

from pipeline.gitio import freshness
from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig, default_store_path
from stratum.tools import Tools
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False)
OLD = "def discount(total, pct):\n    return total * (1 - pct / 100)\n"
NEW = "def discount(total, pct):\n    return max(0.0, total * (1 - pct / 100))\n"
CART = "def cart_total(items):\n    return sum(items)\n"


def _indexed(tmp_path) -> tuple[Repo, str]:
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/pricing.py": OLD, "shop/cart.py": CART})
    store = str(default_store_path(r.path))
    index_repository(r.path, store, CFG)
    return r, store


def _stale(t: Tools, nid: str) -> list[str]:
    s = t.open_session().data["session"]
    return [w for w in t.get(s, nid).items[0].warnings if "stale" in w]


def test_a_note_about_an_uncommitted_edit_is_fresh_after_commit_and_reindex(tmp_path):
    r, store = _indexed(tmp_path)
    r.write({"shop/pricing.py": NEW})                      # the agent's edit, not committed yet
    t = Tools.open([store], freshness=freshness, overlay_builder=builder(CFG))
    s = t.open_session().data["session"]
    got = t.remember(s, "rca", "negative totals came from discount; now floored at zero", ["shop/pricing.py::discount"])
    nid = got.data["note_id"]
    assert any("work tree's version of shop/pricing.py" in w for w in got.envelope.warnings), got.envelope.warnings
    assert not [w for w in got.items[0].warnings if "stale" in w]      # judged against what the agent sees
    clean = t.remember(s, "insight", "cart_total is a plain sum", ["shop/cart.py::cart_total"])
    assert not any("work tree" in w or "--worktree" in w for w in clean.envelope.warnings)
    t.close()
    r.commit("floor discount")
    index_repository(r.path, store, CFG)
    t = Tools.open([store], freshness=freshness, overlay_builder=builder(CFG))
    assert _stale(t, nid) == []                            # it read "stale: ... changed since this note was written"
    s = t.open_session().data["session"]
    carried = t.get(s, "shop/pricing.py::discount").items[0].notes
    assert [n["id"] for n in carried] == [nid] and "stale" not in carried[0]["line"], carried
    t.close()


def test_without_the_work_tree_remember_says_the_note_is_tied_to_the_indexed_version(tmp_path):
    r, store = _indexed(tmp_path)
    r.write({"shop/pricing.py": NEW})
    t = Tools.open([store], freshness=freshness)            # no overlay builder: the work tree cannot be read
    s = t.open_session().data["session"]
    got = t.remember(s, "rca", "negative totals came from discount", ["shop/pricing.py::discount"])
    said = " ".join(got.envelope.warnings)
    assert "tied to the indexed version" in said and "--worktree" in said, said
    t.close()
