"""A branch's marks on a note's targets across re-indexes of that branch, and what the default
branch's sessions are told of code pending on a branch (follow-ups of probe F1 and F4).

1. A note about ``shop/cart.py::zeta``, which feature branch fz changed, is written in the main
   checkout with fz out and indexed (or in a session on fz, fz then checked out and indexed): its
   target is marked as fz's version, with the default branch's hash of that code. fz then gets
   another commit and is re-indexed (the git hook does this): the merge took the target as landed
   (the version's hash of zeta is the note's) and dropped the marks, so after ``git checkout main`` and its re-index the
   note read "stale: shop/cart.py::zeta changed since" instead of "written on branch fz ..., not
   merged yet". A version built from the note's own branch is no landing: the marks stay; the
   default branch merging fz lands it as before.

2. A note pending on a branch *behind* the default one (``release-1``, whose code main deleted
   since: ``pipeline.branchheld``) was said to attach "once merged and re-indexed": merging
   release-1 into main brings nothing back. The warning says the default branch no longer has that
   code; the promise stays for a branch's own new code.

Real repositories, the real index job, overlay builder and Tools.
"""

from __future__ import annotations

from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig
from tests.branchrepo import branch_tools, remember
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
ZETA = "shop/cart.py::zeta"
CART = "def total(x):\n    return x\n"
ZETA_DEF = "def zeta(y):\n    return y\n"
ZETA_FZ = "def zeta(y):\n    return -y\n"
NOT_MERGED = "not merged into the default branch yet"


_tools, _remember = branch_tools, remember


def _read(store, nid: str, code: str | None = ZETA, **where) -> tuple[list[str], dict | None]:
    """(the note item's warnings, the line CODE's item carries for it, None without CODE) in a session."""
    t = _tools(store)
    try:
        s = t.open_session(**where).data["session"]
        (it,) = t.get(s, nid).items
        if code is None:
            return list(it.warnings), None
        (line,) = [n for n in t.get(s, code).items[0].notes if n["id"] == nid]
        return list(it.warnings), line
    finally:
        t.close()


def _noted_on_fz(tmp_path) -> tuple[Repo, str, str, list[str]]:
    """main indexed; fz made (zeta changed there); a note about zeta in a session on fz while main is
    served; fz checked out and indexed (the hook), a note about zeta written in the checkout. Returns
    (repo, store, fz's commit, the two note ids: the session's, the checkout's)."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": f"{CART}\n\n{ZETA_DEF}"})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "fz")
    fz = r.commit("zeta on fz", {"shop/cart.py": f"{CART}\n\n{ZETA_FZ}"})
    git(r.path, "checkout", "-q", "main")
    ss = _remember(store, ZETA, "zeta negates on fz (session)", branch="fz")
    git(r.path, "checkout", "-q", "fz")
    assert index_repository(r.path, store, CFG).branch == "fz"
    co = _remember(store, ZETA, "zeta negates on fz (checkout)")
    return r, store, fz, [ss, co]


def test_a_note_on_fz_keeps_its_branch_mark_when_fz_is_indexed_again(tmp_path):
    r, store, fz, nids = _noted_on_fz(tmp_path)
    r.commit("more on fz", {"shop/more.py": "def more():\n    return 1\n"})
    index_repository(r.path, store, CFG)          # the hook's re-index of fz: zeta's hash is the notes'
    for nid in nids:
        warnings, line = _read(store, nid)        # fz served: its own code, fresh
        assert warnings == [] and not line["stale"], (nid, warnings, line)
    git(r.path, "checkout", "-q", "main")
    index_repository(r.path, store, CFG)
    said = (f"written on branch fz at {fz[:12]}, about that version of {ZETA}: the default branch's "
            f"differs ({NOT_MERGED})")
    for nid in nids:
        warnings, line = _read(store, nid)        # read "stale: shop/cart.py::zeta changed since ..."
        assert warnings == [said], (nid, warnings)
        assert not line["stale"] and f"on branch fz at {fz[:12]}" in line["line"], (nid, line)
        warnings, line = _read(store, nid, branch="fz")
        assert warnings == [] and not line["stale"], (nid, warnings, line)
    git(r.path, "merge", "-q", "--no-ff", "-m", "merge fz", "fz")
    index_repository(r.path, store, CFG)          # merged: landed, current
    for nid in nids:
        warnings, line = _read(store, nid)
        assert warnings == [] and not line["stale"] and "branch fz" not in line["line"], (nid, warnings, line)


def test_a_note_on_fz_indexed_again_goes_stale_when_main_changes_its_code(tmp_path):
    """The kept marks keep the default branch's hash: main changing zeta itself is a change since."""
    r, store, _, nids = _noted_on_fz(tmp_path)
    r.commit("more on fz", {"shop/more.py": "def more():\n    return 1\n"})
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "main")
    r.commit("main changes zeta", {"shop/cart.py": f"{CART}\n\ndef zeta(y):\n    return y + 0\n"})
    index_repository(r.path, store, CFG)
    for nid in nids:
        warnings, line = _read(store, nid)
        assert len(warnings) == 1 and warnings[0].startswith(f"stale: {ZETA} changed since"), (nid, warnings)
        assert line["stale"], line


def test_code_pending_on_a_branch_behind_main_is_not_promised_to_attach_on_merge(tmp_path):
    """release-1 behind main, which deleted zeta since: the note is pending on release-1, and the
    default session says main no longer has zeta (merging release-1 would not bring it back)."""
    r = Repo(tmp_path / "repo")
    rel = r.commit("init", {"shop/__init__.py": "", "shop/cart.py": f"{CART}\n\n{ZETA_DEF}"})
    git(r.path, "branch", "release-1")
    r.commit("main drops zeta", {"shop/cart.py": CART})
    store = str(tmp_path / "store")
    git(r.path, "checkout", "-q", "release-1")
    index_repository(r.path, store, CFG)
    nid = _remember(store, ZETA, "zeta frobnicates the release totals")
    git(r.path, "checkout", "-q", "main")
    assert index_repository(r.path, store, CFG).notes["pending"] == 1
    warnings, _ = _read(store, nid, None)
    assert warnings == [f"pending: its code ({ZETA}) is on branch release-1 at {rel[:12]}; the default branch "
                        "no longer has it"], warnings          # said "(it attaches once merged and re-indexed)"


def test_code_pending_on_a_branch_ahead_of_main_still_attaches_once_merged(tmp_path):
    """fz's own new code: the promise is true, and kept."""
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": CART})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "fz")
    fz = r.commit("zeta", {"shop/cart.py": f"{CART}\n\n{ZETA_DEF}"})
    index_repository(r.path, store, CFG)
    nid = _remember(store, ZETA, "zeta is new on fz")
    git(r.path, "checkout", "-q", "main")
    assert index_repository(r.path, store, CFG).notes["pending"] == 1
    warnings, _ = _read(store, nid, None)
    assert warnings == [f"pending: its code ({ZETA}) is on branch fz at {fz[:12]}, not in the default branch's "
                        "index yet (it attaches once merged and re-indexed)"], warnings
    git(r.path, "merge", "-q", "--no-ff", "-m", "merge fz", "fz")
    index_repository(r.path, store, CFG)
    warnings, line = _read(store, nid)
    assert warnings == [] and not line["stale"], (warnings, line)


def test_a_tag_named_as_the_branch_does_not_make_its_reindex_another_branch(tmp_path):
    """A tag fz beside branch fz: the run recorded branch ``heads/fz`` (git's short name then), so
    fz's own re-index dropped the notes' marks as another branch's landing and they read "stale"
    on main (a review)."""
    r, store, fz, nids = _noted_on_fz(tmp_path)
    git(r.path, "tag", "fz")
    r.commit("more on fz", {"shop/more.py": "def more():\n    return 1\n"})
    assert index_repository(r.path, store, CFG).branch == "fz"
    git(r.path, "checkout", "-q", "main")
    index_repository(r.path, store, CFG)
    for nid in nids:
        warnings, _ = _read(store, nid)
        assert len(warnings) == 1 and warnings[0].startswith(f"written on branch fz at {fz[:12]}"), (nid, warnings)
