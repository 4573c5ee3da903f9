"""Ranking reads unmerged notes through the overlay's cache (``overlay.rank_infos``): the same
ranking, scores and reasons as reading each note's record per search, and a retract seen at once."""

from __future__ import annotations

import shutil

import pytest

from stratum import rank, signals


@pytest.fixture()
def tools(indexed_store, tmp_path):
    from stratum.tools import Tools

    _, store, _ = indexed_store
    dst = tmp_path / "store"
    shutil.copytree(store, dst, ignore=shutil.ignore_patterns("deltalog", "cli.secret"))
    t = Tools.open([str(dst)])
    yield t
    t.close()


def _both(t, query):
    sh = next(iter(t.memory))
    ov = t.memory.overlay(sh)
    page = sh.warm.search(query, limit=rank.DEEP, extra_docs=ov.search_docs())
    cands = rank.candidates_of(page.items)
    plain = rank.rerank(cands, signals.ShardSignals(sh, ov))
    cached = rank.rerank(cands, signals.ShardSignals(sh, ov, extra=ov.rank_infos))
    return ov, [(r.id, r.score, r.why) for r in plain], [(r.id, r.score, r.why) for r in cached]


def test_cached_note_infos_rank_like_the_records_and_follow_a_retract(tools):
    s = tools.open_session(author="writer").data["session"]
    ids = [tools.remember(s, "rca", "The one-cent error comes from discount rounding twice.",
                          ["shop/pricing.py"]).data["note_id"],
           tools.remember(s, "failure", "Tried rounding the cart total for the one-cent error: no help.",
                          ["shop/cart.py"]).data["note_id"]]
    ov, plain, cached = _both(tools, "one-cent rounding error in the discount")
    assert plain == cached and {i for i, _, _ in plain} >= set(ids)
    _, again, _ = _both(tools, "one-cent rounding error in the discount")
    assert again == plain                                # served from the cache
    assert ov.rank_infos[ids[0]].status == "active" and len(ov.rank_infos) == 2
    ov.retract(ids[0], author="writer", reason="wrong")
    ov, plain, cached = _both(tools, "one-cent rounding error in the discount")
    assert plain == cached and ids[0] not in {i for i, _, _ in plain}
    assert ov.rank_infos[ids[0]].status == "retracted"   # the cached entry followed the new state
    r = tools.search(s, "one-cent rounding error in the discount", page_size=10)
    assert ids[1] in [it.id for it in r.items] and ids[0] not in [it.id for it in r.items]


def test_shard_facts_memoised_across_searches_rank_as_fresh_reads(tools):
    """Co-change partners, neighbours, file rows and code hits are kept per shard between searches
    (``signals._ShardMemo``): a memoised ranking equals one read from scratch, item for item."""
    sh = next(iter(tools.memory))
    ov = tools.memory.overlay(sh)
    queries = ["discount rounding", "cart total", "pricing", "one-cent error", "checkout"]
    pages = [sh.warm.search(q, limit=rank.DEEP, extra_docs=ov.search_docs()).items for q in queries]
    for items in pages + pages:                      # the second pass is served from the memo
        cands = rank.candidates_of(items)
        memo = rank.rerank(cands, signals.ShardSignals(sh, ov, extra=ov.rank_infos).prefetch(items))
        kept = signals._MEMOS.pop(sh)
        fresh = rank.rerank(cands, signals.ShardSignals(sh, ov, extra=ov.rank_infos))
        signals._MEMOS[sh] = kept
        assert [(r.id, r.score, r.why, r.added) for r in memo] == [(r.id, r.score, r.why, r.added) for r in fresh]
    assert kept.tables["hit"] and kept.tables["structure"]       # the memo was really used
