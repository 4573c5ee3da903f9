"""Which files a session is editing (the controller's focus), from three sources, strongest first:

- **explicit**: ``Controller.set_focus``; wins while set, ``set_focus([])`` clears it.
- **prefetch**: the files a ``prefetch`` warmed for (``Controller.hint_focus``): the files about to be
  edited, a hint only. The next file or symbol read at full level replaces it, as does the next prefetch.
- **inferred**: the last ``max_inferred`` files read at full level (a symbol counts as its file).

Why the prefetch's focus is a hint: it was an explicit focus, which no agent tool clears, so after a
prefetch of ``sessions.py`` a full read of ``helpers.py::url_for`` (the code being edited) left the
focus on ``sessions.py`` and ``url_for`` was the first thing evicted (a probe). Warming a working set
is not editing; reading code at full level is.

Why apart from ``stratum.controller``: plain bookkeeping of file ids, with no graph, budget or lock (the
controller resolves node ids to files and holds the lock).
"""

from __future__ import annotations

from collections import deque
from typing import Iterable


class FocusSet:
    """The focus files and where they come from (``source``)."""

    def __init__(self, max_inferred: int):
        self.max_inferred = max_inferred
        self.explicit: tuple[str, ...] = ()
        self.hint: tuple[str, ...] = ()
        self.inferred: deque[str] = deque(maxlen=max_inferred or None)

    def files(self) -> tuple[str, ...]:
        """The effective focus: explicit, else the prefetch's hint, else the inferred files (oldest first)."""
        return self.explicit or self.hint or tuple(self.inferred)

    def source(self) -> str:
        """``explicit``, ``prefetch``, ``inferred`` or ``none``: what ``files`` comes from."""
        if self.explicit:
            return "explicit"
        if self.hint:
            return "prefetch"
        return "inferred" if self.inferred else "none"

    def after(self, full_files: Iterable[str]) -> tuple[str, ...]:
        """``files()`` once ``full_files`` (the files of items read at full level, in order) are
        pushed; nothing changes."""
        q = self._pushed(self.inferred, full_files)
        if q is None or self.explicit:
            return self.files()
        return tuple(q)

    def push(self, full_files: Iterable[str]) -> None:
        """Files read at full level join the inferred focus and end the prefetch's hint."""
        q = self._pushed(self.inferred, full_files)
        if q is not None:
            self.inferred, self.hint = q, ()

    def _pushed(self, q: deque[str], full_files: Iterable[str]) -> deque[str] | None:
        """A copy of ``q`` with ``full_files`` pushed (most recent last); None: nothing to push."""
        files = list(full_files)
        if not files or not self.max_inferred:
            return None
        q = deque(q, maxlen=q.maxlen)
        for f in files:
            if f in q:
                q.remove(f)
            q.append(f)
        return q


__all__ = ["FocusSet"]
