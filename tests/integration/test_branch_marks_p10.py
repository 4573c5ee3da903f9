"""A note about a feature branch's changed code keeps reading "not merged yet" on the default branch
when the code was read off fz's index's own version, not the default branch's (a review, session 31).

D1: the store serves fz; the agent edits ``zeta`` in the work tree, writes a note, commits, and the
hook re-indexes fz. The note's target was marked fz's uncommitted version with the served index's
hash (not main's), and fz's re-index dropped the mark: after ``git checkout main`` and the re-index
it read "stale: ... changed since", where a note written after the commit read "not merged yet".

D2: a ``--branch fz`` session once fz is a commit ahead of its index: the session's view differs
from the version served, so its note was written with the view's own marks, whose base is the
served fz index, or none at all: "stale" on main.

D4: with ``eol=crlf`` the default branch's hash was read off its raw blob (LF), while the index reads
the CRLF work tree: the checkout note's mark never matched main, and it read "stale" there.

Real repositories, the real index job, overlay builder and Tools.
"""

from __future__ import annotations

from pipeline.job import index_repository
from tests.branchrepo import CART, CFG, NOT_MERGED, ZETA, ZETA_FZ, branch_tools, on_fz, remember
from tests.gitrepo import Repo, git

ZETA_FZ2 = "def zeta(y):\n    return -2 * y\n"     # fz's next version


_tools, _remember = branch_tools, remember


def _read(store, nid: str, code: str = "shop/cart.py::zeta", **where) -> tuple[list[str], dict]:
    """(the note item's warnings, the line CODE's item carries for it) in a session."""
    t = _tools(store)
    try:
        s = t.open_session(**where).data["session"]
        (it,) = t.get(s, nid).items
        (line,) = [n for n in t.get(s, code).items[0].notes if n["id"] == nid]
        return list(it.warnings), line
    finally:
        t.close()


def _not_merged(commit: str) -> list[str]:
    return [f"written on branch fz at {commit[:12]}, about that version of shop/cart.py::zeta: the default "
            f"branch's differs ({NOT_MERGED})"]


def _main(r: Repo, store: str) -> None:
    git(r.path, "checkout", "-q", "main")
    assert index_repository(r.path, store, CFG).branch != "fz"


def test_a_note_on_an_uncommitted_edit_of_a_served_branch_reads_not_merged_once_committed(tmp_path):
    r, store, fz = on_fz(tmp_path)
    r.write({"shop/cart.py": f"{CART}\n\n{ZETA_FZ2}"})           # edited in the checkout, not committed
    wip = _remember(store, "shop/cart.py::zeta", "zeta doubles (the edited work tree)")
    warnings, line = _read(store, wip)                           # before the commit: the work tree's version
    assert len(warnings) == 1 and warnings[0].startswith("written about the work tree's version of "
                                                         "shop/cart.py::zeta, uncommitted at HEAD ") and \
        warnings[0].endswith("the indexed version differs (not committed and indexed yet)"), warnings
    assert not line["stale"], line
    doubles = r.commit("zeta doubles")
    assert index_repository(r.path, store, CFG).branch == "fz"   # the hook's re-index of fz
    warnings, line = _read(store, wip)                           # fz served: its own code, fresh
    assert warnings == [] and not line["stale"], (warnings, line)
    after = _remember(store, "shop/cart.py::zeta", "zeta doubles (after the commit)")
    _main(r, store)
    for nid, at in ((after, doubles), (wip, fz)):                # the note's commit: HEAD when written
        warnings, line = _read(store, nid)
        assert warnings == _not_merged(at), (nid == wip, warnings)  # the work tree's read "stale: ... changed since"
        assert not line["stale"] and f"on branch fz at {at[:12]}" in line["line"], (nid == wip, line)
    git(r.path, "merge", "-q", "--no-ff", "-m", "merge fz", "fz")
    index_repository(r.path, store, CFG)
    for nid in (after, wip):
        warnings, line = _read(store, nid)
        assert warnings == [] and not line["stale"] and "branch fz" not in line["line"], (nid == wip, warnings, line)


def test_a_branch_session_note_while_its_branch_is_a_commit_past_its_index_reads_not_merged(tmp_path):
    """fz's next commit, not indexed yet, touched another file: the session's note about zeta took
    the served index's code unmarked."""
    r, store, _ = on_fz(tmp_path, files={"shop/other.py": "def o():\n    return 1\n"})
    ahead = r.commit("fz 2", {"shop/other.py": "def o():\n    return 2\n"})
    ss = _remember(store, "shop/cart.py::zeta", "zeta negates on fz (fz ahead of its index)", branch="fz")
    _main(r, store)
    warnings, line = _read(store, ss)
    assert warnings == _not_merged(ahead), warnings             # it read "stale: ... changed since"
    assert not line["stale"], line


def test_a_branch_session_note_about_code_changed_past_the_branch_index_reads_not_merged(tmp_path):
    """fz's next commit, not indexed yet, changed zeta again: the session's mark took fz's indexed
    version as the default branch's."""
    r, store, _ = on_fz(tmp_path)
    ahead = r.commit("fz 2", {"shop/cart.py": f"{CART}\n\n{ZETA_FZ2}"})
    ss = _remember(store, "shop/cart.py::zeta", "zeta doubles on fz (fz ahead of its index)", branch="fz")
    _main(r, store)
    warnings, line = _read(store, ss)
    assert warnings == _not_merged(ahead), warnings             # it read "stale: ... changed since"
    assert not line["stale"], line
    warnings, line = _read(store, ss, branch="fz")              # the branch's own sessions: its code, fresh
    assert warnings == [] and not line["stale"], (warnings, line)


def test_a_checkout_note_on_a_served_branch_of_a_crlf_repository_reads_not_merged(tmp_path):
    """``*.py text eol=crlf``: the work tree (which the index reads) has CRLF, the blobs LF."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {".gitattributes": "*.py text eol=crlf\n", "shop/__init__.py": "",
                      "shop/cart.py": f"{CART}\n\n{ZETA}"})
    git(r.path, "rm", "-q", "--cached", "-r", ".")
    git(r.path, "reset", "-q", "--hard")                        # checked out again: CRLF
    assert b"\r\n" in (r.path / "shop/cart.py").read_bytes()
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "fz")
    fz = r.commit("zeta on fz", {"shop/cart.py": f"{CART}\n\n{ZETA_FZ}"})
    assert index_repository(r.path, store, CFG).branch == "fz"
    co = _remember(store, "shop/cart.py::zeta", "zeta negates on fz (checkout, CRLF)")
    _main(r, store)
    warnings, line = _read(store, co)
    assert warnings == _not_merged(fz), warnings               # it read "stale: ... changed since"
    assert not line["stale"], line
