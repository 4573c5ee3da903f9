"""What a long-lived serving process does beside answering: gRPC's `stratum serve` and MCP's `stratum mcp`.

Why one place: both keep the stores loaded for hours, so both should pick up newly published
versions (a re-index or a post-commit hook publishes one; `stratum mcp` on a local store kept
answering from the version it opened with), load the notes' compiled kernels, and keep the loaded
heap out of the cyclic collector (serving.heap).

And both end: `stratum serve` within its ``--grace`` plus ``EXIT_BOUND`` (``InFlight``,
``end_process``). A tool call cannot be interrupted, and gRPC cancels (it does not stop) the calls
still running when the grace is over: the interpreter's exit then joined the RPC worker threads,
so the process lived on until the slowest of them finished (a probe: exit 14.9 s after SIGTERM
with ``--grace 10`` and 30 busy clients, 26.7 s on a busier machine, for ever behind a stuck git).
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from typing import Any, Callable, NoReturn

from serving import heap
from stratum import notethreads
from stratum.errors import StratumError
from stratum.ratelimit import Lasting

log = logging.getLogger("stratum.serving")

DEFAULT_RELOAD_INTERVAL = 0.5   # seconds between looks for a new version (one small manifest read)
# seconds past the grace before the process is gone: a note being appended when the grace ends
# finishes (its record is whole; one fsync, milliseconds unless the disk stalls), the stores close
EXIT_BOUND = 3.0


class InFlight:
    """How many calls run now, and a wait until none does: at exit the server waits (up to
    ``EXIT_BOUND``) for the calls that append to the delta log, never for reading ones, whose
    callers already got CANCELLED when the grace ended."""

    def __init__(self) -> None:
        self.n = 0
        self._idle = threading.Condition()

    def __enter__(self) -> None:
        with self._idle:
            self.n += 1

    def __exit__(self, *exc: object) -> None:
        with self._idle:
            self.n -= 1
            if not self.n:
                self._idle.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """True once no call runs; False if some still do after ``timeout`` seconds."""
        with self._idle:
            return self._idle.wait_for(lambda: self.n == 0, timeout)


def end_process(code: int = 0) -> NoReturn:
    """End a serving process whose stores are closed, now: its log and output flushed, then
    ``os._exit``, so neither a tool call still running past the grace (RPC worker threads the
    interpreter's exit would join) nor background note work (in-memory caches, joined up to 10 s
    each by ``notethreads``) holds it. Nothing durable is pending by then: an acknowledged note was
    fsynced before its answer went out."""
    for handler in logging.getLogger().handlers + log.handlers:
        handler.flush()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):       # a closed or broken pipe: nothing more to say on it
            pass
    os._exit(code)


def settle_process() -> None:
    """Once the stores are loaded: the notes' compiled exact list (loaded on a background thread)
    and the heap frozen out of the collector's walks."""
    notethreads.prepare_kernels()
    heap.settle()


def reload_loop(tools: Any, wait: Callable[[float], bool], interval: float) -> None:
    """Pick up newly published store versions until ``wait(interval)`` returns False (it waits up
    to ``interval`` seconds and says whether the process still serves). After a switch the heap
    goes back to the collector, the old versions are collected COLLECT_AFTER polls later (their
    reader holds released, so a prune can remove their files), and the heap is frozen again once
    QUIET_INTERVALS polls brought nothing new (the old version's calls and threads are done by then)."""
    quiet: int | None = None        # polls since new versions were loaded (None: heap settled)
    collect_in: int | None = None   # polls until the old versions are collected (None: none due)
    failing = _Failing()
    while wait(interval):
        if collect_in is not None:
            collect_in -= 1
            if collect_in <= 0:
                heap.collect()
                collect_in = None
        try:
            switched = tools.reload()
            failing.over()
            if switched:
                for store, old, new in (switched if isinstance(switched, list) else ()):  # for operators: when a re-index was picked up
                    log.info("serving %s version %d (was %d)", store, new, old)
                heap.release()
                quiet = 0
                if collect_in is None:      # a burst of publishes: one collection, COLLECT_AFTER polls on
                    collect_in = heap.COLLECT_AFTER
            elif quiet is not None:
                quiet += 1
                if quiet >= heap.QUIET_INTERVALS:
                    heap.resettle()
                    quiet = None
        except (StratumError, OSError) as err:     # a half-published or unreadable store: keep serving
            failing.now(err)


class _Failing:
    """Reports of reload failures: the first, then one a minute while they go on (with how many there
    were), and the end (``ratelimit.Lasting``). Each tick, twice a second, once logged it forever."""

    def __init__(self) -> None:
        self._run = Lasting()

    def now(self, err: BaseException) -> None:
        due = self._run.now()
        if due is None:
            return
        more = "" if due.first else f" (failing for {due.lasted:.0f} s, {due.since_last} times since the last report)"
        log.warning("reload failed, still serving the loaded versions%s: %s", more, err)

    def over(self) -> None:
        lasted = self._run.over()
        if lasted is not None:
            log.warning("reload works again after %.0f s of failures", lasted)


class Reloader:
    """``reload_loop`` on a daemon thread, stopped by ``stop()`` (MCP: the connection's lifetime)."""

    def __init__(self, tools: Any, interval: float = DEFAULT_RELOAD_INTERVAL):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=reload_loop, args=(tools, self._still_serving, interval),
                                        name="stratum-reload", daemon=True)
        self._thread.start()

    def _still_serving(self, interval: float) -> bool:
        return not self._stop.wait(interval)

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._thread.join(timeout)


__all__ = ["settle_process", "reload_loop", "Reloader", "InFlight", "end_process", "DEFAULT_RELOAD_INTERVAL",
           "EXIT_BOUND"]
