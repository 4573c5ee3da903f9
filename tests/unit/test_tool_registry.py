"""The tools are defined once: names, order and read-only/writing markers derive from ``@tool``."""

from __future__ import annotations

import inspect

import stratum.tools as T

AGENT_TOOLS = ("tree", "search", "get", "walk", "remember", "pin", "unpin", "prefetch", "status")


def test_tool_names_and_markers_derive_from_the_registry():
    assert T.TOOL_NAMES == AGENT_TOOLS
    assert T.READ_ONLY == {"tree", "search", "get", "walk", "status"}
    assert T.WRITING == {"remember", "pin", "unpin", "prefetch", "open_session", "close_session", "retract", "confirm"}
    assert not T.READ_ONLY & T.WRITING
    assert {s.name for s in T.TOOLS} == T.READ_ONLY | T.WRITING


def test_every_tool_is_a_documented_method_taking_the_session_first():
    for spec in T.TOOLS:
        method = getattr(T.Tools, spec.name)
        params = list(inspect.signature(method).parameters)
        assert inspect.getdoc(method), spec.name
        if spec.name != "open_session":
            assert params[:2] == ["self", "session"], spec.name


def test_public_surface():
    assert {"Tools", "Session", "READ_ONLY", "WRITING", "TOOL_NAMES", "MAX_QUERY_CHARS", "MAX_PAGE_SIZE",
            "DEFAULT_BUDGET"} <= set(T.__all__)
    for name in T.__all__:
        assert hasattr(T, name), name
