"""A file named with a byte that is not UTF-8 (``caf<E9>.py``) and one literally named ``caf\\xe9.py``
(a backslash, x, e, 9) are two files in the history as they are in the structure: their commits,
co-change, co-change edges, mined change nodes and symbol co-change stayed one file's (both were
stored as ``caf\\xe9.py``), and an older store holding a backslash is mined again once."""

from __future__ import annotations

import json
import os

import polars as pl
import pytest

from pipeline.job import index_repository
from stratum import analysis as A
from stratum.config import EmbedConfig, HistoryConfig, IndexConfig
from stratum.tools import Tools
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow
CFG = IndexConfig(num_cpus=1, embed=EmbedConfig(enabled=False), ray=False, history=HistoryConfig(symbols=True))
LATIN = os.fsdecode(b"caf\xe9.py")          # the bytes caf E9 .py, as Python hands them over
LITERAL = "caf\\xe9.py"                     # a valid UTF-8 name: c a f \ x e 9 . p y


@pytest.fixture
def repo(tmp_path):
    r = Repo(tmp_path / "repo")
    try:
        r.write({LATIN: "x = 0\n"})
    except OSError as e:                                  # a filesystem that enforces UTF-8 names
        pytest.skip(f"the filesystem refuses a non-UTF-8 name: {e}")
    for i in range(2):
        r.commit(f"tune the latin menu prices {i}", {LATIN: f"def brew():\n    return {i}\n",
                                                     "a.py": f"def price():\n    return {i}\n"})
    for i in range(2):
        r.commit(f"rework the literal coffee order {i}", {LITERAL: f"def brew():\n    return {i}\n",
                                                          "b.py": f"def order():\n    return {i}\n"})
    return r


def _walk(t: Tools, sid: str, node_id: str, edge: str, direction: str = "out") -> list[dict]:
    return t.walk(sid, node_id, [edge], direction=direction).to_dict()["items"]


def test_the_two_names_are_two_files_in_history_edges_and_mined_nodes(repo, tmp_path):
    store = tmp_path / "store"
    index_repository(repo.path, store, CFG)

    lit = A.coupled_with(store, LITERAL).collect()          # typed as its name is
    assert lit.select("path", "partner", "revs").to_dicts() == [{"path": "caf\\\\xe9.py", "partner": "b.py", "revs": 2}]
    assert A.coupled_with(store, "caf\\\\xe9.py").collect().equals(lit)      # as an answer printed it
    latin = A.coupled_with(store, LATIN).collect()          # typed as it is on disk
    assert latin.select("path", "partner", "revs").to_dicts() == [{"path": "caf\\xe9.py", "partner": "a.py", "revs": 2}]
    sym = A.symbol_cochange(store).select("a", "b").sort("a").collect().to_dicts()
    assert sym == [{"a": "a.py::price", "b": "caf\\xe9.py::brew"}, {"a": "b.py::order", "b": "caf\\\\xe9.py::brew"}]

    t = Tools.open([str(store)])
    try:
        sid = t.open_session(author="agent").data["session"]
        files = {i["path"]: i["id"] for i in t.tree(sid, depth=2).to_dict()["items"] if i["kind"] == "file"}
        assert sorted(files) == ["a.py", "b.py", LITERAL]     # the latin name is no node (undecodable_path)
        node = files[LITERAL]
        assert [i["path"] for i in _walk(t, sid, node, "cochange")] == ["b.py"]
        assert [i["path"] for i in _walk(t, sid, files["a.py"], "cochange")] == []
        mined = sorted(i["name"] for i in _walk(t, sid, node, "about", "in"))
        assert mined == ["rework the literal coffee order 0", "rework the literal coffee order 1"]
        # get by the literal name (a backslash in it is not a Windows separator) and by its symbol
        assert t.get(sid, LITERAL).to_dict()["items"][0]["id"] == node
        assert t.get(sid, LITERAL + "::brew").to_dict()["items"][0]["qualname"] == "brew"
    finally:
        t.close()


def _as_older(store) -> None:
    """The store as one indexed before the path format was recorded (its report has none)."""
    path = store / "manifest.json"
    m = json.loads(path.read_text())
    del m["report"]["history"]["path_format"]
    path.write_text(json.dumps(m))


def test_an_older_store_with_a_backslash_is_mined_again_once(repo, tmp_path):
    """A store from before the record (its report has no path_format) spelled the two names alike:
    its rows are not extended, and what the next index holds equals a full index."""
    store = tmp_path / "store"
    index_repository(repo.path, store, CFG)
    _as_older(store)
    repo.commit("rework the literal coffee order 2", {LITERAL: "def brew():\n    return 2\n", "b.py": "def order():\n    return 2\n"})

    rep = index_repository(repo.path, store, CFG)
    assert any(msg.startswith("history re-mined in full once: a backslash in a path is spelled") for msg in rep.messages)
    assert any("symbol changes mined over the whole history again: a backslash" in msg for msg in rep.messages)
    assert rep.history["path_format"] == 2 and rep.history["incremental"] is False
    full = index_repository(repo.path, tmp_path / "full", CFG)
    assert rep.history["commits_total"] == full.history["commits_total"] == 5
    for name in ("file_changes", "cochange", "symbol_cochange"):
        got, want = (A.dataset(s, name).collect() for s in (store, tmp_path / "full"))
        key = [c for c in ("sha", "path", "a", "b") if c in got.columns]
        assert got.sort(key).equals(want.sort(key)), name

    again = index_repository(repo.path, store, CFG)            # recorded now: nothing to do
    assert again.up_to_date


def test_an_older_store_without_a_backslash_is_extended(tmp_path):
    """The two formats spell every other path alike: no store re-mines for nothing."""
    r = Repo(tmp_path / "repo")
    r.commit("add the menu", {"menu.py": "x = 1\n", "cart.py": "y = 1\n"})
    store = tmp_path / "store"
    index_repository(r.path, store, CFG)
    _as_older(store)
    r.commit("grow the menu", {"menu.py": "x = 2\n", "cart.py": "y = 2\n"})

    rep = index_repository(r.path, store, CFG)
    assert rep.history["incremental"] is True and not any("re-mined" in msg for msg in rep.messages)
    assert A.file_changes(store).select(pl.len()).collect().item() == 4
