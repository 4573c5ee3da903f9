"""stratum.ranksymbols through rank.rerank over table-driven signals: a note about a symbol lends its
share to that symbol's item; file scores (rank_files) stay as they were (the real store is in
tests/integration/test_note_lifts_symbol.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from stratum import rank as R
from stratum import rankplace as P


class Table:
    def __init__(self, hits, nodes=None):
        self.hits, self.nodes = hits, nodes or {}

    def hit(self, c):
        return self.hits[c.id]

    def cochange(self, path):
        return []

    def structure(self, path):
        return 0, []

    def locate(self, path):
        return (f"id:{path}", 99)

    def locate_node(self, nid):
        return self.nodes.get(nid)


def fn(path):
    return R.Hit("function", path)


def rca(nodes, kind="rca", status="active"):
    files = tuple(dict.fromkeys(p for _, p in nodes))
    return R.Hit(kind, None, note=R.NoteInfo(kind, files, status, nodes=tuple(nodes)))


def C(id, score, row=0):
    return R.Candidate(row, score, (), id)


def test_the_symbol_carries_its_notes_share_and_its_file_mate_the_rest():
    sig = Table({"good": fn("x.py"), "other": fn("x.py"), "n": rca([("other", "x.py")])})
    cands = [C("good", 0.03), C("n", 0.025, -1), C("other", 0.02, 1)]
    items = {r.id: r for r in R.rerank(cands, sig)}
    order = [r.id for r in R.rerank(cands, sig)]
    assert order.index("other") < order.index("good")
    assert items["other"].score == pytest.approx(0.02 + 0.025)
    assert items["other"].why == "text; rca note n"
    assert "rca note" not in items["good"].why and items["good"].why.startswith("text; 2 symbols")
    [x] = R.rank_files(cands, sig)
    lent = items["good"].score - 0.03 + items["other"].score - 0.02
    assert lent == pytest.approx(x.score - x.text)           # the file's lift, counted once


def test_file_scores_do_not_change():
    """rank_files (what the retrieval benchmark scores) reads a note about a symbol as before."""
    hits = {"good": fn("x.py"), "other": fn("x.py"), "y": fn("y.py"),
            "n": rca([("other", "x.py"), ("", "y.py")]), "m": rca([("z1", "z.py")], status="superseded")}
    cands = [C("good", 0.03), C("n", 0.025, -1), C("y", 0.024, 2), C("other", 0.02, 1), C("m", 0.01, -1)]
    plain = Table({k: (replace(h, note=replace(h.note, nodes=())) if h.note else h) for k, h in hits.items()})
    view = [(f.path, f.score, f.parts, f.why) for f in R.rank_files(cands, Table(hits))]
    assert view == [(f.path, f.score, f.parts, f.why) for f in R.rank_files(cands, plain)]


def test_a_symbol_the_list_lacks_is_added_in_its_files_place():
    sig = Table({"a": fn("x.py"), "n": rca([("sym", "z.py")])}, nodes={"sym": ("sym", 7)})
    items = R.rerank([C("a", 0.02), C("n", 0.03, -1)], sig)
    added = [r for r in items if r.added]
    assert [(r.id, r.row, r.file) for r in added] == [("sym", 7, "z.py")]       # not the file id:z.py
    assert added[0].why == "rca note n" and added[0].score == pytest.approx(0.03)
    assert not [r for r in R.rerank([C("a", 0.02), C("n", 0.03, -1)], sig, add=False) if r.added]


def test_a_note_about_a_symbol_and_its_file_splits_its_share():
    """One target is the whole file: that half stays with the file's best item."""
    sig = Table({"good": fn("x.py"), "other": fn("x.py"), "n": rca([("other", "x.py"), ("", "x.py")])})
    items = {r.id: r for r in R.rerank([C("good", 0.03), C("n", 0.02, -1), C("other", 0.01, 1)], sig)}
    assert items["other"].score == pytest.approx(0.01 + 0.01)
    assert "rca note n" in items["good"].why



def test_a_symbol_item_names_each_note_once():
    """A probe: the symbol was its file's best item and its why named its failure note twice ("failure
    note f; failure note f +1"), the file's leftover labelled with the note it had lent away. The
    leftover names the notes the file kept, counting only them; a note split between the symbol and
    its whole file is named once, by the symbol."""
    sig = Table({"sym": fn("x.py"), "f": rca([("sym", "x.py")], kind="failure"),
                 "i": rca([("", "x.py")], kind="insight"), "i2": rca([("", "x.py")], kind="insight")})
    cands = [C("f", 0.03, -1), C("sym", 0.02, 1), C("i", 0.01, -1), C("i2", 0.005, -1)]
    [x] = R.rank_files(cands, sig)
    sym = next(r for r in R.rerank(cands, sig) if r.id == "sym")
    assert sym.why == "text; failure note f; insight note i +1"
    assert sym.score == pytest.approx(0.02 + x.score - x.text)          # the words changed, not the lift
    split = Table({"sym": fn("x.py"), "n": rca([("sym", "x.py"), ("", "x.py")])})
    sym = next(r for r in R.rerank([C("n", 0.03, -1), C("sym", 0.02, 1)], split) if r.id == "sym")
    assert sym.why == "text; rca note n" and sym.score == pytest.approx(0.02 + 0.03)


def test_a_file_that_lent_names_only_the_notes_it_kept():
    """Its best item's why counted and named the notes it lent its symbols ("failure note f +1"): it
    names the notes it kept, none when it kept none (the first test)."""
    sig = Table({"good": fn("x.py"), "other": fn("x.py"), "f": rca([("other", "x.py")], kind="failure"),
                 "i": rca([("", "x.py")], kind="insight")})
    items = {r.id: r for r in R.rerank([C("good", 0.03), C("f", 0.025, -1), C("other", 0.01, 1),
                                        C("i", 0.01, -1)], sig)}
    assert items["good"].why == "text; insight note i; 2 symbols" and items["other"].why == "text; failure note f"
    # a file the text list lacks: its added item, likewise
    sig = Table({"a": fn("y.py"), "f": rca([("sym", "z.py")], kind="failure"),
                 "i": rca([("", "z.py")], kind="insight")}, nodes={"sym": ("sym", 7)})
    added = {r.id: r for r in R.rerank([C("a", 0.02), C("f", 0.03, -1), C("i", 0.01, -1)], sig) if r.added}
    assert added["id:z.py"].why == "insight note i" and added["sym"].why == "failure note f"


def test_a_symbol_past_the_rerank_depth_keeps_its_text_score():
    sig = Table({"a": fn("x.py"), "n": rca([("deep", "y.py")]), "deep": fn("y.py")}, nodes={"deep": ("deep", 5)})
    items = R.rerank([C("a", 0.03), C("n", 0.02, -1), C("deep", 0.001, 5)], sig, depth=2)
    [deep] = [r for r in items if r.id == "deep"]
    assert deep.score == pytest.approx(0.021) and not deep.added and deep.why == "text; rca note n"


def test_mined_notes_and_retracted_notes_lend_nothing_to_symbols():
    sig = Table({"good": fn("x.py"), "other": fn("x.py"), "n": rca([("other", "x.py")], status="retracted"),
                 "f": R.Hit("fix", None, note=R.NoteInfo("fix", ("x.py",)))})
    items = {r.id: r for r in R.rerank([C("good", 0.03), C("n", 0.025, -1), C("f", 0.02, -1), C("other", 0.01, 1)],
                                       sig)}
    assert items["other"].score == 0.01 and items["other"].why == "text"


def test_the_best_text_match_stays_first_when_it_is_an_agent_note():
    """History lifts another file above what the note lends its own: the note the query matches
    best of all still comes first (a mined one does not)."""
    w = R.Weights(changes=4.0)
    hits = {"n": rca([("", "x.py")]), "c": R.Hit("change", None, note=R.NoteInfo("change", ("y.py",))),
            "a": fn("x.py"), "b": fn("y.py")}
    cands = [C("n", 0.03, -1), C("c", 0.025, -1), C("b", 0.02, 2), C("a", 0.01, 1)]
    items = R.rerank(cands, Table(hits), w)
    b = next(r for r in items if r.id == "b")
    assert items[0].id == "n" and b.score > 0.03 + 0.03           # above b, lifted past what n lends x.py
    mined = {**hits, "n": R.Hit("fix", None, note=R.NoteInfo("fix", ("x.py",)))}
    assert R.rerank(cands, Table(mined), w)[0].id != "n"


def test_a_symbol_found_nowhere_leaves_its_share_with_its_file():
    """Renamed since (no node has its id), or a filter is set (nothing is added): the file's best
    item keeps the whole lift rather than losing the note's share."""
    sig = Table({"good": fn("x.py"), "n": rca([("gone", "x.py")])})
    cands = [C("good", 0.03), C("n", 0.025, -1)]
    [x] = R.rank_files(cands, sig)
    for add in (True, False):
        good = next(r for r in R.rerank(cands, sig, add=add) if r.id == "good")
        assert good.score == pytest.approx(0.03 + x.score - x.text) and "rca note n" in good.why
    sig.nodes["gone"] = ("gone", 3)
    assert not any(r.id == "gone" for r in R.rerank(cands, sig, add=False))
    assert next(r for r in R.rerank(cands, sig) if r.id == "good").why == "text"


def test_the_code_a_leading_note_names_follows_it_a_stale_one_leaves_the_order():
    def page():
        return [R.Ranked("n", -1, 0.5, "rca note"), R.Ranked("good", 0, 0.4, "text", "x.py"),
                R.Ranked("mate", 2, 0.3, "text", "y.py"), R.Ranked("other", 1, 0.1, "text", "x.py")]

    fresh = Table({"n": rca([("other", "x.py")])})
    out = P.note_then_code(page(), fresh)
    assert [r.id for r in out] == ["n", "other", "good", "mate"]
    assert out[0].score == 0.5 and out[2].score == 0.4          # only the target moved
    whole = Table({"n": rca([("", "y.py")])})                     # a whole-file target: its best item
    assert [r.id for r in P.note_then_code(page(), whole)] == ["n", "mate", "good", "other"]
    stale = Table({"n": R.Hit("rca", None, note=R.NoteInfo("rca", ("x.py",), "active", stale="x.py changed",
                                                            nodes=(("other", "x.py"),)))})
    assert [r.id for r in P.note_then_code(page(), stale)] == ["n", "good", "mate", "other"]
    mined = Table({"n": rca([("other", "x.py")], kind="fix")})
    assert [r.id for r in P.note_then_code(page(), mined)] == ["n", "good", "mate", "other"]
