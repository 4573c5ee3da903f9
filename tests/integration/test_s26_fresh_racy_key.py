"""A same-size save in the clock tick after an index run read a file: the next run called itself up
to date (``storestate.worktree_key`` recorded size and mtime only, which that save keeps) and the
store kept serving bytes the work tree no longer holds. The real index job, a real repository,
mtimes pinned with ``os.utime``; the answer read with the real Tools."""

from __future__ import annotations

import os
import time

from pipeline.job import index_repository
from stratum.tools import Tools
from stratum.config import default_store_path
from tests.clirun import NO_EMBED
from tests.gitrepo import Repo

CODE = 'def shipping(weight):\n    """Shipping."""\n    return {} + weight\n'


def _served(store) -> str:
    t = Tools.open([str(store)])
    try:
        sess = t.open_session(author="agent").data["session"]
        return t.get(sess, "shop/pricing.py::shipping", level="full").items[0].text
    finally:
        t.close()


def test_a_same_size_save_in_the_tick_after_a_run_read_the_file_is_indexed_by_the_next_run(tmp_path):
    r = Repo(tmp_path / "shop")
    r.commit("init", {"shop/pricing.py": CODE.format("5.0")})
    f = r.path / "shop" / "pricing.py"
    f.write_text(CODE.format("6.0"))                          # uncommitted: indexed from the disk
    tick = time.time_ns() + 30 * 10**9 + 123                  # the tick the run reads it in (a later clock)
    os.utime(f, ns=(tick, tick))
    first = index_repository(r.path, None, NO_EMBED)
    assert not first.up_to_date and first.worktree == "dirty"
    assert "6.0 + weight" in _served(default_store_path(r.path))

    f.write_text(CODE.format("7.0"))                          # same size, same tick: the stat is the same
    os.utime(f, ns=(tick, tick))
    again = index_repository(r.path, None, NO_EMBED)
    assert not again.up_to_date, again.messages               # it said "the uncommitted files are as indexed"
    assert "7.0 + weight" in _served(default_store_path(r.path))

    old = time.time_ns() - 3600 * 10**9 + 7                   # long settled: the stat proves the bytes again
    os.utime(f, ns=(old, old))
    index_repository(r.path, None, NO_EMBED)                  # keyed by its stat now (parses nothing)
    settled = index_repository(r.path, None, NO_EMBED)
    assert settled.up_to_date, settled.messages
    assert "7.0 + weight" in _served(default_store_path(r.path))
