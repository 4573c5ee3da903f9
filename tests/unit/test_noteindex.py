"""The incremental note index's per-query shortcuts give the answers of the plain computation:
postings read without copies keep a view's prefix while writers append, and cached tie positions
equal the shard's binary search."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from stratum.keywordindex import B, K1
from stratum.codetokens import tokenize
from stratum.noteindex import NoteIndex
from stratum.search import NodeMeta


def _bm25(texts, query, idf, avgdl):
    out = {}
    q = tokenize(query)
    for j, t in enumerate(texts):
        toks = tokenize(t)
        s = 0.0
        for term in dict.fromkeys(q):
            tf = toks.count(term)
            if tf:
                s += q.count(term) * idf(term) * tf * (K1 + 1) / (tf + K1 * (1 - B + B * len(toks) / avgdl))
        if s > 0:
            out[j] = s
    return out


def test_a_view_keeps_its_prefix_while_postings_grow():
    ix = NoteIndex(8)
    words = ["cache", "proxy", "token", "retry"]
    texts = [" ".join(words[k % 4] for k in range(j % 5 + 1)) + f" n{j}" for j in range(700)]
    for j, t in enumerate(texts[:300]):
        ix.add(f"n{j:04d}", t, "rca", "", "a")
    view = ix.view()
    for j, t in enumerate(texts[300:], 300):          # each posting list grows (doubles) past the view
        ix.add(f"n{j:04d}", t, "rca", "", "a")
    idf = {"cache": 1.5, "proxy": 0.7, "token": 2.0, "retry": 1.1}.get
    got = dict(view.keyword_top("proxy cache cache token", lambda t: idf(t, 1.0), 4.0, 1000, view.mask()))
    want = _bm25(texts[:300], "proxy cache cache token", lambda t: idf(t, 1.0), 4.0)
    assert got.keys() == want.keys() and max(got) < 300
    assert all(abs(got[j] - want[j]) < 1e-9 for j in want)
    full = ix.view()
    assert max(dict(full.keyword_top("retry", lambda t: 1.0, 4.0, 1000, full.mask()))) >= 600


def test_cached_tie_positions_equal_the_binary_search():
    ids = sorted(f"{i:03x}node" for i in range(0, 4000, 7))
    meta = NodeMeta(pa.table({"id": ids, "kind": ["function"] * len(ids), "path": ["a.py"] * len(ids)}))
    ix = NoteIndex(8)
    notes = [f"{i:03x}note" for i in range(0, 4000, 13)] + ["zzz", "000"]
    for n in notes:
        ix.add(n, "x", "rca", "", "a")
    view = ix.view()
    slots = list(range(len(notes)))[::-1]
    want = [meta.id_position(notes[j]) for j in slots]
    assert view.id_positions(slots, meta) == want
    assert view.id_positions(slots, meta) == want       # from the cache
    other = NodeMeta(pa.table({"id": ids[:10], "kind": ["file"] * 10, "path": ["b.py"] * 10}))
    assert view.id_positions([len(notes) - 2], other) == [10]    # another version: its own positions
    assert np.all(np.diff([meta.id_position(n) for n in sorted(notes)]) >= 0)
