"""A re-index with nothing new next to a live writer (a serving process that wrote a note holds its
delta-log segment): "up to date", no new version, and no note lost or left unmerged for good.

A docs-verbatim probe: with `stratum serve` running, each `stratum index` with nothing new published
versions 2, 3, 4 and staled every page token served; with the server stopped, the same run said
"up to date"."""

from __future__ import annotations

import pytest

from stratum.config import EmbedConfig, IndexConfig, default_store_path
from stratum.deltalog import DeltaLog
from stratum.store import Store
from tests.gitrepo import sample_python_repo

pytestmark = pytest.mark.slow
NO_EMBED = IndexConfig(num_cpus=2, embed=EmbedConfig(enabled=False))


def test_a_live_writer_does_not_make_a_run_with_nothing_new_publish(tmp_path):
    from pipeline.job import index_repository
    from stratum.tools import Tools

    r = sample_python_repo(tmp_path / "shop")
    store = default_store_path(r.path)
    assert index_repository(r.path, None, NO_EMBED).version == 1
    tools = Tools.open([str(store)], embedder=None)          # a serving process: its writer stays open
    try:
        s = tools.open_session(author="agent").data["session"]
        first = tools.remember(s, "insight", "cart totals are cached per session", ["shop/cart.py"]).data["note_id"]
        merged = index_repository(r.path, None, NO_EMBED)
        assert not merged.up_to_date and merged.version == 2 and merged.notes["new"] == 1
        held = [p.name for p in DeltaLog(store / "deltalog").segments()]
        assert held                                          # the writer still holds its segment

        again = index_repository(r.path, None, NO_EMBED)     # nothing new: was version 3, 4, ...
        assert again.up_to_date and again.version == 2 and Store(store).manifest().version == 2
        assert "up to date" in again.summary()
        assert [p.name for p in DeltaLog(store / "deltalog").segments()] == held   # a held segment stays

        # a note written after that run is in the log: the next run merges it
        second = tools.remember(s, "rca", "the cart total is rounded twice", ["shop/cart.py"]).data["note_id"]
        late = index_repository(r.path, None, NO_EMBED)
        assert not late.up_to_date and late.version == 3 and late.notes["new"] == 1 and late.notes["notes"] == 2
        assert index_repository(r.path, None, NO_EMBED).up_to_date
    finally:
        tools.close()
    snap = Store(store).snapshot()
    ids = snap.read("nodes", columns=["id"], where="kind IN ('insight', 'rca')").column("id").to_pylist()
    assert sorted(ids) == sorted([first, second])            # each note once, both merged
    assert Store(store).manifest().version == 3
