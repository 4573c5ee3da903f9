"""Merged agent notes capped in each searcher list as unmerged ones are (``search.NOTES_WINDOW``).

Why: an unmerged note enters a list capped (``search._notes_window``), so a fleet's notes leave the
code near the top; once ``stratum index`` merged them they were ordinary shard rows and filled the
code's own keyword and vector lists uncapped (a probe: 3,000 target-less insight notes pushed the
function the query named from 2nd to 68th, page 1 ten insight notes). An agent note (rca, failure,
insight; not the mined fix/change nodes, which day-one ranking relies on) is the same note merged
or not, so the two count toward one window: a list's notes are one corpus, as the union idf
already treats them.

How, when the shard holds more merged agent notes than the window that a query's kinds allow (a
count kept per shard version, ``AgentNotes``; most stores hold fewer, and search runs as before, no
extra work) and a query's list, searched as before, holds more notes than the window
(``AgentNotes.crowded``; most queries' lists do not, and cost a count): that list is searched again, its code (every row but agent notes) ``W`` deep under a
filter that leaves the agent notes out, and the agent notes as their own list, the window deep
(``m + 1``: one more tells a cut), as the overlay's notes are; the merged and the unmerged notes
are merged by score and cut to the window, then merged with the code by score and cut to ``W``
(``merge_capped``). The order is exact: the code rows are the ones the shard list held without the
notes, each row keeps its own score, ties go by row as ``search._merge_scored`` breaks them.

Why this and not the shard's list filled from deeper: one unfiltered list deep enough to hold ``W``
code rows under the notes costs its depth on every query of such a store (the notes' count, when
they crowd the query: 3,000 deep), while the filtered code list costs only as much deeper as the
notes crowd that query (the vector graph's over-fetch doubles until ``W`` code rows survive, the
keyword heads are read over the code's share) and the notes' own list is small (scored exactly up
to ``rowfilter.EXACT_LIMIT`` rows). A search for notes alone (``search._notes_only``) is never
split: there the notes are the answer and every one of them is kept.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from stratum import schema as S
from stratum.rowfilter import NodeMeta, RowFilter

ALL_NOTES = 2048            # a notes-only search holding at most this many notes fuses all of them (all_notes):
                            # its vector list is then an exact scan (rowfilter.EXACT_LIMIT), its fusion ~1 ms
_AGENT = frozenset(S.AGENT_NOTE_KINDS)
_KNOWN = frozenset(S.NODE_KINDS)


class Split(NamedTuple):
    """One query's two filters: the code (every allowed row but agent notes) and the agent notes."""
    code: RowFilter
    agents: RowFilter


class AgentNotes:
    """A shard version's merged agent notes: how many of each kind (counted once, when its searcher
    is built) and the split filters of an unfiltered query (built once); ``splits``: the
    lists searched again, split (what the extra work cost, per shard version)."""

    def __init__(self, meta: NodeMeta, exact_limit: int):
        self.meta = meta
        self.exact_limit = exact_limit
        names = meta.kind_names
        self.per_kind = {k: int(meta.kind_cum[i + 1] - meta.kind_cum[i]) for i, k in enumerate(names) if k in _AGENT}
        self.count = sum(self.per_kind.values())
        self.splits = 0
        self._plain: Split | None = None
        self._last: tuple = (None, None)     # (a filtered query's RowFilter, its Split)
        self._agent_kind = np.array([k in _AGENT for k in names], dtype=bool)

    def crowded(self, rows: np.ndarray, window: int) -> bool:
        """Whether a list (rows best first; an unmerged note is row n + its slot) holds more notes
        than ``window``, merged agent notes and unmerged notes together: only such a list is searched
        again, split. One that holds no more is already what the split would give (its notes are the
        best of them, its code the best code), so most queries pay a count, not a second search."""
        n = self.meta.n
        real = rows[rows < n]
        return int(np.count_nonzero(self._agent_kind[self.meta.kind_code[real]])) + len(rows) - len(real) > window

    def split(self, filt: RowFilter, window: int) -> Split | None:
        """The two filters when the query's kinds allow more merged agent notes than ``window``
        (and some code), else None: the lists are searched as before. A list is searched with them
        only when ``crowded``."""
        if self.count <= window:
            return None
        kinds = filt.kinds or tuple(self.meta.kind_names)
        agents = tuple(k for k in kinds if k in _AGENT)
        if sum(self.per_kind.get(k, 0) for k in agents) <= window:
            return None
        code = tuple(k for k in kinds if k not in _AGENT and k in _KNOWN)
        if not code:
            return None
        self.splits += 1
        if filt.active:     # a query's two crowded lists ask with its one filter: made once for it
            last = self._last
            if last[0] is filt:
                return last[1]
            made = Split(RowFilter(self.meta, code, filt.path_prefix, filt.language, self.exact_limit),
                         RowFilter(self.meta, agents, filt.path_prefix, filt.language, self.exact_limit))
            self._last = (filt, made)       # one tuple: a server's threads read it whole
            return made
        if self._plain is None:      # most queries: no filter, so these are made once per shard version
            self._plain = Split(RowFilter(self.meta, code, exact_limit=self.exact_limit),
                                RowFilter(self.meta, agents, exact_limit=self.exact_limit))
        return self._plain


def all_notes(filt: RowFilter, ok: np.ndarray | None) -> int:
    """How many notes a notes-only query's filter allows, merged and unmerged, when at most
    ``ALL_NOTES`` (else 0): its lists are then that deep, so every page is cut from one fused list
    (lists as deep as each page reaches fused differently past the window: pages of 10 over 400
    notes repeated 41 of them and never showed 41 others). Past it each page reaches its own depth."""
    if filt.allowed_rows is None:
        return 0
    count = len(filt.allowed_rows) + (int(np.count_nonzero(ok)) if ok is not None else 0)
    return count if count <= ALL_NOTES else 0


def merge_capped(code: tuple[np.ndarray, np.ndarray], merged: tuple[np.ndarray, np.ndarray],
                 unmerged: tuple[np.ndarray, np.ndarray] | None, n: int, depth: int, window: int
                 ) -> tuple[np.ndarray, np.ndarray, bool]:
    """A list's code hits (rows, scores), its merged agent notes' (rows < n) and its unmerged notes'
    (slots: rows n + slot), each best first, as one list: the notes merged by score and cut to
    ``window``, then merged with the code by score and cut to ``depth`` (ties: the smaller row
    first). Returns (rows, scores, whether notes were cut at the window: more may match). The merged
    notes are asked ``window + 1`` deep, the unmerged ``window`` deep (one that fills it may hold more)."""
    rows = [np.asarray(merged[0], np.int64)]
    scores = [np.asarray(merged[1], np.float64)]
    if unmerged is not None and len(unmerged[0]):
        rows.append(np.asarray(unmerged[0], np.int64) + n)
        scores.append(np.asarray(unmerged[1], np.float64))
    nrows, nscores = np.concatenate(rows), np.concatenate(scores)
    # the merged notes are fetched window + 1 deep, the unmerged ones window deep (search's cut sign)
    cut = len(nrows) > window or (unmerged is not None and len(unmerged[0]) >= window)
    keep = np.lexsort((nrows, -nscores))[:window]
    allrows = np.concatenate([np.asarray(code[0], np.int64), nrows[keep]])
    allscores = np.concatenate([np.asarray(code[1], np.float64), nscores[keep]])
    order = np.lexsort((allrows, -allscores))[:depth]
    return allrows[order], allscores[order], cut


__all__ = ["AgentNotes", "Split", "merge_capped", "all_notes", "ALL_NOTES"]
