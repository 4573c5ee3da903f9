"""One repair reads a warm folder once: the check's verify pass is the one the rest of the repair
relies on (the republish path used to read the same folder again, and the structure checks a
third and fourth time). The reports stay what they were (tests/unit/test_repair.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

import stratum.warm as W
from stratum.repair import repair
from stratum.store import Store
from tests.unit.test_repair import code_nodes, contains, publish


@pytest.fixture()
def store(tmp_path) -> Store:
    s = Store(tmp_path / "store")
    code = code_nodes()
    publish(s, 1, code, contains(code))
    return s


@pytest.fixture()
def passes(monkeypatch) -> list[Path]:
    seen: list[Path] = []
    real = W.verify_warm

    def counted(directory, **kw):
        seen.append(Path(directory))
        return real(directory, **kw)

    monkeypatch.setattr(W, "verify_warm", counted)
    return seen


def test_an_intact_store_is_read_once(store, passes):
    rep = repair(store.root)
    assert not rep.damaged and rep.version_after == 1
    assert passes == [store.root / store.manifest().indexes["dir"]]


def test_an_unreadable_manifest_republishes_after_one_read_of_the_warm_folder(store, passes):
    (store.root / "manifest.json").write_text("{not json")
    rep = repair(store.root)
    assert rep.manifest_damage.startswith("manifest.json: ") and rep.version_after == 2 and not rep.warm_rebuilt
    assert len(passes) == 1 and store.manifest().version == 2
    assert "manifest restored from version 1's copy, published as version 2" in rep.text()    # it says so


def test_damaged_warm_files_behind_an_unreadable_manifest_are_rebuilt(store, passes):
    warm = store.root / store.manifest().indexes["dir"]
    victim = warm / "keyword" / "kw.rows.npy"
    data = bytearray(victim.read_bytes())
    data[-1] ^= 0xFF
    victim.write_bytes(bytes(data))
    (store.root / "manifest.json").write_text("{not json")
    rep = repair(store.root)
    assert rep.warm_rebuilt and any("kw.rows.npy" in d for d in rep.warm_damage)
    assert passes.count(warm) == 1                     # the check; the rebuild writes a new folder
    assert not repair(store.root).damaged
