"""A served store whose manifest cannot be read is said once (then once a minute, ``ratelimit.Lasting``)
and once when it is readable again, however many reload ticks pass: each tick, twice a second, once
logged it forever. The quick check of ShardSet's words (the served, slow one is
test_s23_stores_reload_missing_store)."""

from __future__ import annotations

import logging

from stratum.shard import ShardSet
from stratum.config import default_store_path
from tests.clirun import indexed_repo


def test_an_unreadable_manifest_is_said_once_and_its_return_once(tmp_path, caplog):
    _repo, store = indexed_repo(tmp_path / "r", {"app.py": "def main():\n    return 1\n"})
    shards = ShardSet([store])
    manifest = default_store_path(tmp_path / "r") / "manifest.json"
    text = manifest.read_text()
    caplog.set_level(logging.WARNING, logger="stratum.shard")

    manifest.unlink()
    for _ in range(6):                                  # six reload ticks without it
        assert shards.reload() == []
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and said[0].startswith(f"store {store}: cannot read its manifest (no index at {store}")
    assert "still serving its version 1" in said[0]
    assert len(shards.held_back()) == 1

    manifest.write_text(text)
    for _ in range(3):
        shards.reload()
    said = [r.getMessage() for r in caplog.records]
    assert said[1:] == [f"store {store}: its manifest is readable again (version 1)"]
    assert shards.held_back() == []
