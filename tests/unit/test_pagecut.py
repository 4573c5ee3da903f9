"""Where a search page ends (stratum.pagecut): at the first item past MIN_ITEMS under CLIFF x the first."""

from __future__ import annotations

from stratum.pagecut import CLIFF, MIN_ITEMS, page_end


def test_a_page_ends_before_the_first_item_under_the_cliff_past_the_minimum():
    assert page_end([1.0, 0.9, 0.6, 0.5, 0.4]) == 3        # 0.5 < 0.55
    assert page_end([1.0, 0.2, 0.1]) == MIN_ITEMS           # the minimum is kept whatever it scores
    assert page_end([0.05, 0.049, 0.048, 0.03]) == 4        # flat scores: the whole page


def test_short_or_scoreless_pages_are_whole():
    assert page_end([]) == 0
    assert page_end([1.0]) == 1
    assert page_end([1.0, 0.01]) == 2                       # a page of two is never cut
    assert page_end([0.0, 0.0, 0.0]) == 3                   # no score to measure a drop against


def test_the_defaults_are_the_fitted_point():
    assert (CLIFF, MIN_ITEMS) == (0.55, 2)                   # benchmarks/page_cliff.py's choice on the past
    assert page_end([1.0, 0.9, 0.6, 0.5], cliff=0.4, min_items=1) == 4
    assert page_end([1.0, 0.9, 0.6, 0.5], cliff=0.95, min_items=1) == 1
