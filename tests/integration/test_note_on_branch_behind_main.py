"""A note written on a branch BEHIND the default one (its commit in main's history), about code main
deleted since (a probe, session 29, F4): ``release-1`` checked out and indexed, a note about
``zeta``, then ``git checkout main`` and its re-index: the note became ``[orphaned]``, and
``release-1``'s own sessions lost it (``get ...::zeta --branch release-1`` carried no note, search
found nothing), though ``release-1`` still had ``zeta``. The merge judged it by whether its commit
was in main's history, not by whether its branch still held the code. Now its code is pending on
that branch, as a note about a branch ahead of main is, while the branch exists and holds it; a
deleted branch, or one that lost the code too, leaves it orphaned as before. Real git, the real
index, the real Tools."""

from __future__ import annotations

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False)
ZETA = "shop/cart.py::zeta"
CART = "def total(x):\n    return x\n"
ZETA_DEF = "\n\ndef zeta(y):\n    return y\n"
TEXT = "zeta frobnicates the release totals"


def _release_noted(tmp_path) -> tuple[Repo, str, str, str, dict]:
    """release-1 cut at the first commit; main then deletes zeta; release-1 checked out and indexed
    (the post-checkout hook), a note about zeta in a default session, main checked out and indexed:
    (repo, store, the note's id, release-1's commit, the last run's ``notes``)."""
    r = Repo(tmp_path / "repo")
    rel = r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART + ZETA_DEF})
    git(r.path, "branch", "release-1")
    r.commit("main drops zeta", {"shop/cart.py": CART})
    store = str(tmp_path / "store")
    git(r.path, "checkout", "-q", "release-1")
    index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    nid = t.remember(t.open_session().data["session"], "rca", TEXT, [ZETA]).data["note_id"]
    assert t.get(t.open_session().data["session"], nid).items[0].provenance.get("branch") == "release-1"
    t.close()
    git(r.path, "checkout", "-q", "main")
    return r, store, nid, rel, index_repository(r.path, store, CFG).notes


def _said_on_main(store: str, nid: str) -> list[str]:
    t = Tools.open([store], overlay_builder=builder(CFG))
    said = t.get(t.open_session().data["session"], nid).items[0].warnings
    t.close()
    return said


def test_a_note_on_a_branch_behind_main_stays_on_that_branch_after_main_deleted_its_code(tmp_path):
    r, store, nid, rel, counts = _release_noted(tmp_path)
    t = Tools.open([store], overlay_builder=builder(CFG))
    ms, rs = t.open_session().data["session"], t.open_session(branch="release-1").data["session"]
    # release-1's own sessions still have it: on zeta's item, by its words, and not orphaned
    assert [n["id"] for n in t.get(rs, ZETA).items[0].notes] == [nid]
    assert nid in [i.id for i in t.search(rs, "frobnicates release totals").items]
    assert not any("orphaned" in w or w.startswith("stale") for w in t.get(rs, nid).items[0].warnings)
    # the default session says its code is on release-1, not in main's index; not orphaned, not stale
    said = t.get(ms, nid).items[0].warnings
    assert any(w.startswith("pending: its code (shop/cart.py::zeta) is on branch release-1")
               and rel[:12] in w for w in said), said
    assert not any("orphaned" in w or w.startswith("stale") for w in said), said
    t.close()
    assert counts["pending"] == 1 and counts["orphaned"] == 0, counts


def test_the_note_is_orphaned_once_its_branch_is_deleted(tmp_path):
    r, store, nid, _, counts = _release_noted(tmp_path)
    assert counts["pending"] == 1, counts
    git(r.path, "branch", "-D", "release-1")
    r.commit("more on main", {"shop/more.py": "def more():\n    return 1\n"})
    report = index_repository(r.path, store, CFG)
    assert report.notes["orphaned"] == 1 and report.notes["pending"] == 0, report.notes
    assert "this note is orphaned" in _said_on_main(store, nid)


def test_deleting_the_branch_makes_a_run_at_the_same_head_no_up_to_date_one(tmp_path):
    """`git branch -D release-1`, then `stratum index` with HEAD unchanged: "up to date", no merge,
    and the note stayed pending on a branch that was gone until main's next commit."""
    r, store, nid, _, counts = _release_noted(tmp_path)
    assert counts["pending"] == 1, counts
    assert index_repository(r.path, store, CFG).up_to_date       # nothing moved: still up to date
    git(r.path, "branch", "-D", "release-1")
    report = index_repository(r.path, store, CFG)
    assert not report.up_to_date and report.branch_tips == {"release-1": None}, report.branch_tips
    assert report.notes["orphaned"] == 1 and report.notes["pending"] == 0, report.notes
    assert "this note is orphaned" in _said_on_main(store, nid)
    assert index_repository(r.path, store, CFG).up_to_date       # the branch stays gone: up to date again


def test_the_note_is_orphaned_once_its_branch_no_longer_holds_the_code(tmp_path):
    r, store, nid, _, counts = _release_noted(tmp_path)
    assert counts["pending"] == 1, counts
    git(r.path, "checkout", "-q", "release-1")
    r.commit("release-1 drops zeta too", {"shop/cart.py": CART + "\n\ndef eta(y):\n    return y\n"})
    git(r.path, "checkout", "-q", "main")
    r.commit("more on main", {"shop/more.py": "def more():\n    return 1\n"})
    report = index_repository(r.path, store, CFG)
    assert report.notes["orphaned"] == 1 and report.notes["pending"] == 0, report.notes
    assert "this note is orphaned" in _said_on_main(store, nid)


def test_a_note_written_in_a_session_on_the_branch_stays_on_it_after_main_deletes_the_code(tmp_path):
    """The same through a ``--branch`` session: main indexed with zeta, a note about zeta written in
    a session on release-1 (code both had: no pending mark), then main deletes zeta and re-indexes."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART + ZETA_DEF})
    git(r.path, "branch", "release-1")
    r.commit("main docs", {"README.md": "shop\n"})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    nid = t.remember(t.open_session(branch="release-1").data["session"], "rca", TEXT, [ZETA]).data["note_id"]
    t.close()
    r.commit("main drops zeta", {"shop/cart.py": CART})
    report = index_repository(r.path, store, CFG)
    assert report.notes["pending"] == 1 and report.notes["orphaned"] == 0, report.notes
    t = Tools.open([store], overlay_builder=builder(CFG))
    rs = t.open_session(branch="release-1").data["session"]
    assert [n["id"] for n in t.get(rs, ZETA).items[0].notes] == [nid]
    assert nid in [i.id for i in t.search(rs, "frobnicates release totals").items]
    t.close()
    assert any(w.startswith("pending: its code (shop/cart.py::zeta) is on branch release-1")
               for w in _said_on_main(store, nid))


def test_a_note_written_on_main_about_code_main_deleted_is_still_orphaned(tmp_path):
    """A note the default branch wrote records no branch: its code gone is gone, whatever branch
    still has a copy."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART + ZETA_DEF})
    git(r.path, "branch", "release-1")
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    nid = t.remember(t.open_session().data["session"], "rca", TEXT, [ZETA]).data["note_id"]
    t.close()
    r.commit("main drops zeta", {"shop/cart.py": CART})
    report = index_repository(r.path, store, CFG)
    assert report.notes["orphaned"] == 1 and report.notes["pending"] == 0, report.notes
    assert "this note is orphaned" in _said_on_main(store, nid)


def test_a_merged_branch_kept_after_its_merge_does_not_keep_its_notes_from_orphaning(tmp_path):
    """A note written in the checkout on fz (ahead of main, pending there), fz merged into main and
    re-indexed (the note landed), then main deletes zeta while fz, merged, is still a branch holding
    it: the code was main's once merged, so its deletion orphans the note, as for any landed note."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "fz")
    r.commit("zeta", {"shop/cart.py": CART + ZETA_DEF})
    index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    nid = t.remember(t.open_session().data["session"], "rca", TEXT, [ZETA]).data["note_id"]
    t.close()
    git(r.path, "checkout", "-q", "main")
    assert index_repository(r.path, store, CFG).notes["pending"] == 1
    git(r.path, "merge", "-q", "--no-ff", "-m", "merge fz", "fz")
    assert index_repository(r.path, store, CFG).notes["pending"] == 0
    r.commit("main drops zeta", {"shop/cart.py": CART})
    report = index_repository(r.path, store, CFG)
    assert report.notes["orphaned"] == 1 and report.notes["pending"] == 0, report.notes
    assert "this note is orphaned" in _said_on_main(store, nid)
