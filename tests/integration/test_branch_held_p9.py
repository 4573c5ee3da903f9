"""What a note written on a branch behind the default one costs and says after the default branch
deleted its code (``pipeline.branchheld``, asked by ``pipeline.merge``; a review of 777cd52).

1. Cost: every index asked git one ``rev-list`` walk per distinct note commit, before it looked the
   branch up, for every such note, orphaned ones of deleted branches included, on every run (40
   notes, 20,000 commits: 8.5 s of a 0.8 s re-index). Now the refs are read once per merge and
   HEAD's first-parent line once: the git processes the check starts do not grow with the notes.
2. A session on a remote-tracking branch (``--branch origin/release-1``) or a tag (``--branch
   v1.0``) records that name; only ``refs/heads/<name>`` was looked up, so its notes were orphaned on
   the next index of main. The name is read as the session read it.
3. A note written from a worktree on the default branch records no branch (476993f); when the
   served branch fz deleted its code, the merge marked it pending "on commit ff6720755c1f", where it
   had read "on branch main".
4. A session on another branch read a note pending on release-1 (behind main) as "it attaches once
   merged and re-indexed", as the default session no longer does (1a2b3d0).

Real repositories, the real index job, overlay builder and Tools; the counts are of real git calls.
"""

from __future__ import annotations

import sys

import pytest

from pipeline import gitio
from pipeline.job import index_repository
from tests.branchrepo import CART, CFG, branch_tools, remember
from tests.gitrepo import Repo, git

ZETA = "shop/cart.py::zeta"
ZETA_DEF = "\n\ndef zeta(y):\n    return y\n"
ATTACHES = "attaches once merged"


_tools, _remember = branch_tools, remember


def _warnings(store, nid: str, **where) -> list[str]:
    t = _tools(store)
    try:
        (it,) = t.get(t.open_session(**where).data["session"], nid).items
        return list(it.warnings)
    finally:
        t.close()


def _notes_on(store, code: str, **where) -> list[str]:
    t = _tools(store)
    try:
        return [n["id"] for n in t.get(t.open_session(**where).data["session"], code).items[0].notes]
    finally:
        t.close()


# ---- 1. the cost does not grow with the notes -----------------------------------------------------

def _branch_notes(tmp_path, n: int, *, delete: bool) -> tuple[Repo, str]:
    """N branches b0.. cut from main, each adding shop/m<i>.py (so each behind main), a note on each
    written with it checked out and indexed; main then deletes every m<i>.py and is indexed; with
    DELETE, the branches are deleted and main indexed again (the notes orphaned). (repo, store)."""
    r = Repo(tmp_path / f"repo{n}")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART})
    for i in range(n):
        r.commit(f"f{i}", {f"shop/m{i}.py": f"def f{i}(y):\n    return y + {i}\n"})
        git(r.path, "branch", f"b{i}")
    store = str(tmp_path / f"store{n}")
    for i in range(n):
        git(r.path, "checkout", "-q", f"b{i}")
        index_repository(r.path, store, CFG)
        _remember(store, f"shop/m{i}.py::f{i}", f"f{i} adds {i} on release line {i}")
    git(r.path, "checkout", "-q", "main")
    r.commit("drop all", delete=[f"shop/m{i}.py" for i in range(n)])
    counts = index_repository(r.path, store, CFG).notes
    assert counts["pending"] == n and counts["orphaned"] == 0, counts
    if delete:
        for i in range(n):
            git(r.path, "branch", "-D", f"b{i}")
        r.commit("more on main", {"shop/more.py": "def more():\n    return 1\n"})
        counts = index_repository(r.path, store, CFG).notes
        assert counts["orphaned"] == n and counts["pending"] == 0, counts
    return r, store


def _git_calls_of_branchheld(monkeypatch, r: Repo, store: str) -> tuple[list[str], dict]:
    """The git processes ``pipeline.branchheld`` starts in one more index of main (its run_git calls
    and its ``cat-file --batch`` readers), and that run's ``notes``."""
    calls: list[str] = []
    run_git, reader = gitio.run_git, gitio.BlobReader

    def counted(repo, *args, **kw):
        if sys._getframe(1).f_globals.get("__name__") == "pipeline.branchheld":
            calls.append(args[0])
        return run_git(repo, *args, **kw)

    class CountedReader(reader):        # type: ignore[misc, valid-type]
        def __init__(self, repo):
            calls.append("cat-file --batch")
            super().__init__(repo)

    monkeypatch.setattr(gitio, "run_git", counted)
    monkeypatch.setattr(gitio, "BlobReader", CountedReader)
    try:
        r.commit("one more", {"shop/more.py": "def more():\n    return 2\n"})
        counts = index_repository(r.path, store, CFG).notes
    finally:
        monkeypatch.undo()
    return calls, counts


@pytest.mark.parametrize("delete", [True, False], ids=["deleted-branches", "kept-branches"])
def test_the_git_processes_the_branch_check_starts_do_not_grow_with_the_notes(tmp_path, monkeypatch, delete):
    got = {}
    for n in (1, 4):
        r, store = _branch_notes(tmp_path, n, delete=delete)
        calls, counts = _git_calls_of_branchheld(monkeypatch, r, store)
        assert (counts["orphaned"], counts["pending"]) == ((n, 0) if delete else (0, n)), counts
        got[n] = calls
    assert len(got[4]) == len(got[1]), got
    if delete:      # notes of deleted branches: the refs, read once, say so; no walk of the history
        assert got[4] == ["for-each-ref"], got
    else:           # the refs, HEAD's first-parent line, one reader of the files at the tips
        assert sorted(got[4]) == ["cat-file --batch", "for-each-ref", "rev-list"], got


# ---- 2. a remote-tracking branch's or a tag's notes ----------------------------------------------

def test_notes_of_a_remote_tracking_branch_or_a_tag_behind_main_stay_pending_while_the_name_holds_the_code(tmp_path):
    up = Repo(tmp_path / "up")
    rel = up.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART + ZETA_DEF})
    git(up.path, "branch", "release-1")
    git(up.path, "tag", "-a", "-m", "v1.0", "v1.0")          # annotated: read peeled to its commit
    up.commit("main drops zeta", {"shop/cart.py": CART})
    git(tmp_path, "clone", "-q", str(up.path), "repo")       # release-1 only as origin/release-1
    rp = tmp_path / "repo"
    store = str(tmp_path / "store")
    index_repository(rp, store, CFG)
    remote = _remember(store, ZETA, "zeta on the release line", branch="origin/release-1")
    tagged = _remember(store, ZETA, "zeta as tagged in v1.0", branch="v1.0")
    (rp / "shop/cart.py").write_text(CART + "# touched\n")
    git(rp, "commit", "-q", "-am", "touch", date="2024-02-01T12:00:00+00:00")
    counts = index_repository(rp, store, CFG).notes
    assert counts["pending"] == 2 and counts["orphaned"] == 0, counts
    for nid, name in ((remote, "origin/release-1"), (tagged, "v1.0")):
        said = _warnings(store, nid)
        assert any(w.startswith(f"pending: its code (shop/cart.py::zeta) is on branch {name} at {rel[:12]}")
                   for w in said), said
        assert not any("orphaned" in w or w.startswith("stale") for w in said), said
    assert remote in _notes_on(store, ZETA, branch="origin/release-1")
    # the names gone: nothing holds the code any more, and the notes are orphaned as before
    git(rp, "branch", "-r", "-d", "origin/release-1")
    git(rp, "tag", "-d", "v1.0")
    git(rp, "commit", "-q", "--allow-empty", "-m", "more", date="2024-02-02T12:00:00+00:00")
    counts = index_repository(rp, store, CFG).notes
    assert counts["orphaned"] == 2 and counts["pending"] == 0, counts
    assert "this note is orphaned" in _warnings(store, remote)


# ---- 3. a note of the default branch written from a worktree ------------------------------------

def test_a_note_written_from_a_worktree_on_main_is_pending_on_branch_main_once_the_served_branch_deletes_its_code(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART + ZETA_DEF})
    git(r.path, "checkout", "-q", "-b", "fz")
    r.commit("fz adds x", {"shop/x.py": "def x():\n    return 1\n"})
    git(r.path, "checkout", "-q", "main")
    main = r.commit("main adds y", {"shop/y.py": "def y():\n    return 1\n"})
    git(r.path, "checkout", "-q", "fz")
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    git(r.path, "worktree", "add", "-q", str(tmp_path / "wt"), "main")
    nid = _remember(store, ZETA, "zeta is the identity on main", worktree=str(tmp_path / "wt"))
    r.commit("fz drops zeta", {"shop/cart.py": CART})
    counts = index_repository(r.path, store, CFG).notes
    assert counts["pending"] == 1 and counts["orphaned"] == 0, counts
    said = _warnings(store, nid)
    assert any(w.startswith(f"pending: its code (shop/cart.py::zeta) is on branch main at {main[:12]}")
               for w in said), said
    assert not any("on commit" in w for w in said), said
    assert nid in _notes_on(store, ZETA, branch="main")


def test_a_note_of_a_bare_commit_off_the_default_branch_still_says_its_commit(tmp_path):
    """A session on a bare commit records no branch either: off the default branch, its code is
    pending on that commit, not said to be main's."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART + ZETA_DEF})
    git(r.path, "checkout", "-q", "-b", "fy")
    fy = r.commit("fy adds w", {"shop/w.py": "def w():\n    return 1\n"})
    git(r.path, "checkout", "-q", "main")
    git(r.path, "checkout", "-q", "-b", "fz")
    r.commit("fz adds x", {"shop/x.py": "def x():\n    return 1\n"})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    git(r.path, "branch", "-D", "fy")
    nid = _remember(store, ZETA, "zeta is the identity at that commit", commit=fy)
    r.commit("fz drops zeta", {"shop/cart.py": CART})
    assert index_repository(r.path, store, CFG).notes["pending"] == 1
    said = _warnings(store, nid)
    assert any(w.startswith(f"pending: its code (shop/cart.py::zeta) is on commit {fy[:12]}") for w in said), said


# ---- 4. read from another branch's session --------------------------------------------------------

def test_another_branch_session_does_not_promise_attachment_of_code_pending_on_a_branch_behind_main(tmp_path):
    r = Repo(tmp_path / "repo")
    rel = r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART + ZETA_DEF})
    git(r.path, "branch", "release-1")
    r.commit("main drops zeta", {"shop/cart.py": CART})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    nid = _remember(store, ZETA, "zeta frobnicates the release totals", branch="release-1")
    r.commit("more on main", {"shop/more.py": "def more():\n    return 1\n"})
    assert index_repository(r.path, store, CFG).notes["pending"] == 1
    git(r.path, "branch", "fy")
    git(r.path, "checkout", "-q", "fy")
    r.commit("fy adds w", {"shop/w.py": "def w():\n    return 1\n"})
    git(r.path, "checkout", "-q", "main")
    behind = f"pending: its code (shop/cart.py::zeta) is on branch release-1 at {rel[:12]}; " \
             "the default branch no longer has it"
    for where in ({}, {"branch": "fy"}):       # the default session and another branch's say the same
        said = _warnings(store, nid, **where)
        assert behind in said, (where, said)
        assert not any(ATTACHES in w for w in said), (where, said)
    assert _warnings(store, nid, branch="release-1") == []      # its own branch: its code is there


def test_a_note_of_an_unrelated_history_merged_into_main_is_orphaned_when_main_deletes_its_code(tmp_path):
    """The edge of the first-parent check: a branch with a root of its own (``git checkout --orphan``),
    merged into main with ``--allow-unrelated-histories`` and kept. Main's first-parent walk never
    meets that branch's commits, so the note's commit read as "not merged" (the walk ran to main's
    root) and the kept branch held the note pending for ever; its code landed by the merge, and its
    deletion on main orphans the note, as for any merged branch."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "--orphan", "other")
    git(r.path, "rm", "-rq", "--cached", ".")
    for p in ("shop/__init__.py", "shop/cart.py"):
        (r.path / p).unlink()
    r.commit("other root", {"lib/zeta.py": "def zeta(y):\n    return y\n"})
    index_repository(r.path, store, CFG)
    nid = _remember(store, "lib/zeta.py::zeta", "zeta frobnicates the other history")
    git(r.path, "checkout", "-q", "main")
    assert index_repository(r.path, store, CFG).notes["pending"] == 1
    git(r.path, "merge", "-q", "--no-ff", "--allow-unrelated-histories", "-m", "merge other", "other")
    assert index_repository(r.path, store, CFG).notes["pending"] == 0
    r.commit("main drops zeta", delete=["lib/zeta.py"])
    counts = index_repository(r.path, store, CFG).notes
    assert counts["orphaned"] == 1 and counts["pending"] == 0, counts
    assert "this note is orphaned" in _warnings(store, nid)


def test_merged_in_without_a_mined_history_asks_git(tmp_path):
    """``BranchHeld.merged_in`` with no mined history (a shallow clone, a capped mine): a commit on
    HEAD's first-parent line, one a --no-ff merge brought, one of a history merged with its own
    root, one HEAD lacks."""
    from pipeline.branchheld import BranchHeld

    r = Repo(tmp_path / "repo")
    line = r.commit("init", {"a.py": "a = 1\n"})
    git(r.path, "checkout", "-q", "-b", "fz")
    merged = r.commit("fz", {"b.py": "b = 1\n"})
    git(r.path, "checkout", "-q", "--orphan", "other")
    git(r.path, "rm", "-rq", "--cached", ".")
    for p in ("a.py", "b.py"):
        (r.path / p).unlink()
    rooted = r.commit("other root", {"c.py": "c = 1\n"})
    git(r.path, "checkout", "-q", "-b", "away", "fz")
    outside = r.commit("away", {"d.py": "d = 1\n"})
    git(r.path, "checkout", "-q", "main")
    git(r.path, "merge", "-q", "--no-ff", "-m", "merge fz", "fz")
    git(r.path, "merge", "-q", "--no-ff", "--allow-unrelated-histories", "-m", "merge other", "other")
    held = BranchHeld(r.path, "main")
    try:
        assert [held.merged_in(c) for c in (line, merged, rooted, outside, "", "not-a-sha")] == \
            [False, True, True, False, False, False]
        assert held.tip("fz") == merged and held.tip("gone") is None
    finally:
        held.close()


def test_a_note_of_the_default_branch_is_said_to_be_on_it_when_only_a_remote_has_it(tmp_path):
    """A clone whose local main was deleted (only origin/main): a note written on main's commit
    read "pending ... on commit <sha>" once the served branch dropped its code; main is named (a review)."""
    origin = Repo(tmp_path / "origin")
    base = origin.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART + ZETA_DEF})
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin.path), str(clone))
    main = origin.commit("main adds y", {"shop/y.py": "def y():\n    return 1\n"})
    git(clone, "fetch", "-q", "origin")
    git(clone, "checkout", "-q", "-b", "fz", base)
    git(clone, "branch", "-q", "-D", "main")
    r = Repo.__new__(Repo)
    r.path, r._n = clone, 10
    r.commit("fz adds x", {"shop/x.py": "def x():\n    return 1\n"})
    store = str(tmp_path / "store")
    assert index_repository(clone, store, CFG).branch == "fz"
    nid = _remember(store, ZETA, "zeta is the identity on main", commit=main)
    r.commit("fz drops zeta", {"shop/cart.py": CART})
    assert index_repository(clone, store, CFG).notes["pending"] == 1
    said = _warnings(store, nid)
    assert any(w.startswith(f"pending: its code (shop/cart.py::zeta) is on branch main at {main[:12]}")
               for w in said), said
