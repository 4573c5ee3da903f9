"""The tools' registry: each ``Tools`` method marked ``@tool`` once, in definition order, and what
the adapters derive from it (``tools.TOOLS``, ``TOOL_NAMES``, ``READ_ONLY``, ``WRITING``: the MCP
tool list and read-only hints, the gRPC method map), and ``ARGS``: the closed sets and bounds of the
tools' arguments, which an adapter can publish (the MCP input schemas' enums and minimum/maximum,
the CLI's choices) while the tools still check every value themselves."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from stratum import schema as S
from stratum.graph import DIRECTIONS
from stratum.limits import MAX_PAGE_SIZE
from stratum.notethreads import searching


@dataclass(frozen=True)
class ToolSpec:
    name: str
    writes: bool            # False: never changes anything (MCP read-only hint)
    agent: bool = True      # one of the agent tools (session management is not)


_SPECS: list[ToolSpec] = []


def tool(*, writes: bool, agent: bool = True):
    """Mark a ``Tools`` method as a tool (definition order is the tools' order). A reading tool runs
    as a search in flight (``notethreads.searching``): background note work waits between its steps."""
    def mark(fn):
        _SPECS.append(ToolSpec(fn.__name__, writes, agent))
        if writes:
            return fn

        @functools.wraps(fn)
        def read(*args, **kwargs):
            with searching:
                return fn(*args, **kwargs)
        return read
    return mark


@dataclass(frozen=True)
class ArgSpec:
    """What values a tool argument takes, beyond its type: one of ``choices`` (for a list argument,
    each item), or an integer from ``minimum`` to ``maximum`` (None: unbounded on that side)."""
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None


# By parameter name: a name means the same thing in every tool that takes it (page_size in tree,
# search and walk). Each entry is a constant the tools check against, never a copy of it; that the
# tools' own checks accept exactly these is tested (tests/integration/test_mcp_schema.py).
ARGS: dict[str, ArgSpec] = {
    "level": ArgSpec(choices=S.LEVELS),                      # get
    "kinds": ArgSpec(choices=S.NODE_KINDS),                  # search's filter
    "kind": ArgSpec(choices=S.AGENT_NOTE_KINDS),             # remember (notes.validate)
    "edges": ArgSpec(choices=S.WALK_EDGE_KINDS),             # walk
    "direction": ArgSpec(choices=DIRECTIONS),                # walk
    "page_size": ArgSpec(minimum=1, maximum=MAX_PAGE_SIZE),  # limits.check_page
    "depth": ArgSpec(minimum=1),                             # tree
    "budget": ArgSpec(minimum=1),                            # prefetch, open_session: tokens
}


__all__ = ["ToolSpec", "tool", "ArgSpec", "ARGS"]
