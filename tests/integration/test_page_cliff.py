"""A search page ends where the evidence drops (stratum.pagecut): a note lifting its target leaves
the text-only neighbours for the next page, the hint says so, and the pages together are the list."""

from __future__ import annotations

import shutil

import pytest

from stratum import pagecut
from stratum.rankplace import EXACT_NAME
from stratum.render import CLIFF_HINT
from stratum.tools import Tools

QUERY = "discount cart total"


@pytest.fixture
def tools(indexed_store, tmp_path):
    copy = tmp_path / "store"           # remember writes the delta log: keep the shared store clean
    shutil.copytree(indexed_store[1], copy)
    t = Tools.open([str(copy)])
    yield t
    t.close()


def _pages(t: Tools, sid: str, size: int) -> list[list]:
    pages, token = [], ""
    while True:
        r = t.search(sid, QUERY, page_size=size, page_token=token)
        pages.append(r)
        if not r.envelope.has_more or len(pages) > 20:
            return pages
        token = r.envelope.next_page_token


def test_a_lifted_page_is_short_says_why_and_its_pages_are_the_whole_list(tools):
    t = tools
    s = t.open_session(author="agent").data["session"]
    t.remember(s, "rca", "discount cart total off by a cent: the discount rounds before the sum",
               about=["shop/pricing.py::discount"])
    reader = t.open_session(author="reader").data["session"]
    cut = _pages(t, reader, 10)
    first = cut[0]
    lifted = [it for it in first.items if it.qualname == "discount"]
    assert lifted and "rca note" in lifted[0].why        # the note's target, lifted onto the short page
    assert pagecut.MIN_ITEMS <= len(first.items) < 10 and first.envelope.has_more
    assert first.envelope.next_hint.startswith(f"{CLIFF_HINT} (the next items score under {pagecut.CLIFF:g} ")
    top = first.items[0].score      # past the minimum every item served holds the cliff; the next one not
    assert top < EXACT_NAME         # nothing the query placed (an exact name, a frame): the drop is from the first
    assert all(it.score >= pagecut.CLIFF * top for it in first.items[pagecut.MIN_ITEMS:])
    assert cut[1].items[0].score < pagecut.CLIFF * top
    # only the first page ends early: an agent that asks for more gets whole pages, counted right
    assert all(len(r.items) == 10 for r in cut[1:-1]) and 1 <= len(cut[-1].items) <= 10
    assert [(r.envelope.page, r.envelope.pages) for r in cut] == [(k, len(cut)) for k in range(1, len(cut) + 1)]
    # pages of MIN_ITEMS are never cut: both readings serve one list, every item once, in order
    whole = [it.id for r in _pages(t, t.open_session(author="r2").data["session"], pagecut.MIN_ITEMS)
             for it in r.items]
    assert [it.id for r in cut for it in r.items] == whole and len(set(whole)) == len(whole)
    assert [r.envelope.page for r in cut] == list(range(1, len(cut) + 1))
    # the page costs what it holds: fewer tokens than the first ten items of the list
    ten = [it for r in _pages(t, t.open_session(author="r3").data["session"], pagecut.MIN_ITEMS)
           for it in r.items][:10]
    assert first.envelope.tokens_returned < sum(it.tokens for it in ten)


def test_what_the_query_placed_is_never_cut(tools):
    """A pasted traceback's frames (scored from rankplace.FRAME_SCORE) and a name the query spells
    (from EXACT_NAME) stay on the first page together: the drop is measured after them (a probe:
    the raised exception's class went to page 2 because frames score ~4x higher)."""
    t = tools
    s = t.open_session(author="reader").data["session"]
    tb = ('Traceback (most recent call last):\n  File "/srv/app/shop/cart.py", line 9, in total\n'
          '    return discount(t)\n  File "/srv/app/shop/pricing.py", line 2, in discount\n'
          '    raise KeyError(sku)\nKeyError: \'sku\'\n')
    first = t.search(s, tb)
    placed = [it for it in first.items if it.score >= EXACT_NAME]
    assert placed and first.items[:len(placed)] == placed
    if first.envelope.has_more:
        nxt = t.search(s, tb, page_token=first.envelope.next_page_token).items
        assert all(it.score < EXACT_NAME for it in nxt)      # nothing placed was left for page 2
