"""Where a search's first page ends: at the evidence cliff, not always at ``page_size``.

A page of ten costs an agent ~300 tokens whatever it holds. When memory vouches strongly for the
first items (a note's target, a file past fixes touched), the items scoring under CLIFF of the
first are mostly neighbours the agent reads and discards: they wait for the next page (has_more;
the hint says why). Plain text rankings have drops too: on the benchmark's past tasks 67% of first
pages are cut with code only (median 7 items), 89% with agent notes (median 4). Items the query itself placed (an exact name, a name the query spells, a
traceback's frames: ``rankplace`` scores them from EXACT_NAME up, above every fused score) are
never cut, and the drop is measured from the first item after them. Only the first page is cut:
an agent that asks for more gets whole pages. The order never changes, only where page 1 ends.
Fitted on the three benchmark repositories' past window only (``benchmarks/page_cliff.py``: the
grid point with the lowest median tokens to the answer with notes over code only, MRR kept;
docs/bench/retrieval.md, "Session 29")."""

from __future__ import annotations

from typing import Sequence

from stratum.rankplace import EXACT_NAME

__all__ = ["CLIFF", "MIN_ITEMS", "page_end"]

CLIFF = 0.55        # an item under this share of the first (unplaced) score starts the next page
MIN_ITEMS = 3       # a first page keeps at least this many items (or all it has)


def page_end(scores: Sequence[float], *, cliff: float | None = None, min_items: int | None = None) -> int:
    """How many of a first page's candidate ``scores`` (best first, at most the page size) to
    serve: the leading placed items (from EXACT_NAME up) whole, then up to the first item past
    ``min_items`` whose score falls under ``cliff`` times the first unplaced one's (the module's
    CLIFF and MIN_ITEMS, read per call)."""
    cliff = CLIFF if cliff is None else cliff
    min_items = MIN_ITEMS if min_items is None else min_items
    placed = next((i for i, x in enumerate(scores) if x < EXACT_NAME), len(scores))
    rest = scores[placed:]
    if not rest or rest[0] <= 0:
        return len(scores)
    floor = cliff * rest[0]
    for i in range(max(min_items - placed, 1), len(rest)):
        if rest[i] < floor:
            return placed + i
    return len(scores)
