"""Background note work gives way to searches (stratum.notethreads): after a restart with 10,000
notes, a thread computing the notes' ranking facts beside running searches made each ~40% slower."""

from __future__ import annotations

import threading

from stratum import notethreads as TH


def test_background_work_waits_while_a_search_runs_and_goes_on_after():
    done = threading.Event()

    def work():
        TH.yield_to_searches(0.001, most=30.0)
        done.set()

    with TH.searching:
        assert TH.searching.n == 1
        th = threading.Thread(target=work)
        th.start()
        assert not done.wait(0.2)           # a search runs: the step waits
    assert TH.searching.n == 0
    assert done.wait(5.0)                   # it has ended: the work goes on
    th.join()


def test_a_busy_server_still_gets_its_background_work_done():
    done = threading.Event()

    def work():
        TH.yield_to_searches(0.001, most=0.05)
        done.set()

    with TH.searching:                      # a search that outlasts the longest wait
        th = threading.Thread(target=work)
        th.start()
        assert done.wait(5.0)
    th.join()


def test_reading_tools_count_as_searches_in_flight():
    """Every reading tool runs inside ``searching`` (the ``tool`` decorator), writing ones do not."""
    from stratum import tools as T

    seen = {}
    for spec in T._SPECS:
        fn = getattr(T.Tools, spec.name)
        seen[spec.name] = hasattr(fn, "__wrapped__")
    assert seen["search"] and seen["get"] and seen["walk"]
    assert not seen["remember"]
