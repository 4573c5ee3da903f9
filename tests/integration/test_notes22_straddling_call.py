"""A call that started on version V while a re-index published V+1 (``ShardSet.pinned``: one version
per call) reads V's notes overlay, not V+1's beside V's code. With V+1's: a note V+1 merged was
neither a row of V nor unmerged there (get of its id NotFound, walk left it out); a note was judged
against V+1's code (stale beside V's code, which it was written about); and a note about code only
V+1 has (a branch's function, merged) was carried by V's file as about code there. Once no call
holds V, its overlay goes with it; a note written in such a call is seen by the next one at once."""

from __future__ import annotations

import gc
import weakref

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import EmbedConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
FN, NEW = "shop/pricing.py::discount", "shop/pricing.py::floor_price"


def _seen(t: Tools, s: str, nid: str, new_nid: str) -> dict:
    """What a call sees of note NID (about FN) and NEW_NID (about NEW)."""
    walked = {i.id: i.warnings for i in t.walk(s, FN, edges=["notes"]).items}
    carried = {n["id"]: n["stale"] for n in t.get(s, "shop/pricing.py").items[0].notes}
    return {"walk": nid in walked, "warnings": walked.get(nid), "get": t.get(s, nid).items[0].id == nid,
            "stale": carried.get(nid), "carries_new": new_nid in carried}


def test_a_call_straddling_a_reload_reads_its_own_versions_notes(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/pricing.py": "def discount(total, pct):\n    return total\n"})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "feature")
    r.commit("floor", {"shop/pricing.py": "def discount(total, pct):\n    return total\n\n\n"
                                          "def floor_price(p):\n    return max(p, 0)\n"})
    git(r.path, "checkout", "-q", "main")
    t = Tools.open([store], embedder=None, overlay_builder=builder(CFG))
    s = t.open_session(author="agent").data["session"]
    fs = t.open_session(author="agent", branch="feature").data["session"]
    nid = t.remember(s, "rca", "discount ignores pct", [FN]).data["note_id"]
    new_nid = t.remember(fs, "insight", "floor_price clamps at zero", [NEW]).data["note_id"]   # only the branch has it
    on_v = _seen(t, s, nid, new_nid)
    assert on_v == {"walk": True, "warnings": [], "get": True, "stale": False, "carries_new": False}

    old = weakref.ref(next(iter(t.memory)))
    with t.memory.shards.pinned():          # a call on V ...
        git(r.path, "merge", "-q", "feature")
        r.commit("pct", {"shop/pricing.py": "def discount(total, pct):\n    return total * (1 - pct / 100)\n\n\n"
                                            "def floor_price(p):\n    return max(p, 0)\n"})
        index_repository(r.path, store, CFG)     # ... while V+1 (both notes merged, discount changed) is published
        t.memory.reload()
        assert next(iter(t.memory)) is old()
        assert _seen(t, s, nid, new_nid) == on_v     # NotFound and left out; stale; new_nid carried by V's file
        mine = t.remember(s, "failure", "tried caching discount", [FN]).data["note_id"]     # about V's code

    assert mine in [i.id for i in t.walk(s, FN, edges=["notes"]).items]     # the next call (V+1) sees it at once
    after = _seen(t, s, nid, new_nid)
    assert after["get"] and after["stale"] and after["carries_new"], after
    assert any("changed since this note was written" in w for w in after["warnings"])
    t.close()
    gc.collect()
    assert old() is None                        # V and its overlay are not kept beside V+1
