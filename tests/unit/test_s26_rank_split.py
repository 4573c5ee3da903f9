"""A stale note judged apart in one file (``NoteInfo.split``, from ``targetstale.Judged.split_in``):
each target's part of the file's lift counts by its own standing, through rank.rerank and
rank_files over table-driven signals (the real store: tests/integration/test_s26_rank_per_target.py)."""

from __future__ import annotations

import pytest

from stratum import rank as R

STALE = "stale: x.py::g changed since this note was written (2026-12-01)"


class Table:
    def __init__(self, hits):
        self.hits = hits

    def hit(self, c):
        return self.hits[c.id]

    def cochange(self, path):
        return []

    def structure(self, path):
        return 0, []

    def locate(self, path):
        return (f"id:{path}", 99)

    def locate_node(self, nid):
        return (nid, 7)


def _note(nodes, flags):
    info = R.NoteInfo("rca", ("x.py",), "active", STALE, nodes=tuple(nodes), split=(("x.py", flags),))
    return R.Hit("rca", None, note=info)


def C(id, score, row=0):
    return R.Candidate(row, score, (), id)


def test_the_unchanged_symbol_takes_its_part_whole_and_fresh_the_changed_one_half_and_stale():
    sig = Table({"f": R.Hit("function", "x.py"), "g": R.Hit("function", "x.py"),
                 "n": _note([("f", "x.py"), ("g", "x.py")], (False, True))})
    cands = [C("n", 0.04, -1), C("f", 0.02, 1), C("g", 0.02, 2)]
    items = {r.id: r for r in R.rerank(cands, sig)}
    # f, the file's best item, also keeps the file's other lift (its second symbol, x0.25)
    assert items["f"].why == "text; rca note n; 2 symbols"
    assert items["f"].score == pytest.approx(0.02 + 0.04 / 2 + 0.005)
    assert items["g"].why == "text; rca note n (stale: code changed since 2026-12-01, x0.5)"
    assert items["g"].score == pytest.approx(0.02 + 0.04 / 2 * 0.5)
    [x] = R.rank_files(cands, sig)          # the file: both parts, said as the mix
    assert x.parts["notes"] == pytest.approx(0.04 * 0.75)
    assert "stale: x.py::g changed since" in x.why and "counted x0.75" in x.why, x.why


def test_what_the_file_keeps_says_its_own_targets_standing():
    """A whole-file target (changed with g) keeps its part with the file's best item, said stale."""
    sig = Table({"h": R.Hit("function", "x.py"), "f": R.Hit("function", "x.py"),
                 "n": _note([("", "x.py"), ("f", "x.py"), ("g", "x.py")], (True, False, True))})
    cands = [C("h", 0.05, 3), C("n", 0.04, -1), C("f", 0.02, 1)]
    items = {r.id: r for r in R.rerank(cands, sig)}
    assert items["f"].why.startswith("text; rca note n") and "stale" not in items["f"].why
    assert "rca note n (stale: code changed since 2026-12-01, x0.5)" in items["h"].why, items["h"].why
    assert items["g"].added and "x0.5" in items["g"].why, items["g"].why
