"""One server over three stores (alpha, beta, gamma), a real gRPC server on loopback with its real
reload loop. A probe moved gamma's store away: every store's reload stopped (alpha and beta kept
serving the version before a re-index already run, their answers pointing at it) and stderr said
"reload failed" twice a second; a note to gamma was acknowledged into a new stray gamma/.stratum/
holding only a delta log, and lost when the real store was put back. Now only gamma keeps its
loaded version (said once, and once when it is back), and a note to it is refused, nothing written."""

from __future__ import annotations

import logging
import os
import shutil
import time
from pathlib import Path

import pytest

from pipeline.gitio import freshness
from pipeline.job import index_repository
from serving.client import Client
from serving.server import serve
from stratum import errors as E
from stratum.config import EmbedConfig, IndexConfig, default_store_path
from stratum.tools import Tools
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))
APP = "def main():\n    return helper()\n\n\ndef helper():\n    return 1\n"


@pytest.fixture()
def three(tmp_path):
    """(address, {name: (Repo, store path)}) served with a 0.1 s reload interval."""
    stores = {}
    for name in ("alpha", "beta", "gamma"):
        r = Repo(tmp_path / name)
        r.commit("start", {"src/app.py": APP, "src/util.py": "def util():\n    return 0\n"})
        index_repository(r.path, default_store_path(r.path), CFG)
        stores[name] = (r, default_store_path(r.path))
    tools = Tools.open([str(s) for _, s in stores.values()], freshness=freshness)
    server, port = serve(tools, port=0, reload_interval=0.1)
    try:
        yield f"127.0.0.1:{port}", stores
    finally:
        server.stop(None)
        tools.close()


def _versions(c: Client, sid: str) -> dict[str, int]:
    return {sh["repo"]: sh["version"] for sh in c.status(sid).data["shards"]}


def _until(check, seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return check()


def _said(caplog, words: str) -> int:
    return sum(words in r.getMessage() for r in caplog.records)


def test_a_missing_store_keeps_its_version_and_the_others_still_switch(three, caplog):
    addr, stores = three
    caplog.set_level(logging.INFO)
    gamma = stores["gamma"][1]
    with Client(addr, timeout=30) as c:
        sid = c.open_session(author="ops").data["session"]
        before = _versions(c, sid)
        gamma.rename(gamma.with_name("gamma_hidden"))          # gamma's store gone
        for name in ("alpha", "beta"):
            r, store = stores[name]
            r.commit(f"more in {name}", {"src/util.py": "def util():\n    return 0\n\n\ndef more():\n    pass\n"})
            index_repository(r.path, store, CFG)
        assert _until(lambda: _versions(c, sid)["alpha"] > before["alpha"]
                      and _versions(c, sid)["beta"] > before["beta"]), _versions(c, sid)
        time.sleep(1.0)                                           # ten more reload ticks without gamma
        now = _versions(c, sid)
        assert now["gamma"] == before["gamma"]                    # still served, at its loaded version
        assert not c.status(sid).envelope.stale                   # alpha and beta: no pointer at an old version
        assert _said(caplog, "reload failed") == 0
        assert _said(caplog, "cannot read its manifest") == 1     # once, not every tick
        assert any(str(gamma) in r.getMessage() for r in caplog.records if "cannot read" in r.getMessage())
        gamma.with_name("gamma_hidden").rename(gamma)
        assert _until(lambda: _said(caplog, "readable again") == 1)
        assert _versions(c, sid) == now


def test_a_note_to_a_store_whose_index_is_gone_is_refused_and_writes_nothing(three):
    addr, stores = three
    gamma = stores["gamma"][1]
    hidden = gamma.with_name("gamma_hidden")
    with Client(addr, timeout=30) as c:
        sid = c.open_session(author="agent").data["session"]
        gamma.rename(hidden)
        with pytest.raises(E.StoreDamaged, match=str(gamma)):
            c.remember(sid, "insight", "written while gamma's store is gone", about=["gamma:src/app.py::main"])
        assert not gamma.exists()                                 # no stray store folder made
        hidden.rename(gamma)
        manifest = gamma / "manifest.json"
        text = manifest.read_text()
        manifest.write_text("")                                   # truncated: no readable manifest
        with pytest.raises(E.StoreDamaged, match="unavailable"):
            c.remember(sid, "insight", "written while gamma's manifest is empty", about=["gamma:src/app.py::main"])
        tmp = gamma / "manifest.json.back"
        tmp.write_text(text)
        os.replace(tmp, manifest)
        r = c.remember(sid, "insight", "written once gamma is back", about=["gamma:src/app.py::main"])
        got = c.get(sid, "gamma:src/app.py::main", level="full")
        assert [n for n in got.items[0].notes if n["id"] == r.data["note_id"]], got.items[0].notes
        other = c.remember(sid, "insight", "alpha is writable throughout", about=["alpha:src/app.py::main"])
        assert other.data["note_id"]


def test_a_note_after_the_store_was_deleted_and_made_again_lands_in_the_new_store(tmp_path):
    """A writer keeps its segment open: with the store deleted and indexed again at its path (the log
    made anew), its next note went into the deleted segment, acknowledged and never read."""
    from stratum.deltalog import DeltaLog

    store = tmp_path / "s"
    (store / "deltalog").mkdir(parents=True)
    log = DeltaLog(store / "deltalog")
    log.append("note", {"text": "before"})
    shutil.rmtree(store)
    (store / "deltalog").mkdir(parents=True)                     # the store made again in its place
    uid = log.append("note", {"text": "after"})
    assert [r.uid for r in DeltaLog(store / "deltalog").scan().records] == [uid]
