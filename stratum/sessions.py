"""Sessions: one agent's controller and identity, owned by the identity that opened it, bounded.

A session belongs to ``identity.current().name`` at open. A call on a session whose owner differs
gets the same NotFound as an unknown id, so ids of other identities' sessions cannot be probed.
A call on a session reads notes as the session's author (``identity.reading_as``, set by ``get``):
its author sees the quarantined notes it wrote, whoever the transport says the caller is.
State is bounded (an open port must not be a memory leak): idle sessions expire after ``ttl``
seconds, and there are at most ``max_per_identity`` live sessions per identity and ``max_total``
in all; expired sessions are swept before a cap is enforced. An identity at its cap gets a new
session in place of its session idle longest, once that one is idle ``reclaim_idle`` seconds: each
paged `stratum search --server` leaves its session open for the next page, and on a server
without tokens every client is "anonymous", so 64 such calls locked everyone out for 2 h (a
probe). A full cap of sessions all in use is ResourceExhausted with what to do about it.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from stratum import identity
from stratum.controller import Controller
from stratum.envelope import span
from stratum.errors import InvalidArgument, NotFound, ResourceExhausted, StratumError
from stratum.limits import MAX_SESSION_ID_CHARS, check_len, echo

SESSION_TTL = 2 * 3600.0       # idle seconds before a session expires (an agent's working session)
RECLAIM_IDLE = 15 * 60.0       # idle seconds after which a full identity's oldest session gives way to a new one
MAX_SESSIONS_PER_IDENTITY = 64  # one identity: a fleet of parallel agents, not an unbounded loop
MAX_SESSIONS = 4096            # all identities (~20 KB each at rest; 10,000 cost ~190 MB)
_SWEEP_EVERY = 60.0            # seconds between sweeps when no cap forces one


@dataclass
class Session:
    id: str
    owner: str                  # identity name that opened it; the only one that may use it
    author: str                 # note author: the identity's name when authenticated, else as claimed
    authenticated: bool         # was ``author`` proven by the adapter (token, mTLS)
    model: str
    controller: Controller
    created: float = field(default_factory=time.time)
    last_used: float = field(default_factory=time.time)
    view: Any = None            # a stratum.branchview.BranchView: the session answers for a branch/commit


class SessionRegistry:
    """Live sessions by id. Thread-safe; the clock is injectable for tests of expiry."""

    def __init__(self, *, ttl: float = SESSION_TTL, max_per_identity: int = MAX_SESSIONS_PER_IDENTITY,
                 max_total: int = MAX_SESSIONS, clock: Callable[[], float] = time.time,
                 reclaim_idle: float = RECLAIM_IDLE):
        if ttl <= 0 or max_per_identity < 1 or max_total < 1:
            raise InvalidArgument("session ttl and caps must be positive")
        self.ttl, self.max_per_identity, self.max_total = ttl, max_per_identity, max_total
        self.reclaim_idle = min(reclaim_idle, ttl)
        self._clock = clock
        self._lock = threading.Lock()
        self._by_id: dict[str, Session] = {}
        self._per_owner: Counter[str] = Counter()
        self._swept = clock()

    def add(self, owner: str, author: str, authenticated: bool, model: str, controller: Controller,
            sid: str | None = None) -> Session:
        """Register a new session (``sid``: a caller-chosen id, else a fresh one)."""
        now = self._clock()
        with self._lock:
            if (now - self._swept > _SWEEP_EVERY or len(self._by_id) >= self.max_total
                    or self._per_owner[owner] >= self.max_per_identity):
                self._sweep(now)
            if self._per_owner[owner] >= self.max_per_identity:
                self._reclaim(owner, now)
            if self._per_owner[owner] >= self.max_per_identity:
                raise ResourceExhausted(
                    f"{echo(owner)} already has {self._per_owner[owner]} open sessions in use (the limit is "
                    f"{self.max_per_identity}); close sessions you no longer use (close_session), or one "
                    f"gives way once idle {span(self.reclaim_idle)}")
            if len(self._by_id) >= self.max_total:
                raise ResourceExhausted(
                    f"the server holds {len(self._by_id)} open sessions, its limit; retry after idle "
                    f"sessions expire ({span(self.ttl)}) or ask the operator to raise the limit")
            sid = sid or uuid.uuid4().hex
            s = Session(sid, owner, author, authenticated, model, controller, created=now, last_used=now)
            self._by_id[sid] = s
            self._per_owner[owner] += 1
            return s

    def get(self, sid: str, owner: str) -> Session:
        """The live session ``sid`` of ``owner``; NotFound (one message) if unknown, expired or not theirs."""
        check_len("session id", sid, MAX_SESSION_ID_CHARS)
        if not sid:
            raise InvalidArgument("session id is empty: call open_session first")
        now = self._clock()
        with self._lock:
            s = self._by_id.get(sid)
            if s is not None and now - s.last_used > self.ttl:
                self._drop(s)
                s = None
            if s is None or s.owner != owner:
                raise NotFound(f"{_unknown(sid)}: it was closed, expired after "
                               f"{span(self.ttl)} idle, or the server restarted; open a new one")
            s.last_used = now
        identity.reading_as(s.author, s.authenticated)
        return s

    def find(self, sid: str, owner: str) -> Session | None:
        """Like ``get`` but None instead of NotFound."""
        try:
            return self.get(sid, owner)
        except NotFound:
            return None

    def close(self, sid: str, owner: str) -> Session:
        s = self.get(sid, owner)
        with self._lock:
            self._drop(s)
        return s

    def clear(self) -> None:
        with self._lock:
            self._by_id.clear()
            self._per_owner.clear()

    def sweep(self) -> int:
        """Forget expired sessions now; how many went."""
        with self._lock:
            return self._sweep(self._clock())

    def __len__(self) -> int:
        return len(self._by_id)

    def count(self, owner: str) -> int:
        return self._per_owner[owner]

    def _sweep(self, now: float) -> int:
        gone = [s for s in self._by_id.values() if now - s.last_used > self.ttl]
        for s in gone:
            self._drop(s)
        self._swept = now
        return len(gone)

    def _reclaim(self, owner: str, now: float) -> None:
        """Close ``owner``'s session idle longest, if it is idle ``reclaim_idle`` seconds or more."""
        idle = min((s for s in self._by_id.values() if s.owner == owner), key=lambda s: s.last_used, default=None)
        if idle is not None and now - idle.last_used >= self.reclaim_idle:
            self._drop(idle)

    def _drop(self, s: Session) -> None:
        if self._by_id.pop(s.id, None) is not None:
            self._per_owner[s.owner] -= 1
            if self._per_owner[s.owner] <= 0:
                del self._per_owner[s.owner]


def _unknown(sid: str) -> str:
    return f"unknown session {echo(sid)!r}"


def gone(err: StratumError, sid: str) -> bool:
    """Whether ``err`` is ``SessionRegistry.get``'s refusal of the session ``sid`` (closed, expired,
    reclaimed, or its server restarted), also after a gRPC client rebuilt it from its code and
    message: a front that opened ``sid`` for its caller (MCP) opens another instead of failing for good."""
    return isinstance(err, NotFound) and err.message.startswith(_unknown(sid) + ":")


__all__ = ["gone", "Session", "SessionRegistry", "SESSION_TTL", "RECLAIM_IDLE", "MAX_SESSIONS_PER_IDENTITY", "MAX_SESSIONS"]
