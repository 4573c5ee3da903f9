"""The embed stage over real parsed code (real tree-sitter) and the real model: the text each node is
embedded by, the cache that makes a re-index embed only changed text, and the Ray batch callable."""

from __future__ import annotations

import numpy as np
import pytest

from pipeline.embed import EmbedBatch, actor_threads, attach, embed_nodes, plan
from pipeline.parse import parse_file
from stratum import schema as S
from stratum.config import EmbedConfig, ParseConfig
from stratum.embedder import MiniLMEmbedder
from stratum.textprep import DEFAULT_MAX_CHARS, EMBED_KINDS, embed_text, text_hash

CONFIG_PY = b'''"""Configuration loading for the shop."""
import json


class ConfigLoader:
    """Loads and validates settings."""

    @staticmethod
    def parse_config(path: str, *, strict: bool = False) -> dict:
        """Parse the config file at ``path``.

        Raises ValueError on unknown keys when strict.
        """
        with open(path) as f:
            data = json.load(f)
        if strict and set(data) - {"db", "cache"}:
            raise ValueError("unknown keys")
        return data


def renderTemplate(name, context):
    # fill the placeholders of an HTML template
    return open(name).read().format(**context)
'''

CART_PY = b'''"""Shopping cart."""


def add_item(cart, sku, qty=1):
    """Add qty of sku to the cart."""
    cart[sku] = cart.get(sku, 0) + qty
    return cart
'''


@pytest.fixture(scope="module")
def embedder():
    return MiniLMEmbedder("int8", threads=2)


def _parse(path: str, src: bytes) -> list[dict]:
    return parse_file("shop", path, src, ParseConfig()).nodes


def _by_qual(nodes: list[dict]) -> dict[str, dict]:
    return {n["qualname"] or n["kind"]: n for n in nodes}


def test_code_text_has_path_name_signature_doc_and_body_once():
    m = _by_qual(_parse("shop/config.py", CONFIG_PY))["ConfigLoader.parse_config"]
    text = embed_text(m)
    head, *rest = text.split("\n")
    assert head == "shop/config.py ConfigLoader.parse_config config loader parse config"
    assert "def parse_config(path: str, *, strict: bool = False) -> dict" in text
    assert "Parse the config file at ``path``." in text
    assert 'raise ValueError("unknown keys")' in text              # the start of the body
    assert text.count("def parse_config") == 1                      # the def line is not repeated
    assert text.count("Parse the config file") == 1                 # nor the docstring
    assert text == embed_text(m)                                    # pure


def test_camel_case_names_are_spelled_as_words():
    f = _by_qual(_parse("shop/config.py", CONFIG_PY))["renderTemplate"]
    assert embed_text(f).split("\n")[0] == "shop/config.py renderTemplate render template"


def test_file_and_class_are_embedded_by_their_outline():
    nodes = _by_qual(_parse("shop/config.py", CONFIG_PY))
    file_text = embed_text(nodes["file"])
    assert file_text.startswith("shop/config.py\n")
    assert "Configuration loading for the shop." in file_text and "class ConfigLoader" in file_text
    assert "import json" not in file_text                           # the outline, not the imports
    cls_text = embed_text(nodes["ConfigLoader"])
    assert "Loads and validates settings." in cls_text and "parse_config" in cls_text


def test_reindenting_code_does_not_change_its_text():
    a = _by_qual(_parse("shop/cart.py", CART_PY))["add_item"]
    b = _by_qual(_parse("shop/cart.py", CART_PY.replace(b"\n    ", b"\n        ")))["add_item"]
    assert a["full"] != b["full"] and embed_text(a) == embed_text(b)


def test_long_code_is_cut_past_what_the_model_reads(embedder):
    body = "".join(f"    total_{i} = compute_subtotal(order, item_{i}, discount)\n" for i in range(300))
    src = f"def checkout(order, discount):\n    \"\"\"Total of an order.\"\"\"\n{body}    return total_0\n".encode()
    n = _by_qual(_parse("shop/checkout.py", src))["checkout"]
    text = embed_text(n)
    assert len(text) <= DEFAULT_MAX_CHARS
    assert len(embedder.tokenize([text])[0]) == embedder.max_tokens    # the cut keeps >= 256 word pieces
    longer = dict(n, full=n["full"].replace("return total_0", "return total_0 + 1"))
    assert embed_text(longer) == text                               # an edit past the cut re-embeds nothing


def test_note_text_is_its_whole_text_with_kind_tags_and_path_not_author():
    note = {"kind": "rca", "path": "shop/config.py", "tags": ["config", "crash"],
            "doc": "The crash on startup comes from parse_config: strict mode rejects the new 'cache' key.",
            "full": "rca note about shop/config.py\nby agent-7, 2026-11-30\n\n...", "author": "agent-7"}
    text = embed_text(note)
    assert text == ("root cause analysis about shop/config.py (tags: config, crash)\n"
                    "The crash on startup comes from parse_config: strict mode rejects the new 'cache' key.")
    assert embed_text(dict(note, author="other", status="superseded")) == text


def test_text_hash_is_keyed_by_model():
    assert text_hash("m1", "x") == text_hash("m1", "x") != text_hash("m2", "x")
    assert len(text_hash("m1", "x")) == 32


def test_plan_skips_cached_hashes_and_dedupes_identical_text():
    nodes = _parse("shop/config.py", CONFIG_PY) + _parse("shop/cart.py", CART_PY)
    p = plan(nodes, {}, model="m")
    embeddable = [n for n in nodes if n["kind"] in EMBED_KINDS]
    assert p.to_embed == len(embeddable) and p.cached == 0
    assert [h is None for h in p.hashes] == [n["kind"] not in EMBED_KINDS for n in nodes]
    cached = {h: np.zeros(384, np.float32) for h in p.text_hashes[:2]}
    p2 = plan(nodes, cached, model="m")
    assert p2.cached == 2 and p2.to_embed == p.to_embed - 2 and not set(p2.text_hashes) & set(cached)
    twin = dict(embeddable[0], id="other")
    assert plan(nodes + [twin], {}, model="m").to_embed == p.to_embed   # same text, one embedding
    assert plan(nodes, cached, model="other-model").to_embed == p.to_embed


def test_reindex_with_one_changed_file_embeds_only_its_changed_node(embedder):
    first = _parse("shop/config.py", CONFIG_PY) + _parse("shop/cart.py", CART_PY)
    p1, rows = embed_nodes(first, embedder)
    assert p1.to_embed == sum(n["kind"] in EMBED_KINDS for n in first)
    assert all(n["vector"].shape == (384,) for n in first if n["kind"] in EMBED_KINDS)
    assert S.to_table(rows, S.EMBEDDINGS).num_rows == len(rows)        # rows fit the cache dataset

    cache = {r["text_hash"]: r["vector"] for r in rows}
    changed = CART_PY.replace(b"cart.get(sku, 0) + qty", b"max(0, cart.get(sku, 0) + qty)")
    second = _parse("shop/config.py", CONFIG_PY) + _parse("shop/cart.py", changed)
    p2, rows2 = embed_nodes(second, embedder, cache)
    assert p2.to_embed == 1 and "max(0, cart.get(sku, 0) + qty)" in p2.texts[0]
    add_item = _by_qual(second)["add_item"]
    old_add_item = _by_qual(first)["add_item"]
    assert not np.array_equal(add_item["vector"], old_add_item["vector"])
    for a, b in zip(first, second):                                   # the rest: the cached vectors
        if a["kind"] in EMBED_KINDS and a["qualname"] != "add_item":
            assert np.array_equal(a["vector"], b["vector"])
    assert len(rows2) == len(rows)                                    # the stale text left the cache


def test_attach_refuses_a_short_vector_list():
    nodes = _parse("shop/cart.py", CART_PY)
    p = plan(nodes, {}, model="m")
    with pytest.raises(ValueError):
        attach(nodes, p, {}, np.zeros((p.to_embed - 1, 384), np.float32), model="m")


def test_embed_batch_adds_a_vector_column(embedder):
    fn = EmbedBatch(EmbedConfig(model="all-MiniLM-L6-v2", precision="int8"), threads=1)
    texts = np.array(["parse the config file", "render an HTML template", None], dtype=object)
    out = fn({"text_hash": np.array(["a", "b", "c"]), "text": texts})
    assert set(out) == {"text_hash", "vector"}
    assert out["vector"].shape == (3, 384) and out["vector"].dtype == np.float32
    assert np.allclose(out["vector"][:2], embedder.embed(["parse the config file", "render an HTML template"]), atol=1e-6)
    assert list(out["text_hash"]) == ["a", "b", "c"]
    kept = EmbedBatch(EmbedConfig(), threads=1, keep_text=True)({"text": ["x"]})
    assert list(kept["text"]) == ["x"] and kept["vector"].shape == (1, 384)
    assert fn.cache_key == embedder.cache_key


def test_actor_threads_follow_config_then_ray_cpus(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert actor_threads(2) == 2
    assert actor_threads(0) == 3                  # Ray sets OMP_NUM_THREADS to an actor's num_cpus
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert actor_threads(0) == 0                  # onnxruntime's default
