"""Where unmerged notes sort among a shard version's node ids: the search's tie order.

Fused items that tie on score go by node id (``search.HybridSearcher._tie_keys``); a note is not a
shard row, so its place among the shard's ids is found once (``NodeMeta.id_position``) and kept
per note and shard version (``NoteView.id_positions`` / ``tie_keys``): ordering a search's ~35
notes by id there cost ~40 us at 10,000 notes.
"""

from __future__ import annotations

import bisect
import threading
from typing import Sequence

import numpy as np


class NotePlaces:
    """Where each note sorts among one shard version's ids (``search.NodeMeta``), per slot: its
    place p (how many shard ids sort before its id) and a sort key in (2p - 2, 2p), ordered by
    note id among the notes of one gap. A new note takes a key between its neighbours' (no other
    key moves); a gap whose keys run out of room there is renumbered evenly (the same order). The
    arrays are replaced, not written in place, so a reader's take is one consistent state."""
    __slots__ = ("place", "key", "gaps", "lock")

    def __init__(self) -> None:
        self.place = np.empty(0)        # NaN: not placed yet
        self.key = np.empty(0)
        self.gaps: dict[int, tuple[list[str], list[int]]] = {}     # place -> (note ids ascending, their slots)
        self.lock = threading.Lock()

    def keys_of(self, slots: np.ndarray) -> np.ndarray:
        key = self.key
        try:
            return key[slots]
        except IndexError:              # slots past the placed ones
            out = np.full(len(slots), np.nan)
            inside = slots < len(key)
            out[inside] = key[slots[inside]]
            return out

    def place_all(self, slots: Sequence[int], ids: Sequence[str], meta) -> None:
        with self.lock:
            have, need = len(self.key), max(slots) + 1
            size = have if have >= need else max(need, len(ids), 2 * have)
            place, key = _nan_grown(self.place, size), _nan_grown(self.key, size)
            for j in slots:
                if not np.isnan(place[j]):
                    continue
                nid = ids[j]
                p = meta.id_position(nid)
                members, mslots = self.gaps.setdefault(p, ([], []))
                i = bisect.bisect_left(members, nid)
                lo = key[mslots[i - 1]] if i else 2.0 * p - 2.0
                hi = key[mslots[i]] if i < len(mslots) else 2.0 * p
                members.insert(i, nid)
                mslots.insert(i, j)
                place[j], mid = p, (lo + hi) / 2
                if lo < mid < hi:
                    key[j] = mid
                else:                   # no room left: the gap renumbered, evenly
                    m = len(mslots)
                    key[mslots] = 2.0 * p - 2.0 + 2.0 * np.arange(1, m + 1) / (m + 1)
            self.place, self.key = place, key


def _nan_grown(a: np.ndarray, size: int) -> np.ndarray:
    """A copy of ``a`` (``size`` >= its length), NaN past it."""
    out = np.full(size, np.nan)
    out[:len(a)] = a
    return out


__all__ = ["NotePlaces"]
