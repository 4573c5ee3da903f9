"""A note's stored vector is labelled with the model that made it, also after a re-index switched
the store's model under a running server (a probe: the server embedded new notes with the new
model but labelled them with the old one's key, so every other process rejected them and
re-embedded, and answers differed between processes meanwhile). A real repository, the real index
job, both real packaged models."""

from __future__ import annotations

import numpy as np
import pytest

from stratum import notes as N
from stratum.config import EmbedConfig, IndexConfig
from stratum.deltalog import DeltaLog
from stratum.embedder import MINILM, STATIC, cache_key_for, get_embedder
from stratum.notevectors import decode_vector
from stratum.overlay import vector_key
from stratum.store import Store
from stratum.textprep import embed_text
from tests.gitrepo import Repo

pytestmark = pytest.mark.slow


def _index(repo, store, model: str) -> None:
    from pipeline.job import index_repository

    index_repository(repo, store, IndexConfig(num_cpus=1, ray=False, embed=EmbedConfig(model=model)))


def _record(store, nid: str) -> dict:
    return next(r.body for r in DeltaLog(store / "deltalog").scan().records if r.type == "note"
                and N.note_from_body(r.uid, r.body).id == nid)


def test_a_note_written_after_a_model_switch_carries_the_new_models_key_and_vector(tmp_path):
    from stratum.tools import Tools

    r = Repo(tmp_path / "repo")
    r.commit("initial", {"shop/ship.py": "def fee(weight):\n    return 5 + weight * 2\n",
                         "shop/cart.py": "from shop.ship import fee\n\n\ndef total(items):\n    return sum(items)\n"})
    store = tmp_path / "store"
    _index(r.path, store, STATIC)
    tools = Tools.open([str(store)])                    # a running server: it follows the store's model
    try:
        s = tools.open_session(author="ms").data["session"]
        before = tools.remember(s, "insight", "heavy parcels cost more to ship", ["shop/ship.py::fee"]).data["note_id"]
        assert _record(store, before)["vector_key"] == cache_key_for(EmbedConfig(model=STATIC))

        _index(r.path, store, MINILM)                   # the store's model changes under the server
        tools.reload()
        text = "the shipping fee grows with the parcel's weight"
        after = tools.remember(s, "insight", text, ["shop/ship.py::fee"]).data["note_id"]
    finally:
        tools.close()

    body = _record(store, after)
    key = Store(store).manifest().embedding["cache_key"]
    assert key == cache_key_for(EmbedConfig(model=MINILM))
    assert body["vector_key"] == key, "labelled with the model that made it"
    fresh = Tools.open([str(store)])                    # another process serving the store reads it as is
    try:
        theirs = vector_key(fresh.shards.shards[0].warm.searcher.embedder)
    finally:
        fresh.close()
    v = decode_vector(body, theirs, 384)
    assert v is not None
    want = get_embedder(EmbedConfig(model=MINILM), threads=1).embed([embed_text(
        {"kind": "insight", "path": "shop/ship.py", "tags": [], "doc": text})])[0]
    cos = float(v @ want / (np.linalg.norm(v) * np.linalg.norm(want)))
    assert cos > 0.99, cos
