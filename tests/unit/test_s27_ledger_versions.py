"""The controller's ledger knows which version of a node it holds: another version is new content.

A re-indexed function read again at the level held was "already in context" and charged nothing
when it had shrunk (130 -> 119 tokens), and so was its api after the old full (a probe): the ledger
compared level and size, never the version. Over a small real graph (``RecordGraph``)."""

from __future__ import annotations

import pytest

from stratum.controller import Controller, RecordGraph
from stratum.errors import InvalidArgument
from stratum.policies import ScorePolicy

A, B = "pkg/a.py", "pkg/b.py"
COSTS = {A: (10, 60, 130), B: (10, 60, 600)}       # summary, api, full


def _graph() -> RecordGraph:
    nodes = [{"id": p, "kind": "file", "path": p, "parent_id": None, "summary_tokens": s, "api_tokens": a,
              "full_tokens": f} for p, (s, a, f) in COSTS.items()]
    return RecordGraph(nodes, [])


def _held(ctl: Controller) -> dict[str, tuple[str, int]]:
    return {e["node_id"]: (e["level"], e["tokens"]) for e in ctl.status()["entries"]}


def test_same_version_is_held_and_another_is_new_content_whole():
    ctl = Controller(10_000, ScorePolicy(), _graph())
    ctl.admit([(A, "full", 130, 0, "v7")])
    same = ctl.admit([(A, "full", 130, 0, "v7")])
    assert same.already == [A] and same.budget.used == 130
    unknown = ctl.admit([(A, "full", 130)])                  # no version given: as before, held
    assert unknown.already == [A]
    shorter = ctl.admit([(A, "full", 119, 0, "v8")])
    assert shorter.already == [] and shorter.admitted[0].tokens_added == 119
    assert shorter.budget.used == 249 and _held(ctl)[A] == ("full", 249)   # both texts are in context
    assert ctl.admit([(A, "full", 119, 0, "v8")]).already == [A]           # v8 is held now
    assert ctl.admit([(A, "api", 50, 0, "v8")]).already == [A]             # and its api with it


def test_a_lower_level_of_another_version_then_its_full():
    ctl = Controller(10_000, ScorePolicy(), _graph())
    ctl.admit([(A, "full", 130, 0, "v7")])
    api = ctl.admit([(A, "api", 50, 0, "v8")])
    assert api.already == [] and api.budget.used == 180 and _held(ctl)[A] == ("api", 180)
    # v8's full adds what v8's api did not hold; the old full is another text
    full = ctl.admit([(A, "full", 119, 0, "v8")])
    assert full.admitted[0].tokens_added == 69 and full.budget.used == 249


def test_a_demotion_leaves_only_the_new_versions_rung():
    ctl = Controller(1000, ScorePolicy(), _graph())
    ctl.admit([(A, "full", 130, 0, "v7")], infer_focus=False)
    ctl.admit([(A, "full", 119, 0, "v8")], infer_focus=False)
    r = ctl.admit([(B, "full", 650, 0, "b1")], infer_focus=False)   # 101 free < reserve 150: evicts
    ev = {e.node_id: e for e in r.evictions}
    assert ev[A].from_level == "full" and ev[A].to_level == "summary" and ev[A].tokens_freed == 249 - 10
    assert _held(ctl)[A] == ("summary", 10) and r.budget.used == 249 + 650 - 239
    # the summary rung is v8's: v8 at summary is held, v7 was dropped with the demotion
    assert ctl.admit([(A, "summary", 10, 0, "v8")], infer_focus=False).already == [A]


def test_a_page_run_counts_another_version_as_new_content():
    """The run finder (``prefix``) and ``admit`` use one rule: a page of the new version is cut where
    ``admit`` would refuse it, not where the old size says it is held."""
    ctl = Controller(400, ScorePolicy(), _graph())
    ctl.pin(A)
    ctl.admit([(A, "full", 130, 0, "v7")], infer_focus=False)
    r = ctl.admit([(A, "full", 119, 0, "v8"), (B, "api", 60, 0, "b1"), (B + "#L1-9", "full", 200, 0, "r1")],
                  infer_focus=False, prefix=True)
    assert r.count == 2 and r.budget.used == 130 + 119 + 60


def test_a_version_must_be_text():
    ctl = Controller(1000, ScorePolicy(), _graph())
    with pytest.raises(InvalidArgument, match="version"):
        ctl.admit([(A, "full", 130, 0, 7)])
