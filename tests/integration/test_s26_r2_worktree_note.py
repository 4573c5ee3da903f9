"""A note written in a linked worktree about code edited there and not committed stays "not indexed
yet" in the default session when the main checkout is indexed: that run never read the worktree
(``branchnotes.IndexedHistory.unindexed``, the run report's ``branch``).

A review (session 26, r2 defect 3): worktree wt on branch fw, its HEAD the indexed commit, edits
``discount`` and writes an rca note there. The default session said "the indexed version differs (not
committed and indexed yet)"; after any index of the untouched main checkout it said "stale:
shop/pricing.py::discount changed since this note was written" and search counted the note x0.5,
though nothing had changed. A run reads the work tree of the branch it records, so only that branch's
notes are judged by its publish time. Real repositories and a real linked worktree, the real index
job, overlay builder, Tools and CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.gitio import freshness
from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import EmbedConfig, IndexConfig, default_store_path
from stratum.tools import Tools
from tests.clirun import run
from tests.gitrepo import Repo, git

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
OLD = 'def discount(total, rate):\n    """Discount."""\n    return round(total * (1 - rate), 2)\n'
NEW = 'def discount(total, rate):\n    """Discount."""\n    return round(total * (1 - rate), 2) if rate < 1 else 0.0\n'
TEXT = "rate >= 1 gave negative totals; clamped now"


def _tools(store: str) -> Tools:
    return Tools.open([store], freshness=freshness, overlay_builder=builder(CFG))


def _noted_in_worktree(tmp_path: Path) -> tuple[Repo, Path, str, str, str]:
    """main indexed; worktree wt on branch fw (at the indexed commit) edits discount, not committed,
    and writes an rca note about it. Returns (repo, worktree, store, the note's id, HEAD's short sha)."""
    r = Repo(tmp_path / "repo")
    head = r.commit("init", {"shop/__init__.py": "", "shop/pricing.py": OLD})
    store = str(default_store_path(r.path))
    index_repository(r.path, store, CFG)
    wt = tmp_path / "wt"
    git(r.path, "worktree", "add", "-q", "-b", "fw", str(wt))
    (wt / "shop" / "pricing.py").write_text(NEW)
    t = _tools(store)
    try:
        s = t.open_session(worktree=str(wt)).data["session"]
        nid = t.remember(s, "rca", TEXT, ["shop/pricing.py::discount"]).data["note_id"]
    finally:
        t.close()
    return r, wt, store, nid, head[:12]


def _said(store: str, nid: str, **session) -> dict[str, list]:
    t = _tools(store)
    try:
        s = t.open_session(**session).data["session"]
        (sym,) = t.get(s, "shop/pricing.py::discount", level="summary").items
        return {"item": list(t.get(s, nid).items[0].warnings),
                "attached": [(n["line"], n["stale"]) for n in sym.notes if n["id"] == nid],
                "why": [it.why for it in t.search(s, "negative totals rate discount").items if it.qualname == "discount"]}
    finally:
        t.close()


def test_an_index_of_the_main_checkout_leaves_a_worktree_note_not_indexed_yet(tmp_path, capsys):
    r, wt, store, nid, head = _noted_in_worktree(tmp_path)
    line = (f"written about the work tree's version of shop/pricing.py::discount, uncommitted at HEAD {head} of "
            "branch fw: the indexed version differs (not committed and indexed yet)")
    assert _said(store, nid)["item"] == [line]
    rep = index_repository(r.path, store, CFG)                       # the untouched main checkout, not wt
    assert not rep.up_to_date and rep.version == 2                   # published (the note is unmerged)
    said = _said(store, nid)
    assert said["item"] == [line], said                              # it read "stale: ... changed since"
    ((attached, stale),) = said["attached"]
    assert not stale and f"uncommitted at HEAD {head} of branch fw, not indexed yet" in attached, attached
    (why,) = said["why"]
    assert f"rca note {nid[:8]}" in why and "x0.5" not in why, why
    assert _said(store, nid, worktree=str(wt))["item"] == []        # the worktree's own session: fresh
    rc, out, err = run(capsys, "notes", "list", "--store", store)
    assert rc == 0 and "not indexed yet" in out and "[stale]" not in out, (out, err)


def test_once_fw_is_merged_and_indexed_the_hashes_decide(tmp_path):
    r, wt, store, nid, _ = _noted_in_worktree(tmp_path)
    git(wt, "commit", "-qam", "clamp discount")
    git(r.path, "merge", "-q", "--ff-only", "fw")
    index_repository(r.path, store, CFG)
    said = _said(store, nid)
    assert said["item"] == [] and said["attached"] and not said["attached"][0][1], said   # fresh: its version


def test_the_main_checkouts_own_note_still_turns_on_an_index_of_it(tmp_path):
    """A note of the checkout's branch is judged by the run that read its work tree, as before."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/pricing.py": OLD})
    store = str(default_store_path(r.path))
    index_repository(r.path, store, CFG)
    r.write({"shop/pricing.py": NEW})
    t = _tools(store)
    try:
        nid = t.remember(t.open_session().data["session"], "rca", TEXT, ["shop/pricing.py::discount"]).data["note_id"]
    finally:
        t.close()
    r.write({"shop/pricing.py": OLD})                                # thrown away, then indexed
    index_repository(r.path, store, CFG)
    manifest = json.loads((Path(store) / "manifest.json").read_text())
    assert manifest["report"]["branch"] == "main"
    (said,) = _said(store, nid)["item"]
    assert said.startswith("stale: shop/pricing.py::discount changed since this note was written"), said
