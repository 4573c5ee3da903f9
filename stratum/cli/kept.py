"""The server sessions `stratum <query> --server` leaves open for paging, at most ``KEPT`` per
server and credential.

A query whose answer has more pages leaves its session open, so the next command can ask for the
next page (``--session ID --page-token T``). Nothing closed those sessions: 64 such commands in a
quarter of an hour filled the identity's session cap, and every later session of that identity
(MCP fronts and agents too, all "anonymous" on a server without tokens) was refused until one went
idle for 15 minutes (a probe). Now the CLI remembers what it left open, per server address and
token, in a file only its user reads (``$STRATUM_CACHE``, default ``~/.cache/stratum``), and closes
the oldest when it keeps one more than ``KEPT``: the last ``KEPT`` queries can still be paged.
The read-modify-write of that file holds an exclusive flock on ``cli-sessions.json.lock`` beside it:
without it, queries run in parallel each dropped the same oldest session and the last writer lost
the others' new ones, so a session left the file still open on the server (9 left of 40 queries
run 8 at a time, a probe). A session dropped from the file is closed by the one process that dropped it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from pathlib import Path

KEPT = 8            # sessions one user's CLI keeps open per server and credential (the cap is 64)


def _path() -> Path:
    from stratum.embedder import cache_root

    return cache_root() / "cli-sessions.json"


def _key(address: str, token: str | None) -> str:
    """The server and credential, hashed: the file holds no token."""
    return hashlib.sha256(f"{address}\0{token or ''}".encode("utf-8", "surrogatepass")).hexdigest()[:24]


def _read(path: Path) -> dict[str, list[str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: [s for s in v if isinstance(s, str)] for k, v in data.items() if isinstance(v, list)} \
        if isinstance(data, dict) else {}


def keep(address: str, token: str | None, session: str) -> list[str]:
    """Record ``session`` as kept (the newest); returns the sessions beyond ``KEPT`` to close, the
    oldest first. A file that cannot be read or written keeps nothing and closes nothing (the
    server's idle reclaim still holds)."""
    path, key = _path(), _key(address, token)
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = os.open(path.with_name(f"{path.name}.lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)        # one reader-writer at a time; closing the fd releases it
            data = _read(path)
            ids = [s for s in data.get(key, []) if s != session] + [session]
            data[key], drop = ids[-KEPT:], ids[:-KEPT]
            tmp = path.with_name(f".{path.name}.{os.getpid()}")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)     # session ids open sessions
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f)
            os.replace(tmp, path)       # atomic still: a reader without the lock sees a whole file
            return drop
        finally:
            os.close(lock)
    return []


__all__ = ["KEPT", "keep"]
