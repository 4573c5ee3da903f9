"""A work tree with uncommitted files that did not change since the last run is up to date.

A probe: one untracked scratch file made every `stratum index` publish a new version with nothing
parsed, and never say "up to date"; each new version made a running server's page tokens stale.
"""

from __future__ import annotations

import os

from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig
from tests.gitrepo import Repo

CFG = IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(enabled=False))


def test_unchanged_uncommitted_files_leave_the_index_up_to_date(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("init", {"shop/__init__.py": "", "shop/cart.py": "def total(items):\n    return sum(items)\n"})
    store = tmp_path / "store"
    first = index_repository(r.path, store, CFG)
    (r.path / "notes.txt").write_text("scratch\n")                  # untracked
    (r.path / "shop" / "cart.py").write_text("def total(items):\n    return sum(items) or 0\n")   # edited
    dirty = index_repository(r.path, store, CFG)
    assert not dirty.up_to_date and dirty.version == first.version + 1
    again = index_repository(r.path, store, CFG)
    assert again.up_to_date and again.version == dirty.version, again.messages
    said = " ".join(again.messages)
    assert "uncommitted files are as they were indexed" in said and "work tree is clean" not in said, said
    third = index_repository(r.path, store, CFG)
    assert third.up_to_date and third.version == dirty.version

    (r.path / "notes.txt").write_text("scratch, longer now\n")      # an uncommitted file changed
    changed = index_repository(r.path, store, CFG)
    assert not changed.up_to_date and changed.version == dirty.version + 1
    os.remove(r.path / "notes.txt")                                   # one uncommitted file fewer
    fewer = index_repository(r.path, store, CFG)
    assert not fewer.up_to_date and fewer.version == changed.version + 1
    r.commit("edit cart", {"shop/cart.py": "def total(items):\n    return sum(items) or 0\n"})
    clean = index_repository(r.path, store, CFG)                     # clean again: a new commit
    assert not clean.up_to_date
    assert index_repository(r.path, store, CFG).up_to_date
