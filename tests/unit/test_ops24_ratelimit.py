"""One owner of "said once, then once a minute while it lasts, then its end" (``stratum.ratelimit``):
the reload loop's failures (serving.lifecycle) and a store's unreadable manifest (ShardSet) each
wrote it again."""

from __future__ import annotations

import logging
import time

from serving.lifecycle import _Failing
from stratum.errors import StoreError
from stratum.ratelimit import Lasting


def test_a_condition_is_said_once_then_once_each_period_with_how_long_and_how_often_then_its_end():
    run = Lasting(every=0.2)
    assert run.over() is None                               # nothing going on: no end to say
    first = run.now()
    assert first is not None and first.first and first.lasted == 0.0 and first.since_last == 1
    assert [run.now(), run.now()] == [None, None]           # within the period: silent
    time.sleep(0.25)
    again = run.now()
    assert again is not None and not again.first and again.lasted >= 0.2 and again.since_last == 3
    assert run.now() is None
    lasted = run.over()
    assert lasted is not None and lasted >= 0.2 and run.over() is None     # ended: said once
    fresh = run.now()                                       # a new run: said at once, as a first
    assert fresh is not None and fresh.first and fresh.since_last == 1


def test_the_reload_loops_failures_are_said_once_a_minute_and_their_end_once(caplog):
    caplog.set_level(logging.WARNING, logger="stratum.serving")
    failing = _Failing()
    for _ in range(5):                                      # five reload ticks failing
        failing.now(StoreError("manifest unreadable"))
    failing.over()
    failing.over()                                          # a tick that works, and the next
    said = [r.getMessage() for r in caplog.records]
    assert said[0] == "reload failed, still serving the loaded versions: manifest unreadable"
    assert len(said) == 2 and said[1].startswith("reload works again after ")
