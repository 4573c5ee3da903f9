"""Request limits: the one place that says how large an argument may be, checked before use.

Every adapter and tool reads these; a value over a limit is an InvalidArgument whose message quotes
at most ``ECHO_CHARS`` of the input (a 500 KB id must not come back in an error header).
"""

from __future__ import annotations

from stratum.errors import InvalidArgument

MAX_QUERY_CHARS = 2000        # search text (a paragraph; longer queries dilute BM25 and the vector)
MAX_TARGET_CHARS = 1024       # a node id, path or path::Qualified.name
MAX_TARGETS = 64              # targets in one call (focus, about)
MAX_SESSION_ID_CHARS = 64     # server-issued ids are 32 hex characters
MAX_NAME_CHARS = 128          # author, model, identity names
MAX_PAGE_SIZE = 200
MAX_PAGE_TOKEN_CHARS = 1024
ECHO_CHARS = 80               # how much of a bad value an error message may repeat


def echo(value: object) -> str:
    """A short, printable prefix of a value for an error message."""
    s = str(value)
    s = "".join(ch if ch.isprintable() else "?" for ch in s[:ECHO_CHARS])
    return s + ("..." if len(str(value)) > ECHO_CHARS else "")


def check_len(what: str, value: str | None, limit: int) -> str:
    """``value`` (None counts as empty) when it is at most ``limit`` characters; InvalidArgument otherwise."""
    v = value or ""
    if not isinstance(v, str):
        raise InvalidArgument(f"{what} must be text")
    if len(v) > limit:
        raise InvalidArgument(f"{what} is {len(v)} characters; the limit is {limit} ({echo(v)!r})")
    return v


__all__ = ["MAX_QUERY_CHARS", "MAX_TARGET_CHARS", "MAX_TARGETS", "MAX_SESSION_ID_CHARS", "MAX_NAME_CHARS",
           "MAX_PAGE_SIZE", "MAX_PAGE_TOKEN_CHARS", "ECHO_CHARS", "echo", "check_len"]
