"""The served search list read through its pages, as a client pages it: a search page may end
before its size where the evidence drops (stratum.pagecut), so one big page is not the whole list."""

from __future__ import annotations

from stratum.render import CLIFF_HINT


def search_all(tools, session: str, query: str, limit: int = 50, **kw) -> tuple[list, bool]:
    """(the first ``limit`` items of the served list, whether more follow), page after page."""
    items: list = []
    token, more = "", False
    while len(items) < limit:
        r = tools.search(session, query, page_size=limit, page_token=token, **kw)
        items += r.items
        more = r.envelope.has_more
        if not more:
            break
        token = r.envelope.next_page_token
    return items[:limit], more or len(items) > limit


def cut_at_the_cliff(hint: str) -> bool:
    """Whether a page's next_hint says it ended where the evidence drops (not by the budget)."""
    return hint.startswith(CLIFF_HINT)
