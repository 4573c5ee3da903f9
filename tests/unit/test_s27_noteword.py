"""Which notes hold a rare word of the query above the code (``SearchItem.rare``, ``search.RARE_ROWS``):
a real BM25 index over a few code rows and unmerged notes searched beside it (the rerank places an
agent note so marked first: tests/integration/test_s27_noteword.py)."""

from __future__ import annotations

import pytest

from stratum import schema as S
from stratum import search
from stratum.codetokens import node_names, node_text
from stratum.ids import node_id
from stratum.keywordindex import KeywordIndex
from stratum.search import ExtraDoc, HybridSearcher

CODE = [("up/chunks.py", "split_chunks", "Split data into upload chunks of the max chunk size."),
        ("up/chunks.py", "evict_chunk", "Evict a chunk to disk when the buffer is over the max."),
        ("up/retry.py", "backoff", "Seconds to wait before the retry of an upload chunk."),
        ("up/proxy.py", "connect", "Open a tunnel; the proxy renegotiates on a stale session.")]


@pytest.fixture(scope="module")
def searcher() -> HybridSearcher:
    recs = [{"id": node_id("demo", p, "function", q), "repo": "demo", "kind": "function", "path": p, "name": q,
             "qualname": q, "language": "python", "signature": f"def {q}()", "doc": d, "full": f"def {q}(): {d}"}
            for p, q, d in CODE]
    ki = KeywordIndex.build([node_text(r) for r in recs], [node_names(r) for r in recs])
    return HybridSearcher(S.to_table(recs, S.NODES), None, ki)


NOTES = [ExtraDoc("n-spill", "the flaky upload is the MAX_CHUNK_SPILL guard: a spilled chunk is retried", None, "rca"),
         ExtraDoc("n-retry", "upload chunks are retried max three times; the proxy renegotiates", None, "insight"),
         ExtraDoc("n-stale", "a stale session makes the proxy renegotiate the tunnel", None, "failure")]


def _marked(hs: HybridSearcher, query: str, **kw) -> set[str]:
    return {it.id for it in hs.search(query, limit=20, extra_docs=NOTES, **kw).items if it.rare}


def test_the_notes_holding_a_rare_query_word_above_the_code_are_marked(searcher):
    assert search.RARE_ROWS == 2
    assert _marked(searcher, "MAX_CHUNK_SPILL") == {"n-spill"}        # the note's own identifier
    assert _marked(searcher, "upload chunk MAX_CHUNK_SPILL") == {"n-spill"}
    assert _marked(searcher, "retried") == {"n-spill", "n-retry"}     # two notes hold it, no code
    # held by a note and a function: the note, which the query's other word matches too
    assert _marked(searcher, "renegotiates upload") == {"n-retry"}
    # ... but not when the function's text matches better: code the query out-matches leaves no pointer
    assert _marked(searcher, "renegotiates") == set()
    # words more than RARE_ROWS rows hold mark nothing: upload, chunk, max (code and notes), proxy (3 rows)
    assert _marked(searcher, "upload chunk max") == set()
    assert _marked(searcher, "proxy tunnel") == set()


def test_rare_rows_sets_how_few_holders_make_a_word_rare(searcher, monkeypatch):
    monkeypatch.setattr(search, "RARE_ROWS", 1)
    assert _marked(searcher, "retried") == set()
    assert _marked(searcher, "MAX_CHUNK_SPILL") == {"n-spill"}
    monkeypatch.setattr(search, "RARE_ROWS", 0)                       # off
    assert _marked(searcher, "MAX_CHUNK_SPILL") == set()


def test_a_notes_only_search_marks_nothing(searcher):
    """Among notes alone a rare word would rank no note over code: nothing to mark."""
    assert _marked(searcher, "MAX_CHUNK_SPILL", kinds=("rca", "insight", "failure")) == set()
