"""The search page's merge of per-list reranked entries (``tools._merged_head``): the same order as
sorting all entries by score then id, built only as far as a page reads it."""

from __future__ import annotations

import random

from stratum.rank import Ranked
from stratum.render import merged_head as _merged_head


def _full_sort(lists):
    """What the search did before, written as it was: a shard's list names its overlay for an
    unmerged note (row -1), a branch overlay's own list (no overlay) keeps its rows as given;
    every entry as a tuple, one stable sort of the concatenation."""
    hits = []
    for ranked, sh, ov in lists:
        for r in ranked:
            if ov is None:
                hits.append((r.score, r.id, sh, r.row, None, r.why))
            else:
                row = r.row if r.row >= 0 else None
                hits.append((r.score, r.id, sh, row, ov if row is None else None, r.why))
    hits.sort(key=lambda h: (-h[0], h[1]))
    return hits


def _lists(rng, n_lists):
    out = []
    for k in range(n_lists):
        ranked = [Ranked(f"n{rng.randrange(40)}", rng.choice([-1, rng.randrange(1000)]),
                         rng.choice([0.5, 0.25, rng.random()]), f"why {k}") for _ in range(rng.randrange(0, 30))]
        ranked.sort(key=lambda r: (-r.score, r.id))      # rank.rerank's order
        out.append((ranked, f"shard{k}", object() if k != 1 else None))   # an overlay passed through; list 1: a branch's own
    return out


def test_merged_head_is_the_stable_sort_of_all_lists_cut_to_n():
    rng = random.Random(5)
    for trial in range(300):
        lists = _lists(rng, 1 + trial % 3)
        for n in (0, 1, 5, 13, 200):
            assert _merged_head(lists, n) == _full_sort(lists)[:n]


def test_ties_keep_list_order_and_unmerged_notes_name_their_overlay():
    ov = object()                # the overlay holding the list's unmerged notes (passed through)
    a = [Ranked("x", 3, 1.0, "text"), Ranked("note1", -1, 0.5, "rca note")]
    b = [Ranked("x", 7, 1.0, "text")]
    got = _merged_head([(a, "A", ov), (b, "B", ov)], 10)
    assert [(h[2], h[3]) for h in got] == [("A", 3), ("B", 7), ("A", None)]
    assert got[2][4] is ov and got[0][4] is None
