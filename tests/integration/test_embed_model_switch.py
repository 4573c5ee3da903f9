"""Changing the embedding model re-embeds a store in place on the next index, never mixing vectors
(issue 14.4): a real git repository, the real pipeline (in-process), real Lance, both real models."""

from __future__ import annotations

import numpy as np
import pytest

from stratum.config import EmbedConfig, IndexConfig
from stratum.embedder import MINILM, STATIC, LazyEmbedder, cache_key_for, get_embedder
from stratum.errors import ModelMismatch
from stratum.store import Store
from stratum.textprep import embed_text
from tests.gitrepo import sample_python_repo


def _index(repo, store, model: str):
    from pipeline.job import index_repository

    return index_repository(repo, store, IndexConfig(num_cpus=2, ray=False, embed=EmbedConfig(model=model)))


def _check_store_is_all(store: Store, model: str) -> int:
    """Every vector of the published version is ``model``'s vector of the node's text."""
    snap = store.snapshot()
    cfg = EmbedConfig(model=model)
    assert snap.manifest.embedding["model"] == model
    assert snap.manifest.embedding["cache_key"] == cache_key_for(cfg)
    cache = snap.read("embeddings")
    assert set(cache.column("model").to_pylist()) == {cache_key_for(cfg)}      # no other model's rows kept
    nodes = [n for n in snap.read("nodes").to_pylist() if n.get("vector") is not None]
    emb = get_embedder(cfg, threads=2)
    want = emb.embed([embed_text(n) for n in nodes])
    got = np.asarray([n["vector"] for n in nodes], dtype=np.float32)
    cos = np.sum(want * got, axis=1)
    assert cos.min() > 0.9999, (model, float(cos.min()))
    return len(nodes)


def test_switching_model_reembeds_everything_in_place(tmp_path):
    r = sample_python_repo(tmp_path / "shop")
    store = Store(tmp_path / "store")
    first = _index(r.path, store.root, STATIC)
    n = _check_store_is_all(store, STATIC)
    assert first.embedded > 0 and n > 0

    again = _index(r.path, store.root, STATIC)              # same model, same commit: nothing to do
    assert again.embedded == 0

    switched = _index(r.path, store.root, MINILM)           # same commit, other model: a new version
    assert switched.version == store.manifest().version and switched.embedded == first.embedded
    assert switched.embed_cached == 0
    assert any("embedding model changed" in m for m in switched.messages)
    assert _check_store_is_all(store, MINILM) == n

    # readers: the default embedder follows the store; one configured for the other model refuses
    from stratum.tools import Tools

    tools = Tools.open([str(store.root)])
    try:
        searcher = tools.shards.shards[0].warm.searcher
        assert searcher.embedder.model_info()["model"] == MINILM
        page = searcher.search("total of the cart", limit=5, sources=("vector",))
        assert page.items
    finally:
        tools.close()
    with pytest.raises(ModelMismatch):
        Tools.open([str(store.root)], embedder=LazyEmbedder(EmbedConfig(model=STATIC)))

    back = _index(r.path, store.root, STATIC)                # and back: re-embedded again, all of it
    assert back.embedded == first.embedded and back.embed_cached == 0
    assert _check_store_is_all(store, STATIC) == n
