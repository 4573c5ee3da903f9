"""The notes' background work: daemon threads the interpreter's exit waits for, and the compiled
kernels (``notekernels``) loaded on one.

Why one room: the graph build, the overlay's note embedding and the kernels' load all run off the
query path, and all must stop cleanly at exit. A daemon thread killed inside usearch, onnxruntime
or LLVM aborts the process ("terminate called without an active exception", exit 134) after a CLI
command has already succeeded; so every such thread is started here and joined at exit.
"""

from __future__ import annotations

import atexit
import threading
import time
from typing import Any

_STOP = threading.Event()               # set at exit: background loops check it between steps
_THREADS: list[threading.Thread] = []
_THREADS_LOCK = threading.Lock()        # queries and the overlay's sync start threads at once


def background(fn, *args, name: str = "stratum-note-graph") -> threading.Thread:
    """Run ``fn`` on a daemon thread that the interpreter's exit waits for (``fn`` should check
    ``stop_requested()`` between steps)."""
    th = threading.Thread(target=fn, args=args, name=name, daemon=True)
    with _THREADS_LOCK:
        _THREADS[:] = [t for t in _THREADS if t.is_alive()]
        _THREADS.append(th)
    th.start()
    return th


def stop_requested() -> bool:
    return _STOP.is_set()


class _InFlight:
    """How many searches are running: a background step started beside one takes the GIL whenever
    the search gives it up (the vector search, numpy) and holds it for its step, so for the ~4 s
    after a restart with 10,000 notes, while the notes' ranking facts were computed, searches took
    ~2.3 ms against ~1.6. Background loops wait between steps while any search runs (what they
    compute, a search computes itself when it needs it)."""

    def __init__(self) -> None:
        self.n = 0
        self._lock = threading.Lock()

    def __enter__(self) -> None:
        with self._lock:
            self.n += 1

    def __exit__(self, *exc) -> None:
        with self._lock:
            self.n -= 1


searching = _InFlight()     # ``with searching:`` around a search; ``searching.n``: how many run


def yield_to_searches(pause: float, most: float = 1.0) -> None:
    """Sleep ``pause`` seconds, and on while searches run (at most ``most`` seconds in all: a
    server never idle still gets its background work done)."""
    end = time.monotonic() + most
    time.sleep(pause)
    while searching.n and time.monotonic() < end and not _STOP.is_set():
        time.sleep(pause)


@atexit.register
def _stop_background() -> None:
    _STOP.set()
    with _THREADS_LOCK:
        threads = list(_THREADS)
    for th in threads:
        th.join(timeout=10)


_KERNELS: dict[str, Any] = {}       # "module": notekernels once loaded and its kernels compiled
_KERNELS_LOCK = threading.Lock()


def prepare_kernels() -> None:
    """A long-lived process (``stratum serve``) loads the exact list's compiled kernels, on a
    background thread. Only then do queries use them: a one-shot CLI search answers with numpy
    (the same notes) instead of waiting at its exit for numba (~1 s with numba's cache, 5-14 s
    compiling without one: past the exit's join, a thread inside LLVM would abort the process)."""
    _KERNELS["wanted"] = True
    compiled()


def kernels_wanted() -> bool:
    """Whether this process called ``prepare_kernels`` (a bulk load then makes the int8 copies)."""
    return bool(_KERNELS.get("wanted"))


def compiled(wait: bool = False):
    """``notekernels`` once it is loaded, else None (numpy answers meanwhile: the same notes).
    After ``prepare_kernels`` the first call starts loading it on a background thread: numba's
    import and the cached machine code took ~0.7-1 s, which the first answer after a restart paid
    when the first query loaded it inline. ``wait``: load it and block until it is loaded
    (tests, benchmarks)."""
    mod = _KERNELS.get("module")
    if mod is not None:
        return mod
    if not wait and not _KERNELS.get("wanted"):
        return None
    with _KERNELS_LOCK:
        th = _KERNELS.get("thread")
        if th is None:
            th = _KERNELS["thread"] = background(_load_kernels, name="stratum-note-kernels")
    if wait:
        th.join()
    return _KERNELS.get("module")


def _load_kernels() -> None:
    from stratum import notekernels as K

    K.warm()
    _KERNELS["module"] = K


__all__ = ["background", "stop_requested", "prepare_kernels", "kernels_wanted", "compiled"]
