"""The controller's pins over a version that lost their code (a fleet probe): the name a pin was made
with still finds it, and a pin whose node is gone is marked once, listed by status with the tokens it
holds (its lines too), and unmarked when the node comes back."""

from __future__ import annotations

from stratum.controller import Controller, RecordGraph
from stratum.ids import node_id

BIG = node_id("r", "pkg/extra.py", "function", "big")
FOO = node_id("r", "pkg/mod.py", "function", "foo")


def _ctl() -> Controller:
    nodes = [{"id": n, "kind": "function", "path": p, "parent_id": None, "summary_tokens": 5,
              "api_tokens": 20, "full_tokens": t} for n, p, t in ((BIG, "pkg/extra.py", 900), (FOO, "pkg/mod.py", 50))]
    return Controller(3000, None, RecordGraph(nodes, []))


def test_a_pin_is_found_by_each_name_it_was_made_with_and_by_its_id():
    ctl = _ctl()
    ctl.pin(BIG, names=("pkg/extra.py::big", "pkg/extra.py:3"))
    ctl.pin(FOO)
    assert ctl.pinned_as("pkg/extra.py::big") == ctl.pinned_as("pkg/extra.py:3") == ctl.pinned_as(BIG) == BIG
    assert ctl.pinned_as("pkg/mod.py::foo") is None and ctl.pinned_as(FOO) == FOO
    ctl.unpin(BIG)
    assert ctl.pinned_as("pkg/extra.py::big") is None


def test_a_gone_pin_is_told_once_listed_with_its_tokens_and_unmarked_when_it_comes_back():
    ctl = _ctl()
    ctl.admit([(BIG, "full", 900), (BIG + "#L1-20", "full", 120), (FOO, "full", 50)])
    ctl.pin(BIG, names=("pkg/extra.py::big",))
    ctl.pin(FOO, names=("pkg/mod.py::foo",))
    here = {FOO}
    gone = {"node_id": BIG, "name": "pkg/extra.py::big", "tokens": 1020}     # the node and its lines
    assert ctl.mark_gone(here.__contains__) == [gone]
    assert ctl.mark_gone(here.__contains__) == []                     # said once
    assert ctl.status()["pins_gone"] == [gone] and BIG in ctl.status()["pins"]    # still pinned: the agent's call
    here.add(BIG)
    assert ctl.mark_gone(here.__contains__) == [] and ctl.status()["pins_gone"] == []
    here.discard(BIG)
    assert ctl.mark_gone(here.__contains__) == [gone]                 # gone again: told again
    ctl.unpin(BIG)
    assert ctl.status()["pins_gone"] == [] and ctl.mark_gone(here.__contains__) == []
