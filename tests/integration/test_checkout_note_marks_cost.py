"""What a note written in the checkout while a feature branch is served costs, and where the default
branch's version of its code is read from (a review of 476993f).

(3) The checkout has fz out and indexed; main rewrote many files after fz forked. ``remember`` built
an overlay of the whole default branch over fz's version (every file the two differ in parsed,
linked, embedded) to mark a note's targets, whatever the note was about, and again after each
re-index of fz: 6.6 s a note about a file main never touched. Now only the note's files are asked
of git (``pipeline.defaultcode``), no overlay is built, and the marks are the ones a ``--branch fz``
session records.

(4) The default branch only as a remote-tracking branch (a clone whose local ``main`` was deleted):
the default branch could not be read, the note was written unmarked, and after ``git checkout main``
and the re-index it read "stale: ... changed since" again. Now ``origin/main`` is read (its remote's
HEAD names it). Real repositories, the real index job, overlay callback and Tools.
"""

from __future__ import annotations

from pipeline.gitio import freshness
from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.tools import Tools
from tests.branchrepo import CART, CFG, NOT_MERGED, ZETA, ZETA_FZ, ZETA_MAIN
from tests.gitrepo import Repo, git

LIBS = 200


class _Counted:
    """The real overlay callback, its overlay builds counted (its other answers passed through)."""

    def __init__(self, real):
        self.real, self.calls = real, []

    def __call__(self, *a, **kw):
        self.calls.append((a, kw))
        return self.real(*a, **kw)

    def __getattr__(self, name):
        return getattr(self.real, name)


def _lib(i: int, v: int) -> str:
    return "".join(f"def g{i}_{k}(x):\n    return x * {k} + {v}\n\n" for k in range(3))


def _remember(store, about: str, text: str, built: _Counted | None = None, **where) -> tuple[str, dict]:
    """(the note's id, its stored target: node id -> (branch, base_hash, content_hash))."""
    t = Tools.open([str(store)], freshness=freshness, overlay_builder=built or builder(CFG))
    try:
        s = t.open_session(**where).data["session"]
        nid = t.remember(s, "rca", text, [about]).data["note_id"]
        (sh,) = list(t.memory)
        return nid, {a.node_id: (a.branch, a.base_hash, a.content_hash) for a in t.memory.overlay(sh).notes[nid].about}
    finally:
        t.close()


def _warnings(store, nid: str) -> list[str]:
    t = Tools.open([str(store)], freshness=freshness, overlay_builder=builder(CFG))
    try:
        (it,) = t.get(t.open_session().data["session"], nid).items
        return list(it.warnings)
    finally:
        t.close()


def test_a_checkout_note_reads_only_its_own_files_of_the_default_branch(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART, "shop/pricing.py": ZETA,
                      "shop/util.py": "def helper():\n    return 1\n",
                      **{f"lib/m{i}.py": _lib(i, 0) for i in range(LIBS)}})
    git(r.path, "checkout", "-q", "-b", "fz")
    r.commit("fz", {"shop/cart.py": CART + "\n\ndef fz_only():\n    return 2\n", "shop/pricing.py": ZETA_FZ})
    git(r.path, "checkout", "-q", "main")
    r.commit("main rewrites lib, changes zeta",
             {"shop/pricing.py": ZETA_MAIN, **{f"lib/m{i}.py": _lib(i, 1) for i in range(LIBS)}})
    git(r.path, "checkout", "-q", "fz")
    store = tmp_path / "store"
    assert index_repository(r.path, str(store), CFG).branch == "fz"
    built = _Counted(builder(CFG))
    # a file main never touched (fz changed it; the function is the same on both), one neither touched
    for about in ("shop/cart.py::total", "shop/util.py::helper"):
        _, marks = _remember(store, about, f"{about} is plain", built)
        assert [m[:2] for m in marks.values()] == [("", None)], (about, marks)
    assert built.calls == [], built.calls           # an overlay of the default branch was built: ~1 s a note here
    # code both changed: marked as fz's version, with main's hash, as a --branch fz session marks it
    co, marks = _remember(store, "shop/pricing.py::zeta", "zeta negates on fz (checkout)", built)
    assert built.calls == [], built.calls
    git(r.path, "checkout", "-q", "main")
    index_repository(r.path, str(store), CFG)
    ss, theirs = _remember(store, "shop/pricing.py::zeta", "zeta negates on fz (session)", branch="fz")
    ((branch, base, _),) = marks.values()
    assert branch == "fz" and base and marks == theirs, (marks, theirs)
    assert _warnings(store, co) == _warnings(store, ss) and NOT_MERGED in _warnings(store, co)[0]


def test_a_default_branch_only_a_remote_tracking_branch_has_is_read_there(tmp_path):
    """A clone whose local main was deleted: origin/main is the default branch (origin's HEAD names it)."""
    up = Repo(tmp_path / "up")
    up.commit("init", {"shop/__init__.py": "", "shop/cart.py": f"{CART}\n\n{ZETA}"})
    git(tmp_path, "clone", "-q", str(up.path), "repo")
    rp = tmp_path / "repo"
    git(rp, "checkout", "-q", "-b", "fz")
    (rp / "shop/cart.py").write_text(f"{CART}\n\n{ZETA_FZ}")
    git(rp, "commit", "-qam", "fz changes zeta")
    fz = git(rp, "rev-parse", "HEAD").strip()
    git(rp, "branch", "-D", "main")
    store = tmp_path / "store"
    rep = index_repository(rp, str(store), CFG)
    assert (rep.branch, rep.default_branch) == ("fz", "main")
    nid, marks = _remember(store, "shop/cart.py::zeta", "zeta negates on fz")
    assert [m[0] for m in marks.values()] == ["fz"], marks          # it was written unmarked
    git(rp, "checkout", "-q", "-b", "main", "origin/main")
    index_repository(rp, str(store), CFG)
    assert _warnings(store, nid) == [f"written on branch fz at {fz[:12]}, about that version of shop/cart.py::zeta: "
                                     f"the default branch's differs ({NOT_MERGED})"]     # it read "stale: ... since"
