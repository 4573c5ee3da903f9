"""The tools' registry: each ``Tools`` method marked ``@tool`` once, in definition order, and what
the adapters derive from it (``tools.TOOLS``, ``TOOL_NAMES``, ``READ_ONLY``, ``WRITING``: the MCP
tool list and read-only hints, the gRPC method map)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

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


__all__ = ["ToolSpec", "tool"]
