"""The embedder with the real packaged model: vectors a user can trust, and a refusal to mix models.

The ONNX graphs are built once into the default cache (~/.cache/stratum or $STRATUM_CACHE) and
reused by later runs; one test builds fp32 into a tmp dir to check the cache itself.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from stratum import minilm_onnx as M
from stratum.config import EmbedConfig
from stratum.embedder import (MINILM, MiniLMEmbedder, LazyEmbedder, cache_key_for, check_compatible, default_model_dir,
                              get_embedder, model_info_for, weights_hash)
from stratum.errors import InvalidArgument, ModelMismatch

DATA = Path(__file__).parent / "data"
PARAPHRASES = ("parse the config file", "read configuration from disk", "render an HTML template")


@pytest.fixture(scope="module")
def int8():
    return MiniLMEmbedder("int8", threads=2)


@pytest.fixture(scope="module")
def fp32():
    return MiniLMEmbedder("fp32", threads=2)


def _stdlib_functions(n: int) -> list[str]:
    """Real code: the first 600 characters of the first n functions of a few stdlib modules."""
    import json as j
    import textwrap as t

    out = []
    for mod in (j.decoder, j.encoder, t):
        src = inspect.getsource(mod)
        lines = src.splitlines()
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.FunctionDef):
                body = "\n".join(lines[node.lineno - 1:node.end_lineno])
                out.append(f"{Path(mod.__file__).name} {node.name}\n{body[:600]}")
    return out[:n]


def test_vectors_are_unit_float32_in_input_order(int8):
    texts = ["x", "a much longer sentence about parsing configuration files on disk", ""]
    v = int8.embed(texts)
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert np.allclose(v[1], int8.embed([texts[1]])[0], atol=1e-5)   # order kept despite length sorting
    assert int8.embed([]).shape == (0, 384)


@pytest.mark.parametrize("precision", ["int8", "fp32"])
def test_same_text_same_vector(precision, int8, fp32):
    e = int8 if precision == "int8" else fp32
    a = e.embed(["def parse_config(path): ...", "another text"])
    b = e.embed(["def parse_config(path): ...", "another text"])
    assert np.array_equal(a, b)


@pytest.mark.parametrize("precision", ["int8", "fp32"])
def test_paraphrase_closer_than_unrelated(precision, int8, fp32):
    e = int8 if precision == "int8" else fp32
    parse, read, render = e.embed(list(PARAPHRASES))
    assert parse @ read > parse @ render + 0.3
    assert read @ parse > read @ render + 0.3


def test_fp32_matches_sentence_transformers(fp32):
    """Golden vectors from the official sentence-transformers + torch (tests/unit/data/make_*.py)."""
    ref = np.load(DATA / "minilm_st_reference.npz")
    got = fp32.embed([str(t) for t in ref["texts"]])
    cos = (got * ref["vectors"]).sum(axis=1)
    assert cos.min() >= 0.9999, cos


def test_int8_close_to_sentence_transformers(int8):
    ref = np.load(DATA / "minilm_st_reference.npz")
    cos = (int8.embed([str(t) for t in ref["texts"]]) * ref["vectors"]).sum(axis=1)
    # the worst case is the degenerate "word word word ...": identical tokens share one rounding error
    assert cos.mean() >= 0.996 and cos.min() >= 0.985, cos


def test_fp32_graph_matches_numpy_reference(fp32):
    d = default_model_dir()
    w, shape = M.load_weights(d), M.BertShape.from_config(d)
    texts = list(PARAPHRASES) + ["def add(a, b):\n    \"\"\"Sum of a and b.\"\"\"\n    return a + b"]
    ids = fp32.tokenize(texts)
    width = max(len(t) for t in ids)
    input_ids = np.stack([np.pad(t, (0, width - len(t))) for t in ids])     # one batch, with padding
    mask = (np.arange(width)[None] < np.array([len(t) for t in ids])[:, None]).astype(np.int64)
    ref = M.reference_forward(w, shape, input_ids, mask)
    got = fp32.forward(input_ids, mask)
    assert (ref * got).sum(axis=1).min() >= 0.999


def test_int8_close_to_fp32_on_real_code(int8, fp32):
    texts = _stdlib_functions(6)
    cos = (int8.embed(texts) * fp32.embed(texts)).sum(axis=1)
    assert cos.min() >= 0.99 and cos.mean() >= 0.995, cos


@pytest.mark.parametrize("precision", ["int8", "fp32"])
def test_batch_composition_does_not_change_a_vector(precision, int8, fp32):
    """Per-token activation scales: a text's int8 vector does not depend on its batch mates."""
    e = int8 if precision == "int8" else fp32
    texts = _stdlib_functions(3) + list(PARAPHRASES)
    together = e.embed(texts)
    alone = np.stack([e.embed([t])[0] for t in texts])
    shuffled = e.embed(texts[::-1])[::-1]
    assert (together * alone).sum(axis=1).min() >= 0.99999
    assert (together * shuffled).sum(axis=1).min() >= 0.99999


def test_truncation_at_max_tokens(int8):
    head = "parse the configuration file and validate every section " * 40   # > 256 word pieces
    a, b = int8.embed([head, head + " render an HTML template with jinja"])
    assert np.allclose(a, b, atol=1e-6)                 # the tail past 256 word pieces is not seen
    assert len(int8.tokenize([head])[0]) == 256


def test_weights_hash_is_stable_and_named_in_model_info(int8):
    d = default_model_dir()
    h = hashlib.sha256()
    for name in ("model.safetensors", "tokenizer.json", "config.json", "1_Pooling/config.json"):
        h.update(name.encode() + b"\0")
        h.update((d / name).read_bytes())
    assert weights_hash(d) == h.hexdigest() == int8.weights_hash
    info = int8.model_info()
    assert info == {"model": "all-MiniLM-L6-v2", "dim": 384, "weights_hash": h.hexdigest()}
    assert model_info_for(EmbedConfig(model=MINILM)) == info
    json.dumps(info)                                    # goes into the manifest as is


def test_cache_key_names_precision_and_input_limit(int8, fp32):
    assert int8.cache_key != fp32.cache_key
    assert int8.cache_key == cache_key_for(EmbedConfig(model=MINILM, precision="int8", max_tokens=256))
    assert cache_key_for(EmbedConfig(model=MINILM, max_tokens=128)) != cache_key_for(EmbedConfig(model=MINILM, max_tokens=256))


def test_model_mismatch_is_refused(int8):
    info = int8.model_info()
    check_compatible(info, int8)                        # same model: fine
    check_compatible(None, int8)                        # a store without vectors: fine
    with pytest.raises(ModelMismatch) as e:
        check_compatible(dict(info, weights_hash="0" * 64), int8)
    assert "weights_hash" in str(e.value) and "stratum index --model" in str(e.value)
    with pytest.raises(ModelMismatch):
        check_compatible({"model": "bge-small-en", "dim": 384, "weights_hash": info["weights_hash"]}, int8)
    with pytest.raises(ModelMismatch) as e:
        check_compatible(dict(info, dim=768), int8)
    assert "768" in str(e.value)
    err = pickle.loads(pickle.dumps(e.value))           # crosses Ray workers intact
    assert isinstance(err, ModelMismatch) and err.message == e.value.message


def test_bad_configuration_is_a_clear_error():
    with pytest.raises(InvalidArgument, match="precision"):
        MiniLMEmbedder("int4")
    with pytest.raises(InvalidArgument, match="max_tokens"):
        MiniLMEmbedder("int8", max_tokens=1000)
    with pytest.raises(InvalidArgument, match="unknown embedding model"):
        get_embedder(EmbedConfig(model="text-embedding-3-large"))


def test_lazy_embedder_knows_its_model_before_loading(int8):
    lazy = LazyEmbedder(EmbedConfig(model=MINILM, precision="int8"), threads=1)
    assert lazy._inner is None
    assert lazy.model_info() == int8.model_info()
    assert lazy._inner is None                          # model_info does not load the model
    assert np.allclose(lazy.embed(["parse the config file"]), int8.embed(["parse the config file"]), atol=1e-6)


def test_graph_is_built_once_into_the_cache_dir(tmp_path, fp32):
    a = MiniLMEmbedder("fp32", threads=1, cache_dir=tmp_path)
    files = sorted(p.name for p in (tmp_path / "models" / a.weights_hash[:16]).iterdir())
    assert files == [".lock", f"minilm-g{M.GRAPH_VERSION}-fp32.onnx"]      # no temp files left
    assert a.model_path.stat().st_mode & 0o777 == 0o644
    mtime = a.model_path.stat().st_mtime_ns
    b = MiniLMEmbedder("fp32", threads=1, cache_dir=tmp_path)
    assert b.model_path == a.model_path and b.model_path.stat().st_mtime_ns == mtime   # reused
    assert np.array_equal(a.embed(list(PARAPHRASES)), fp32.embed(list(PARAPHRASES)))


def test_stratum_cache_env_sets_the_cache_root(tmp_path, monkeypatch):
    from stratum.embedder import cache_root

    monkeypatch.setenv("STRATUM_CACHE", str(tmp_path / "c"))
    assert cache_root() == tmp_path / "c"
    monkeypatch.delenv("STRATUM_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert cache_root() == tmp_path / "x" / "stratum"


def test_no_torch_needed():
    """The embedder's modules never import torch (a multi-GB dependency we do not take)."""
    import stratum.embedder
    import stratum.minilm_onnx

    for mod in (stratum.embedder, stratum.minilm_onnx):
        names = set()
        for n in ast.walk(ast.parse(Path(mod.__file__).read_text())):
            if isinstance(n, ast.Import):
                names |= {a.name.split(".")[0] for a in n.names}
            elif isinstance(n, ast.ImportFrom) and n.module:
                names.add(n.module.split(".")[0])
        assert not names & {"torch", "transformers", "sentence_transformers", "ray"}, names


def test_batches_cover_every_text_once_within_the_token_budget(int8):
    texts = ["x"] * 40 + ["parse the config file " * k for k in range(1, 30)]
    ids = int8.tokenize(texts)
    seen = []
    for sel, input_ids, mask in int8.batches(ids):
        assert input_ids.size <= int8.batch_tokens or len(sel) == 1
        assert len(sel) <= int8.batch_size
        assert mask.sum(axis=1).tolist() == [len(ids[i]) for i in sel]
        seen += sel.tolist()
    assert sorted(seen) == list(range(len(texts)))


def test_background_embedding_runs_the_model_on_one_thread():
    """What a serving process embeds behind its searches (notes without a vector of the store's
    model) runs MiniLM on one onnxruntime thread, with the same vectors' model and key; the
    static model is single-threaded already and is its own background embedder."""
    lazy = LazyEmbedder(EmbedConfig(model=MINILM))
    bg = lazy.background()
    assert bg is lazy.background() and bg is not lazy
    assert bg.loaded.threads == 1 and bg.cache_key == lazy.cache_key
    a, b = bg.embed(["refunds reuse the gateway charge"]), lazy.embed(["refunds reuse the gateway charge"])
    assert np.allclose(a, b, atol=1e-5)
    static = LazyEmbedder(EmbedConfig())
    assert static.background() is static
