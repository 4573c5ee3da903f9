"""The static model distilled from the packaged MiniLM: real table, real vectors, no network.

The table is distilled once into the default cache (~/.cache/stratum or $STRATUM_CACHE; ~30 s of
CPU the first time) and reused; one test derives it again into a tmp cache from the cached teacher
table and compares bytes, the slow one distils from nothing.
"""

from __future__ import annotations

import shutil
import socket

import numpy as np
import pytest

from stratum import static_embed as SE
from stratum.config import EmbedConfig
from stratum.embedder import (MINILM, STATIC, LazyEmbedder, StaticEmbedder, cache_key_for, cache_root,
                              check_compatible, config_for, default_model_dir, embedder_for_store, get_embedder,
                              model_info_for, weights_hash)
from stratum.errors import InvalidArgument, ModelMismatch


@pytest.fixture(scope="module")
def static():
    return StaticEmbedder()


def test_vectors_are_unit_float32_deterministic_and_in_order(static):
    texts = ["x", "render the invoice as text", "", "!!!", "def parse_config(path): return load(path)"]
    v = static.embed(texts)
    assert v.shape == (5, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(v, StaticEmbedder().embed(texts))            # a fresh load: the same bytes
    assert np.array_equal(v[1], static.embed([texts[1]])[0])           # batch mates change nothing
    assert np.array_equal(v[2], v[3])                                  # no word: the empty text's vector
    assert static.embed([]).shape == (0, 384)


def test_similar_texts_are_closer_than_unrelated_ones(static):
    q, near, far = static.embed(["parse the configuration file",
                                 "def load_config(path):\n    \"\"\"Read the configuration file.\"\"\"\n    return parse(open(path))",
                                 "def render_template(name, **context):\n    return jinja_env.get_template(name).render(context)"])
    assert q @ near > q @ far + 0.1
    a, b, c = static.embed(["session cookie signing", "sign the session cookie with the secret key",
                            "draw a histogram of the data"])
    assert a @ b > a @ c + 0.1


def test_identifiers_are_read_as_words(static):
    assert SE.presplit("parseConfigFile snake_case HTTPServer utf8Decode") == "parse Config File snake case HTTP Server utf8 Decode"
    assert SE.presplit("a.b(c)", words_only=False) == "a.b(c)"
    camel, words = static.embed(["parseConfigFile", "parse config file"])
    assert camel @ words > 0.999


def test_model_info_and_cache_key_name_the_recipe(static):
    info = static.model_info()
    assert info == model_info_for(EmbedConfig(model=STATIC))
    assert info["model"] == STATIC and info["dim"] == 384 and info["recipe"] == SE.DEFAULT_RECIPE.id
    assert info["weights_hash"] == weights_hash(default_model_dir())           # derived from MiniLM's weights
    assert static.cache_key == cache_key_for(EmbedConfig(model=STATIC))
    other = EmbedConfig(model=STATIC, recipe="d256-s0.0001-w")
    assert cache_key_for(other) != static.cache_key != cache_key_for(EmbedConfig(model=MINILM))
    assert SE.Recipe.parse("r1-d256-s0.0001-w") == SE.Recipe.parse("d256-s0.0001-w") == SE.Recipe(256, 1e-4, True)
    assert SE.Recipe.parse(SE.DEFAULT_RECIPE.id) == SE.DEFAULT_RECIPE


@pytest.mark.parametrize("recipe", ["d999-s0.0001-w", "fast", "r9-d384-s0.0001-w", "d384-s-1-w"])
def test_bad_recipes_and_models_are_typed_errors(recipe):
    with pytest.raises(InvalidArgument):
        get_embedder(EmbedConfig(model=STATIC, recipe=recipe))
    with pytest.raises(InvalidArgument):
        model_info_for(EmbedConfig(model="word2vec"))


def test_models_never_mix_and_a_following_reader_takes_the_stores_model(static):
    minilm_info = model_info_for(EmbedConfig(model=MINILM))
    with pytest.raises(ModelMismatch):
        check_compatible(minilm_info, static)
    with pytest.raises(ModelMismatch):
        check_compatible(dict(static.model_info(), recipe="r1-d256-s0.0001-w"), static)
    check_compatible(static.model_info(), static)
    # an explicitly configured reader refuses another model's store
    with pytest.raises(ModelMismatch):
        embedder_for_store(minilm_info, LazyEmbedder(EmbedConfig(model=STATIC)))
    # the default reader follows each store, one shared embedder per model, nothing loaded yet
    follow = LazyEmbedder()
    m = embedder_for_store(minilm_info, follow)
    s = embedder_for_store(static.model_info(), follow)
    assert m.model_info() == minilm_info and s.model_info() == static.model_info()
    assert embedder_for_store(minilm_info, follow) is m and m._inner is None
    assert np.array_equal(s.embed(["cart total"]), static.embed(["cart total"]))
    with pytest.raises(ModelMismatch):
        config_for({"model": "text-embedding-3-large", "dim": 3072})


def test_cached_table_is_rebuilt_identically(tmp_path, static):
    d = tmp_path / "models" / static.weights_hash[:16]
    d.mkdir(parents=True)
    teacher = cache_root() / "models" / static.weights_hash[:16] / f"static-teacher-v{SE.RECIPE_VERSION}.npy"
    if not teacher.is_file():
        pytest.skip("the default cache holds no teacher table (the table came from elsewhere)")
    shutil.copy(teacher, d / teacher.name)
    p = SE.table_path(default_model_dir(), cache_dir=tmp_path)
    assert p.parent == d and SE.table_digest(p) == SE.table_digest(static.table_path)
    mtime = p.stat().st_mtime_ns
    assert SE.table_path(default_model_dir(), cache_dir=tmp_path) == p and p.stat().st_mtime_ns == mtime  # reused
    assert not list(d.glob("*.tmp"))


@pytest.mark.slow
def test_distilling_from_nothing_gives_the_same_table_offline(tmp_path, static, monkeypatch):
    def no_network(*a, **k):
        raise AssertionError("the static model must not touch the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    e = StaticEmbedder(cache_dir=tmp_path)
    assert e.table_path.parent.parent.parent == tmp_path
    assert SE.table_digest(e.table_path) == SE.table_digest(static.table_path)
    assert np.array_equal(e.embed(["blueprint url prefix"]), static.embed(["blueprint url prefix"]))


def test_embedding_needs_no_network(monkeypatch):
    def no_network(*a, **k):
        raise AssertionError("the static model must not touch the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    v = StaticEmbedder().embed(["retry logic for failed requests"])
    assert v.shape == (1, 384)
