"""Notes are primary data (issue 10.2): every re-index path carries every note forward.

A real store of a real git repository, 1,200 notes written through the real delta log with
``stratum.notes.write_note`` (plus a retract and a supersede), then: incremental re-index (merges
and retires the segments), ``--full``, ``--full`` over a schema change, ``--full`` with the previous
version's nodes dataset destroyed. Every path keeps 100% of the notes, by count and by id.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import pytest

from pipeline.job import index_repository
from stratum import notes as N
from stratum import schema as S
from stratum.codelookup import CodeLookup
from stratum.config import EmbedConfig, IndexConfig
from stratum.deltalog import DeltaLog
from stratum.errors import StoreError
from stratum.store import Store
from tests.gitrepo import sample_python_repo

pytestmark = pytest.mark.slow     # 1,200 durable appends and five index runs: ~15 s on 2 busy cores
N_NOTES = 1200
CFG = IndexConfig(embed=EmbedConfig(enabled=False), ray=False)
TARGETS = ["shop/cart.py", "shop/pricing.py::discount", "shop/invoice.py", "shop/cart.py::Cart.total", "shop"]


def _notes(store: Store) -> dict[str, str]:
    """note id -> status in the published version."""
    tab = store.snapshot().read("nodes", columns=["id", "kind", "status"])
    return {i: s for i, k, s in zip(*(tab.column(c).to_pylist() for c in ("id", "kind", "status")))
            if k in S.AGENT_NOTE_KINDS}


@pytest.fixture(scope="module")
def noted(tmp_path_factory):
    base = tmp_path_factory.mktemp("carry")
    repo = sample_python_repo(base / "shop")
    store = Store(base / "store")
    index_repository(repo.path, store.root, CFG)
    code = CodeLookup(store.snapshot().read("nodes"))
    log = DeltaLog(store.root / "deltalog")
    written = []
    for i in range(N_NOTES):
        kind = ("rca", "failure", "insight")[i % 3]
        n = N.write_note(log, kind, f"note {i}: the total rounds per line, not per invoice ({i})",
                         [TARGETS[i % len(TARGETS)]], f"agent-{i % 7}", resolve=code.resolve,
                         session=f"s{i % 11}")
        written.append(n.id)
    N.write_retract(log, written[5], author="agent-5", reason="wrong")
    newer = N.write_note(log, "rca", "the real cause is in discount()", ["shop/pricing.py::discount"],
                         "agent-1", resolve=code.resolve, supersedes=[written[1]])
    written.append(newer.id)
    log.seal()
    return repo, store, set(written)


def test_incremental_merges_every_note_and_retires_the_log(noted):
    repo, store, written = noted
    rep = index_repository(repo.path, store.root, CFG)
    got = _notes(store)
    assert set(got) == written and len(got) == N_NOTES + 1
    assert got[sorted(written)[0]] in ("active", "retracted", "superseded")
    assert rep.notes["carried"] == N_NOTES + 1 and rep.notes["live_records"] == N_NOTES + 2
    assert DeltaLog(store.root / "deltalog").segments() == []          # merged segments retired
    assert list((store.root / "deltalog" / "retired").glob("*.seg"))


def test_full_reindex_keeps_every_note(noted):
    repo, store, written = noted
    before = _notes(store)
    rep = index_repository(repo.path, store.root, replace(CFG, full=True))
    assert _notes(store) == before and set(before) == written
    assert rep.notes["carried"] == N_NOTES + 1
    assert rep.notes["from_previous_version"] == N_NOTES + 1 and rep.notes["retired_records"] == N_NOTES + 2
    assert "notes" in rep.summary() and f"carried {N_NOTES + 1}" in rep.summary()


def test_full_reindex_over_a_schema_change_keeps_every_note(noted):
    repo, store, written = noted
    before = _notes(store)
    m = json.loads((store.root / "manifest.json").read_text())
    m["schema_version"] = S.SCHEMA_VERSION - 1                           # written by an older build
    (store.root / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(StoreError, match="--full"):
        index_repository(repo.path, store.root, CFG)                     # incremental refuses, says why
    rep = index_repository(repo.path, store.root, replace(CFG, full=True))
    assert _notes(store) == before and rep.version == m["version"] + 1


def test_full_reindex_with_the_previous_nodes_destroyed_keeps_every_note(noted):
    """The retired delta-log segments alone carry every note when the old version is unreadable."""
    repo, store, written = noted
    before = _notes(store)
    shutil.rmtree(store.data_dir / "nodes.lance")
    rep = index_repository(repo.path, store.root, replace(CFG, full=True))
    assert _notes(store) == before
    assert rep.notes["from_previous_version"] == 0 and rep.notes["carried"] == N_NOTES + 1
    assert any("unreadable" in m for m in rep.messages)
