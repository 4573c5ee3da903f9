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
from stratum.limits import echo
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
    # Ladder rounds from this index on are a last resort: run only so the request fits the limit
    # at all, never merely to restore the free-budget reserve. None: every round is ordinary.
    last_resort_round: int | None = None

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
    Ladder: a direct neighbour of the focus (one imports/tests hop) at full is demoted to api and
    kept there; any other entry is demoted to a one-line summary, and dropped only if that is still
    not enough; the focus files' own entries (being edited) stay at full until then, and are
    demoted to api only after every other entry is gone. Only when the request still does not fit
    the limit are focus and neighbour entries demoted further and dropped (last resort, reported as
    such); with ``strict_neighbours`` they never go below api and the request is refused instead
    (BudgetExceeded).
    """

    name = "score"

    def __init__(self, weights: ScoreWeights = DEFAULT_WEIGHTS, *, quantum: float = 0.01,
                 strict_neighbours: bool = False):
        if not (quantum > 0 and math.isfinite(quantum)):
            raise InvalidArgument(f"score quantum must be > 0, got {quantum!r}")
        self.weights = weights
        self.quantum = quantum
        self.strict_neighbours = strict_neighbours
        self.last_resort_round = None if strict_neighbours else 3

    def score(self, s: Signals) -> float:
        w = self.weights
        return w.g * s.g + w.c * s.c + w.h * s.h + w.p * s.p

    def victim_key(self, s: Signals) -> tuple:
        sc = self.score(s)
        return (math.floor(sc / self.quantum + 1e-9), -s.tokens, sc, s.node_id)

    def ladder(self, s: Signals) -> tuple[str | None, ...]:
        # Rungs line up by round (the controller skips a rung that is not below the level held,
        # so a repeated level is a no-op round for that entry):
        #   0  neighbours (hops 1) full -> api; every other entry -> summary
        #   1  other entries dropped
        #   2  the focus files' own entries (hops 0) full -> api
        #   3, 4  last resort, only so the request fits the limit: neighbours and focus -> summary -> cold
        if s.hops == 0:
            return ("full", "full", "api") if self.strict_neighbours else ("full", "full", "api", "summary", None)
        if s.focus_neighbour:
            return ("api",) if self.strict_neighbours else ("api", "api", "api", "summary", None)
        return ("summary", None)
    def reason(self, s: Signals, to_level: str | None) -> str:
        sc = f"S={self.score(s):.3f} (G={s.g:.2f} C={s.c:.2f} H={s.h:.2f})"
        if s.focus_neighbour and to_level != "api":
            who = "focus file" if s.hops == 0 else "focus neighbour"     # its own lines too (a probe)
            return (f"last resort, nothing else left to evict: {who} "
                    f"{'dropped' if to_level is None else 'demoted to summary'}: {sc}")
        if to_level is None:
            return f"dropped to cold, coldest first: {sc}"
        if s.hops == 0:
            return f"focus file demoted to api after every other entry: {sc}"
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
    raise InvalidArgument(f"unknown controller policy {echo(name)!r}; choose 'score' or 'lru'")


__all__ = ["Signals", "Policy", "ScoreWeights", "DEFAULT_WEIGHTS", "ScorePolicy", "LRUPolicy",
           "policy_by_name", "RANK"]
