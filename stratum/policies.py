"""Eviction policies for the context controller: the paper's S(v) score and plain LRU.

A policy sees one :class:`Signals` record per context entry and answers three questions:

- ``score(s)``: how much the entry is worth keeping (higher = keep; shown in ``status``);
- ``victim_key(s)``: the order in which entries are given up (ascending: first key goes first);
- ``ladder(s)``: the successive levels an entry steps down through under pressure, ending in
  ``None`` (dropped: back to the cold tier) or stopping at a floor it must keep.

The controller owns everything else (budget, pins, focus, history, the 15% reserve); pinned
entries never reach a policy. Both policies here sit behind that one interface so S(v) can be
measured against LRU (RQ3) with every other part of the controller held equal.

S(v) = w1*G + w2*C + w3*H + w4*P, each signal in [0, 1]:

- G, graph proximity to the focus: 1/(1 + hops) from the node's file to the nearest focus file over
  imports/tests edges (1 in a focus file, 0.5 one hop away, 1/3 two hops away), 0 beyond.
- C, co-change affinity: max over focus files f of w(f, file) / max_g w(f, g), the co-change weight
  relative to f's strongest partner (1 for the focus files themselves).
- H, time-decayed access frequency h (each access adds 1, halving every half-life), as h / (1 + h):
  0 never, 0.5 for one access just now, towards 1 for frequent recent use. Absolute, so one node's
  score does not move when another node is read.
- P, pin: 1 pinned, else 0.

The default weights are the hypothesis under test, not tuned values.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass

from stratum.errors import InvalidArgument
from stratum.schema import LEVELS

RANK = {lvl: i for i, lvl in enumerate(LEVELS)}  # summary < api < full


@dataclass(frozen=True)
class Signals:
    """What a policy may know about one entry in the agent's context."""

    node_id: str
    level: str                   # level held in context now
    tokens: int                  # tokens held in context now
    g: float                     # graph proximity to the focus, [0, 1]
    c: float                     # co-change affinity with the focus, [0, 1]
    h: float                     # normalised decayed access frequency, [0, 1)
    p: float                     # 1.0 pinned, else 0.0
    hops: int | None             # file hops to the nearest focus file (None: unreachable / no file)
    last_access: int             # sequence number of the last access (larger = more recent)

    @property
    def focus_neighbour(self) -> bool:
        """In a focus file or one imports/tests hop from one: keeps api level under S(v)."""
        return self.hops is not None and self.hops <= 1


class Policy(ABC):
    """The pluggable part of eviction. Stateless: one instance may serve many sessions."""

    name: str = "policy"

    @abstractmethod
    def score(self, s: Signals) -> float:
        """Keep-worthiness of an entry (higher = keep)."""

    @abstractmethod
    def victim_key(self, s: Signals) -> tuple:
        """Sort key of eviction order: entries with the smallest key are given up first."""

    @abstractmethod
    def ladder(self, s: Signals) -> tuple[str | None, ...]:
        """Levels the entry steps down through, one rung per round; ``None`` means dropped to cold.
        The controller skips a rung that is not below the level held (or that the node lacks)."""

    def reason(self, s: Signals, to_level: str | None) -> str:
        return f"{self.name}: {'dropped' if to_level is None else 'demoted to ' + to_level}"


@dataclass(frozen=True)
class ScoreWeights:
    g: float = 0.4    # graph proximity to the focus
    c: float = 0.2    # co-change affinity with the focus
    h: float = 0.4    # decayed access frequency
    p: float = 1.0    # pin (pinned entries are never evicted; P ranks them in status and prefetch)

    def __post_init__(self):
        for k in ("g", "c", "h", "p"):
            v = getattr(self, k)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
                raise InvalidArgument(f"score weight {k} must be a finite number >= 0, got {v!r}")


DEFAULT_WEIGHTS = ScoreWeights()


class ScorePolicy(Policy):
    """S(v): coldest first (lowest score), the largest first among equally cold entries.

    Scores are compared in bands of ``quantum`` (default 0.01), so entries whose scores differ by
    less than that count as equally cold and the one holding more tokens goes first (then the
    lower exact score, then the node id, so the order is deterministic).
    Ladder: a focus neighbour (hops <= 1) at full is demoted to api and kept there; any other entry
    is demoted to a one-line summary, and dropped only if that is still not enough.
    """

    name = "score"

    def __init__(self, weights: ScoreWeights = DEFAULT_WEIGHTS, *, quantum: float = 0.01):
        if not (quantum > 0 and math.isfinite(quantum)):
            raise InvalidArgument(f"score quantum must be > 0, got {quantum!r}")
        self.weights = weights
        self.quantum = quantum

    def score(self, s: Signals) -> float:
        w = self.weights
        return w.g * s.g + w.c * s.c + w.h * s.h + w.p * s.p

    def victim_key(self, s: Signals) -> tuple:
        sc = self.score(s)
        return (math.floor(sc / self.quantum + 1e-9), -s.tokens, sc, s.node_id)

    def ladder(self, s: Signals) -> tuple[str | None, ...]:
        # The same rungs for every level, so round 1 (drops) starts only after every entry has had
        # its demotion in round 0; a rung at or above the held level is skipped by the controller.
        return ("api",) if s.focus_neighbour else ("summary", None)

    def reason(self, s: Signals, to_level: str | None) -> str:
        sc = f"S={self.score(s):.3f} (G={s.g:.2f} C={s.c:.2f} H={s.h:.2f})"
        if to_level is None:
            return f"dropped to cold, coldest first: {sc}"
        if s.focus_neighbour:
            return f"focus neighbour kept at api: {sc}"
        return f"demoted to summary before dropping: {sc}"

    def __repr__(self) -> str:
        return f"ScorePolicy({self.weights})"


class LRUPolicy(Policy):
    """Plain LRU, the baseline: drop the least recently used entry whole; no focus, no demotion."""

    name = "lru"

    def score(self, s: Signals) -> float:
        return float(s.last_access)

    def victim_key(self, s: Signals) -> tuple:
        return (s.last_access, s.node_id)

    def ladder(self, s: Signals) -> tuple[str | None, ...]:
        return (None,)

    def reason(self, s: Signals, to_level: str | None) -> str:
        return f"dropped to cold, least recently used (last access #{s.last_access})"

    def __repr__(self) -> str:
        return "LRUPolicy()"


def policy_by_name(name: str, weights: ScoreWeights | None = None) -> Policy:
    """``score`` or ``lru`` (what a CLI flag or session option names)."""
    if name == "score":
        return ScorePolicy(weights or DEFAULT_WEIGHTS)
    if name == "lru":
        return LRUPolicy()
    raise InvalidArgument(f"unknown controller policy {name!r}; choose 'score' or 'lru'")


__all__ = ["Signals", "Policy", "ScoreWeights", "DEFAULT_WEIGHTS", "ScorePolicy", "LRUPolicy",
           "policy_by_name", "RANK"]
