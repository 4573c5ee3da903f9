"""What a served item's ``why`` says of its file (``rankwhy``): an agent note that lifts it is always
named, and a stale note's standing is said short."""

from __future__ import annotations

from stratum import rank as R
from tests.unit.test_rank import TableSignals, code, note


def test_an_agent_note_lifting_the_file_is_named_even_when_weaker_than_two_other_reasons():
    """An rca note about two files lifted ``MultiPartParser.__init__``'s file less than its mined
    past and symbols did, and the item's why (the two strongest reasons) left it out (a probe)."""
    sig = TableSignals({"a": code("x.py", "f"), "a2": code("x.py", "g"), "c1": note(["x.py"], kind="change"),
                        "c2": note(["x.py"], kind="change"), "r1": note(["x.py", "y.py"]), "b": code("y.py", "h")})
    c = [R.Candidate(0, 0.03, (), "a"), R.Candidate(2, 0.029, (), "a2"), R.Candidate(-1, 0.02, (), "c1"),
         R.Candidate(-1, 0.019, (), "c2"), R.Candidate(-1, 0.004, (), "r1"), R.Candidate(1, 0.015, (), "b")]
    w = R.Weights(notes=1.0, mined=1.0, changes=3.0, symbols=1.0)
    (f,) = [f for f in R.rank_files(c, sig, w) if f.path == "x.py"]
    assert f.parts["notes"] < min(f.parts["changes"], f.parts["symbols"])      # the weakest of three
    why = {i.id: i.why for i in R.rerank(c, sig, w)}["a"]
    assert why == "text; 2 past changes; rca note r1", why       # the strongest other reason, and the note


def test_a_stale_notes_standing_is_short_on_a_served_item_and_whole_on_the_file():
    """"rca note n57ffe01 (stale: src/werkzeug/serving.py::WSGIRequestHandler.log changed since this
    note was written (2026-12-05): counted x0.5)" repeated the item's own path::qualname (~35 tokens)."""
    stale = "stale: src/x.py::Handler.log changed since this note was written (2026-12-05)"
    gone = "stale: src/x.py::old no longer exists since this note was written (2026-12-05)"
    sig = TableSignals({"a": code("src/x.py", "f"), "r1": note(["src/x.py"], stale=stale),
                        "f1": note(["src/x.py"], stale=gone, kind="fix")})
    c = [R.Candidate(0, 0.03, (), "a"), R.Candidate(-1, 0.02, (), "r1")]
    why = {i.id: i.why for i in R.rerank(c, sig, R.DEFAULT_WEIGHTS.only("notes"))}["a"]
    assert why == "text; rca note r1 (stale: code changed since 2026-12-05, x0.5)", why
    (f,) = R.rank_files(c, sig, R.DEFAULT_WEIGHTS.only("notes"))
    assert f"{stale}: counted x0.5" in f.why                         # the file's own why says it whole
    c = [R.Candidate(0, 0.03, (), "a"), R.Candidate(-1, 0.02, (), "f1")]
    why = {i.id: i.why for i in R.rerank(c, sig, R.DEFAULT_WEIGHTS.only("mined"))}["a"]
    assert why == "text; a past fix (stale: code gone since 2026-12-05, x0.5)", why
