"""The context controller's config and the values it hands back (``stratum.controller`` re-exports
them all): the frozen, validated :class:`ControllerConfig` whose defaults say why, and what
``Controller.admit`` and ``Controller.prefetch_plan`` return.

Why apart from ``stratum.controller``: plain values with no behaviour beyond checking the config, read
by the tools and the render layer without the controller's machinery.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, NamedTuple

from stratum.envelope import Budget, Eviction
from stratum.errors import InvalidArgument


@dataclass(frozen=True)
class ControllerConfig:
    reserve_fraction: float = 0.15       # keep this share of the limit free; evict when it would not be
    half_life: float = 16.0              # access history halves every half_life units ...
    half_life_unit: str = "calls"        # ... of "calls" (admit/touch) or "seconds" (the now() clock)
    max_inferred_focus: int = 1          # inferred focus = the last N files got at full level (1: measured best in the replay, docs/bench/controller.md)
    max_hops: int = 2                    # G is 0 beyond this many imports/tests hops from the focus
    proximity_kinds: tuple[str, ...] = ("imports", "tests")

    def __post_init__(self):
        if not 0 <= self.reserve_fraction < 1:
            raise InvalidArgument(f"reserve_fraction must be in [0, 1), got {self.reserve_fraction}")
        if not (self.half_life > 0 and math.isfinite(self.half_life)):
            raise InvalidArgument(f"half_life must be > 0, got {self.half_life}")
        if self.half_life_unit not in ("calls", "seconds"):
            raise InvalidArgument(f"half_life_unit must be 'calls' or 'seconds', got {self.half_life_unit!r}")
        if self.max_inferred_focus < 0 or self.max_hops < 0:
            raise InvalidArgument("max_inferred_focus and max_hops must be >= 0")


@dataclass(frozen=True)
class Admitted:
    node_id: str
    level: str
    tokens: int                  # tokens now held (an upgrade smaller than what was held keeps that size)
    previous_level: str | None   # the lower level it replaced, if any
    tokens_added: int            # tokens - tokens of the previous level


@dataclass(frozen=True)
class AdmitResult:
    admitted: list[Admitted]     # new entries, or upgrades of lower-level ones
    already: list[str]           # ids held at a higher level, or at the asked one at that size or larger (nothing added)
    evictions: list[Eviction]
    budget: Budget               # after the admission
    reserve_short: int = 0       # tokens the free budget is below the reserve (0: reserve kept)
    warning: str | None = None
    count: int = 0               # leading items of the request admitted (all, unless prefix=True cut the run)

    @property
    def tokens_freed(self) -> int:
        return sum(e.tokens_freed for e in self.evictions)


class PlannedItem(NamedTuple):
    node_id: str
    level: str
    tokens: int
    score: float


class PrefetchPlan(list[PlannedItem]):
    """``Controller.prefetch_plan``'s items, best first, and ``unfit``: the focus files it holds at no
    level (none of their levels fit), each at its cheapest level's whole cost, and ``before``: the
    tokens the focus files ranked before each took, so the answer can say what they need (a prefetch
    that left the focus out said nothing: a probe; then it named a budget the files before it filled)."""

    def __init__(self, items: Iterable[PlannedItem] = (), unfit: Iterable[PlannedItem] = (),
                 before: dict[str, int] | None = None):
        super().__init__(items)
        self.unfit = tuple(unfit)
        self.before = dict(before or {})


__all__ = ["ControllerConfig", "Admitted", "AdmitResult", "PlannedItem", "PrefetchPlan"]
