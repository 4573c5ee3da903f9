"""A note written in the main checkout while a feature branch is checked out (the hooks and `watch`
re-index the store to it), about code only that branch has, then `git checkout main` and its re-index
(a probe, session 28): the note became `[orphaned]`, and the branch's own sessions lost it (`get
...::zeta --branch fz` carried no note, search found nothing): the loss the pending state exists to
prevent (docs/notes.md, "Why active, and not orphaned"). Its commit is in no history the default
branch's version holds, so its code is on that branch: pending, as a note written in a session on
the branch is. Real git, the real index, the real Tools."""

from __future__ import annotations

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False)
ZETA = "shop/cart.py::zeta"
CART = "def total(x):\n    return x\n"
TEXT = "zeta forgets the frumious prefix"


def _noted_on_fz(tmp_path) -> tuple[Repo, str, str, str]:
    """main indexed; the checkout switched to fz, zeta committed and indexed; a note about zeta in a
    default session (what an agent in the checkout writes): (repo, store, the note's id, fz's commit)."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "fz")
    fz = r.commit("zeta", {"shop/cart.py": CART + "\n\ndef zeta(y):\n    return y\n"})
    index_repository(r.path, store, CFG)              # the post-commit hook, or watch
    t = Tools.open([store], overlay_builder=builder(CFG))
    nid = t.remember(t.open_session().data["session"], "rca", TEXT, [ZETA]).data["note_id"]
    t.close()
    return r, store, nid, fz


def test_a_note_written_in_the_checkout_on_a_branch_stays_pending_and_on_the_branch_after_checkout_main(tmp_path):
    r, store, nid, fz = _noted_on_fz(tmp_path)
    git(r.path, "checkout", "-q", "main")
    report = index_repository(r.path, store, CFG)     # the post-checkout hook, or watch
    assert report.notes["pending"] == 1 and report.notes["orphaned"] == 0, report.notes

    t = Tools.open([store], overlay_builder=builder(CFG))
    ms, fs = t.open_session().data["session"], t.open_session(branch="fz").data["session"]
    said = t.get(ms, nid).items[0].warnings
    assert any(w.startswith("pending: its code (shop/cart.py::zeta) is on") and fz[:12] in w for w in said), said
    assert not any(w.startswith("stale") for w in said), said
    # the branch's own sessions still have it: on zeta's item, and by its words
    assert [n["id"] for n in t.get(fs, ZETA).items[0].notes] == [nid]
    assert nid in [i.id for i in t.search(fs, "frumious").items]
    t.close()

    # fz merged and re-indexed: the note lands on zeta, an ordinary note again
    git(r.path, "merge", "-q", "--no-ff", "-m", "merge fz", "fz")
    report = index_repository(r.path, store, CFG)
    assert report.notes["pending"] == 0 and report.notes["orphaned"] == 0, report.notes
    t = Tools.open([store], overlay_builder=builder(CFG))
    ms = t.open_session().data["session"]
    assert [n["id"] for n in t.get(ms, ZETA).items[0].notes] == [nid]
    assert not any(w.startswith(("pending", "stale")) for w in t.get(ms, nid).items[0].warnings)
    t.close()


def test_a_note_whose_code_the_default_branch_deleted_after_it_is_still_orphaned(tmp_path):
    """The rule reads the commit graph: a note written on main about code main deleted since is
    orphaned, as before (its commit is in main's history)."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART + "\n\ndef zeta(y):\n    return y\n"})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    t.remember(t.open_session().data["session"], "rca", TEXT, [ZETA])
    t.close()
    r.commit("no zeta", {"shop/cart.py": CART})
    report = index_repository(r.path, store, CFG)
    assert report.notes["orphaned"] == 1 and report.notes["pending"] == 0, report.notes


def _warnings_on_main(r: Repo, store: str, nid: str) -> list[str]:
    """The note's warnings once main is checked out again and re-indexed (the post-checkout hook)."""
    git(r.path, "checkout", "-q", "main")
    index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    said = t.get(t.open_session().data["session"], nid).items[0].warnings
    t.close()
    return said


def test_a_note_written_in_the_checkout_on_a_branch_records_that_branch(tmp_path):
    r, store, nid, fz = _noted_on_fz(tmp_path)
    t = Tools.open([store], overlay_builder=builder(CFG))
    assert t.get(t.open_session().data["session"], nid).items[0].provenance.get("branch") == "fz"
    t.close()
    said = _warnings_on_main(r, store, nid)
    assert any(f"is on branch fz at {fz[:12]}" in w for w in said), said


def _note_here(r: Repo, store: str) -> tuple[str, tuple]:
    """Index the checkout as it is, then a note about zeta in a default session that records no
    branch: (its id, the run's (branch, default_branch))."""
    report = index_repository(r.path, store, CFG)
    t = Tools.open([store], overlay_builder=builder(CFG))
    nid = t.remember(t.open_session().data["session"], "rca", TEXT, [ZETA]).data["note_id"]
    assert "branch" not in t.get(t.open_session().data["session"], nid).items[0].provenance
    t.close()
    return nid, (report.branch, report.default_branch)


def test_a_note_written_in_the_checkout_on_the_default_branch_records_no_branch(tmp_path):
    """The default branch's notes record none (``Note.branch``), though the run knew which branch it
    read: after fz is checked out, indexed and main again, the note is main's, neither pending nor
    said to be another branch's version."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART + "\n\ndef zeta(y):\n    return y\n"})
    store = str(tmp_path / "store")
    nid, read = _note_here(r, store)
    assert read == ("main", "main")
    git(r.path, "checkout", "-q", "-b", "fz")
    r.commit("zeta on fz", {"shop/cart.py": CART + "\n\ndef zeta(y):\n    return -y\n"})
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "main")
    report = index_repository(r.path, store, CFG)
    assert report.notes["pending"] == 0 and report.notes["orphaned"] == 0, report.notes
    t = Tools.open([store], overlay_builder=builder(CFG))
    ms = t.open_session().data["session"]
    assert "branch" not in t.get(ms, nid).items[0].provenance
    assert t.get(ms, nid).items[0].warnings == []
    assert [n["id"] for n in t.get(ms, ZETA).items[0].notes] == [nid]
    t.close()


def test_a_note_written_on_a_detached_head_records_no_branch(tmp_path):
    """A detached HEAD names no branch: the note's code is pending on its commit, as before."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "--detach")
    sha = r.commit("zeta", {"shop/cart.py": CART + "\n\ndef zeta(y):\n    return y\n"})
    nid, read = _note_here(r, store)
    assert read == ("", "")
    said = _warnings_on_main(r, store, nid)
    assert any(f"is on commit {sha[:12]}" in w for w in said), said


def test_another_branch_out_at_the_same_commit_is_the_one_a_new_note_records(tmp_path):
    """`git checkout -b fz2` at fz's commit, then the hook's run: it was "up to date" (the same
    commit), so the version kept recording fz and a note written then recorded fz (a probe: after fz
    was deleted it read pending "on branch fz"). The run publishes when the branch changed."""
    r, store, _nid, fz = _noted_on_fz(tmp_path)
    index_repository(r.path, store, CFG)                # the note merged: the store is up to date on fz
    git(r.path, "checkout", "-q", "-b", "fz2")
    report = index_repository(r.path, store, CFG)
    assert report.branch == "fz2", report.branch
    t = Tools.open([store], overlay_builder=builder(CFG))
    s = t.open_session().data["session"]
    nid = t.remember(s, "insight", "zeta keeps the prefix on fz2", [ZETA]).data["note_id"]
    assert t.get(s, nid).items[0].provenance.get("branch") == "fz2"
    t.close()
    index_repository(r.path, store, CFG)                # merges the note
    again = index_repository(r.path, store, CFG)        # nothing changed since: up to date again
    assert again.branch == "fz2" and again.up_to_date, (again.branch, again.up_to_date)
