"""What ranking knows about a note hit (``NoteInfo``): its standing, files, targets and the
evidence shares a search reads of it, computed once per note. Split from ``stratum.rank``, which
imports it (and re-exports it: ``from stratum.rank import NoteInfo`` stays the way to name it)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

from stratum import schema as S

AGENT = "agent"
MINED = "mined"             # mined fixes (Weights.mined)
CHANGES = "changes"         # mined changes (Weights.changes)


@dataclass(frozen=True)
class NoteInfo:
    """What ranking needs to know about a note hit."""
    kind: str
    files: tuple[str, ...]          # file paths it is about (symbols mapped to their file)
    status: str = "active"          # active / superseded / retracted / orphaned
    stale: str = ""                 # "" or why it is stale ("src/x.py changed since ...")
    created_at: datetime | None = None
    title: str = ""
    # (node id, path) of each target when one is a function, class or method (a whole file's id ""),
    # else (): an agent note's lift goes to those items (stratum.ranksymbols), its files' ranks are the same
    nodes: tuple[tuple[str, str], ...] = ()
    # of an active stale note, the files none of its changed targets is in: counted whole there
    # (stratum.targetstale)
    fresh_at: tuple[str, ...] = ()
    # of an active stale note, the files holding a changed target and an unchanged one, each with
    # whether each of its targets there changed (``nodes`` order): each target's part counted by its
    # own standing (stratum.targetstale, ``rank._apart``)
    split: tuple[tuple[str, tuple[bool, ...]], ...] = ()

    @cached_property
    def mined(self) -> bool:
        return self.kind in S.MINED_NOTE_KINDS

    @cached_property
    def symbols_at(self) -> tuple[tuple[int, tuple[str, ...]] | None, ...] | None:
        """For each of its ``targets``: (how many of its targets are in that file, the ids of those
        that are symbols), None where none is a symbol with an id; None when none is anywhere.
        Grouped once per note, not per file of each search (``ranksymbols.symbol_shares`` regrouped
        ``nodes`` ~45 times a search with 10,000 notes), and read from the evidence itself (rank_files)."""
        if not self.nodes:
            return None
        at = []
        for f in self.targets:
            here = [nid for nid, p in self.nodes if p == f]
            ids = tuple(nid for nid in here if nid)
            at.append((len(here), ids) if ids else None)
        return tuple(at) if any(a is not None for a in at) else None

    @cached_property
    def targets(self) -> tuple[str, ...]:
        """Its files, each once (what its evidence is shared among); ``files`` itself when that is
        so already (one object fewer for a search to read)."""
        t = tuple(f for f in dict.fromkeys(self.files) if f)
        return self.files if t == self.files else t

    @cached_property
    def targets_root(self) -> float:
        """sqrt of its distinct file count: how its evidence is shared among them (rank_files)."""
        return math.sqrt(len(self.targets))

    @cached_property
    def root(self) -> float:
        """sqrt of its file count (at least 1): a note lends each file its score over this."""
        return math.sqrt(max(len(self.files), 1))

    @cached_property
    def channel(self) -> str:
        """Which weight its evidence takes: AGENT (notes), MINED (fixes) or CHANGES."""
        return (CHANGES if self.kind == "change" else MINED) if self.mined else AGENT

    @cached_property
    def facts(self) -> tuple[bool, bool, tuple[str, ...], tuple[str, ...], float, str, tuple | None, float, str]:
        """(fresh, mined, files, targets, targets_root, channel, symbols_at, root, its why when it
        stands as it is): what a search reads of every note hit, in one tuple its ``Hit`` carries
        (``Hit.facts``; its attributes one by one were most of a note's cost)."""
        return (self.fresh, self.mined, self.files, self.targets, self.targets_root, self.channel, self.symbols_at,
                self.root, f"past {self.kind}" if self.mined else f"{self.kind} note")

    @cached_property
    def fresh(self) -> bool:
        """Active and not stale: it stands as it is (``_standings``)."""
        return self.status == "active" and not self.stale


__all__ = ["NoteInfo", "AGENT", "MINED", "CHANGES"]
