"""Ranking reads unmerged notes through the overlay's cache (``overlay.rank_infos``): the same
ranking, scores and reasons as reading each note's record per search, and a retract seen at once.
So do the rerank's other kept facts: merged notes' hits kept per overlay, added files located in
one take and co-change decays kept per shard."""

from __future__ import annotations

import shutil

import pytest

from stratum import rank, signals
from stratum import schema as S


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
    cands = page.items
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
        cands = items
        memo = rank.rerank(cands, signals.ShardSignals(sh, ov, extra=ov.rank_infos).prefetch(items))
        kept = signals._MEMOS.pop(sh)
        fresh = rank.rerank(cands, signals.ShardSignals(sh, ov, extra=ov.rank_infos))
        signals._MEMOS[sh] = kept
        assert [(r.id, r.score, r.why, r.added) for r in memo] == [(r.id, r.score, r.why, r.added) for r in fresh]
    assert kept.tables["hit"] and kept.tables["structure"]       # the memo was really used


def _view(ranked):
    return [(r.id, r.row, r.score, r.why, r.file, r.added) for r in ranked]


def test_a_note_retracted_after_its_hit_was_kept_ranks_as_retracted(tools):
    s = tools.open_session(author="writer").data["session"]
    nid = tools.remember(s, "rca", "The one-cent error comes from discount rounding twice.",
                         ["shop/pricing.py"]).data["note_id"]
    sh = next(iter(tools.memory))
    ov = tools.memory.overlay(sh)
    cands = [rank.Candidate(-1, 0.03, (), nid)]
    first = ov.rank_infos.hit(nid)
    assert first is not None and first.note.status == "active" and ov.rank_infos.hit(nid) is first   # kept
    assert ov.rank_infos.hits([nid, "no-such-note", nid]) == [first, None, first]
    before = _view(rank.rerank(cands, signals.ShardSignals(sh, ov, extra=ov.rank_infos)))
    assert before[0][3] == "rca note" and any(r[4] == "shop/pricing.py" and r[5] for r in before)
    # another note (a new fold and node map: the kept hit is checked again, and holds)
    tools.remember(s, "insight", "Cart totals are summed in cents.", ["shop/cart.py"])
    assert ov.rank_infos.hit(nid) is first
    ov.retract(nid, author="writer", reason="wrong")
    after = rank.rerank(cands, signals.ShardSignals(sh, ov, extra=ov.rank_infos))
    plain = rank.rerank(cands, signals.ShardSignals(sh, ov))            # no cache: the record read now
    assert _view(after) == _view(plain)
    assert ov.rank_infos.hit(nid).note.status == "retracted" and ov.rank_infos.hits([nid])[0].note.status == "retracted"
    assert after[0].why == "rca note; retracted: not counted" and after[0].score == pytest.approx(0.03e-3)
    assert not any(r.added for r in after)                             # it lends its file nothing now


def test_kept_hits_locations_and_decays_rank_as_fresh_reads(tools):
    """Every query's rerank with the shard memos, the merged notes' hits and the overlay's note hits
    kept equals one with all of them dropped, entry for entry (ids, rows, score bits, whys)."""
    s = tools.open_session(author="writer").data["session"]
    tools.remember(s, "failure", "Tried rounding the cart total for the one-cent error: no help.", ["shop/cart.py"])
    sh = next(iter(tools.memory))
    ov = tools.memory.overlay(sh)
    queries = ["discount rounding", "cart total", "pricing", "one-cent error", "checkout", "fix"]
    pages = [sh.warm.search(q, limit=rank.DEEP, extra_docs=ov.search_docs()).items for q in queries]
    merged = [c for items in pages for c in items
              if c.row >= 0 and sh.col("kind")[c.row] in S.NOTE_KINDS]
    assert merged                                   # the sample history's mined notes are shard rows
    for items in pages + pages:                     # the second pass is served from what was kept
        cands = items
        kept = rank.rerank(cands, signals.ShardSignals(sh, ov, extra=ov.rank_infos).prefetch(items))
        memo, notes = signals._MEMOS.pop(sh), signals._NOTE_MEMOS.pop(ov, None)
        fresh = rank.rerank(cands, signals.ShardSignals(sh, ov))
        signals._MEMOS[sh] = memo
        if notes is not None:
            signals._NOTE_MEMOS[ov] = notes
        assert _view(kept) == _view(fresh)
    one = signals.ShardSignals(sh, ov).hit(merged[0])
    assert signals.ShardSignals(sh, ov).hit(merged[0]) is one          # a merged note's hit is kept
    sig = signals.ShardSignals(sh, ov)
    paths = [p for p in dict.fromkeys(sh.col("path").take(list(range(len(sh.col("kind").array))))) if p]
    paths += ["shop", "no/such.py"]
    assert sig.locate_many(paths) == [signals.ShardSignals(sh, ov).locate(p) for p in paths]
    for p in paths:
        assert sig.cochange_terms(p, 365.0) == rank.co_terms(sig.cochange(p), 365.0)


def test_a_call_holding_another_version_keeps_nothing_in_the_overlays_note_cache(tools):
    """After a reload a call still holding the old shard is handed the new version's overlay
    (``Memory.overlay``): its merged notes' hits are read, not kept under the overlay by row (the
    rows are the old version's: a later search of the new version would get another note's hit)."""
    from stratum.tools import Tools

    sh = next(iter(tools.memory))
    ov = tools.memory.overlay(sh)
    other = Tools.open([str(sh.store.root)])
    try:
        old = next(iter(other.memory))                   # the same store, another shard object
        assert old is not sh
        signals._NOTE_MEMOS.pop(ov, None)
        queries = ["discount rounding", "cart total", "fix pricing", "checkout"]
        for q in queries:
            items = old.warm.search(q, kinds=("fix", "change"), limit=rank.DEEP).items
            mismatched = rank.rerank(items, signals.ShardSignals(old, ov))
            own = rank.rerank(items, signals.ShardSignals(old, other.memory.overlay(old)))
            assert _view(mismatched) == _view(own)
        assert not signals._NOTE_MEMOS.get(ov)
        for q in queries:                                # the overlay's own shard does keep them
            rank.rerank(sh.warm.search(q, kinds=("fix", "change"), limit=rank.DEEP).items, signals.ShardSignals(sh, ov))
        assert signals._NOTE_MEMOS.get(ov)
    finally:
        other.close()
