"""Reports of a condition that goes on: said once, then once a minute while it lasts, then its end.

A serving process polls twice a second (a reload tick); a store whose manifest stays unreadable, or
a reload that keeps failing, logged a line each tick, forever. ``Lasting`` decides when a line is
due; the caller words it (``ShardSet``'s unreadable manifest, ``serving.lifecycle``'s reload loop).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

EVERY_S = 60.0      # seconds between reports of a condition that goes on


@dataclass(frozen=True)
class Due:
    """A report to make now: ``first`` of a run of occurrences (nothing lasted yet), how long the run
    has ``lasted`` (seconds since its first), and how many occurrences ``since_last`` report, this one too."""

    first: bool
    lasted: float
    since_last: int


class Lasting:
    """One condition (a store's unreadable manifest, a failing reload). ``now()`` at each occurrence
    says whether to report it (a ``Due``, else None); ``over()`` at the first tick without it says
    how long it lasted (None when it was not going on). Not thread-safe: one poller owns it."""

    def __init__(self, every: float = EVERY_S) -> None:
        self.every = every
        self.since: float | None = None      # monotonic time of the first occurrence in this run
        self._count = 0                      # occurrences since the last report
        self._due = 0.0                      # when the next report may be made

    def now(self) -> Due | None:
        t = time.monotonic()
        self._count += 1
        first = self.since is None
        if self.since is None:
            self.since = t
        elif t < self._due:
            return None
        due = Due(first, t - self.since, self._count)
        self._count, self._due = 0, t + self.every
        return due

    def over(self) -> float | None:
        if self.since is None:
            return None
        lasted = time.monotonic() - self.since
        self.since, self._count = None, 0
        return lasted


__all__ = ["Lasting", "Due", "EVERY_S"]
