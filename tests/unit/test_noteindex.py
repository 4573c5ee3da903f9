"""The incremental note index's per-query shortcuts give the answers of the plain computation:
postings read without copies keep a view's prefix while writers append, and cached tie positions
equal the shard's binary search."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from stratum.keywordindex import B, K1
from stratum.codetokens import tokenize
from stratum.noteindex import NoteIndex
from stratum.rowfilter import NodeMeta


def _pairs(hits):
    """(slot, score) pairs of a NoteView list's (slots, scores) arrays."""
    slots, scores = hits
    return list(zip(slots.tolist(), scores.tolist()))


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
    got = dict(_pairs(view.keyword_hits("proxy cache cache token", lambda t: idf(t, 1.0), 4.0, 1000, view.mask())))
    want = _bm25(texts[:300], "proxy cache cache token", lambda t: idf(t, 1.0), 4.0)
    assert got.keys() == want.keys() and max(got) < 300
    assert all(abs(got[j] - want[j]) < 1e-9 for j in want)
    full = ix.view()
    assert max(dict(_pairs(full.keyword_hits("retry", lambda t: 1.0, 4.0, 1000, full.mask())))) >= 600


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


def test_cached_bm25_parts_equal_a_fresh_index_as_notes_arrive(monkeypatch):
    """Each query term's BM25 parts are kept per (term, weight x idf, avgdl) and extended as notes
    arrive: scores equal, bit for bit, those of an index that never cached anything, for the new
    view and for an older view's shorter prefix, and after the cache is dropped for size."""
    import stratum.noteindex as NI

    rng = np.random.default_rng(3)
    words = ["cache", "proxy", "token", "retry", "yaml", "parse"]
    texts = [" ".join(rng.choice(words, int(rng.integers(1, 9)))) + f" n{j}" for j in range(900)]
    idf = {"cache": 1.5, "proxy": 0.7, "token": 2.0, "retry": 1.1, "yaml": 0.3, "parse": 2.5}.get
    queries = ["proxy cache cache token", "retry", "yaml parse token proxy", "nothing"]

    def fresh(n):
        ix = NoteIndex(8)
        for j, t in enumerate(texts[:n]):
            ix.add(f"n{j:04d}", t, "rca", "", "a")
        return ix.view()

    ix = NoteIndex(8)
    for j, t in enumerate(texts[:400]):
        ix.add(f"n{j:04d}", t, "rca", "", "a")
    old = ix.view()
    first = {q: old.keyword_hits(q, lambda t: idf(t, 1.0), 4.0, 50, old.mask()) for q in queries}
    for j, t in enumerate(texts[400:], 400):
        ix.add(f"n{j:04d}", t, "rca", "", "a")
    new, want_new, want_old = ix.view(), fresh(900), fresh(400)
    for step in range(2):
        if step:
            monkeypatch.setattr(NI, "BM25_CACHE", 100)      # dropped on nearly every term
            ix._bm25, ix._bm25_size = {}, 0
        for q in queries:
            for view, want in ((new, want_new), (old, want_old)):
                a = view.keyword_hits(q, lambda t: idf(t, 1.0), 4.0, 50, view.mask())
                b = want.keyword_hits(q, lambda t: idf(t, 1.0), 4.0, 50, want.mask())
                assert a[0].tolist() == b[0].tolist() and a[1].tobytes() == b[1].tobytes()
            assert old.keyword_hits(q, lambda t: idf(t, 1.0), 4.0, 50, old.mask())[1].tobytes() == \
                first[q][1].tobytes()
    assert ix._bm25_size <= 900 and sum(map(len, ix._bm25.values())) <= 900


def test_hits_arrays_are_best_first_over_every_matching_note():
    rng = np.random.default_rng(8)
    ix = NoteIndex(16)
    for j in range(300):
        v = rng.standard_normal(16).astype(np.float32)
        ix.add(f"n{j:03d}", f"proxy cache n{j}" if j % 3 else "token", "rca", "", "a", v / np.linalg.norm(v))
    view = ix.view()
    q = rng.standard_normal(16).astype(np.float32)
    slots, scores = view.vector_hits(q, 20, view.mask())
    assert slots.dtype == np.int64 and len(slots) == 20 and (np.diff(scores) <= 0).all()
    exact = ix.vectors[:300] @ q                 # the brute-force cosine order (300 notes: no graph yet)
    assert slots.tolist() == np.lexsort((np.arange(300), -exact))[:20].tolist()
    kslots, kscores = view.keyword_hits("proxy token", lambda t: 1.0, 3.0, 500, view.mask())
    assert len(kslots) == 300 and (np.diff(kscores) <= 0).all()     # every note holds proxy or token


def test_a_tie_at_the_cut_goes_by_slot():
    """Notes tied with the k-th best score: the lower slots are kept, as the docstring promises
    (a partition alone kept an arbitrary subset of the tied ones)."""
    from stratum.noteview import _top_arrays

    rng = np.random.default_rng(3)
    for _ in range(200):
        scores = rng.integers(0, 4, int(rng.integers(1, 80))).astype(np.float32)    # many ties
        cand = np.sort(rng.choice(10**6, len(scores), replace=False))
        k = int(rng.integers(1, len(scores) + 2))
        want = np.lexsort((cand, -scores))[:k]
        slots, got = _top_arrays(cand, scores, k)
        assert slots.tolist() == cand[want].tolist() and got.tolist() == scores[want].tolist()
