"""``RankInfos``: the ranking facts of a notes overlay's unmerged notes, cached per note state.

Part of the notes overlay (``stratum.overlay``, which re-exports it): each ``NotesOverlay`` holds one
as ``rank_infos``; ``stratum.signals`` reads it.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stratum.overlay import NotesOverlay


class RankInfos(Mapping):
    """Unmerged note id -> the ``rank.NoteInfo`` ranking reads for it (pass as
    ``signals.ShardSignals(shard, overlay, extra=overlay.rank_infos)``), computed by ``ShardSignals``
    itself on first use and kept while the note's state and status hold. Why: with 10,000 notes
    ~60 of a query's 150 candidates are notes, and re-reading each one's record, parsing its
    targets and checking their staleness on every search cost ~1-2.5 ms a query. Only notes the
    caller may see are in it (the others take the uncached path, which finds no record)."""

    def __init__(self, overlay: "NotesOverlay"):
        self._ov = overlay
        self._cache: dict[str, tuple] = {}
        self._epochs = itertools.count(1)
        # (node map, fold, epoch, {note id: its hit checked in that epoch}) entries were last checked in
        self._seen: tuple = (None, None, 0, {})

    def __contains__(self, nid: object) -> bool:
        return isinstance(nid, str) and nid in self._ov._nodes and self._ov.visible(nid)

    def __getitem__(self, nid: str):
        info = self.get(nid)
        if info is None:
            raise KeyError(nid)
        return info

    def get(self, nid, default=None):
        """The note's ranking facts, or ``default`` (no exception on the miss path: ranking asks
        for every unmerged candidate of every search)."""
        h = self._entry(nid)
        return h.note if h is not None else default

    def hit(self, nid: str):
        """The note's ``rank.Hit`` (its NoteInfo in a hit), kept with it, or None: what
        ``ShardSignals.hit_many`` reads for an unmerged candidate, one call and no new object per
        note a search (~60 of 150 candidates with 10,000 notes)."""
        return self._entry(nid)

    def hits(self, nids: list[str]) -> list:
        """``hit`` of each id (None where it has none), the current epoch's entries read in one loop."""
        ov = self._ov
        seen = self._seen
        if seen[0] is not ov._nodes or seen[1] is not ov.notes:
            return [self._entry(nid) for nid in nids]
        # the epoch's own map of hits, not the entries: an entry's tuple was one more object read
        # (a cache miss) for each of ~40 note candidates a search with 10,000 notes
        now, hidden, out = seen[3], ov.quarantined, []
        for nid in nids:
            h = now.get(nid) if nid.__class__ is str else None
            out.append(h if h is not None and nid not in hidden else self._entry(nid))
        return out

    def _entry(self, nid):
        """The hit of a visible unmerged note, recomputed when its state or status moved.

        An entry is stamped with the epoch of the overlay's node map and fold it was checked
        against (both are swapped whole, never edited; a new pair is a new epoch): in the same epoch
        it holds without reading the note's state, record or status (with 10,000 notes each was a
        cache miss, several per note of each search). In a later one it holds if the note's state
        and status do; a fold publishes new note objects and never edits one, so the same object
        has the same status. The code served is fixed per overlay."""
        if not isinstance(nid, str):
            return None
        ov = self._ov
        if nid in ov.quarantined and not ov.visible(nid):
            return None
        seen, nodes, notes = self._seen, ov._nodes, ov.notes
        if seen[0] is not nodes or seen[1] is not notes:
            seen = self._seen = (nodes, notes, next(self._epochs), {})   # only the current pair is held
        got = self._cache.get(nid)          # (epoch, state, note, status, hit)
        if got is not None and got[0] == seen[2]:
            return got[4]
        state = nodes.state.get(nid)
        if state is None:
            return None
        note = notes.get(nid)
        if got is not None and got[1] == state:
            status = got[3] if got[2] is note else (note.status if note is not None else None)
            if got[3] == status:
                self._cache[nid] = (seen[2], state, note, status, got[4])
                seen[3][nid] = got[4]
                return got[4]
        from stratum import rank, signals

        status = note.status if note is not None else None      # visible: the note's own (status_of)
        h = signals.ShardSignals(ov.shard, ov).hit(rank.Candidate(-1, 0.0, (), nid))
        if h.note is None:
            return None
        self._cache[nid] = (seen[2], state, note, status, h)
        seen[3][nid] = h
        return h

    def __iter__(self):
        """The ids it holds: unmerged notes the caller may see (as ``in`` answers)."""
        ov = self._ov
        return (nid for nid in list(ov._nodes) if ov.visible(nid))

    def __len__(self) -> int:
        return sum(1 for _ in self)


__all__ = ["RankInfos"]
