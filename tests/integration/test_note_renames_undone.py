"""A note that followed a rename comes home when the rename is undone (probe s18: `git mv` back,
`git revert`, or a checkout/reset to a branch without the rename left it ``[orphaned] [stale]
about: basket.py::total`` while ``cart.py::total`` existed with the same code, even after
``index --full``), and follows only the renames made since it was written, cycle-safe.

Real git repositories, the real index job (incremental and ``--full``), notes through the tools.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from pipeline.job import index_repository
from stratum import schema as S
from stratum.config import EmbedConfig, IndexConfig
from stratum.store import Store
from stratum.tools import Tools
from tests.gitrepo import Repo, git

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
CART = "def total(prices):\n    return sum(prices)\n\n\ndef count(prices):\n    return len(prices)\n"


def _index(repo: Repo, store, full: bool = False):
    return index_repository(repo.path, store, replace(CFG, full=full))


def _notes(store) -> dict[str, dict]:
    """note id -> what a reader of the published version sees: status, text, author, targets."""
    tab = Store(store).snapshot().read("nodes", columns=["id", "kind", "status", "doc", "author", "meta"])
    out = {}
    for row in tab.to_pylist():
        if row["kind"] in S.AGENT_NOTE_KINDS:
            about = json.loads(row["meta"])["about"]
            out[row["id"]] = {"status": row["status"], "text": row["doc"], "author": row["author"],
                              "about": [f"{t['path']}::{t['qualname']}" if t["qualname"] else t["path"]
                                        for t in about]}
    return out


def _attached(store, target: str) -> dict[str, bool]:
    """note id -> stale, of the notes ``get`` shows on ``target``."""
    t = Tools.open([str(store)])
    try:
        s = t.open_session(author="reader").data["session"]
        return {n["id"]: n["stale"] for n in t.get(s, target, "api").items[0].notes}
    finally:
        t.close()


def _remember(store, about: str, text: str = "total drops the cents") -> str:
    t = Tools.open([str(store)])
    try:
        s = t.open_session(author="writer").data["session"]
        return t.remember(s, "rca", text, about=[about]).data["note_id"]
    finally:
        t.close()


def _cart_repo(tmp_path) -> tuple[Repo, str]:
    repo = Repo(tmp_path / "shop")
    repo.commit("cart", {"cart.py": CART, "README.md": "shop\n"})
    store = str(tmp_path / "store")
    _index(repo, store)
    return repo, store


@pytest.mark.parametrize("undo", ["mv back", "revert"])
def test_a_rename_undone_brings_the_note_home(tmp_path, undo):
    repo, store = _cart_repo(tmp_path)
    note = _remember(store, "cart.py::total")
    t = Tools.open([str(store)])
    try:        # a retracted note and a superseded one go through the same moves and keep their status
        s = t.open_session(author="writer").data["session"]
        wrong = t.remember(s, "rca", "count is off by one", about=["cart.py::count"]).data["note_id"]
        old = t.remember(s, "insight", "total is slow", about=["cart.py::total"]).data["note_id"]
        t.remember(s, "insight", "total is fast enough", about=["cart.py::total"], supersedes=[old])
        t.retract(s, wrong, "it was not")
    finally:
        t.close()
    repo.mv("cart.py", "basket.py")
    repo.commit("rename cart to basket")
    _index(repo, store)
    assert _notes(store)[note]["about"] == ["basket.py::total"] and note in _attached(store, "basket.py::total")
    before = _notes(store)
    if undo == "mv back":
        repo.mv("basket.py", "cart.py")
        repo.commit("rename it back")
    else:
        git(repo.path, "revert", "--no-edit", "HEAD")
    _index(repo, store)
    after = _notes(store)
    assert after[note]["about"] == ["cart.py::total"] and after[note]["status"] == "active", after[note]
    assert _attached(store, "cart.py::total")[note] is False        # attached, and not stale: same code
    assert after[wrong]["status"] == "retracted" and after[old]["status"] == "superseded"
    assert after[wrong]["about"] == ["cart.py::count"] and after[old]["about"] == ["cart.py::total"]
    assert {k: (v["text"], v["author"]) for k, v in after.items()} == \
        {k: (v["text"], v["author"]) for k, v in before.items()}
    _index(repo, store, full=True)
    assert _notes(store) == after


@pytest.mark.parametrize("how", ["checkout", "reset"])
def test_a_branch_without_the_rename_brings_the_note_home(tmp_path, how):
    """The post-checkout hook indexes the checked-out branch: the note follows the rename there,
    and comes back when the work tree is main again."""
    repo, store = _cart_repo(tmp_path)
    note = _remember(store, "cart.py::total")
    if how == "checkout":
        git(repo.path, "checkout", "-q", "-b", "feature")
    repo.mv("cart.py", "basket.py")
    repo.commit("rename cart to basket")
    _index(repo, store)
    assert _notes(store)[note]["about"] == ["basket.py::total"]
    if how == "checkout":
        git(repo.path, "checkout", "-q", "main")
    else:
        git(repo.path, "reset", "-q", "--hard", "HEAD~1")
    _index(repo, store)
    assert _notes(store)[note] == {"status": "active", "text": "total drops the cents", "author": "writer",
                                   "about": ["cart.py::total"]}
    assert _attached(store, "cart.py::total")[note] is False


def test_renames_made_elsewhere_are_followed_from_the_writers_path(tmp_path):
    """The note followed cart -> basket on a branch; main then renamed cart -> crate: it is about crate."""
    repo, store = _cart_repo(tmp_path)
    note = _remember(store, "cart.py::total")
    git(repo.path, "checkout", "-q", "-b", "feature")
    repo.mv("cart.py", "basket.py")
    repo.commit("rename cart to basket")
    _index(repo, store)
    git(repo.path, "checkout", "-q", "main")
    repo.mv("cart.py", "crate.py")
    repo.commit("rename cart to crate")
    _index(repo, store)
    assert _notes(store)[note]["about"] == ["crate.py::total"] and _notes(store)[note]["status"] == "active"
    assert note in _attached(store, "crate.py::total")


def test_a_rename_cycle_ends_where_the_file_is(tmp_path):
    """cart -> basket -> cart -> basket between two index runs: the chain is replayed once, in order."""
    repo, store = _cart_repo(tmp_path)
    note = _remember(store, "cart.py::total")
    for a, b in (("cart.py", "basket.py"), ("basket.py", "cart.py"), ("cart.py", "basket.py")):
        repo.mv(a, b)
        repo.commit(f"rename {a} to {b}")
    _index(repo, store)
    assert _notes(store)[note]["about"] == ["basket.py::total"] and _notes(store)[note]["status"] == "active"


def _util_dropped(tmp_path) -> tuple[Repo, str, str]:
    """util.py renamed to helpers.py, a new util.py noted, then deleted: (repo, store, note)."""
    repo = Repo(tmp_path / "shop")
    repo.commit("util", {"util.py": "def f():\n    return 1\n"})
    repo.mv("util.py", "helpers.py")
    repo.commit("util is helpers now")
    repo.commit("a new util", {"util.py": "def f():\n    return 2\n"})
    store = str(tmp_path / "store")
    _index(repo, store)
    note = _remember(store, "util.py::f", "f returns the wrong constant")
    repo.commit("drop util", delete=["util.py"])
    _index(repo, store)
    return repo, store, note


def test_an_older_rename_does_not_move_a_note_and_gone_code_stays_orphaned(tmp_path):
    """util.py was renamed to helpers.py long before a new util.py got the note: when util.py is
    deleted the note is orphaned (not moved to helpers.py), and active again when util.py is back."""
    repo, store, note = _util_dropped(tmp_path)
    assert _notes(store)[note]["status"] == "orphaned" and _notes(store)[note]["about"] == ["util.py::f"]
    assert note not in _attached(store, "helpers.py::f")
    git(repo.path, "revert", "--no-edit", "HEAD")
    _index(repo, store, full=True)
    assert _notes(store)[note]["status"] == "active" and note in _attached(store, "util.py::f")


def _merged_with_graph(repo: Repo, store) -> dict[str, dict]:
    """note id -> (status, paths) when the store's notes are merged with the history's renames read
    on the commit graph (``renames_of(file_changes, commits)``): the real miner, the real merge."""
    from pathlib import Path

    from pipeline.history import mine
    from pipeline.merge import merge
    from pipeline.notetargets import renames_of
    from stratum.deltalog import DeltaLog

    m = mine(repo.path)
    code = [r for r in Store(store).snapshot().read("nodes").to_pylist() if r["kind"] not in S.NOTE_KINDS]
    log = Path(store) / "deltalog"
    records = DeltaLog(log).scan().records + DeltaLog(log / "retired").scan().records
    res = merge([], records, code, renames=renames_of(m.file_changes, m.commits))
    return {n["id"]: {"status": n["status"], "about": [t["path"] for t in json.loads(n["meta"])["about"]]}
            for n in res.nodes}


def _pull_request_rename(tmp_path) -> tuple[Repo, str, str]:
    """A rename committed on a pull request's branch before the note was written on main, merged
    after it: the note's code never had it, so the note follows it (a time cut orphaned it)."""
    repo, store = _cart_repo(tmp_path)
    git(repo.path, "checkout", "-q", "-b", "pr")
    repo.mv("cart.py", "basket.py")
    repo.commit("rename cart to basket")
    git(repo.path, "checkout", "-q", "main")
    repo.commit("docs", {"README.md": "shop!\n"})
    _index(repo, store)
    note = _remember(store, "cart.py::total")
    git(repo.path, "merge", "-q", "--no-ff", "-m", "merge the pr", "pr", date="2024-02-01T12:00:00+00:00")
    _index(repo, store)
    return repo, store, note


def test_a_pull_requests_older_rename_merged_after_the_note_is_followed(tmp_path):
    repo, store, note = _pull_request_rename(tmp_path)
    assert _merged_with_graph(repo, store)[note] == {"status": "active", "about": ["basket.py"]}


def test_on_the_graph_an_older_rename_still_moves_nothing(tmp_path):
    repo, store, note = _util_dropped(tmp_path)
    assert _merged_with_graph(repo, store)[note] == {"status": "orphaned", "about": ["util.py"]}


def test_the_index_follows_a_pull_requests_older_rename(tmp_path):
    repo, store, note = _pull_request_rename(tmp_path)
    assert _notes(store)[note]["about"] == ["basket.py::total"] and _notes(store)[note]["status"] == "active"
