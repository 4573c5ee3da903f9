"""branchscore.rerank_depth: a branch list's candidates reranked as deep as they reach in the list
merged with the default branch's; the default branch's notes that steer the branch's list are in
both and count once."""

from __future__ import annotations

from stratum.branchscore import rerank_depth
from stratum.search import SearchItem


def _it(nid: str, score: float) -> SearchItem:
    return SearchItem(0, score, ("keyword",), nid)


def test_the_notes_in_both_lists_count_once():
    n1, n2 = _it("note-1", 0.9), _it("note-2", 0.8)
    live = [n1, n2, _it("base-a", 0.3), _it("base-b", 0.2)]
    cands = [n1, n2, _it("branch-a", 0.5), _it("branch-b", 0.4)]
    # merged: note-1, note-2, branch-a, branch-b | base-a, base-b: all four candidates are in the top 4
    assert rerank_depth(cands, live, 4) == 4


def test_a_branch_item_past_the_merged_depth_keeps_its_text_order():
    live = [_it("base-a", 0.9), _it("base-b", 0.8), _it("base-c", 0.7)]
    cands = [_it("branch-a", 0.85), _it("branch-b", 0.1)]
    assert rerank_depth(cands, live, 3) == 1
