"""A search page ends where the evidence drops (stratum.pagecut): a note lifting its target leaves
the text-only neighbours for the next page, the hint says so, and the pages together are the list."""

from __future__ import annotations

import shutil

import pytest

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
    assert 2 <= len(first.items) < 10 and first.envelope.has_more
    assert first.envelope.next_hint.startswith("this page ends where the evidence drops (the next items "
                                               "score under 0.55 of its first); page 2")
    top = first.items[0].score
    assert all(it.score >= 0.55 * top for it in first.items[1:]), [it.score for it in first.items]
    # pages of two are never cut: both readings serve one list, every item once, in order
    whole = [it.id for r in _pages(t, t.open_session(author="r2").data["session"], 2) for it in r.items]
    assert [it.id for r in cut for it in r.items] == whole and len(set(whole)) == len(whole)
    assert [r.envelope.page for r in cut] == list(range(1, len(cut) + 1))
    # the page costs what it holds: fewer tokens than the first ten items of the list
    assert first.envelope.tokens_returned < sum(it.tokens for r in _pages(t, reader, 2)[:5] for it in r.items)
