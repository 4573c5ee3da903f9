"""Cutting a page to the budget, in the pure parts: which leading items a controller admits, and
page numbers that stay in order once an offset leaves the page grid."""

from __future__ import annotations

import pytest

from stratum.controller import Controller, RecordGraph
from stratum.envelope import Item, Offset, PageTokens, paged
from stratum.errors import BudgetExceeded
from stratum.policies import ScorePolicy
from stratum.render import admit


def _items(*tokens: int) -> list[Item]:
    return [Item(id=f"n{i}", kind="function", path="a.py", qualname=f"f{i}", tokens=t) for i, t in enumerate(tokens)]


def _ctl(budget: int) -> Controller:
    return Controller(budget, ScorePolicy(), RecordGraph([]))


def test_the_longest_leading_run_that_fits_is_admitted():
    ctl = _ctl(100)
    res, kept = admit(ctl, _items(30, 30, 30, 30, 5), cut=True)
    assert [it.id for it in kept] == ["n0", "n1", "n2"] and ctl.budget().used == 90
    assert [a.node_id for a in res.admitted] == ["n0", "n1", "n2"]


def test_items_already_held_cost_nothing_and_the_batch_is_never_its_own_victim():
    ctl = _ctl(100)
    admit(ctl, _items(30, 30), cut=True)
    # n0 and n1 are held (they add nothing) but cannot make room for the rest of their own page
    _, kept = admit(ctl, _items(30, 30, 30, 30, 30), cut=True)
    assert [it.id for it in kept] == ["n0", "n1", "n2"] and ctl.budget().used == 90


def test_an_item_held_at_summary_and_asked_at_api_costs_what_it_adds():
    """n0 is held at summary (10 tokens, pinned: it cannot make room) and the page asks it at api
    (40): it adds 30, so the first three items fit the 100 tokens exactly and the fourth does not.
    (The estimate that counted n0 at 40 admitted one item fewer.)"""
    ctl = _ctl(100)
    ctl.admit([("n0", "summary", 10)])
    ctl.pin("n0")
    page = _items(40, 30, 30, 5)
    page[0].level = "api"
    res, kept = admit(ctl, page, cut=True)
    assert [it.id for it in kept] == ["n0", "n1", "n2"]
    assert res.count == 3
    assert ctl.budget().used == 100 and ctl.level_of("n0") == "api"


def test_not_even_the_first_fits_says_what_the_items_cost():
    ctl = _ctl(20)
    with pytest.raises(BudgetExceeded, match=r"function a.py::f0 costs 25 tokens \(the smallest on the page 3\)"):
        admit(ctl, _items(25, 3), cut=True)
    assert ctl.budget().used == 0


def test_an_answer_that_is_not_a_page_is_never_cut():
    with pytest.raises(BudgetExceeded, match="this response needs 130 more tokens"):
        admit(_ctl(100), _items(65, 65), cut=False)


def test_page_numbers_after_a_cut():
    assert paged(20, 10, 10) == (2, 2)                        # on the grid: as before
    assert paged(20, 4, 10, returned=10) == (2, 3)            # off it: the next page, and what remains
    assert paged(20, Offset(14, 3), 10, returned=6) == (3, 3)  # the token knows its page
    assert paged(20, Offset(14, 3), 10, lower_bound=True) == (3, 0)
    tokens = PageTokens(b"k" * 32)
    off = tokens.check(tokens.issue(tool="tree", args={}, offset=14, version=1, session="s", page=3),
                       tool="tree", args={}, version=1, session="s")
    assert (off, off.page, off + 1) == (14, 3, 15)
    plain = tokens.check(tokens.issue(tool="tree", args={}, offset=10, version=1, session="s"),
                         tool="tree", args={}, version=1, session="s")
    assert (plain, plain.page) == (10, 0)
