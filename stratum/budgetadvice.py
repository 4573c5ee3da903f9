"""What the controller says when an admission runs short of the budget: the warning of one that fits
the limit but not the reserve, and the ``BudgetExceeded`` message of one that does not fit at all.

The advice names only what the agent's own tools can do (``stratum.toolspec``: tree, search, get,
walk, remember, pin, unpin, prefetch, status): read a shorter line range, ask ``get`` for a lower
detail level, unpin what is pinned. It said "ask for a lower detail level or a smaller page, unpin
nodes, narrow the focus" to a line range that has no lower level and no page, with nothing pinned,
and no agent tool narrows the focus (a probe). A session's budget is set when it is opened, which is
not the agent's tool, so a larger one is said as a fact, last.

Why apart from ``stratum.controller``: wording over numbers the controller has counted, with no
state of its own.
"""

from __future__ import annotations

from typing import Mapping

from stratum.schema import LEVELS, RANGE_MARK


def last_resort_note(hops: set[int | None]) -> str | None:
    """The warning of an admission whose evictions went below api as a last resort: ``hops`` of the
    entries that did (0: the focus files' own, such as their lines read; 1: their neighbours)."""
    who = " and ".join(w for w, h in (("focus files", 0), ("focus neighbours", 1)) if h in hops)
    return f"the budget ran out: {who} were demoted below api as a last resort" if who else None


def reserve_note(free: int, short: int, reserve: int, pinned: int, mine: int, kept: int, policy: str) -> str:
    """The warning of an admission that fits the limit but leaves less than the reserve free."""
    return (f"free budget {free} tokens is {short} below the {reserve}-token reserve and nothing more may "
            f"be evicted: {pinned} tokens pinned, {mine} in this response, {kept} kept by the {policy} policy")


def overrun_message(*, limit: int, delta: int, over: int, why: str, pinned: int,
                    asked: Mapping[str, str], page: bool, notes: int = 0) -> str:
    """What did not fit (``why``: what holds the budget) and what the agent can do about it.
    ``asked``: node id (``<id>#L<a>-<b>`` for a line range) -> level of each item that adds tokens;
    ``page``: a page cut to the budget whose first item alone does not fit, so neither a smaller
    page nor a level (a page's rows have one) is advice. ``notes``: the tokens of the notes the items
    carry (at every level: a file's summary with 290 of its 316 tokens in notes was refused
    without a word of them, a probe; prefetch says it of a focus file, ``render.focus_left_out``)."""
    ranges = any(RANGE_MARK in n for n in asked)
    lower = not page and any(RANGE_MARK not in n and lvl != LEVELS[0] for n, lvl in asked.items())
    advice = (["unpin what you no longer need"] if pinned else []) \
        + (["read a shorter line range"] if ranges else []) \
        + (["ask for a lower detail level"] if lower else [])
    carried = f" ({notes} of them the notes its items carry, at any level)" if notes else ""
    head = (f"this response needs {delta} more tokens{carried} but the session budget of {limit} tokens cannot "
            f"hold it: {why}; {over} tokens over the limit")
    if not advice:
        return f"{head}. It needs a session with a larger budget"
    return f"{head}. To make it fit: {'; or '.join(advice)}; else it needs a session with a larger budget"


__all__ = ["last_resort_note", "reserve_note", "overrun_message"]
