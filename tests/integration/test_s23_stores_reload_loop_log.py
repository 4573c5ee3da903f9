"""The serving reload loop (``serving.lifecycle.reload_loop``, shared by `stratum serve` and `stratum mcp`)
said "reload failed" on every tick, twice a second, for as long as a failure lasted (a probe's stderr
filled with it). Now: the first failure, a reminder at most once a minute, and the end of it."""

from __future__ import annotations

import logging

from serving import lifecycle
from stratum.errors import StoreError


class _Ticks:
    """``tools`` for the loop: ``reload`` fails the first ``failing`` ticks, then succeeds; the loop
    runs ``ticks`` times (``wait`` is the loop's own clock, here not waiting)."""

    def __init__(self, failing: int, ticks: int):
        self.failing, self.ticks, self.calls = failing, ticks, 0

    def reload(self) -> list:
        self.calls += 1
        if self.calls <= self.failing:
            raise StoreError("manifest /s/manifest.json is unreadable")
        return []

    def wait(self, _interval: float) -> bool:
        return self.calls < self.ticks


def test_a_lasting_reload_failure_is_said_once_and_its_end_once(caplog):
    caplog.set_level(logging.INFO, logger="stratum.serving")
    t = _Ticks(failing=200, ticks=203)
    lifecycle.reload_loop(t, t.wait, 0.0)
    said = [r.getMessage() for r in caplog.records]
    assert t.calls == 203
    assert sum("reload failed" in m for m in said) == 1, said
    assert "manifest /s/manifest.json is unreadable" in said[0]
    assert sum("reload works again" in m for m in said) == 1, said
