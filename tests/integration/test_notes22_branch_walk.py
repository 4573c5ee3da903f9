"""A branch session's `walk FILE --edge notes --direction in` lists the notes about the file's
functions as walking each function does, and as a default session's walk of a file does: the
superseded and retracted ones too, each item saying its status (docs/notes.md). It listed only the
active ones there: the notes `get` carries (a session probe, session 22). Code the branch changed,
code only the branch has, and a file it left alone; unmerged notes, and merged ones after a
re-index of the default branch."""

from __future__ import annotations

from pipeline.job import index_repository
from pipeline.overlay import builder
from stratum.config import IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo, git

CFG = IndexConfig(num_cpus=1, ray=False)
FILES = {"shop/pricing.py": "shop/pricing.py::discount",        # the branch changes it
         "shop/coupons.py": "shop/coupons.py::stack_coupons",   # only the branch has it
         "shop/cart.py": "shop/cart.py::cart_total"}            # the branch leaves it alone


def _statuses(t: Tools, s: str, target: str) -> dict[str, str]:
    items = t.walk(s, target, edges=["notes"], direction="in", page_size=100).items
    return {i.id: i.meta.get("status", "active") for i in items if i.kind in ("rca", "failure", "insight")}


def _three(t: Tools, s: str, fn: str) -> None:
    """An active note, one it superseded, and a retracted one, about FN."""
    old = t.remember(s, "rca", f"{fn} ignores its second argument", [fn]).data["note_id"]
    t.remember(s, "rca", f"{fn} ignores its second argument entirely", [fn], supersedes=[old])
    gone = t.remember(s, "failure", f"tried rounding in {fn}", [fn]).data["note_id"]
    t.retract(s, gone, reason="wrong")


def _walks(tmp_path, reindex: bool) -> None:
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/pricing.py": "def discount(total, pct):\n    return total\n",
                      "shop/cart.py": "def cart_total(items):\n    return sum(items)\n"})
    store = str(tmp_path / "store")
    index_repository(r.path, store, CFG)
    git(r.path, "checkout", "-q", "-b", "feature")
    r.commit("floor", {"shop/pricing.py": "def discount(total, pct):\n    return max(0.0, total)\n",
                       "shop/coupons.py": "def stack_coupons(codes):\n    return sorted(codes)\n"})
    git(r.path, "checkout", "-q", "main")
    t = Tools.open([store], overlay_builder=builder(CFG))
    ms = t.open_session(author="agent").data["session"]
    fs = t.open_session(author="agent", branch="feature").data["session"]
    _three(t, ms, FILES["shop/cart.py"])
    _three(t, fs, FILES["shop/pricing.py"])
    _three(t, fs, FILES["shop/coupons.py"])
    if reindex:                     # merged: the default branch's notes are rows of the new version
        t.close()
        r.commit("readme", {"README.md": "shop\n"})
        index_repository(r.path, store, CFG)
        t = Tools.open([store], overlay_builder=builder(CFG))
        fs = t.open_session(author="agent", branch="feature").data["session"]
    for path, fn in FILES.items():
        of_fn, of_file = _statuses(t, fs, fn), _statuses(t, fs, path)
        assert sorted(of_fn.values()) == ["active", "retracted", "superseded"], (fn, of_fn)
        assert of_file == of_fn, (path, of_file, of_fn)        # it held only the active one
    t.close()


def test_a_branch_sessions_file_walk_lists_its_functions_withdrawn_notes(tmp_path):
    _walks(tmp_path, reindex=False)


def test_a_branch_sessions_file_walk_lists_them_once_merged_too(tmp_path):
    _walks(tmp_path, reindex=True)
