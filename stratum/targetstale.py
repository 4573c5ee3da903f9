"""A note judged target by target: attached to an item, or lifting a file in ranking, it is stale
there only if one of ITS targets there changed (or is gone).

A probe: an rca note about ``shop/cart.py::total`` and ``shop/pricing.py::discount``, then only
``discount`` changed. ``get shop/cart.py::total`` said the note was "stale: the code changed
since", and search counted its lift of ``cart.py`` x0.5 ("stale: code changed since ..., x0.5"),
though ``total`` never changed. The note's own item (``notes show``, search's note item) is the
note's staleness, judged whole as before: it names the target that changed.

``judged`` asks the session's judge (``branchnotes.OnDefault`` on the default branch,
``branchcode.BranchCode`` in a branch, commit or worktree session) about the note, and for a stale
note with several targets which of them changed, from the same answer: the changes
``notes.staleness`` lists, or ``BranchCode.stale_targets``. Kept per judge and note object (a
judge's code is fixed for its life, a fold replaces a changed note's object rather than editing
it): on the default branch once per overlay, not once per query; a branch session builds its
``BranchCode`` per answer (``Memory.branch_code``), so there once per answer, as its staleness
always was (where it places a note is kept for the overlay's life). Core code: no git.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Protocol, Sequence

from stratum import notes as N

KEPT = 65536        # notes judged per judge; a full table starts again (as signals' memos do)


class Judge(Protocol):
    """What judges a note against the code a session sees: ``OnDefault`` (a dict, ``notes.staleness``'s),
    ``BranchCode`` (the stale line; ``stale_targets`` says which targets made it so)."""

    def staleness(self, note: N.Note) -> dict | str | None: ...


@dataclass(frozen=True)
class Judged:
    """A note's staleness as one session sees it, whole and per target."""
    stale: str                      # the note's own stale line ("": every target is as it was written)
    # its targets as written, and where this session has their code (``BranchCode.locate``); both ()
    # unless it is stale and has several: one word for all of it then
    about: tuple[N.Target, ...]
    placed: tuple[N.Target, ...]
    changed: frozenset[int] | None  # which targets changed or are gone (indices); None: every one

    def _stale_at(self, i: int) -> bool:
        return self.changed is None or i in self.changed

    def stale_on(self, node_id: str, path: str, whole: bool) -> bool:
        """Whether the note is stale on the item of NODE_ID: one of its targets on that node (WHOLE:
        in the file at PATH, whose item carries its symbols' notes) changed. The note attached
        though no target is on it (none known): judged whole."""
        if not self.stale:
            return False
        here = [i for i, ts in enumerate(zip(self.about, self.placed))
                if any(t.node_id == node_id or (whole and t.path == path) for t in ts)]
        return any(self._stale_at(i) for i in here) if here else True

    def fresh_in(self, files: Sequence[str]) -> tuple[str, ...]:
        """Of FILES (the ones it lifts), those where none of its targets changed though some other
        did: there it counts as fresh (``rank.NoteInfo.fresh_at``). () when it is fresh or whole."""
        if not self.stale or self.changed is None:
            return ()
        moved = {t.path for i in self.changed for t in (self.about[i], self.placed[i])}
        return tuple(f for f in files if f not in moved)

    def split_in(self) -> tuple[tuple[str, tuple[bool, ...]], ...]:
        """The files holding both a target that changed and one that did not, each with whether
        each of its targets there changed, in target order (``rank.NoteInfo.split``): search lifts
        each target's item by its own standing, as ``stale_on`` judges each item for get (a note
        about ``total`` and ``count``, only ``count`` changed, lifted ``total`` x0.5 and said
        stale there: a probe). () when it is fresh or judged whole."""
        if not self.stale or self.changed is None:
            return ()
        by: dict[str, list[bool]] = {}
        for i, t in enumerate(self.placed):
            if t.path:
                by.setdefault(t.path, []).append(i in self.changed)
        return tuple((p, tuple(c)) for p, c in by.items() if any(c) and not all(c))


FRESH = Judged("", (), (), None)
_KEPT: "weakref.WeakKeyDictionary[object, dict[str, tuple[N.Note, Judged]]]" = weakref.WeakKeyDictionary()


def judged(judge: Judge, note: N.Note) -> Judged:
    """NOTE judged by JUDGE, whole and per target (module docstring); kept per judge and note."""
    kept = _KEPT.get(judge)
    if kept is None:
        kept = _KEPT.setdefault(judge, {})
    got = kept.get(note.id)
    if got is not None and got[0] is note:
        return got[1]
    out = _judge(judge, note)
    if len(kept) >= KEPT:
        kept.clear()
    kept[note.id] = (note, out)
    return out


def _judge(judge: Judge, note: N.Note) -> Judged:
    both = getattr(judge, "stale_targets", None)        # a branch session's: the line and what changed
    st, ids = both(note) if both is not None else (judge.staleness(note), None)
    if not st:
        return FRESH
    locate = getattr(judge, "locate", None)            # a branch session's: where it has their code
    placed = locate(note) if locate is not None else note
    about, at = tuple(note.about), tuple(placed.about)
    if len(at) < 2 or len(at) != len(about):
        return Judged(_line(st), (), (), None)          # stale wherever it is attached
    if ids is None and isinstance(st, dict) and "changes" in st:    # notes.staleness's, by node id
        ids = frozenset(c["node_id"] for c in st["changes"])
    changed = frozenset(i for i, (a, t) in enumerate(zip(about, at)) if a.node_id in ids or t.node_id in ids) \
        if ids else None
    return Judged(_line(st), about, at, changed or None)


def _line(st: dict | str | None) -> str:
    if isinstance(st, dict):
        return st["message"]
    return st or ""


__all__ = ["Judge", "Judged", "judged"]
