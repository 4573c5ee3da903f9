"""Whether the caller still waits for this call's answer (a gRPC deadline passed, a cancel).

Why: a read's answer is charged to its session when the controller admits it, and an admit may
evict or demote what the agent holds; an answer the caller never receives must do neither (a
probe: a Get past its 4 ms deadline was charged 14,035 tokens, evicted a file the agent held, and
its retry came back "already in context"). The serving adapter says how to ask
(``awaited_by(context.is_active)``); the controller asks once, under its lock, right before it
commits. An answer lost after that moment (on the wire) is still charged: the window left is the
sending alone. Elsewhere (CLI, MCP, in-process) nothing is set and every call is awaited.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

_check: ContextVar[Callable[[], bool] | None] = ContextVar("stratum_delivery", default=None)


def awaited() -> bool:
    """False only when this call's adapter said how to ask and the caller is gone."""
    check = _check.get()
    return check is None or bool(check())


@contextmanager
def awaited_by(check: Callable[[], bool]) -> Iterator[None]:
    """Within: ``awaited()`` asks ``check`` (the calling thread's context only)."""
    token = _check.set(check)
    try:
        yield
    finally:
        _check.reset(token)


__all__ = ["awaited", "awaited_by"]
