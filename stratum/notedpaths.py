"""Where notes are, by the path of the file they concern (a symbol's path is its file's), per shard
version: what lets an item, or a file's walk, find the notes about a file and its symbols without
walking its symbols or every note (``Memory.by_path``).

A file's walk over notes lists its symbols' withdrawn (retracted, superseded) and orphaned notes
too (``answernotes.of_symbols``); it found them by a pass over every unmerged note: ~2.7 ms of a
~3.3 ms walk at 10,000 notes. They are kept by path here, beside the active ones, built in the
same pass when the fold changes.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from stratum.overlay import NotesOverlay
    from stratum.shard import Shard


class Noted(NamedTuple):
    """One shard version's notes by path (each entry's target id, and whether that target is code
    only a branch has: not this version's code)."""

    active: dict[str, list[tuple[str, str, str, bool]]]   # path -> (note id, target id, target qualname, branch only)
    merged: dict[str, list[int]]                          # path -> rows merged notes are about (their ``about`` edges)
    others: dict[str, list[tuple[str, str, bool]]]        # path -> (note id, target id, branch only): not active


class NotedPaths:
    """``Noted`` per shard version, rebuilt when the overlay's fold changes (it swaps in a new
    ``notes`` map); the merged rows once per version."""

    def __init__(self) -> None:
        self._about_targets: weakref.WeakKeyDictionary[Shard, np.ndarray] = weakref.WeakKeyDictionary()
        self._noted: weakref.WeakKeyDictionary[Shard, tuple] = weakref.WeakKeyDictionary()

    def of(self, sh: "Shard", ov: "NotesOverlay") -> Noted:
        cached = self._noted.get(sh)
        if cached is not None and cached[0] is ov.notes:
            return cached[1]
        notes = ov.notes
        if cached is None:
            rows = np.flatnonzero(self._targets(sh))
            merged: dict[str, list[int]] = {}
            for r, p in zip(rows.tolist(), sh.col("path").array.take(rows).to_pylist()):
                merged.setdefault(p or "", []).append(r)
        else:
            merged = cached[1].merged
        active: dict[str, list[tuple[str, str, str, bool]]] = {}
        others: dict[str, list[tuple[str, str, bool]]] = {}
        for nid, n in notes.items():
            live = n.active
            for t in n.about:       # code only a branch has is not this version's (Memory.branch_notes)
                branch_only = t.pending and t.node_id not in ov.code
                if live:
                    active.setdefault(t.path or "", []).append((nid, t.node_id, t.qualname, branch_only))
                else:
                    others.setdefault(t.path or "", []).append((nid, t.node_id, branch_only))
        got = Noted(active, merged, others)
        self._noted[sh] = (notes, got)
        return got

    def _targets(self, sh: "Shard") -> np.ndarray:
        """Per row: is it the target of an ``about`` edge (a merged note about it)? One vectorised pass
        over the version's out-edges, once, so a file's symbols without notes cost no graph lookup."""
        t = self._about_targets.get(sh)
        if t is None:
            sh.warm.ensure_served()             # a tier the background check found damaged answers nothing
            g = sh.warm.graph
            t = np.zeros(len(sh), dtype=bool)
            if "about" in g.kind_names:
                code = g.kind_names.index("about")
                t[np.asarray(g.a["out.nbr"])[np.asarray(g.a["out.kind"]) == code]] = True
            self._about_targets[sh] = t
        return t


__all__ = ["Noted", "NotedPaths"]
