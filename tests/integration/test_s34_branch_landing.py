"""Notes written in a branch session about code only that branch has, after the branch is rewritten
or renames the file and then lands (a probe, session 34):

- F1: feat adds ``bulk``, a note about it, then feat is amended without ``bulk`` and merged: the
  note stayed ``pending`` for ever ("its code ... is on branch feat at <a commit on no ref>"), and
  lifted search at full weight. The branch no longer has the code: the note is orphaned.
- F2: fx changes ``discount`` and adds ``bulk``, notes about both, then ``git mv`` of the file and a
  squash merge: the squash commit records a delete and an add, and the notes stayed pending on the
  old path. They attach to the renamed file's code, with the branch kept, deleted, or its commits
  collected (then by the code itself: same name, same content).

Real git, the real index and merge, the real Tools (no Ray, no vectors)."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from tests.branchrepo import CFG, branch_tools, remember
from tests.gitrepo import Repo, git

PRICING = "def discount(total, pct):\n    return total * (1 - pct / 100)\n\n\ndef tax(total):\n    return total * 0.2\n"
CAPPED = "def discount(total, pct):\n    pct = min(pct, 50)\n    return total * (1 - pct / 100)\n"
BULK = "\n\ndef bulk(total, n):\n    return discount(total, 5 if n > 10 else 0)\n"
TAX = "\n\ndef tax(total):\n    return total * 0.2\n"
# fx's other additions: enough that the squash commit's diff of the moved file is a delete and an add
MORE = "".join(f"\n\ndef tier_{i}(total):\n    return bulk(total, {i * 10})\n" for i in range(4))
BULK_NOTE = "bulk threshold is ten items"


def _repo(tmp_path) -> tuple[Repo, str]:
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/pricing.py": PRICING, "shop/util.py": "def fmt(x):\n    return x\n"})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    return r, store


def _note(store: str, nid: str) -> tuple[str, list[str]]:
    """(the note's status, its warnings) on the default branch."""
    t = branch_tools(store)
    try:
        item = t.get(t.open_session().data["session"], nid).items[0]
        return item.meta["status"], list(item.warnings)
    finally:
        t.close()


def _carried(store: str, path: str) -> set[str]:
    """The ids of the notes ``get PATH`` carries on the default branch."""
    t = branch_tools(store)
    try:
        return {n["id"] for n in t.get(t.open_session().data["session"], path).items[0].notes}
    finally:
        t.close()


# ---- F1: a branch rewritten without the note's code --------------------------------------------
def _rewritten(tmp_path) -> tuple[Repo, str, str]:
    """feat adds bulk, a feat session notes it, feat is amended without bulk: (repo, store, note id)."""
    r, store = _repo(tmp_path)
    git(r.path, "checkout", "-q", "-b", "feat")
    r.commit("feat: cap, bulk", {"shop/pricing.py": CAPPED + TAX + BULK})
    git(r.path, "checkout", "-q", "main")
    nid = remember(store, "shop/pricing.py::bulk", BULK_NOTE, branch="feat")
    git(r.path, "checkout", "-q", "feat")
    r.write({"shop/pricing.py": CAPPED + TAX})
    git(r.path, "commit", "-q", "-a", "--amend", "-m", "feat (rewritten)")
    git(r.path, "checkout", "-q", "main")
    return r, store, nid


@pytest.mark.parametrize("how", ["merge", "squash-delete", "unmerged-delete"])
def test_a_note_about_code_a_rewrite_dropped_is_orphaned_once_the_branch_lands(tmp_path, how):
    r, store, nid = _rewritten(tmp_path)
    if how == "merge":
        git(r.path, "merge", "-q", "--no-ff", "feat", "-m", "merge feat")
    elif how == "squash-delete":
        git(r.path, "merge", "-q", "--squash", "feat")
        git(r.path, "commit", "-q", "-m", "squash feat")
    if how != "merge":
        git(r.path, "branch", "-q", "-D", "feat")
        r.commit("main moves", {"README.md": "x\n"})
    rep = index_repository(r.path, store, CFG)
    assert rep.notes["pending"] == 0 and rep.notes["orphaned"] == 1, rep.notes
    status, warnings = _note(store, nid)
    assert status == "orphaned", status
    assert not any(w.startswith("pending") for w in warnings), warnings


def test_a_rewritten_branch_that_still_has_the_code_keeps_the_note_pending(tmp_path):
    """The control: feat amended (another change) but still with bulk, not merged: pending as before."""
    r, store = _repo(tmp_path)
    git(r.path, "checkout", "-q", "-b", "feat")
    r.commit("feat: bulk", {"shop/pricing.py": PRICING + BULK})
    git(r.path, "checkout", "-q", "main")
    nid = remember(store, "shop/pricing.py::bulk", BULK_NOTE, branch="feat")
    git(r.path, "checkout", "-q", "feat")
    r.write({"shop/pricing.py": CAPPED + TAX + BULK})
    git(r.path, "commit", "-q", "-a", "--amend", "-m", "feat (rewritten, bulk kept)")
    git(r.path, "checkout", "-q", "main")
    r.commit("main moves", {"README.md": "x\n"})
    rep = index_repository(r.path, store, CFG)
    assert rep.notes["pending"] == 1 and rep.notes["orphaned"] == 0, rep.notes
    status, warnings = _note(store, nid)
    assert status == "active" and any(w.startswith("pending") for w in warnings), (status, warnings)


# ---- F2: the branch renamed the file, then a squash merge ---------------------------------------
def _renamed_on_fx(tmp_path, edit_after: bool = False) -> tuple[Repo, str, list[str]]:
    """fx changes discount and adds bulk, notes about both from an fx session, then moves
    shop/pricing.py to shop/prices.py (EDIT_AFTER: and changes discount again): (repo, store, ids)."""
    r, store = _repo(tmp_path)
    git(r.path, "checkout", "-q", "-b", "fx")
    r.commit("fx: cap + bulk", {"shop/pricing.py": CAPPED + TAX + BULK + MORE})
    git(r.path, "checkout", "-q", "main")
    ids = [remember(store, "shop/pricing.py::discount", "cap discount at fifty", branch="fx"),
           remember(store, "shop/pricing.py::bulk", BULK_NOTE, branch="fx")]
    git(r.path, "checkout", "-q", "fx")
    r.mv("shop/pricing.py", "shop/prices.py")
    if edit_after:
        r.write({"shop/prices.py": CAPPED.replace("50", "40") + TAX + BULK + MORE})
    r.commit("fx: pricing -> prices")
    git(r.path, "checkout", "-q", "main")
    git(r.path, "merge", "-q", "--squash", "fx")
    git(r.path, "commit", "-q", "-m", "squash fx")
    assert sorted(git(r.path, "show", "--name-status", "-M", "--format=", "HEAD").splitlines()) == [
        "A\tshop/prices.py", "D\tshop/pricing.py"]           # the squash records no rename
    return r, store, ids


@pytest.mark.parametrize("after", ["kept", "deleted", "collected"])
def test_notes_follow_a_branch_rename_through_a_squash_merge(tmp_path, after):
    r, store, ids = _renamed_on_fx(tmp_path)
    if after != "kept":
        git(r.path, "branch", "-q", "-D", "fx")
    if after == "collected":        # the branch's commits are gone: found by the code itself
        git(r.path, "reflog", "expire", "--expire=now", "--all")
        git(r.path, "gc", "-q", "--prune=now")
    rep = index_repository(r.path, store, CFG)
    assert rep.notes["pending"] == 0 and rep.notes["about_edges"] == 2, rep.notes
    assert _carried(store, "shop/prices.py::discount") >= {ids[0]}
    assert _carried(store, "shop/prices.py::bulk") >= {ids[1]}
    for nid in ids:
        status, warnings = _note(store, nid)
        assert status == "active" and not warnings, (status, warnings)


def test_a_note_follows_a_branch_rename_of_edited_code_as_stale(tmp_path):
    """fx changed discount again with the move: the rename (git's, with the edit) leads there, and the
    note is stale (its code changed since), not pending on a path nothing has."""
    r, store, ids = _renamed_on_fx(tmp_path, edit_after=True)
    rep = index_repository(r.path, store, CFG)
    assert rep.notes["pending"] == 0 and rep.notes["about_edges"] == 2, rep.notes
    assert ids[0] in _carried(store, "shop/prices.py::discount")
    _, warnings = _note(store, ids[0])
    assert any(w.startswith("stale: shop/prices.py::discount changed since") for w in warnings), warnings
