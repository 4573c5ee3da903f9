"""A search page is cut from ``rank.rerank``'s order, which is by score then id: the tool merges
the reranked lists as they come (``tools._merged_head``) instead of sorting every entry again, so
this order is a contract between the two."""

from __future__ import annotations

import pytest

from stratum import rank, signals
from stratum.tools import Tools

pytestmark = pytest.mark.slow

QUERIES = ("cart total", "render_invoice", "discount", "apply a discount to the cart", "tests")


def test_rerank_is_sorted_and_search_pages_follow_it(indexed_store):
    t = Tools.open([str(indexed_store[1])])
    try:
        s = t.open_session().data["session"]
        sh = next(iter(t.memory))
        ov = t.memory.overlay(sh)
        for q in QUERIES:
            page = sh.warm.search(q, limit=rank.DEEP, offset=0, extra_docs=ov.search_docs())
            sig = signals.ShardSignals(sh, ov, extra=ov.rank_infos).prefetch(page.items)
            ranked = rank.rerank(rank.candidates_of(page.items), sig, add=True)
            assert ranked == sorted(ranked, key=lambda r: (-r.score, r.id)), q
            got = t.search(s, q, page_size=50)
            assert [it.id for it in got.items] == [r.id for r in ranked[:50]], q
            assert got.envelope.has_more == (len(ranked) > 50)
    finally:
        t.close()
