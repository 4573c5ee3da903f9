"""A store belongs to one repository: a clone moved or copied to another folder keeps its node ids
(and so its notes), and indexing a different repository into it is refused, not silently replaced."""

from __future__ import annotations

import shutil

import pytest

from pipeline.job import index_repository
from stratum import schema as S
from stratum.config import EmbedConfig, IndexConfig, default_store_path
from stratum.errors import InvalidArgument
from stratum.store import Store
from stratum.tools import Tools
from tests.gitrepo import Repo, sample_python_repo

pytestmark = pytest.mark.slow
CFG = IndexConfig(embed=EmbedConfig(enabled=False), ray=False)


def _statuses(store) -> dict[str, str]:
    tab = Store(store).snapshot().read("nodes", columns=["id", "kind", "status"])
    return {i: s for i, k, s in zip(*(tab.column(c).to_pylist() for c in ("id", "kind", "status")))
            if k in S.AGENT_NOTE_KINDS}


def _remember(store, about: str) -> str:
    t = Tools.open([str(store)])
    try:
        sid = t.open_session(author="writer").data["session"]
        return t.remember(sid, "rca", "discount() rounds before summing", about=[about]).data["note_id"]
    finally:
        t.close()


def test_a_moved_clone_keeps_its_ids_and_its_notes(tmp_path):
    repo = sample_python_repo(tmp_path / "a" / "shop")
    index_repository(repo.path, None, CFG)                   # the store inside the clone: shop/.stratum
    nid = _remember(default_store_path(repo.path), "shop/pricing.py::discount")
    moved = tmp_path / "b" / "shop-renamed"
    shutil.copytree(repo.path, moved)                        # a copy under another folder name
    Repo(moved).commit("touch", {"shop/extra.py": "X = 1\n"})
    index_repository(moved, None, CFG)                       # incremental: merges the note
    assert _statuses(default_store_path(moved)) == {nid: "active"}
    index_repository(moved, None, IndexConfig(embed=EmbedConfig(enabled=False), ray=False, full=True))
    assert _statuses(default_store_path(moved)) == {nid: "active"}  # --full too: same ids, the note attached
    t = Tools.open([str(default_store_path(moved))])
    try:
        sid = t.open_session(author="reader").data["session"]
        it = t.get(sid, "shop/pricing.py::discount", "api").items[0]
        assert nid in [n["id"] for n in it.notes]
    finally:
        t.close()


def test_indexing_another_repository_into_a_store_is_refused(tmp_path):
    shop = sample_python_repo(tmp_path / "shop")
    store = tmp_path / "store"
    index_repository(shop.path, store, CFG)
    nid = _remember(store, "shop/cart.py")
    other = Repo(tmp_path / "other")
    other.commit("init", {"lib/util.py": "def helper():\n    return 1\n"})
    with pytest.raises(InvalidArgument, match="holds the repository 'shop'.*--replace"):
        index_repository(other.path, store, CFG)
    with pytest.raises(InvalidArgument, match="holds the repository"):
        index_repository(other.path, store, IndexConfig(embed=EmbedConfig(enabled=False), ray=False, full=True))
    t = Tools.open([str(store)])                             # nothing was lost: the store still answers
    try:
        sid = t.open_session(author="reader").data["session"]
        assert t.get(sid, "shop/cart.py", "summary").items[0].path == "shop/cart.py"
        assert t.overlays[str(store)].get(nid) is not None
    finally:
        t.close()
    rep = index_repository(other.path, store, IndexConfig(embed=EmbedConfig(enabled=False), ray=False, replace=True))
    assert rep.version > 1 and _statuses(store)[nid] == "orphaned"      # asked for: kept, orphaned


def test_a_store_deleted_and_indexed_again_at_its_path_is_loaded_by_a_running_server(tmp_path):
    """A probe: the new store started at version 1 again, as the one loaded, so it was never
    reloaded, and the server answered from data files that were gone (store_damaged) until restarted."""
    repo = sample_python_repo(tmp_path / "shop")
    store = tmp_path / "store"
    index_repository(repo.path, store, CFG)
    t = Tools.open([str(store)])
    try:
        shutil.rmtree(store)
        repo.commit("helper", {"shop/helper.py": "def helper():\n    return 1\n"})
        index_repository(repo.path, store, CFG)
        assert Store(store).manifest().version == 1
        assert t.reload()                                   # switched, though the number is the same
        s = t.open_session().data["session"]
        assert t.get(s, "shop/helper.py::helper").items[0].qualname == "helper"
    finally:
        t.close()


def test_two_stores_of_repositories_with_one_name_are_refused_together(tmp_path):
    """A probe: served side by side, the second store's app.py was reachable only by node id (the
    ids, made from the name, collided) and every item said the same repo."""
    stores = []
    for k in range(2):
        repo = Repo(tmp_path / f"r{k}" / "shop")
        repo.commit("app", {"app.py": f"def run():\n    return {k}\n"})
        index_repository(repo.path, tmp_path / f"store{k}", CFG)
        stores.append(str(tmp_path / f"store{k}"))
    with pytest.raises(InvalidArgument, match="both hold a repository named 'shop'"):
        Tools.open(stores)


def test_a_note_of_another_store_is_named_as_such_when_superseded(tmp_path):
    """A probe: superseding a note another store holds said "no such note", and `--path lib:lib/` found
    nothing."""
    stores = []
    for name, path in (("shop", "shop/cart.py"), ("lib", "lib/util.py")):
        repo = Repo(tmp_path / name)
        repo.commit("init", {path: "def run():\n    return 1\n"})
        index_repository(repo.path, tmp_path / f"{name}_store", CFG)
        stores.append(str(tmp_path / f"{name}_store"))
    t = Tools.open(stores)
    try:
        s = t.open_session(author="writer").data["session"]
        old = t.remember(s, "insight", "util run returns one", about=["lib/util.py"]).data["note_id"]
        with pytest.raises(InvalidArgument, match="is in the store of lib.*its own store"):
            t.remember(s, "insight", "cart run returns one", about=["shop/cart.py"], supersedes=[old])
        # a path filter as get takes a target, `repo:path`: that store, under that path (it found nothing)
        items = t.search(s, "run returns one", path_prefix="lib:lib/", page_size=10).items
        assert items and {i.repo for i in items} == {"lib"} and all(i.path.startswith("lib/") for i in items)
    finally:
        t.close()
