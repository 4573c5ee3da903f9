"""Who is calling: the identity an adapter authenticated, carried to the tools for one call.

Authors of notes and owners of sessions are identities, never request fields. An adapter decides
who the caller is (the gRPC server from a bearer token or an mTLS client certificate; the local
CLI and MCP-over-stdio from the OS user) and runs the tool call inside ``acting_as(identity)``;
the tools read ``current()``. A context variable (not a tool parameter) keeps the tool signatures,
and so the MCP schemas derived from them, free of transport concerns, and each gRPC worker thread
sees only its own caller.

Roles: ``maintainer`` may supersede or retract other identities' notes; everyone may write notes
and manage their own sessions. The local CLI's OS user holds it; MCP over stdio's only when asked.

The *reader* is whose notes a call may see beyond everyone's (quarantined ones: only their author
sees them): the author of the session the call uses, as (name, proven). It is not always the
caller: an open server's caller is ``anonymous`` and MCP over stdio's the OS user, while their
sessions write notes as the author they name, and a note written as "bob" must be seen by the
session that wrote it (a probe: its own note was NotFound to it). ``SessionRegistry.get`` sets
it for the rest of the call (``reading_as``); ``acting_as`` scopes it to one call.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import getpass
from dataclasses import dataclass, field
from typing import Iterator

MAINTAINER = "maintainer"
MAX_NAME_CHARS = 128


@dataclass(frozen=True)
class Identity:
    name: str                                   # e.g. "alice", "ci-bot", "os:builder"
    roles: frozenset[str] = field(default_factory=frozenset)
    # True when the server proved it (token, mTLS). False for the OS user too, who is proven by the OS
    # (method "local"): its notes say so by their maintainer flag (``notetrust.identified_by``)
    authenticated: bool = False
    method: str = "local"                       # "token", "mtls", "local", "anonymous"

    @property
    def is_maintainer(self) -> bool:
        return MAINTAINER in self.roles


@functools.lru_cache(maxsize=2)
def os_user(maintainer: bool = True) -> Identity:
    """The local CLI acts as the OS user running it (who owns the store's files anyway), a
    maintainer: a human at the terminal. MCP over stdio acts as that user too, but an agent, which
    may be steered by any file it read, holds the role only when the operator gives it
    (``maintainer=False``: `stratum mcp` without ``--maintainer``); as a maintainer its notes were
    never quarantined, ranked first and could supersede anyone's (a probe). Cached: a process keeps
    its user, and the passwd lookup cost more than a whole ``get`` (~20 us)."""
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = "unknown"
    return Identity(name=f"os:{name}"[:MAX_NAME_CHARS], roles=frozenset({MAINTAINER}) if maintainer else frozenset(),
                    authenticated=False, method="local")


ANONYMOUS = Identity(name="anonymous", method="anonymous")

_current: contextvars.ContextVar[Identity | None] = contextvars.ContextVar("stratum_identity", default=None)
_reader: contextvars.ContextVar[tuple[str, bool] | None] = contextvars.ContextVar("stratum_reader", default=None)


def current() -> Identity:
    """The caller of the running tool call; the OS user when no adapter set one (library use)."""
    ident = _current.get()
    return ident if ident is not None else os_user()


def reader() -> tuple[str, bool]:
    """(name, proven) of whose quarantined notes this call sees: its session's author, once the
    call named a session (``reading_as``), else the caller's own."""
    got = _reader.get()
    if got is not None:
        return got
    ident = current()
    return ident.name, ident.authenticated


def reading_as(author: str, authenticated: bool) -> None:
    """The call reads notes as this session author from here on (until its ``acting_as`` ends;
    library callers without one keep it in their thread until the next session sets its own)."""
    _reader.set((author, authenticated))


@contextlib.contextmanager
def acting_as(identity: Identity) -> Iterator[Identity]:
    token, read = _current.set(identity), _reader.set(None)    # a pooled thread's last call reads as nobody
    try:
        yield identity
    finally:
        _reader.reset(read)
        _current.reset(token)


__all__ = ["Identity", "MAINTAINER", "ANONYMOUS", "MAX_NAME_CHARS", "os_user", "current", "acting_as",
           "reader", "reading_as"]
