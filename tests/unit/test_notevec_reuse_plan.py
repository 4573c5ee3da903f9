"""The embed plan keeps the vector a note node comes with (its delta-log record's, given by
``pipeline.embedreuse.log_vectors``) instead of embedding its text, and the vector joins the cache
rows the version keeps; a code node's vector, or a text the cache holds, is not taken from it."""

from __future__ import annotations

import numpy as np

from pipeline.embed import attach, plan
from stratum.textprep import embed_text, text_hash

KEY = "m:1"


def _note(nid: str, text: str, vector=None) -> dict:
    return {"id": nid, "kind": "insight", "path": "a.py", "tags": [], "doc": text, "vector": vector}


def test_a_note_that_comes_with_a_vector_is_not_embedded_and_its_vector_is_cached():
    own = np.full(4, 0.5, np.float32)
    nodes = [_note("n1", "the fee grows with the weight", own), _note("n2", "an empty cart ships nothing")]
    p = plan(nodes, {}, model=KEY)
    assert (p.to_embed, p.cached) == (1, 1)
    assert p.texts == [embed_text(nodes[1])]
    rows = attach(nodes, p, {}, np.zeros((1, 4), np.float32), model=KEY)
    assert np.array_equal(nodes[0]["vector"], own)
    assert {r["text_hash"]: r["vector"].tolist() for r in rows}[text_hash(KEY, embed_text(nodes[0]))] == own.tolist()


def test_the_cache_wins_and_a_code_nodes_vector_is_not_taken():
    cached_v = np.ones(4, np.float32)
    note = _note("n1", "same text as before", np.zeros(4, np.float32))
    code = {"id": "f1", "kind": "function", "path": "a.py", "qualname": "fee", "signature": "def fee(w)",
            "doc": "", "full": "def fee(w):\n    return w", "vector": np.zeros(4, np.float32)}
    cached = {text_hash(KEY, embed_text(note)): cached_v}
    p = plan([note, code], cached, model=KEY)
    assert (p.to_embed, p.cached, p.given) == (1, 1, {})
    attach([note, code], p, cached, np.full((1, 4), 2.0, np.float32), model=KEY)
    assert np.array_equal(note["vector"], cached_v)
    assert np.array_equal(code["vector"], np.full(4, 2.0, np.float32))
