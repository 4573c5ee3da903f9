"""Warm BM25 keyword index: code-aware tokenizer, exact identifiers first, filters, save/load."""

import math
from collections import Counter

import numpy as np
import pytest

from stratum.errors import StoreError
from stratum.keywordindex import HEAD_LEN, KeywordIndex
from stratum.codetokens import node_names, node_text, tokenize


@pytest.mark.parametrize("text, expected", [
    ("parse_file", ["parse_file", "parse", "file"]),
    ("parseFile", ["parsefile", "parse", "file"]),
    ("HTTPServerError", ["httpservererror", "http", "server", "error"]),
    ("base64Encode", ["base64encode", "base64", "encode"]),
    ("Flask.route", ["flask.route", "flask", "route"]),
    ("src/flask/app.py", ["src/flask/app.py", "src", "flask", "app", "py"]),
    ("std::vec::Vec", ["std::vec::vec", "std", "vec", "vec"]),
    ("the __init__ of a class", ["__init__", "init", "class"]),
])
def test_tokenizer_splits_code_identifiers(text, expected):
    assert tokenize(text) == expected


DOCS = [
    ("src/store/lance_store.py", "class", "LanceStore", "Stores datasets in Lance tables on disk."),
    ("src/store/lance_store.py", "method", "LanceStore.write_dataset",
     "Write a full new version of a dataset. Calls parse_file never."),
    ("src/parse/parser.py", "function", "parse_file", "Parse one file into nodes and edges."),
    ("src/parse/parser.py", "function", "parse_files_parallel", "Parse many files with parse_file in a pool."),
    ("src/http/server.py", "class", "HTTPServerError", "Raised when the HTTP server fails to start."),
    ("src/http/server.py", "function", "start_server", "Start the HTTP server on a port."),
    ("docs/notes.md", "insight", "", "The parse step is slow on huge generated files."),
]


def records():
    out = []
    for path, kind, qual, doc in DOCS:
        out.append({"path": path, "kind": kind, "qualname": qual, "name": qual.split(".")[-1], "doc": doc,
                    "summary": doc if kind == "insight" else None, "full": doc if kind == "insight" else None})
    return out


@pytest.fixture(scope="module")
def index():
    recs = records()
    return KeywordIndex.build([node_text(r) for r in recs], [node_names(r) for r in recs])


def test_exact_identifier_is_found_first(index):
    hits = index.search("parse_file", 5)
    assert hits.rows[0] == 2 and hits.exact_name[0]
    assert set(hits.rows[:4].tolist()) >= {2, 3}              # it also finds the mentions
    assert not hits.exact_name[1:].any()
    hits = index.search("where is HTTPServerError raised", 3)
    assert hits.rows[0] == 4
    hits = index.search("LanceStore.write_dataset", 3)
    assert hits.rows[0] == 1


def test_split_words_match_camel_case_and_paths(index):
    assert index.search("server error", 3).rows[0] == 4       # HTTPServerError via its words
    assert 5 in index.search("http server", 3).rows.tolist()
    rows = index.search("lance_store", 5).rows.tolist()       # path component
    assert set(rows[:2]) == {0, 1}


def test_scores_are_bm25(index):
    recs = records()
    docs = [tokenize(node_text(r)) for r in recs]
    n, avgdl = len(docs), sum(map(len, docs)) / len(docs)

    def bm25(q, d):
        tf = Counter(d)
        s = 0.0
        for t in set(tokenize(q)):
            df = sum(1 for x in docs if t in x)
            if tf[t]:
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                s += idf * tf[t] * 2.2 / (tf[t] + 1.2 * (0.25 + 0.75 * len(d) / avgdl))
        return s

    hits = index.search("generated files pool", 10)
    for r, s in zip(hits.rows, hits.scores):
        assert s == pytest.approx(bm25("generated files pool", docs[r]), rel=1e-4)
    assert hits.rows.tolist() == sorted(hits.rows.tolist(), key=lambda r: (-bm25("generated files pool", docs[r]), r))


def test_predicate_filters_rows(index):
    allowed = np.array([r["path"].startswith("src/parse/") for r in records()])
    hits = index.search("parse file", 10, predicate=lambda rows: allowed[rows], selectivity=allowed.mean())
    assert set(hits.rows.tolist()) == {2, 3}


def test_unknown_words_give_nothing(index):
    hits = index.search("zebra quokka", 10)
    assert len(hits.rows) == 0 and hits.matched == 0


def test_deep_heads_give_the_exact_top_k_on_a_large_index():
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(50)]
    n = HEAD_LEN * 3                                           # long lists: heads shorter than the list
    texts = [" ".join(["common"] * int(rng.integers(1, 4)) + list(rng.choice(words, 8))) for _ in range(n)]
    idx = KeywordIndex.build(texts)
    assert idx.hoff[-1] > 0                                    # some term has a head
    docs = [tokenize(t) for t in texts]
    q = "common w3 w7"
    got = idx.search(q, 20)
    assert got.exact
    # brute force with the same formula
    avgdl = sum(map(len, docs)) / n
    df = Counter(t for d in docs for t in set(d))
    def score(d):
        tf = Counter(d)
        return sum(math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) * tf[t] * 2.2 /
                   (tf[t] + 1.2 * (0.25 + 0.75 * len(d) / avgdl)) for t in set(tokenize(q)) if tf[t])
    s = np.array([score(d) for d in docs], dtype=np.float64)
    truth = sorted(range(n), key=lambda r: (-round(s[r], 4), r))[:20]
    assert np.allclose(np.sort(got.scores)[::-1], np.sort(s)[::-1][:20], rtol=1e-4)
    assert len(set(got.rows.tolist()) & set(truth)) >= 19     # equal scores may swap at the cut
    # with a filter that removes most rows, the answer is still the filtered exact top-k
    allowed = np.zeros(n, bool)
    allowed[::50] = True
    got = idx.search(q, 5, predicate=lambda r: allowed[r], selectivity=0.02)
    rows = np.flatnonzero(allowed)
    assert np.allclose(got.scores, np.sort(s[rows])[::-1][:5], rtol=1e-4)


def test_overlay_texts_score_with_index_statistics(index):
    s = index.score_texts("parse generated", ["the parse step chokes on generated code", "unrelated words"])
    assert s[0] > 0 and s[1] == 0


def test_save_load_round_trip(index, tmp_path):
    index.save(tmp_path)
    for mmap in (True, False):
        loaded = KeywordIndex.load(tmp_path, mmap=mmap)
        for q in ("parse_file", "server error", "lance_store write", "HTTPServerError"):
            a, b = index.search(q, 5), loaded.search(q, 5)
            assert a.rows.tolist() == b.rows.tolist()
            assert a.scores.tolist() == b.scores.tolist()
    with pytest.raises(StoreError):
        KeywordIndex.load(tmp_path / "missing")


def test_filtered_query_reading_past_the_heads_stays_exact():
    """A filter that keeps 1 row in 400 forces every head to be read to its end and beyond."""
    rng = np.random.default_rng(1)
    n = HEAD_LEN * 2 + 100
    texts = [" ".join(["alpha"] * int(rng.integers(1, 5)) + ["beta"] * int(rng.integers(0, 3))) for _ in range(n)]
    idx = KeywordIndex.build(texts)
    allowed = np.zeros(n, bool)
    allowed[::400] = True
    got = idx.search("alpha beta", 3, predicate=lambda r: allowed[r], selectivity=1.0)
    docs = [tokenize(t) for t in texts]
    avgdl = sum(map(len, docs)) / n
    df = Counter(t for d in docs for t in set(d))

    def score(d):
        tf = Counter(d)
        return sum(math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) * tf[t] * 2.2 /
                   (tf[t] + 1.2 * (0.25 + 0.75 * len(d) / avgdl)) for t in ("alpha", "beta") if tf[t])
    rows = np.flatnonzero(allowed)
    best = sorted(rows.tolist(), key=lambda r: (-round(score(docs[r]), 5), r))[:3]
    assert np.allclose(got.scores, [score(docs[r]) for r in best], rtol=1e-4)
    assert allowed[got.rows].all()


def test_heads_read_by_impact_stay_exact_without_a_round_limit():
    """by_impact changes only how deep each head is read first; an unlimited search still proves
    the exact top-k, equal to the default reading."""
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(60)]
    n = HEAD_LEN * 3
    texts = [" ".join(["common"] * int(rng.integers(1, 4)) + list(rng.choice(words, int(rng.integers(4, 12)))))
             for _ in range(n)]
    idx = KeywordIndex.build(texts)
    for q in ("common w3 w7", "w1 w2 w3 w4 common", "w59"):
        a, b = idx.search(q, 30), idx.search(q, 30, by_impact=True, head_factor=2)
        assert a.exact and b.exact
        assert a.rows.tolist() == b.rows.tolist() and np.allclose(a.scores, b.scores)


def test_compiled_completion_scores_equal_the_numpy_path():
    """Large indexes complete candidate scores with compiled galloping merges (stratum.kernels);
    forced on a small index, every search (one round, exact, filtered, deep) returns the same
    rows, scores (bit for bit) and counts as the numpy binary searches."""
    rng = np.random.default_rng(11)
    words = [f"w{i}" for i in range(200)]
    n = HEAD_LEN * 3
    texts = [" ".join(["common"] * int(rng.integers(0, 3)) +
                      list(rng.choice(words, int(rng.integers(3, 15)), p=np.arange(200, 0, -1) / 20100)))
             for _ in range(n)]
    plain, compiled = KeywordIndex.build(texts), KeywordIndex.build(texts)
    plain.compiled, compiled.compiled = False, True
    allowed = rng.random(n) < 0.3
    queries = ["common w3 w7", "w1 w2 w3 w4 common", "w0 w1", "w150 w2 w0 w9 w40 w5", "w199", "nothing here"]
    cases = [dict(), dict(max_rounds=1), dict(max_rounds=1, head_factor=2, by_impact=True),
             dict(predicate=lambda r: allowed[r], selectivity=0.3, max_rounds=1)]
    checked = 0
    for q in queries:
        for kw in cases:
            for k in (5, 50, 400):
                a, b = plain.search(q, k, **kw), compiled.search(q, k, **kw)
                assert a.rows.tolist() == b.rows.tolist()
                assert a.scores.tobytes() == b.scores.tobytes()
                assert (a.matched, a.matched_exact, a.exact) == (b.matched, b.matched_exact, b.exact)
                checked += len(a.rows)
    assert checked > 1000


def test_a_large_index_is_ready_before_its_first_query(tmp_path, monkeypatch):
    """``ready_for_queries`` (a serving shard calls it at load) compiles the completion for the
    read-only arrays a memory-mapped index passes: the first query then compiles nothing. An
    index below COMPILED_MIN_DOCS, or only loaded (an update, a repair), does not warm at all."""
    from stratum import keywordindex as K, kernels

    idx = KeywordIndex.build([f"alpha beta w{i % 97}" for i in range(3000)] + ["gamma"] * 10)
    idx.save(tmp_path)
    calls = []
    real = kernels.warm
    monkeypatch.setattr(kernels, "warm", lambda: (calls.append(1), real())[1])
    small = KeywordIndex.load(tmp_path, mmap=True)
    small.ready_for_queries()
    assert calls == []                              # 3,010 rows: below the bound
    monkeypatch.setattr(K, "COMPILED_MIN_DOCS", 1000)
    mapped = KeywordIndex.load(tmp_path, mmap=True)
    assert calls == []                              # loading alone does not warm
    mapped.ready_for_queries()
    assert calls == [1]
    used = (kernels.add_term_impacts, kernels.keyword_candidates, kernels.keyword_complete)
    sigs = [len(f.signatures) for f in used]
    for q in ("alpha w3 gamma", "gamma", "w5 w5 beta"):
        for kw in (dict(max_rounds=1, head_factor=1), dict(), dict(predicate=lambda r: r % 2 == 0, selectivity=0.5)):
            mapped.search(q, 20, **kw)
    assert [len(f.signatures) for f in used] == sigs and min(sigs) >= 1


def test_the_compiled_round_equals_numpys_with_names_repeats_and_filters():
    """The compiled reading round (stratum.keywordround.compiled_round) against numpy's, with the
    galloping completion numpy's large-index path used before it too: exact-name rows (their boost
    and membership), a word repeated in the query (weight 2), filters, one round and exact ones;
    rows, scores bit for bit, name flags and counts equal."""
    from stratum import keywordround

    rng = np.random.default_rng(5)
    words = [f"w{i}" for i in range(150)]
    n = HEAD_LEN * 3
    texts = [" ".join(list(rng.choice(words, int(rng.integers(3, 14)), p=np.arange(150, 0, -1) / 11325)))
             for _ in range(n)]
    names = [[f"w{i % 150}"] if i % 7 == 0 else [] for i in range(n)]
    plain, compiled = KeywordIndex.build(texts, names), KeywordIndex.build(texts, names)
    plain.compiled, compiled.compiled = False, True
    allowed = rng.random(n) < 0.4
    queries = ["w3 w3 w7", "w1 w2 w1 w4", "w0", "w149 w2 w0 w9 w40 w5 w2", "w120 w121", "nothing w3"]
    cases = [dict(), dict(max_rounds=1, head_factor=16, by_impact=True), dict(max_rounds=1, head_factor=2),
             dict(predicate=lambda r: allowed[r], selectivity=0.4, max_rounds=1)]
    real = keywordround.numpy_round
    galloping = lambda *a: real(*a, compiled_completion=True)      # noqa: E731 - the old large-index path
    checked = 0
    for q in queries:
        for kw in cases:
            for k in (3, 50, 600):
                b = compiled.search(q, k, **kw)
                for ref in (real, galloping):
                    a = plain.search(q, k, **kw) if ref is real else _with_round(plain, ref, q, k, kw)
                    assert a.rows.tolist() == b.rows.tolist() and a.scores.tobytes() == b.scores.tobytes()
                    assert a.exact_name.tolist() == b.exact_name.tolist()
                    assert (a.matched, a.matched_exact, a.exact) == (b.matched, b.matched_exact, b.exact)
                checked += int(b.exact_name.sum())
    assert checked > 20                     # name rows were among the answers


def _with_round(index, round_fn, q, k, kw):
    import stratum.keywordindex as K

    saved = K.numpy_round
    K.numpy_round = round_fn
    try:
        return index.search(q, k, **kw)
    finally:
        K.numpy_round = saved


def test_a_query_with_a_lone_surrogate_matches_nothing_for_that_term(index):
    """JSON may spell "\\ud800" (an MCP query): the term is hashed, not a UnicodeEncodeError."""
    assert index.search("\ud800", 5).rows.tolist() == []
    assert index.search("parse_file \ud800", 5).rows[0] == 2
