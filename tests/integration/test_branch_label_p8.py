"""Which branch a note records, and how it reads once the checkout has moved (a probe, session 29).

F1: an agent in the main checkout with feature branch fz checked out and indexed (the store serves
fz) wrote a note about ``zeta``, which fz changed. After ``git checkout main`` and the re-index, a
default session read it "stale: shop/cart.py::zeta changed since this note was written", though it
records branch fz; the same note written in a ``--branch fz`` session read "written on branch fz
..., about that version ...: not merged yet". The session's note records the default branch's hash
of the code (``Target.base_hash``) and marks the target as the branch's version; the checkout's
note recorded neither (the store held no version of the default branch to take the hash from). Now
both read the same, and both are current once fz is merged and indexed.

F6: the main checkout on fz (indexed), a linked worktree with main out: a note written in a session
on that worktree recorded branch "main". Notes written on the default branch record none (as a note
written on the indexed default branch does; ``branchnotes.served_branch``); likewise one written
about code the checkout on main had edited (``checkoutnotes``), which still says which branch's
work tree it was about. Real repositories, the real index job, overlay builder and Tools.
"""

from __future__ import annotations

from pipeline.job import index_repository
from tests.branchrepo import CART, CFG, NOT_MERGED, ZETA, ZETA_FZ, ZETA_MAIN, branch_tools, on_fz, remember
from tests.gitrepo import Repo, git


_tools, _remember = branch_tools, remember


def _read(store, nid: str, code: str = "shop/cart.py::zeta", **where) -> tuple[dict, list[str], dict]:
    """(the note item's provenance, its warnings, the line CODE's item carries for it) in a session."""
    t = _tools(store)
    try:
        s = t.open_session(**where).data["session"]
        (it,) = t.get(s, nid).items
        (line,) = [n for n in t.get(s, code).items[0].notes if n["id"] == nid]
        return dict(it.provenance), list(it.warnings), line
    finally:
        t.close()


def test_a_checkout_note_on_a_served_branch_reads_as_the_branch_sessions_note(tmp_path):
    r, store, fz = on_fz(tmp_path)
    co = _remember(store, "shop/cart.py::zeta", "zeta negates on fz (checkout)")
    git(r.path, "checkout", "-q", "main")
    index_repository(r.path, store, CFG)
    ss = _remember(store, "shop/cart.py::zeta", "zeta negates on fz (session)", branch="fz")
    said = (f"written on branch fz at {fz[:12]}, about that version of shop/cart.py::zeta: the default branch's "
            f"differs ({NOT_MERGED})")
    for nid in (ss, co):
        prov, warnings, line = _read(store, nid)
        assert prov.get("branch") == "fz", prov
        assert warnings == [said], (nid == co, warnings)        # the checkout's read "stale: ... changed since"
        assert not line["stale"] and f"on branch fz at {fz[:12]}" in line["line"], (nid == co, line)
        prov, warnings, line = _read(store, nid, branch="fz")   # the branch's own sessions: its code, fresh
        assert warnings == [] and not line["stale"], (nid == co, warnings, line)
    git(r.path, "merge", "-q", "--no-ff", "-m", "merge fz", "fz")
    index_repository(r.path, store, CFG)
    for nid in (ss, co):
        _, warnings, line = _read(store, nid)
        assert warnings == [] and not line["stale"] and "branch fz" not in line["line"], (nid == co, warnings, line)


def test_a_branch_session_note_while_its_branch_is_served_reads_as_the_checkouts(tmp_path):
    """A ``--branch fz`` session while fz itself is the indexed version: its view does not differ
    from the version served, so its note took the served version's targets unmarked, and after
    ``checkout main`` and the re-index it read "stale: ... changed since" (a helper's finding)."""
    r, store, fz = on_fz(tmp_path)
    ss = _remember(store, "shop/cart.py::zeta", "zeta negates on fz (session on the served branch)", branch="fz")
    git(r.path, "checkout", "-q", "main")
    index_repository(r.path, store, CFG)
    prov, warnings, line = _read(store, ss)
    assert prov.get("branch") == "fz", prov
    assert warnings == [f"written on branch fz at {fz[:12]}, about that version of shop/cart.py::zeta: the default "
                        f"branch's differs ({NOT_MERGED})"], warnings
    assert not line["stale"], line


def test_a_checkout_note_on_a_served_branch_goes_stale_when_the_default_branch_changes_its_code(tmp_path):
    """The default branch's hash is recorded as the session's note records it: main changing zeta
    itself after the note is a change since, not "not merged yet"."""
    r, store, _ = on_fz(tmp_path)
    co = _remember(store, "shop/cart.py::zeta", "zeta negates on fz (checkout)")
    git(r.path, "checkout", "-q", "main")
    r.commit("main changes zeta", {"shop/cart.py": f"{CART}\n\n{ZETA_MAIN}"})
    index_repository(r.path, store, CFG)
    _, warnings, line = _read(store, co)
    assert len(warnings) == 1 and warnings[0].startswith("stale: shop/cart.py::zeta changed since"), warnings
    assert line["stale"], line


def test_a_checkout_note_about_code_the_branch_left_alone_records_no_version(tmp_path):
    """total is the same on fz and main: the note is about it as any note (nothing to mark)."""
    r, store, _ = on_fz(tmp_path)
    co = _remember(store, "shop/cart.py::total", "total is the identity")
    git(r.path, "checkout", "-q", "main")
    index_repository(r.path, store, CFG)
    prov, warnings, line = _read(store, co, "shop/cart.py::total")
    assert prov.get("branch") == "fz" and warnings == [] and not line["stale"] and "branch fz" not in line["line"], \
        (prov, warnings, line)


def test_a_note_written_in_a_worktree_of_the_default_branch_records_no_branch(tmp_path):
    r, store, _ = on_fz(tmp_path)
    wt = tmp_path / "wt2"
    git(r.path, "worktree", "add", "-q", str(wt), "main")
    nid = _remember(store, "shop/cart.py::zeta", "zeta is the identity on main (worktree)", worktree=str(wt))
    on_main = _remember(store, "shop/cart.py::total", "total is the identity (branch main)", branch="main")
    for n in (nid, on_main):
        code = "shop/cart.py::zeta" if n == nid else "shop/cart.py::total"
        assert "branch" not in _read(store, n, code)[0], n         # it recorded branch "main"
        assert "branch" not in _read(store, n, code, worktree=str(wt))[0], n
    git(wt, "checkout", "-q", "--detach")
    git(r.path, "checkout", "-q", "main")
    index_repository(r.path, store, CFG)
    prov, warnings, line = _read(store, nid)
    assert "branch" not in prov and warnings == [] and not line["stale"], (prov, warnings, line)


def test_a_checkout_note_about_edited_code_on_the_default_branch_records_no_branch(tmp_path):
    """Written against the work tree's version (``checkoutnotes``): it records no branch, and still
    says which branch's work tree it was about, until an index takes that version in."""
    r = Repo(tmp_path / "repo")
    head = r.commit("init", {"shop/__init__.py": "", "shop/cart.py": f"{CART}\n\n{ZETA}"})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    r.write({"shop/cart.py": f"{CART}\n\n{ZETA_FZ}"})         # edited, not committed
    nid = _remember(store, "shop/cart.py::zeta", "zeta negates now")
    prov, warnings, line = _read(store, nid)
    assert "branch" not in prov, prov                           # it recorded branch "main"
    assert warnings == [f"written about the work tree's version of shop/cart.py::zeta, uncommitted at HEAD "
                        f"{head[:12]} of branch main: the indexed version differs (not committed and indexed yet)"], \
        warnings
    assert not line["stale"] and "not indexed yet" in line["line"], line
    prov, warnings, line = _read(store, nid, branch="main")      # the checkout's own branch: the same words
    assert "the indexed version differs" in " ".join(warnings) and not line["stale"], (warnings, line)
    r.commit("zeta negates")
    index_repository(r.path, store, CFG)
    _, warnings, line = _read(store, nid)
    assert warnings == [] and not line["stale"] and "work tree" not in line["line"], (warnings, line)
