"""A search page is cut from ``rank.rerank``'s order, which is by score then id: the tool merges
the reranked lists as they come (``tools._merged_head``) instead of sorting every entry again, so
this order is a contract between the two."""

from __future__ import annotations

import pytest

from stratum import rank, rankplace, signals
from stratum.tools import Tools
from tests.pages import search_all

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
            ranked = rank.rerank(page.items, sig, add=True)
            assert ranked == sorted(ranked, key=lambda r: (-r.score, r.id)), q
            # the placements the tool applies next (exact and named definitions first); they kept the
            # order only when the shared store's other tests had written notes (run alone it failed)
            ranked = rankplace.in_order(ranked, sig, q, page.items, [])
            got, more = search_all(t, s, q)
            assert [it.id for it in got] == [r.id for r in ranked[:50]], q
            assert more == (len(ranked) > 50)
    finally:
        t.close()


def test_a_search_over_two_shards_is_the_sorted_union_of_their_reranked_lists(indexed_store, tmp_path):
    """Several lists go through ``heapq.merge``: the page must equal a full sort of every shard's
    reranked entries (score, then id), and has_more must count them all."""
    from pipeline.job import index_repository
    from stratum.config import IndexConfig
    from tests.gitrepo import Repo

    lib = Repo(tmp_path / "lib")
    lib.commit("lib", {"lib/cart_tools.py": 'def cart_total(items):\n    """Total of a cart: sum of prices."""\n'
                                            '    return sum(i.price for i in items)\n\n\n'
                                            'def apply_discount(total, pct):\n    """Apply a discount."""\n'
                                            '    return total * (1 - pct)\n'})
    index_repository(lib.path, tmp_path / "lib_store", IndexConfig(num_cpus=1))
    t = Tools.open([str(indexed_store[1]), str(tmp_path / "lib_store")])
    try:
        s = t.open_session().data["session"]
        for q in QUERIES:
            entries = []
            for sh in t.memory:
                ov = t.memory.overlay(sh)
                page = sh.warm.search(q, limit=rank.DEEP, offset=0, extra_docs=ov.search_docs())
                sig = signals.ShardSignals(sh, ov, extra=ov.rank_infos).prefetch(page.items)
                entries += rankplace.in_order(rank.rerank(page.items, sig, add=True), sig, q, page.items, [])
            want = sorted(entries, key=lambda r: (-r.score, r.id))
            got, more = search_all(t, s, q)
            assert [it.id for it in got] == [r.id for r in want[:50]], q
            assert more == (len(want) > 50)
        assert {it.path for it in search_all(t, s, "cart total discount")[0]} >= {"lib/cart_tools.py"}
    finally:
        t.close()
