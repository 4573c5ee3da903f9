"""`stratum index --full` rebuilds every derived table but keeps the content-addressed embedding
cache: a real git repository, the real pipeline (in-process), real Lance, the real MiniLM model.
Before, --full read no cache and paid the whole embedding again."""

from __future__ import annotations

import json

import numpy as np

from pipeline.job import index_repository
from stratum.config import EmbedConfig, IndexConfig
from stratum.embedder import MINILM, STATIC, cache_key_for, get_embedder
from stratum.store import Store
from stratum.textprep import embed_text
from tests.gitrepo import sample_python_repo


def _cfg(model: str = MINILM, full: bool = False) -> IndexConfig:
    return IndexConfig(num_cpus=1, ray=False, full=full, embed=EmbedConfig(model=model))


def _vectors(store: Store) -> dict[str, tuple[np.ndarray, dict]]:
    """node id -> (its stored vector, the node) for every embedded node of the published version."""
    nodes = store.snapshot().read("nodes").to_pylist()
    return {n["id"]: (np.asarray(n["vector"], np.float32), n) for n in nodes if n.get("vector") is not None}


def test_full_reads_the_cache_and_embeds_only_changed_text(tmp_path):
    r = sample_python_repo(tmp_path / "shop")
    store = Store(tmp_path / "store")
    first = index_repository(r.path, store.root, _cfg())
    before = _vectors(store)
    assert first.embedded > 0 and before

    same = index_repository(r.path, store.root, _cfg(full=True))       # same commit, --full
    assert not same.incremental and same.files_reused == 0 and same.files_parsed == first.files_parsed
    assert (same.embedded, same.embed_cached) == (0, len(before))      # every vector from the cache
    after = _vectors(store)
    assert after.keys() == before.keys()
    assert all(np.array_equal(after[k][0], before[k][0]) for k in before)
    assert "every text is embedded" not in " ".join(same.messages)

    r.commit("invoices say their currency", {"shop/invoice.py": (
        '"""Render invoices as text in euros."""\n\nfrom shop.cart import Cart\n\n\n'
        'def render_invoice(cart: Cart) -> str:\n    """One line per item and the total in euros."""\n'
        '    lines = [f"{s} x{q}" for s, q in cart.items]\n'
        '    return "\\n".join(lines + [f"total EUR {cart.total():.2f}"])\n')})
    changed = index_repository(r.path, store.root, _cfg(full=True))
    now = _vectors(store)
    fn = next(k for k, (_, n) in now.items() if n["qualname"] == "render_invoice")
    assert 0 < changed.embedded < len(now) and changed.embedded + changed.embed_cached >= len(now)
    assert not np.array_equal(now[fn][0], before[fn][0])                # embedded anew from its new text
    want = get_embedder(EmbedConfig(model=MINILM), threads=1).embed([embed_text(now[fn][1])])[0]
    assert float(np.dot(want, now[fn][0])) > 0.9999
    kept = [k for k, (_, n) in now.items() if k in before and n["path"] != "shop/invoice.py" and n["kind"] != "fix"
            and n["kind"] != "change"]
    assert kept and all(np.array_equal(now[k][0], before[k][0]) for k in kept)
    cache = store.snapshot().read("embeddings")
    assert set(cache.column("model").to_pylist()) == {cache_key_for(EmbedConfig(model=MINILM))}


def test_full_over_a_damaged_cache_embeds_everything_and_says_so(tmp_path):
    """--full is also how a store is rebuilt: a cache whose files fail their checksums is not read."""
    r = sample_python_repo(tmp_path / "shop")
    store = Store(tmp_path / "store")
    first = index_repository(r.path, store.root, _cfg(STATIC))
    m = json.loads((store.root / "manifest.json").read_text())
    data = sorted(f for f in m["integrity"]["embeddings"]["files"] if f.startswith("data/"))
    f = store.root / "data-v1" / "embeddings.lance" / data[0]
    b = bytearray(f.read_bytes())
    b[len(b) // 2] ^= 0xFF
    f.write_bytes(bytes(b))

    again = index_repository(r.path, store.root, _cfg(STATIC, full=True))
    assert (again.embedded, again.embed_cached) == (first.embedded, 0)
    assert any("embedding cache is not reused" in m and "every text is embedded" in m for m in again.messages)
    assert not store.verify(store.manifest(), full=True)                # the new version is whole


def test_full_over_another_schema_version_embeds_everything_and_says_so(tmp_path):
    """A store of another schema version (what `--full` is for) is not read for its cache."""
    from stratum import schema as S

    r = sample_python_repo(tmp_path / "shop")
    store = Store(tmp_path / "store")
    first = index_repository(r.path, store.root, _cfg(STATIC))
    path = store.root / "manifest.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "schema_version": S.SCHEMA_VERSION - 1}))

    again = index_repository(r.path, store.root, _cfg(STATIC, full=True))
    assert (again.embedded, again.embed_cached) == (first.embedded, 0)
    assert any("embedding cache is not reused (schema version" in m for m in again.messages)
    assert store.manifest().schema_version == S.SCHEMA_VERSION
