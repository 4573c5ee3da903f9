"""Where a search page ends: at the evidence cliff, not always at ``page_size``.

A page of ten costs an agent ~300 tokens whatever it holds. When memory vouches strongly for the
first items (a note's target, a file past fixes touched, an exact name), the items scoring under
0.55 of the page's first are mostly text-only neighbours the agent reads and discards: they wait
for the next page (has_more; the hint says why). Flat text scores (plain hybrid ranking) are cut
less often. The order never changes, only where pages break. Fitted on the three benchmark
repositories' past window only (``benchmarks/page_cliff.py``: the grid point with the lowest
median tokens to the answer with notes over code only, MRR kept; docs/bench/retrieval.md,
"Session 29")."""

from __future__ import annotations

from typing import Sequence

__all__ = ["CLIFF", "MIN_ITEMS", "page_end"]

CLIFF = 0.55        # an item under this share of the page's first score starts the next page
MIN_ITEMS = 2       # a page keeps at least this many items (or all it has)


def page_end(scores: Sequence[float], *, cliff: float | None = None, min_items: int | None = None) -> int:
    """How many of a page's candidate ``scores`` (best first, already at most the page size) to
    serve: all of them, or up to the first item past ``min_items`` whose score falls under
    ``cliff`` times the first's (the module's CLIFF and MIN_ITEMS, read per call)."""
    cliff = CLIFF if cliff is None else cliff
    min_items = MIN_ITEMS if min_items is None else min_items
    if not scores or scores[0] <= 0:
        return len(scores)
    floor = cliff * scores[0]
    for i in range(min_items, len(scores)):
        if scores[i] < floor:
            return i
    return len(scores)
