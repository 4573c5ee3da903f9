"""The tools' registry: each ``Tools`` method marked ``@tool`` once, in definition order, and what
the adapters derive from it (``tools.TOOLS``, ``TOOL_NAMES``, ``READ_ONLY``, ``WRITING``: the MCP
tool list and read-only hints, the gRPC method map), and ``ARGS``: the closed sets and bounds of the
tools' arguments, which an adapter can publish (the MCP input schemas' enums and minimum/maximum,
the CLI's choices) while the tools still check every value themselves: a bound here is checked by
``tool`` on every call, so no adapter can admit what another refuses. A string argument's longest
value (``max_chars``) is checked there too, by ``check_arg``, which the gRPC server's door
(``serving.convert.check_request``) calls as well: one limit per argument, refused with one code and
the same words on every surface (the door gave ``lines`` 1024 characters where get allows 32, and
said "kinds has 65 values" where the tool said "entries": a probe)."""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import cast

from stratum import schema as S
from stratum.limits import (MAX_BUDGET, MAX_DEPTH, MAX_NAME_CHARS, MAX_PAGE_SIZE, MAX_PAGE_TOKEN_CHARS,
                            MAX_TARGET_CHARS, MAX_TRACEBACK_CHARS, check_len, check_list, check_range)
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
    Every bounded argument (``ARGS``) given is checked first (``check_arg``): the bounds are the
    wire's, so a value the local tools took (depth 2**31) is refused as gRPC refuses it (a probe)."""
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
                    check_arg(name, value, spec)
            if writes:
                return fn(*args, **kwargs)
            with searching:
                return fn(*args, **kwargs)
        return call
    return mark


def _bounded(fn) -> list[tuple[str, int, ArgSpec]]:
    """The bounded ``ARGS`` among ``fn``'s parameters: (name, position counting ``self``, spec)."""
    params = list(inspect.signature(fn).parameters)
    return [(p, i, ARGS[p]) for i, p in enumerate(params) if p in ARGS and ARGS[p].bounded]


def check_arg(name: str, value: object, spec: ArgSpec) -> None:
    """InvalidArgument when ``value`` is outside ``spec``'s bounds (its choices are the tool's to check)."""
    if spec.max_chars is None:
        check_range(name, value, spec.minimum, spec.maximum)
    elif spec.items:
        check_list(name, value, spec.max_chars)
    else:
        check_len(name, cast(str, value), spec.max_chars)    # it refuses a value that is not text


@dataclass(frozen=True)
class ArgSpec:
    """What values a tool argument takes, beyond its type: one of ``choices`` (for a list argument,
    each item), an integer from ``minimum`` to ``maximum`` (None: unbounded on that side), or a
    string of at most ``max_chars`` characters (``items``: a list of at most ``limits.MAX_TARGETS``
    such strings)."""
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    max_chars: int | None = None
    items: bool = False

    @property
    def bounded(self) -> bool:
        """Checked by ``tool`` (``check_arg``) on every call."""
        return self.minimum is not None or self.maximum is not None or self.max_chars is not None


MAX_LINES_CHARS = 32          # get's lines: "START-END", 9 digits each, with spaces around the dash


# By parameter name: a name means the same thing in every tool that takes it (page_size in tree,
# search and walk). Each entry is a constant the tools check against, never a copy of it; that the
# tools' own checks accept exactly these is tested (tests/integration/test_mcp_schema.py).
ARGS: dict[str, ArgSpec] = {
    "level": ArgSpec(choices=S.LEVELS),                      # get
    "kinds": ArgSpec(choices=S.SEARCH_KINDS, max_chars=MAX_NAME_CHARS, items=True),       # search's filter
    "kind": ArgSpec(choices=S.AGENT_NOTE_KINDS, max_chars=MAX_NAME_CHARS),  # remember (notes.validate)
    "edges": ArgSpec(choices=S.WALK_EDGE_KINDS, max_chars=MAX_NAME_CHARS, items=True),    # walk
    "direction": ArgSpec(choices=S.DIRECTIONS),                # walk
    "page_size": ArgSpec(minimum=1, maximum=MAX_PAGE_SIZE),  # limits.check_page
    "depth": ArgSpec(minimum=1, maximum=MAX_DEPTH),          # tree (checked by ``tool``)
    "budget": ArgSpec(minimum=1, maximum=MAX_BUDGET),        # prefetch, open_session: tokens (``tool``)
    # strings (a list's: each item), checked by ``tool``; a session id is the sessions' own
    # (``sessions.SessionRegistry``), a note's text the note rules' (``notes.validate``)
    "target": ArgSpec(max_chars=MAX_TARGET_CHARS),           # get, walk, pin, unpin
    "path": ArgSpec(max_chars=MAX_TARGET_CHARS),             # tree
    "query": ArgSpec(max_chars=MAX_TRACEBACK_CHARS),         # search: a pasted traceback (its text: MAX_QUERY_CHARS)
    "path_prefix": ArgSpec(max_chars=MAX_TARGET_CHARS),      # search
    "language": ArgSpec(max_chars=MAX_NAME_CHARS),           # search
    "lines": ArgSpec(max_chars=MAX_LINES_CHARS),             # get (linerange.parse)
    "page_token": ArgSpec(max_chars=MAX_PAGE_TOKEN_CHARS),   # tree, search, walk (envelope.PageTokens)
    "about": ArgSpec(max_chars=MAX_TARGET_CHARS, items=True),        # remember
    "tags": ArgSpec(max_chars=MAX_NAME_CHARS, items=True),           # remember
    "supersedes": ArgSpec(max_chars=MAX_TARGET_CHARS, items=True),   # remember
    "focus": ArgSpec(max_chars=MAX_TARGET_CHARS, items=True),        # prefetch
    "author": ArgSpec(max_chars=MAX_NAME_CHARS),             # open_session
    "model": ArgSpec(max_chars=MAX_NAME_CHARS),              # open_session
    "policy": ArgSpec(max_chars=MAX_NAME_CHARS),             # open_session
    "branch": ArgSpec(max_chars=MAX_TARGET_CHARS),           # open_session
    "commit": ArgSpec(max_chars=MAX_TARGET_CHARS),           # open_session
    "worktree": ArgSpec(max_chars=MAX_TARGET_CHARS),         # open_session
    "note_id": ArgSpec(max_chars=MAX_TARGET_CHARS),          # retract, confirm
    "reason": ArgSpec(max_chars=MAX_TARGET_CHARS),           # retract
}


__all__ = ["ToolSpec", "tool", "ArgSpec", "ARGS", "check_arg", "MAX_LINES_CHARS"]
