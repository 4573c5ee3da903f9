"""stratum.rank fusion arithmetic over a table-driven Signals (the shard adapter is tested on a real
store in tests/integration/test_ranking.py)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from stratum import rank as R
from stratum import rankplace as P

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


class TableSignals:
    def __init__(self, hits, co=None, st=None):
        self.hits, self.co, self.st = hits, co or {}, st or {}

    def hit(self, c):
        return self.hits[c.id]

    def cochange(self, path):
        return self.co.get(path, [])

    def structure(self, path):
        nbrs = [(p, k) for p, k in self.st.get(path, []) if p != path]
        return len(nbrs), nbrs            # untruncated: rank_files cuts to GRAPH_PARTNERS

    def locate(self, path):
        return (f"id:{path}", 99)


def code(path, name):      # the name only tells the test's candidates apart
    return R.Hit("function", path)


def note(files, status="active", stale="", kind="rca"):
    return R.Hit(kind, None, note=R.NoteInfo(kind, tuple(files), status, stale))


def test_text_only_keeps_the_best_hit_per_file():
    sig = TableSignals({"a": code("x.py", "f"), "b": code("y.py", "g"), "c": code("x.py", "h")})
    c = [R.Candidate(0, 0.03, (), "a"), R.Candidate(1, 0.02, (), "b"), R.Candidate(2, 0.01, (), "c")]
    out = R.rank_files(c, sig, R.TEXT_ONLY)
    assert [(f.path, f.score) for f in out] == [("x.py", 0.03), ("y.py", 0.02)]


def test_symbol_aggregate_beats_one_lucky_method():
    sig = TableSignals({"a": code("one.py", "lucky"), **{f"m{i}": code("many.py", f"f{i}") for i in range(4)}})
    c = [R.Candidate(0, 0.030, (), "a")] + [R.Candidate(i + 1, 0.028 - i * 0.001, (), f"m{i}") for i in range(4)]
    out = R.rank_files(c, sig, R.DEFAULT_WEIGHTS.only("symbols"))
    assert out[0].path == "many.py" and "4 matching symbols" in out[0].why


@pytest.mark.parametrize("status,stale,factor", [("active", "", 1.0), ("active", "stale: x.py changed", 0.5),
                                                 ("superseded", "", 0.2), ("retracted", "", 0.0)])
def test_note_standing(status, stale, factor):
    w = R.DEFAULT_WEIGHTS
    sig = TableSignals({"n": note(["x.py", "y.py"], status, stale)})
    out = R.rank_files([R.Candidate(-1, 0.04, (), "n")], sig, w.only("notes"))
    got = {f.path: f.parts.get("notes", 0.0) for f in out}
    assert got.get("x.py", 0.0) == pytest.approx(w.notes * 0.04 * factor / 2 ** 0.5)
    if stale:
        assert "stale: x.py changed: counted x0.5" in out[0].why


def test_cochange_decays_and_shrinks_low_support():
    sig = TableSignals({"a": code("x.py", "f")}, co={"x.py": [
        R.CoEdge("old.py", 10, 0.5, T0 - timedelta(days=365)), R.CoEdge("new.py", 10, 0.5, T0),
        R.CoEdge("rare.py", 1, 0.5, T0)]})
    out = {f.path: f for f in R.rank_files([R.Candidate(0, 0.03, (), "a")], sig, R.DEFAULT_WEIGHTS.only("cochange"))}
    assert out["new.py"].parts["cochange"] == pytest.approx(2 * out["old.py"].parts["cochange"])   # half-life 1 year
    assert out["rare.py"].parts["cochange"] < out["new.py"].parts["cochange"]
    assert "co-changes with x.py (support 10)" in out["new.py"].why


def test_rerank_adds_a_lifted_file_and_explains_it():
    sig = TableSignals({"a": code("x.py", "f"), "n": note(["z.py"])})
    items = R.rerank([R.Candidate(0, 0.02, (), "a"), R.Candidate(-1, 0.03, (), "n")], sig)
    added = [i for i in items if i.added]
    assert added and added[0].file == "z.py" and "rca note n" in added[0].why
    assert {items[0].id, items[1].id} == {"n", "id:z.py"} and items[2].file == "x.py"


def test_only_rejects_unknown_signals():
    with pytest.raises(ValueError, match="unknown signal"):
        R.DEFAULT_WEIGHTS.only("popularity")


def test_mined_fixes_and_changes_take_their_own_weights():
    """A past fix lends with ``mined``, a past change with ``changes``, an agent note with ``notes``;
    each says what it is (never confused with an agent note)."""
    w = R.Weights(mined=0.5, changes=2.0, notes=1.0)
    sig = TableSignals({"f": note(["fix.py"], kind="fix"), "c": note(["chg.py"], kind="change"),
                        "r": note(["rca.py"])})
    c = [R.Candidate(-1, 0.04, (), "f"), R.Candidate(-1, 0.04, (), "c"), R.Candidate(-1, 0.04, (), "r")]
    out = {f.path: f for f in R.rank_files(c, sig, w)}
    assert out["fix.py"].parts == {"mined": pytest.approx(0.5 * 0.04)}
    assert out["chg.py"].parts == {"changes": pytest.approx(2.0 * 0.04)}
    assert out["rca.py"].parts == {"notes": pytest.approx(0.04)}
    assert "past fix f" in out["fix.py"].why and "past change c" in out["chg.py"].why
    assert "rca note r" in out["rca.py"].why
    assert [f.path for f in R.rank_files(c, sig, w.only("changes"))] == ["chg.py"]
    items = {i.id: i for i in R.rerank(c, sig, w)}
    assert items["c"].why == "past change" and items["r"].why.startswith("rca note")
    assert items["c"].score > items["r"].score > items["f"].score     # each note ranks with what it lends


def test_a_served_items_why_counts_mined_history_and_names_agent_notes():
    """What a page's item says of its file's lift is short: mined history as a count (its ids cost
    ~5 tokens each on most items of a page; `get` of the file shows the past fixes), an agent note
    by its id (the agent can open it), the strongest WHY_REASONS reasons and no "+N more" tail."""
    sig = TableSignals({"a": code("x.py", "f"), "c1": note(["x.py"], kind="change"),
                        "c2": note(["x.py"], kind="change"), "c3": note(["x.py"], kind="change"),
                        "f1": note(["x.py"], kind="fix"), "r1": note(["x.py"]), "b": code("y.py", "g")})
    c = [R.Candidate(0, 0.03, (), "a"), R.Candidate(-1, 0.02, (), "c1"), R.Candidate(-1, 0.019, (), "c2"),
         R.Candidate(-1, 0.018, (), "c3"), R.Candidate(-1, 0.005, (), "f1"), R.Candidate(-1, 0.016, (), "r1"),
         R.Candidate(1, 0.015, (), "b")]
    items = {i.id: i for i in R.rerank(c, sig, R.Weights(notes=1.0, mined=1.0, changes=3.0))}
    why = items["a"].why
    assert why == "text; 3 past changes; rca note r1", why       # the two strongest of three reasons
    (f,) = [f for f in R.rank_files(c, sig, R.Weights(notes=1.0, mined=1.0, changes=3.0)) if f.path == "x.py"]
    assert "past change c1 +2 more" in f.why and "past fix f1" in f.why     # the file-level why in full
    one = TableSignals({"a": code("x.py", "f"), "f1": note(["x.py"], kind="fix")})
    got = R.rerank([R.Candidate(0, 0.03, (), "a"), R.Candidate(-1, 0.02, (), "f1")], one, R.DEFAULT_WEIGHTS.only("mined"))
    assert {i.id: i.why for i in got}["a"] == "text; a past fix"
    # a standing's why is its best note's: it follows a single note, not a count of several
    stale = "stale: x.py changed since"
    two = TableSignals({"a": code("x.py", "f"), "f1": note(["x.py"], stale=stale, kind="fix"),
                        "f2": note(["x.py"], stale=stale, kind="fix")})
    for ids, want in ((["f1"], f"text; a past fix ({stale}"), (["f1", "f2"], "text; 2 past fixes")):
        got = R.rerank([R.Candidate(0, 0.03, (), "a")] + [R.Candidate(-1, 0.02, (), i) for i in ids], two,
                       R.DEFAULT_WEIGHTS.only("mined"))
        why = {i.id: i.why for i in got}["a"]
        assert why.startswith(want) and (len(ids) == 1 or "stale" not in why), why


def test_an_agent_note_stays_above_the_file_it_explains_however_lifted():
    """Mined history can lift a file far above the note's own text score; the active agent note still
    comes first (a mined note does not: thousands of them would crowd the code out)."""
    w = R.Weights(changes=4.0)
    sig = TableSignals({"a": code("x.py", "f"), "n": note(["x.py"]), "c": note(["x.py"], kind="change")})
    items = R.rerank([R.Candidate(0, 0.02, (), "a"), R.Candidate(-1, 0.01, (), "n"), R.Candidate(-1, 0.03, (), "c")],
                     sig, w)
    assert [i.id for i in items] == ["n", "a", "c"]
    stale = TableSignals({**sig.hits, "n": note(["x.py"], stale="x.py changed")})
    items = R.rerank([R.Candidate(0, 0.02, (), "a"), R.Candidate(-1, 0.01, (), "n"), R.Candidate(-1, 0.03, (), "c")],
                     stale, w)
    order = [i.id for i in items]
    assert order.index("n") > order.index("a")                # a stale note counts less and says so


def test_only_the_best_matching_note_of_a_file_is_held_above_it():
    """Many agent notes about one file: the one the query matches stays first; the others keep
    their own order below it (they all tied at the file's score once, and the named note was lost)."""
    hits = {"a": code("x.py", "f"), "want": note(["x.py"])}
    hits.update({f"n{k}": note(["x.py"]) for k in range(6)})
    cands = [R.Candidate(0, 0.02, (), "a"), R.Candidate(-1, 0.05, (), "want")] + \
        [R.Candidate(-1, 0.01 - k * 1e-4, (), f"n{k}") for k in range(6)]
    order = [i.id for i in R.rerank(cands, TableSignals(hits), R.DEFAULT_WEIGHTS)]
    assert order[0] == "want"
    assert [i for i in order if i.startswith("n")] == [f"n{k}" for k in range(6)]   # text order kept
    assert order.index("a") < order.index("n0")                  # the file's code above the weaker notes


def test_a_popular_seed_lifts_only_its_most_specific_neighbours():
    """A file imported by hundreds lifts the first GRAPH_PARTNERS of them (Signals.structure order:
    most specific first), each by the same share as if all were counted."""
    n = R.GRAPH_PARTNERS + 40
    nbrs = [(f"user{i:03d}.py", "imported by") for i in range(n)]
    sig = TableSignals({"a": code("core.py", "f")}, st={"core.py": nbrs})
    out = R.rank_files([R.Candidate(0, 0.03, (), "a")], sig, R.DEFAULT_WEIGHTS.only("graph"))
    lifted = {f.path: f.parts["graph"] for f in out if "graph" in f.parts}
    assert sorted(lifted) == [p for p, _ in nbrs[:R.GRAPH_PARTNERS]]
    assert all(v == pytest.approx(R.DEFAULT_WEIGHTS.graph * 0.03 / n ** 0.5) for v in lifted.values())


@pytest.mark.parametrize("k", [0, 1, 3, 5, 9])
def test_seeds_are_the_best_files_by_score_then_path(k):
    """rank_files' seeds: ``sorted(base, key=(-score, path))[:k]``, ties at the cut included."""
    base = {"b.py": 0.5, "a.py": 0.5, "c.py": 0.2, "d.py": 0.5, "e.py": 0.1, "f.py": 0.2, "g.py": 0.0}
    assert R._seeds(base, k) == sorted(base, key=lambda f: (-base[f], f))[:k]
    assert R._seeds(base, -1) == []


def test_cochange_terms_from_the_signals_rank_like_the_edges():
    """A Signals that keeps ``cochange_terms`` (the shard adapter) ranks as one that gives edges only."""
    edges = {"x.py": [R.CoEdge("old.py", 10, 0.5, T0 - timedelta(days=100)), R.CoEdge("new.py", 3, 0.7, T0),
                      R.CoEdge("x.py", 4, 0.9, T0), R.CoEdge("none.py", 2, 0.4, None)]}
    plain = TableSignals({"a": code("x.py", "f")}, co=edges)
    kept = TableSignals({"a": code("x.py", "f")}, co=edges)
    kept.cochange_terms = lambda path, half: R.co_terms(kept.cochange(path), half)
    c = [R.Candidate(0, 0.03, (), "a")]
    view = [(r.id, r.score, r.why, r.added) for r in R.rerank(c, plain)]
    assert view == [(r.id, r.score, r.why, r.added) for r in R.rerank(c, kept)] and len(view) == 4


def test_candidates_past_the_rerank_depth_keep_their_text_order_and_read_no_memory():
    # 3 candidates reranked; the other two are past the depth: their hits are never asked for
    hits = {"a": code("x.py", "f"), "b": code("y.py", "g"), "n": note(["z.py"])}
    sig = TableSignals(hits)
    c = [R.Candidate(0, 0.05, (), "a"), R.Candidate(1, 0.04, (), "b"), R.Candidate(-1, 0.03, (), "n"),
         R.Candidate(3, 0.02, (), "deep1"), R.Candidate(4, 0.01, (), "id:z.py")]
    out = R.rerank(c, sig, depth=3)
    ids = [r.id for r in out]
    assert ids.count("id:z.py") == 1                  # the note's file: added once, not again from the tail
    z = next(r for r in out if r.id == "id:z.py")
    assert z.added and z.score > 0.01                 # lifted by the note, above its text score
    deep = next(r for r in out if r.id == "deep1")
    assert (deep.score, deep.why, deep.added) == (0.02, "text", False)
    assert out == sorted(out, key=lambda r: (-r.score, r.id))
    assert [f.path for f in R.rank_files(c, sig, depth=3)] == [f.path for f in R.rank_files(c[:3], sig, depth=None)]
    assert R.rerank(c[:3], sig, depth=None) == [r for r in out if r.id != "deep1"]


def test_cochange_terms_decay_by_age_from_the_seeds_newest_cochange():
    """co_terms against the formula worked by hand (0.5 ** (age / half-life), age from the newest)."""
    edges = [R.CoEdge("old.py", 10, 0.5, T0 - timedelta(days=365)), R.CoEdge("new.py", 3, 0.7, T0),
             R.CoEdge("mid.py", 4, 0.9, T0 - timedelta(days=730)), R.CoEdge("none.py", 2, 0.4, None)]
    got = R.co_terms(edges, 365.0)
    assert [(p, c, s) for p, c, s, _ in got] == [("old.py", 0.5, 10), ("new.py", 0.7, 3), ("mid.py", 0.9, 4),
                                                 ("none.py", 0.4, 2)]
    assert [d for *_, d in got] == pytest.approx([0.5, 1.0, 0.25, 1.0])
    assert [d for *_, d in R.co_terms(edges, 0.0)] == [1.0, 1.0, 1.0, 1.0]      # no half-life: no decay
    # and the lift rank_files gives a partner: s0 * confidence * support / (support + 2) * decay
    sig = TableSignals({"a": code("x.py", "f")}, co={"x.py": edges})
    f = {e.path: e for e in R.rank_files([R.Candidate(0, 0.03, (), "a")], sig, R.DEFAULT_WEIGHTS.only("cochange"))}
    assert f["mid.py"].score == pytest.approx(R.DEFAULT_WEIGHTS.cochange * 0.03 * 0.9 * 4 / 6 * 0.25)


def test_a_files_reason_names_its_best_note_whatever_the_candidates_order():
    sig = TableSignals({"lownote1": note(["x.py"]), "highnote": note(["x.py"])})
    c = [R.Candidate(-1, 0.01, (), "lownote1"), R.Candidate(-1, 0.04, (), "highnote")]
    (f,) = R.rank_files(c, sig, R.DEFAULT_WEIGHTS.only("notes"))
    assert f.reasons == ["rca note highnote +1 more"]
    assert f.parts["notes"] == pytest.approx(0.04 + 0.01 / 2)


def test_exact_matches_go_first_and_a_missing_one_is_added():
    """`IntegerConverter`: the class of that name ranks above a file other memories lift (here a
    test file whose symbols and past changes gave it a higher score); a dotted name found outside
    the fused list is added; prose queries are not identifiers."""
    sig = TableSignals({"test": code("tests/test_routing.py", "RegexConverter"),
                        "cls": code("src/converters.py", "IntegerConverter")})
    cands = [R.Candidate(0, 0.03, ("keyword",), "test"), R.Candidate(1, 0.02, ("keyword", "name"), "cls")]
    out = P.exact_first(R.rerank(cands, sig), {"cls": 1})
    assert [r.id for r in out][:2] == ["cls", "test"]
    assert out[0].why.startswith("exact name; ") and out[0].score > 1.0
    out = P.exact_first(R.rerank(cands, sig), {"far": 7})                # not among the candidates
    assert (out[0].id, out[0].row, out[0].why, out[0].added) == ("far", 7, "exact name", True)
    assert P.exact_first(R.rerank(cands, sig), {})[0].id == "test"
    from stratum.codetokens import is_identifier

    assert is_identifier("IntegerConverter") and is_identifier("werkzeug.utils.redirect")
    assert not is_identifier("integer converter") and not is_identifier("converter")
