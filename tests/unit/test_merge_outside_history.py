"""A note whose commit the mined history lacks is about a branch's code (pending, not orphaned),
unless the history cannot say: a shallow clone's (or a capped mine's) commits name parents it does
not hold, and a note from before its boundary read as a branch's stayed pending for good (a review)."""

from __future__ import annotations

import pyarrow as pa

from pipeline.merge import _outside_history
from pipeline.notetargets import renames_of
from stratum import schema as S


def _commits(rows: list[tuple[str, list[str]]]) -> pa.Table:
    return S.to_table([{"sha": sha, "parents": parents, "n_files": 1} for sha, parents in rows], S.COMMITS)


def test_a_whole_history_tells_a_branch_commit_and_a_shallow_one_tells_nothing():
    whole = _outside_history(renames_of(None, _commits([("c3", ["c2"]), ("c2", ["c1"]), ("c1", [])])))
    assert whole is not None and whole("b9") and not whole("c2")
    assert _outside_history(renames_of(None, _commits([("c3", ["c2"]), ("c2", ["c1"])]))) is None   # c1 not fetched
    assert _outside_history(renames_of(None, None)) is None
