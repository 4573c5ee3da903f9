"""Signals during `stratum index`: SIGTERM (a pod evicted, a deadline) and SIGINT end a run with its
report written, not silently, and a signal once a version is live ends the run published. Apart
from the command because it is the one stateful part of it (handlers and what they caught)."""

from __future__ import annotations

import signal
from contextlib import contextmanager
from typing import Iterator

SIGNALLED: dict[int, int] = {signal.SIGTERM: 143, signal.SIGINT: 130}     # stopped: 128 + the signal, as a shell reports it


class Stopped(KeyboardInterrupt):
    """A signal stopped a multi-repository run (no repository's error handler takes it). A
    KeyboardInterrupt because Ray runs a handler inside its waits (``ray.wait``, ``ray.get``) and
    turns only that (or SystemExit) into an exception of its own, a plain KeyboardInterrupt: any
    other was dropped there and the run waited on. ``fired`` keeps which signal it was."""

    fired: list[int] = []
    deferred: list[int] = []            # signals that landed while a version was published (the run is done)

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum

    @classmethod
    def of(cls, stop: KeyboardInterrupt) -> int:
        """The signal that stopped the run: its own, or (Ray's plain KeyboardInterrupt raised for it)
        the last one fired; a bare Ctrl-C otherwise."""
        return stop.signum if isinstance(stop, cls) else (cls.fired or [signal.SIGINT])[-1]


@contextmanager
def stop_on_signals(one: bool = False, process: bool = False) -> Iterator[None]:
    """SIGTERM (a pod evicted, a deadline) and SIGINT end the run with its report written, not
    silently; a second signal, once the handlers are restored, is the default (immediate) again.
    ``one`` (a one-repository run): once its version is live a signal only ends it, published (exit
    0, said); ``process`` (the CLI is the process): from then on SIGTERM and SIGINT are ignored to the
    end, the interpreter's teardown included (it puts back the default handler of any Python one:
    a signal there was exit 143, silent, for a live version with its report written, a probe)."""
    from pipeline.publish import PUBLISHED, PUBLISHING

    def stop(signum, frame):
        Stopped.fired.append(signum)
        if PUBLISHING.is_set() or (one and PUBLISHED.is_set()):     # live: the run ends published, then stops
            Stopped.deferred.append(signum)
            return
        raise Stopped(signum)

    Stopped.fired.clear()              # a caller's earlier run in this process said nothing of this one
    Stopped.deferred.clear()
    PUBLISHED.clear()

    try:
        previous = {s: signal.signal(s, stop) for s in SIGNALLED}
    except ValueError:                  # not the main thread (a caller's thread): no handlers there
        previous = {}
    try:
        yield
    finally:
        live = one and process and PUBLISHED.is_set()
        for s, h in previous.items():
            signal.signal(s, signal.SIG_IGN if live else h)     # SIG_IGN outlasts the teardown


__all__ = ["SIGNALLED", "Stopped", "stop_on_signals"]
