"""The serving process's heap: loaded once, then kept out of the cyclic collector's way.

A server holds a shard's columns, key indexes and caches (~550,000 tracked objects at 1M nodes)
for its whole life. Python's collector walked them all in every full collection: ~190 ms with
the GIL held, on a search's path once every ~1,000 searches, and young collections every ~700
allocations added ~0.19 ms a search (docs/bench/grpc.md, "session 8"). ``settle`` moves what is
loaded into the permanent generation (``gc.freeze``) and collects the young less often; the
memory of the requests themselves is still freed by reference counting at once.

After a reload the old versions' objects are unfrozen and collected once (``resettle``), so a
cycle among them is not kept for the life of the process.
"""

from __future__ import annotations

import gc
import threading

YOUNG = 10_000          # allocations between young collections (CPython's default: 700)

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


def resettle() -> None:
    """After new versions were loaded: the frozen heap back to the collector, collected, frozen
    again (a no-op in a process that never settled, e.g. a test serving in-process)."""
    with _lock:
        if not _settled:
            return
        gc.unfreeze()
        gc.collect()
        gc.freeze()


__all__ = ["settle", "resettle", "YOUNG"]
