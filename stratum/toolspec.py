"""The tools' registry: each ``Tools`` method marked ``@tool`` once, in definition order, and what
the adapters derive from it (``tools.TOOLS``, ``TOOL_NAMES``, ``READ_ONLY``, ``WRITING``: the MCP
tool list and read-only hints, the gRPC method map), and ``ARGS``: the closed sets and bounds of the
tools' arguments, which an adapter can publish (the MCP input schemas' enums and minimum/maximum,
the CLI's choices) while the tools still check every value themselves: a bound here is checked by
``tool`` on every call, so no adapter can admit what another refuses."""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass

from stratum import schema as S
from stratum.limits import MAX_BUDGET, MAX_DEPTH, MAX_PAGE_SIZE, check_range
from stratum.notethreads import searching


@dataclass(frozen=True)
class ToolSpec:
    name: str
    writes: bool            # False: never changes anything (MCP read-only hint)
    agent: bool = True      # one of the agent tools (session management is not)


_SPECS: list[ToolSpec] = []


def tool(*, writes: bool, agent: bool = True):
    """Mark a ``Tools`` method as a tool (definition order is the tools' order). A reading tool runs
    as a search in flight (``notethreads.searching``): background note work waits between its steps.
    Every bounded argument (``ARGS``) given is checked first: the bounds are the wire's, so a value
    the local tools took (depth 2**31) is refused as gRPC refuses it (a probe)."""
    def mark(fn):
        _SPECS.append(ToolSpec(fn.__name__, writes, agent))
        bounded = _bounded(fn)
        if writes and not bounded:
            return fn

        @functools.wraps(fn)
        def call(*args, **kwargs):
            for name, at, spec in bounded:
                value = kwargs[name] if name in kwargs else args[at] if at < len(args) else None
                if value is not None:       # None: the tool's default (budget: the session's)
                    check_range(name, value, spec.minimum, spec.maximum)
            if writes:
                return fn(*args, **kwargs)
            with searching:
                return fn(*args, **kwargs)
        return call
    return mark


def _bounded(fn) -> list[tuple[str, int, ArgSpec]]:
    """The bounded ``ARGS`` among ``fn``'s parameters: (name, position counting ``self``, spec)."""
    params = list(inspect.signature(fn).parameters)
    return [(p, i, ARGS[p]) for i, p in enumerate(params)
            if p in ARGS and (ARGS[p].minimum is not None or ARGS[p].maximum is not None)]


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
    "kinds": ArgSpec(choices=S.SEARCH_KINDS),                # search's filter
    "kind": ArgSpec(choices=S.AGENT_NOTE_KINDS),             # remember (notes.validate)
    "edges": ArgSpec(choices=S.WALK_EDGE_KINDS),             # walk
    "direction": ArgSpec(choices=S.DIRECTIONS),                # walk
    "page_size": ArgSpec(minimum=1, maximum=MAX_PAGE_SIZE),  # limits.check_page
    "depth": ArgSpec(minimum=1, maximum=MAX_DEPTH),          # tree (checked by ``tool``)
    "budget": ArgSpec(minimum=1, maximum=MAX_BUDGET),        # prefetch, open_session: tokens (``tool``)
}


__all__ = ["ToolSpec", "tool", "ArgSpec", "ARGS"]
