"""Where a search's first page ends (stratum.pagecut): past MIN_ITEMS, at the first item under CLIFF x
the first one the query did not place."""

from __future__ import annotations

import json
from pathlib import Path

from stratum.pagecut import CLIFF, MIN_ITEMS, page_end
from stratum.rankplace import EXACT_NAME


def test_a_page_ends_before_the_first_item_under_the_cliff_past_the_minimum():
    assert page_end([0.5, 0.45, 0.3, 0.28, 0.25, 0.2], min_items=2) == 4    # 0.25 < 0.55 x 0.5
    assert page_end([0.9, 0.2, 0.1, 0.05]) == MIN_ITEMS     # the minimum is kept whatever it scores
    assert page_end([0.05, 0.049, 0.048, 0.03]) == 4        # flat scores: the whole page


def test_short_or_scoreless_pages_are_whole():
    assert page_end([]) == 0
    assert page_end([0.9]) == 1
    assert page_end([0.9, 0.01, 0.01]) == 3                 # a page of MIN_ITEMS is never cut
    assert page_end([0.0, 0.0, 0.0]) == 3                   # no score to measure a drop against


def test_the_defaults_are_the_point_the_fit_chose():
    fit = json.loads((Path(__file__).parents[2] / "benchmarks" / "results" / "page_cliff.json").read_text())
    assert (CLIFF, MIN_ITEMS) == (fit["chosen"]["cliff"], fit["chosen"]["min_items"])   # page_cliff.py, past window
    assert page_end([0.9, 0.8, 0.6, 0.5], cliff=0.4, min_items=1) == 4
    assert page_end([0.9, 0.8, 0.6, 0.5], cliff=0.95, min_items=1) == 1


def test_what_the_query_placed_is_kept_and_the_drop_is_measured_after_it():
    frames = [5.0, 4.5, 4.33, 4.03]
    named = EXACT_NAME + 0.05
    assert page_end(frames + [named, 0.06, 0.05, 0.01]) == 7          # 0.01 < 0.55 x 0.06
    assert page_end([1.19, 0.1355, 0.0685, 0.06], min_items=2) == 2    # an exact name, one more, the drop
    assert page_end(frames + [0.06, 0.01]) == 5                        # the first unplaced item is kept
