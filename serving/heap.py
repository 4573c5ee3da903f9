"""The serving process's heap: loaded once, then kept out of the cyclic collector's way.

A server holds a shard's columns, key indexes and caches (~550,000 tracked objects at 1M nodes)
for its whole life. Python's collector walked them all in every full collection: ~190 ms with
the GIL held, on a search's path once every ~1,000 searches, and young collections every ~700
allocations added ~0.19 ms a search (docs/bench/grpc.md, "session 8"). ``settle`` moves what is
loaded into the permanent generation (``gc.freeze``) and collects the young less often; the
memory of the requests themselves is still freed by reference counting at once.

After a reload the heap goes back to the collector (``release``) and is collected and frozen
again only once no new version arrived for QUIET_INTERVALS reload polls (``resettle``): calls and
threads still holding the old version then are done, so a cycle among its objects is collected,
not frozen for the life of the process.
"""

from __future__ import annotations

import gc
import threading

YOUNG = 10_000          # allocations between young collections (CPython's default: 700)
QUIET_INTERVALS = 20    # reload polls with no new version before the heap is frozen again (10 s at 0.5 s)
COLLECT_AFTER = 4       # reload polls after a switch before the old versions are collected (2 s at 0.5 s)

_lock = threading.Lock()
_settled = False


def settle(young: int = YOUNG) -> None:
    """Collect once, freeze what survives, and raise the young threshold (a long-lived server)."""
    global _settled
    with _lock:
        gc.collect()
        gc.freeze()
        _, g1, g2 = gc.get_threshold()
        gc.set_threshold(max(young, 1), g1, g2)
        _settled = True


def release() -> None:
    """New versions were loaded: the frozen heap back to the collector (a no-op in a process that
    never settled, e.g. a test serving in-process)."""
    with _lock:
        if _settled:
            gc.unfreeze()


def collect() -> None:
    """A full collection, heap left unfrozen: soon after a switch, so the old version's shards (in
    reference cycles) and their reader holds go even while new versions keep arriving (a hold
    keeps the index job's prune from removing that version's files)."""
    with _lock:
        if _settled:
            gc.collect()


def resettle() -> None:
    """Some time after a ``release``: collect (the old versions' cycles) and freeze again."""
    with _lock:
        if not _settled:
            return
        gc.collect()
        gc.freeze()


__all__ = ["settle", "release", "collect", "resettle", "YOUNG", "QUIET_INTERVALS", "COLLECT_AFTER"]
