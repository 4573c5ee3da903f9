"""The backend and the session of the one MCP connection a `stratum mcp` process serves.

The backend is a local ``Tools`` over stores or a ``serving.client.Client`` in front of a gRPC
server; the session is opened once, when the connection starts, so the agent never handles session
ids. MCP-free: ``serving.mcp_server`` renders its answers and turns its errors into tool errors.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable

from serving import lifecycle
from stratum import identity, sessions
from stratum.envelope import Response, span
from stratum.errors import InvalidArgument, NotFound, StratumError, SystemError_

log = logging.getLogger("stratum.mcp")


class Connection:
    """The backend and the session of the one MCP connection this process serves.

    When the backend cannot be opened (no server yet, a refused token, a missing store) the MCP
    connection still comes up: each tool call tries again and, until it works, answers with the
    reason as a tool error, so the agent sees "unauthenticated: unknown bearer token" instead of
    a server that never answers."""

    def __init__(self, open_backend: Callable[[], Any], session_options: dict[str, Any],
                 reload_interval: float | None = lifecycle.DEFAULT_RELOAD_INTERVAL, settle: bool = False,
                 chosen: bool = False, maintainer: bool = False):
        self._settle = settle
        self._chosen = chosen
        self._open_backend = open_backend
        self._session_options = session_options
        self._reload_interval = reload_interval
        self._reloader: lifecycle.Reloader | None = None
        self._lock = threading.Lock()
        self.backend: Any = None
        self.session: str = ""
        self.error: StratumError | None = None
        # stdio: the user who started this process, a maintainer only when the operator said so
        # (``identity.os_user``); in front of a server, its credentials decide
        self.caller = identity.os_user(maintainer=maintainer)
        self._pending_warnings: list[str] = []  # the session's opening's, for the next answer (``_opened``)
        self._used = time.monotonic()        # the last call's end: how long the session was idle

    def open(self) -> None:
        with self._lock:
            if self.backend is not None:
                return
            backend = None
            try:
                backend = self._open_backend()
                with identity.acting_as(self.caller):
                    self.session = self._open_session(backend)
            except StratumError as err:
                log.error("could not open the Stratum backend: %s", err.message)
                self.error = err
                if backend is not None:
                    backend.close()
                return
            self.backend, self.error = backend, None
            if hasattr(backend, "reload"):      # local stores (a Client's server reloads its own)
                if self._settle:
                    lifecycle.settle_process()
                if self._reload_interval:
                    self._reloader = lifecycle.Reloader(backend, self._reload_interval)

    def _open_session(self, backend: Any) -> str:
        """The session of this connection. A view chosen for the caller, not named (a linked
        worktree's branch, as the CLI's --server queries ask: ``stratum.cli.server_place``) that the
        server cannot give (its repository lacks the branch) is said in the log, and the session is
        the server's default branch, as the CLI's query falls back: the agent's tools must not fail
        for a view nobody asked for. A view named fails as named."""
        opts = self._session_options
        try:
            return self._opened(backend.open_session(**opts))
        except InvalidArgument as refused:
            if not self._chosen or not (opts.get("branch") or opts.get("commit")):
                raise
            what = f"branch {opts['branch']}" if opts.get("branch") else f"commit {opts['commit'][:12]}"
            why = refused.message
        log.warning("the server cannot answer for this worktree's %s (%s): the answers are for its default "
                    "branch", what, why)
        rest = {k: v for k, v in opts.items() if k not in ("branch", "commit", "worktree")}
        return self._opened(backend.open_session(**rest))

    def _opened(self, resp: Response) -> str:
        """The session's id; what its opening warned of ("author 'zed' ignored: notes from this
        session are written as the authenticated identity 'bob'") goes to the log and rides on the
        next answer's warnings, once: MCP dropped it, where gRPC and the CLI say it (a probe)."""
        for w in resp.envelope.warnings:
            log.warning("%s", w)
        # the opening's own words (``Tools.open_session``'s ``opening``): the freshness and branch
        # warnings every answer carries are no news to the first one
        self._pending_warnings = list(resp.data.get("opening") or [])
        return resp.data["session"]

    def close(self) -> None:
        if self._reloader is not None:
            self._reloader.stop()
            self._reloader = None
        if self.backend is None:
            return
        try:
            with identity.acting_as(self.caller):
                self.backend.close_session(self.session)
        except StratumError as err:    # e.g. the gRPC server restarted and forgot the session
            log.warning("could not close session %s: %s", self.session, err.message)
        finally:
            self.backend.close()

    def call(self, name: str, kwargs: dict[str, Any]) -> Response:
        """The tool ``name``'s answer in this connection's session; a StratumError when it fails
        (the backend's, or why the backend cannot be opened). A session gone (idle past the
        sessions' TTL, reclaimed, or the gRPC server restarted) is replaced once and the call
        retried: the agent cannot open one (MCP has no such tool), so every later call failed with
        "unknown session ...: open a new one" (a probe). Each tool checks its session before it
        does anything, so the retry repeats nothing."""
        if self.backend is None:
            self.open()                # the server may be up, or the token fixed, by now
            if self.backend is None:
                raise self.error or SystemError_("the Stratum backend is not open")
        sid, idle = self.session, time.monotonic() - self._used
        try:
            resp = self._run(name, sid, kwargs)
        except NotFound as err:
            if not sessions.gone(err, sid):
                raise
            resp = self._run(name, self._reopen(sid, idle), kwargs)
        finally:
            self._used = time.monotonic()
        if self._pending_warnings:
            resp.envelope.warnings[:0], self._pending_warnings = self._pending_warnings, []
        return resp

    def _run(self, name: str, sid: str, kwargs: dict[str, Any]) -> Response:
        with identity.acting_as(self.caller):
            return getattr(self.backend, name)(sid, **kwargs)

    def _reopen(self, gone: str, idle: float) -> str:
        """A new session in place of ``gone``, opened as the first was (once: a call racing this one
        takes the new one), and the next answer says so: its context ledger starts empty."""
        with self._lock:
            if self.session == gone:
                with identity.acting_as(self.caller):
                    self.session = self._open_session(self.backend)
                said = (f"this connection's session was gone after {span(idle)} idle (expired, or the server "
                        f"restarted): a new one was opened, and what the old one held is not in its context "
                        f"ledger (items sent before are sent and charged again; pins and budget start over)")
                log.warning("%s", said)
                self._pending_warnings.insert(0, said)
            return self.session


__all__ = ["Connection"]
