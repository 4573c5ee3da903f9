"""A pin taken by a path tail that named one file is released by the same name after a re-index
added a second file with that tail (the name then names two files: unpin refused it)."""

from __future__ import annotations

import pytest

from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig
from stratum.errors import InvalidArgument
from stratum.tools import Tools
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))


def test_a_pin_by_a_tail_is_released_after_the_tail_names_two_files(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("web", {"packages/web/src/cart.ts": "export function total(): number { return 1; }\n"})
    store = tmp_path / "store"
    index_repository(r.path, store, CFG)
    t = Tools.open([str(store)])
    try:
        s = t.open_session().data["session"]
        t.pin(s, "src/cart.ts")
        r.commit("admin", {"packages/admin/src/cart.ts": "export function refund(): number { return 2; }\n"})
        index_repository(r.path, store, CFG)
        t.reload()
        with pytest.raises(InvalidArgument, match="names 2 files"):
            t.get(s, "src/cart.ts")                         # the name is ambiguous now
        got = t.unpin(s, "src/cart.ts")                     # by the name it was pinned with
        assert not got.envelope.warnings, got.envelope.warnings    # it was pinned, and is released
        with pytest.raises(InvalidArgument, match="names 2 files"):
            t.unpin(s, "src/cart.ts")                       # not pinned under it any more: the tail's error
    finally:
        t.close()
