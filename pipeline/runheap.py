"""An index run's heap: no full cyclic collections while a run holds the repository in Python.

A re-index holds every node and edge of the repository as Python dicts (sympy: ~78,000 nodes,
~250,000 edges, several million tracked objects). CPython's full (generation 2) collection walks
all of them, and it runs whenever the survivors grew by a quarter: 14 full passes in one
one-file re-index of sympy, ~1 s of its ~13 s of CPU, which grew with the repository and not with
the change (docs/bench/index_speed.md, "Session 26"). Almost nothing they find is garbage
(276 objects in those 14 passes): the records are plain trees freed by reference counting.

``young_only`` keeps the young collections (cycles that die young, such as a parse's, still go at
once) and stops the full ones for the run; the oldest generation's threshold is put back when the
last run in the process ends, so the cycles a run left are collected by the next full pass. A
server's own thresholds (``serving.heap``) are left alone: only the third value is touched.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator

NO_FULL = 1 << 30           # generation-1 collections before a full one: never, within a run

_lock = threading.Lock()
_depth = 0
_saved = 0                  # the oldest generation's threshold before the outermost run


@contextmanager
def young_only() -> Iterator[None]:
    """No full collection until the block (and every other run of this process) ends."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            young, middle, _saved = gc.get_threshold()
            gc.set_threshold(young, middle, NO_FULL)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                young, middle, _ = gc.get_threshold()
                gc.set_threshold(young, middle, _saved)


__all__ = ["young_only", "NO_FULL"]
