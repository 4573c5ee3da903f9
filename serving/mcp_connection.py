"""The backend and the session of the one MCP connection a `stratum mcp` process serves.

The backend is a local ``Tools`` over stores or a ``serving.client.Client`` in front of a gRPC
server; the session is opened once, when the connection starts, so the agent never handles session
ids. MCP-free: ``serving.mcp_server`` renders its answers and turns its errors into tool errors.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable

from serving import lifecycle
from stratum import identity
from stratum.envelope import Response
from stratum.errors import InvalidArgument, StratumError, SystemError_

log = logging.getLogger("stratum.mcp")


class Connection:
    """The backend and the session of the one MCP connection this process serves.

    When the backend cannot be opened (no server yet, a refused token, a missing store) the MCP
    connection still comes up: each tool call tries again and, until it works, answers with the
    reason as a tool error, so the agent sees "unauthenticated: unknown bearer token" instead of
    a server that never answers."""

    def __init__(self, open_backend: Callable[[], Any], session_options: dict[str, Any],
                 reload_interval: float | None = lifecycle.DEFAULT_RELOAD_INTERVAL, settle: bool = False,
                 chosen: bool = False):
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
        self.caller = identity.os_user()     # stdio: the user who started this process
        self._pending_warnings: list[str] = []  # the session's opening's, for the next answer (``_opened``)

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
        (the backend's, or why the backend cannot be opened)."""
        if self.backend is None:
            self.open()                # the server may be up, or the token fixed, by now
            if self.backend is None:
                raise self.error or SystemError_("the Stratum backend is not open")
        with identity.acting_as(self.caller):
            resp = getattr(self.backend, name)(self.session, **kwargs)
        if self._pending_warnings:
            resp.envelope.warnings[:0], self._pending_warnings = self._pending_warnings, []
        return resp


__all__ = ["Connection"]
