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
    """Every reading tool runs inside ``searching`` (the ``tool`` decorator), writing ones do not
    (a writing tool is wrapped too when it has bounded arguments: the searches in flight are counted
    as its body starts, where it looks up its session)."""
    from stratum import tools as T

    class Body(Exception):
        pass

    class Stub:
        def _session(self, sid):
            raise Body(TH.searching.n)

    def in_flight(name, *args):
        try:
            getattr(T.Tools, name)(Stub(), "s", *args)
        except Body as b:
            return b.args[0]
        raise AssertionError(f"{name} did not look up its session")

    assert in_flight("search", "q") == in_flight("get", "t") == in_flight("walk", "t") == 1
    assert in_flight("remember", "rca", "a note", ["t"]) == 0
