"""``rank.rerank``'s rare-word placement of a stale note (``ranknotes.rare_first``), over the
table-driven signals of tests/unit/test_rank.py: a stale agent note holding the query's rare word
goes first, saying so and stale, its files lifted at its stale standing; a fresh one holding it
goes before it; a superseded or retracted one is never placed (the search serves none, so only
the rule itself can show it)."""

from __future__ import annotations

import pytest

from stratum import rank as R
from tests.unit.test_rank import TableSignals, code, note

STALE = "stale: x.py::f changed since this note was written"


def _sig(**notes) -> TableSignals:
    """Code that out-matches every note by text (a.py, b.py), and the notes given."""
    return TableSignals({"a": code("a.py", "f"), "b": code("b.py", "g"), "x": code("x.py", "f"), **notes})


def _cands(*notes: str) -> list[R.Candidate]:
    return [R.Candidate(0, 0.033, ("vector", "keyword"), "a"), R.Candidate(1, 0.032, ("vector", "keyword"), "b"),
            R.Candidate(2, 0.020, ("vector",), "x"),
            *[R.Candidate(-1, 0.016 - k * 1e-4, ("keyword",), n, True) for k, n in enumerate(notes)]]


def test_a_stale_note_holding_a_rare_word_is_first_says_stale_and_lifts_at_its_standing():
    sig = _sig(n=note(["x.py"], stale=STALE))
    out = R.rerank(_cands("n"), sig)
    assert out[0].id == "n", [(r.id, r.score, r.why) for r in out]
    assert out[0].why.startswith(f"{R.RARE_WHY}; ") and f"{STALE}: counted x0.5" in out[0].why, out[0].why
    # its file keeps the stale lift: as the same note without the rare word lends it
    files = {f.path: f.parts.get("notes") for f in R.rank_files(_cands("n"), sig)}
    plain = {f.path: f.parts.get("notes") for f in R.rank_files(
        [c._replace(rare=False) for c in _cands("n")], sig)}
    assert files == plain and files["x.py"]


def test_a_fresh_note_holding_the_word_goes_before_a_stale_one():
    # the stale one scores more (its text, the file it leads): still the fresh one first, the stale one not placed
    out = R.rerank(_cands("old", "new"), _sig(old=note(["x.py"], stale=STALE), new=note(["z.py"])))
    assert out[0].id == "new" and out[0].why.startswith(R.RARE_WHY), [(r.id, r.why) for r in out]
    assert not any(r.why.startswith(R.RARE_WHY) for r in out[1:])


@pytest.mark.parametrize("status", ["superseded", "retracted", "orphaned"])
def test_a_note_no_longer_active_is_not_placed_by_its_rare_word(status):
    out = R.rerank(_cands("n"), _sig(n=note(["x.py"], status=status)))
    assert out[0].id != "n" and not any(R.RARE_WHY in r.why for r in out), [(r.id, r.why) for r in out]
