"""The per-session controller over a small real graph (node and edge records as the pipeline
writes them, served by RecordGraph): budget rule, eviction order, pins, focus, policies."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from stratum import controller
from stratum.controller import Controller, ControllerConfig, RecordGraph
from stratum.errors import BudgetExceeded, InvalidArgument, NotFound
from stratum.ids import node_id, note_id
from stratum.policies import LRUPolicy, ScorePolicy, ScoreWeights, Signals, policy_by_name

REPO = "shop"

# path -> (summary, api, full) token costs
FILES = {
    "shop/app.py": (8, 120, 900),
    "shop/models.py": (9, 150, 1200),
    "shop/db.py": (7, 80, 600),
    "shop/engine.py": (6, 60, 500),       # 3 import hops from app.py
    "shop/cli.py": (5, 70, 400),          # no import link to app.py; co-changes with it
    "shop/mail.py": (6, 50, 300),         # unrelated
    "shop/report.py": (7, 90, 700),       # unrelated
    "tests/test_app.py": (8, 100, 800),
}
IMPORTS = [("shop/app.py", "shop/models.py"), ("shop/models.py", "shop/db.py"),
           ("shop/db.py", "shop/engine.py")]
TESTS = [("tests/test_app.py", "shop/app.py")]
COCHANGE = [("shop/app.py", "shop/cli.py", 3.0), ("shop/app.py", "tests/test_app.py", 6.0),
            ("shop/db.py", "shop/engine.py", 2.0)]


def fid(path):
    return node_id(REPO, path, "file")


def sym(path, kind, qualname):
    return node_id(REPO, path, kind, qualname)


USER = sym("shop/models.py", "class", "User")
USER_SAVE = sym("shop/models.py", "method", "User.save")
CREATE_APP = sym("shop/app.py", "function", "create_app")
NOTE = note_id("deltalog-record-1")           # an rca note about db.py


def _graph() -> RecordGraph:
    nodes = [{"id": node_id(REPO, "", "repo"), "kind": "repo", "path": "", "parent_id": None,
              "summary_tokens": 3, "api_tokens": None, "full_tokens": None}]
    for path, (s, a, f) in FILES.items():
        nodes.append({"id": fid(path), "kind": "file", "path": path, "parent_id": None,
                      "summary_tokens": s, "api_tokens": a, "full_tokens": f})
    nodes += [
        {"id": USER, "kind": "class", "path": "shop/models.py", "parent_id": fid("shop/models.py"),
         "summary_tokens": 6, "api_tokens": 40, "full_tokens": 300},
        {"id": USER_SAVE, "kind": "method", "path": "shop/models.py", "parent_id": USER,
         "summary_tokens": 5, "api_tokens": 20, "full_tokens": 110},
        {"id": CREATE_APP, "kind": "function", "path": "shop/app.py", "parent_id": fid("shop/app.py"),
         "summary_tokens": 5, "api_tokens": 25, "full_tokens": 200},
        {"id": NOTE, "kind": "rca", "path": "", "parent_id": None,
         "summary_tokens": 12, "api_tokens": None, "full_tokens": 1900},
    ]
    edges = [{"src": fid(a), "dst": fid(b), "kind": "imports"} for a, b in IMPORTS]
    edges += [{"src": fid(a), "dst": fid(b), "kind": "tests"} for a, b in TESTS]
    edges += [{"src": fid(a), "dst": fid(b), "kind": "cochange", "weight": w, "support": int(w)}
              for a, b, w in COCHANGE]
    edges += [{"src": fid("shop/models.py"), "dst": USER, "kind": "contains"},
              {"src": USER, "dst": USER_SAVE, "kind": "contains"},
              {"src": NOTE, "dst": sym("shop/db.py", "function", "connect"), "kind": "about"},
              {"src": NOTE, "dst": fid("shop/db.py"), "kind": "about"}]
    return RecordGraph(nodes, edges)


@pytest.fixture
def graph():
    return _graph()


def item(path, level):
    s, a, f = FILES[path]
    return (fid(path), level, {"summary": s, "api": a, "full": f}[level])


def entries(ctl):
    return {e["node_id"]: e for e in ctl.status()["entries"]}


# ---- the 15% rule and budget accounting ---------------------------------------------------------

def test_reserve_rule_triggers_exactly_at_threshold(graph):
    ctl = Controller(2000, ScorePolicy(), graph)
    assert ctl.reserve == 300
    r = ctl.admit([item("shop/mail.py", "full"), item("shop/models.py", "full")])   # 1500
    assert r.evictions == [] and r.budget.used == 1500
    # 200 more leaves exactly 300 free = the reserve: no eviction
    r = ctl.admit([(CREATE_APP, "full", 200)])
    assert r.evictions == [] and r.budget.remaining == 300 == ctl.reserve and r.reserve_short == 0
    # one token more would leave 299 < 300: evicts first, and the reserve holds afterwards
    r = ctl.admit([(USER_SAVE, "summary", 1)])
    assert r.evictions, "an admission crossing the reserve must evict"
    assert r.budget.remaining >= ctl.reserve and r.reserve_short == 0


def test_reserve_is_configurable(graph):
    ctl = Controller(1000, ScorePolicy(), graph, config=ControllerConfig(reserve_fraction=0.5))
    assert ctl.reserve == 500
    assert ctl.admit([item("shop/mail.py", "full")], infer_focus=False).evictions == []  # 700 free
    r = ctl.admit([item("shop/engine.py", "full")], infer_focus=False)          # would leave 200 free
    assert [(e.node_id, e.to_level, e.tokens_freed) for e in r.evictions] == [(fid("shop/mail.py"), "cold", 300)]
    assert r.budget.remaining == 500 and r.reserve_short == 0


def test_budget_accounting_is_exact(graph):
    ctl = Controller(10_000, ScorePolicy(), graph)
    r = ctl.admit([item("shop/app.py", "summary"), item("shop/db.py", "api")])
    assert r.budget.used == 8 + 80 and [a.tokens_added for a in r.admitted] == [8, 80]
    # an upgrade adds only the difference; a lower or equal level adds nothing
    r = ctl.admit([item("shop/app.py", "full"), item("shop/db.py", "summary"), item("shop/db.py", "api")])
    assert [(a.node_id, a.previous_level, a.tokens_added) for a in r.admitted] == \
        [(fid("shop/app.py"), "summary", 900 - 8)]
    assert r.already == [fid("shop/db.py")]
    st = ctl.status()
    assert st["budget"] == {"limit": 10_000, "used": 980, "remaining": 9020, "reserve": 1500}
    assert sum(e["tokens"] for e in st["entries"]) == st["budget"]["used"]
    assert {e["node_id"]: e["level"] for e in st["entries"]} == {fid("shop/app.py"): "full",
                                                                  fid("shop/db.py"): "api"}


def test_evictions_report_exact_tokens_freed(graph):
    ctl = Controller(3000, ScorePolicy(), graph)
    ctl.admit([item("shop/mail.py", "full"), item("shop/report.py", "full"), item("shop/cli.py", "full")])
    before = ctl.budget().used                                                  # 1400
    r = ctl.admit([item("shop/models.py", "full")])                             # +1200 -> 2600 > 2550
    levels = graph.levels
    for ev in r.evictions:
        to = 0 if ev.to_level == "cold" else levels(ev.node_id)[ev.to_level]
        assert ev.tokens_freed == levels(ev.node_id)[ev.from_level] - to
        assert ev.reason
    assert before + 1200 - r.tokens_freed == r.budget.used == ctl.budget().used
    assert set(dataclasses.asdict(r.evictions[0])) == {"node_id", "from_level", "to_level", "tokens_freed", "reason",
                                                     "label"}      # the label is filled by the tools


# ---- eviction order and protections -------------------------------------------------------------

def test_pinned_nodes_are_never_evicted(graph):
    ctl = Controller(2000, ScorePolicy(), graph)
    ctl.admit([item("shop/report.py", "full")])                    # cold, large
    assert ctl.pin(fid("shop/report.py")) is True
    ctl.admit([item("shop/mail.py", "full")])
    seen = []
    for path in ("shop/db.py", "shop/cli.py", "shop/engine.py"):
        seen += [e.node_id for e in ctl.admit([item(path, "full")]).evictions]
    assert seen and fid("shop/report.py") not in seen
    assert entries(ctl)[fid("shop/report.py")]["level"] == "full"
    assert entries(ctl)[fid("shop/report.py")]["pinned"] is True
    # only the pin is left besides the request: what does not fit is refused, not squeezed out
    with pytest.raises(BudgetExceeded, match="700 tokens are pinned"):
        ctl.admit([(NOTE, "full", 1900)])                          # 700 pinned + 1900 > 2000
    assert entries(ctl)[fid("shop/report.py")]["level"] == "full"
    assert ctl.unpin(fid("shop/report.py")) is True and ctl.unpin(fid("shop/report.py")) is False
    r = ctl.admit([(NOTE, "full", 1900)])
    assert fid("shop/report.py") in [e.node_id for e in r.evictions]


def test_a_pin_holds_the_lines_of_the_node_read_later(graph):
    """Line ranges are entries of their own (``<id>#L<a>-<b>``); a pinned file's ranges admitted
    after the pin are pinned as well (a probe: the next read of the pinned file dropped them)."""
    from stratum import linerange
    from stratum.envelope import Item

    # the key the tools build for a range (linerange.context_key) is what the controller reads as one
    app = fid("shop/app.py")
    key = linerange.context_key(Item(id=app, kind="file", path="shop/app.py", level="full", meta={"lines": "1-100"}))
    assert key == app + "#L1-100" and key.partition(controller.RANGE_MARK)[0] == app
    ctl = Controller(1000, ScorePolicy(), graph)
    ctl.pin(app)
    ctl.admit([(app + "#L1-100", "full", 400)])
    with pytest.raises(BudgetExceeded, match="400 tokens are pinned"):
        ctl.admit([(app + "#L100-250", "full", 700)])
    assert ctl.pinned() == {app, app + "#L1-100"}
    ctl.unpin(app)
    assert ctl.pinned() == set() and ctl.admit([(app + "#L100-250", "full", 700)]).evictions


def test_focus_neighbours_are_demoted_to_api_not_dropped(graph):
    ctl = Controller(2000, ScorePolicy(), graph)
    ctl.set_focus(["shop/app.py"])
    ctl.admit([item("shop/models.py", "full"), item("shop/mail.py", "full")])   # 1500; models imported by app
    r = ctl.admit([item("shop/report.py", "full")])                            # 2200: must free 500
    assert {(e.node_id, e.from_level, e.to_level, e.tokens_freed) for e in r.evictions} == {
        (fid("shop/mail.py"), "full", "summary", 300 - 6),
        (fid("shop/models.py"), "full", "api", 1200 - 150)}
    models = [e for e in r.evictions if e.node_id == fid("shop/models.py")][0]
    assert "focus neighbour" in models.reason
    assert entries(ctl)[fid("shop/models.py")]["focus_neighbour"] is True
    # to restore the reserve, nothing goes below api; models is demoted further (then dropped)
    # only as a last resort, when the request cannot fit the limit otherwise
    assert ctl.headroom() == 2000
    r = ctl.admit([(NOTE, "full", 1900)])                       # 2756: over the limit by 756
    assert [(e.node_id, e.from_level, e.to_level, e.tokens_freed) for e in r.evictions] == [
        (fid("shop/report.py"), "full", "cold", 700), (fid("shop/mail.py"), "summary", "cold", 6),
        (fid("shop/models.py"), "api", "summary", 141)]
    assert "last resort" in r.evictions[-1].reason and "last resort" in r.warning
    assert r.budget.used == 856 + 1900 - 847 and r.reserve_short == 300 - 91


def test_strict_neighbours_refuse_instead_of_dropping(graph):
    ctl = Controller(2000, ScorePolicy(strict_neighbours=True), graph)
    ctl.set_focus(["shop/app.py"])
    ctl.admit([item("shop/models.py", "full"), item("shop/mail.py", "full")])
    ctl.admit([item("shop/report.py", "full")])                                # models -> api
    assert ctl.headroom() == 2000 - (6 + 150 + 700) + 6 + 700
    with pytest.raises(BudgetExceeded, match="focus neighbours keep api"):
        ctl.admit([(NOTE, "full", 1900)])
    assert ctl.level_of(fid("shop/models.py")) == "api" and ctl.budget().used == 856
    r = ctl.admit([(NOTE, "full", 1700)])                                      # fits, short of the reserve
    assert {e.node_id: e.to_level for e in r.evictions} == {fid("shop/mail.py"): "cold",
                                                            fid("shop/report.py"): "cold"}
    assert ctl.level_of(fid("shop/models.py")) == "api"
    assert r.budget.used == 1850 and r.reserve_short == 150 and "150 kept by the score policy" in r.warning


def test_other_nodes_demoted_to_summary_before_any_drop(graph):
    ctl = Controller(1000, ScorePolicy(), graph)
    ctl.admit([item("shop/mail.py", "full"), item("shop/report.py", "api"), item("shop/cli.py", "summary")],
              infer_focus=False)                                                # 395
    r = ctl.admit([item("shop/db.py", "full")], infer_focus=False)             # 995: free 145
    assert [(e.node_id, e.from_level, e.to_level) for e in r.evictions] == \
        [(fid("shop/mail.py"), "full", "summary")]
    assert "summary" in r.evictions[0].reason
    assert ctl.level_of(fid("shop/mail.py")) == "summary"
    r = ctl.admit([(USER, "full", 300)], infer_focus=False)                    # 1001: free 151
    # report (api) and db (full) are demoted first; no summary-level entry is dropped
    assert {(e.node_id, e.to_level) for e in r.evictions} <= {(fid("shop/report.py"), "summary"),
                                                               (fid("shop/db.py"), "summary")}
    assert all(e.to_level == "summary" for e in r.evictions)
    assert ctl.budget().used == 6 + 7 + 5 + 7 + 300
    # the next squeeze (needs 300) demotes the last full entry (USER: 294), then drops summaries:
    # the coldest first, the larger of equally cold ones first (report: 7 tokens)
    r = ctl.admit([item("tests/test_app.py", "full"), (CREATE_APP, "api", 25)], infer_focus=False)
    assert [(e.node_id, e.from_level, e.to_level, e.tokens_freed) for e in r.evictions] == [
        (USER, "full", "summary", 294), (fid("shop/report.py"), "summary", "cold", 7)]
    assert "dropped" in r.evictions[1].reason
    assert r.budget.used == 325 + 825 - 301 and r.budget.remaining >= ctl.reserve


def test_coldest_first_then_largest(graph):
    ctl = Controller(2000, ScorePolicy(), graph)
    # three unrelated files read in one call: equally cold, different sizes
    ctl.admit([item("shop/mail.py", "full"), item("shop/report.py", "full"), item("shop/cli.py", "full")],
              infer_focus=False)
    assert ctl.admit([(USER_SAVE, "api", 20)], infer_focus=False).evictions == []   # 1420
    r = ctl.admit([(USER, "full", 300)], infer_focus=False)                     # 1720 > 1700: free 20
    assert [(e.node_id, e.to_level) for e in r.evictions] == [(fid("shop/report.py"), "summary")]
    # mail read again twice is warmer than cli, so cli (and the later, warmer reads) go before it
    ctl.touch(fid("shop/mail.py"))
    ctl.touch(fid("shop/mail.py"))
    r = ctl.admit([item("shop/models.py", "full")], infer_focus=False)          # 2227: free 527
    order = [e.node_id for e in r.evictions]
    assert order[0] == fid("shop/cli.py") and fid("shop/mail.py") not in order
    assert ctl.level_of(fid("shop/mail.py")) == "full"


def test_lru_evicts_least_recently_used_whole(graph):
    ctl = Controller(2000, LRUPolicy(), graph)
    ctl.set_focus(["shop/app.py"])          # LRU ignores focus: neighbours get no protection
    ctl.admit([item("shop/models.py", "full")])   # 1200
    ctl.admit([item("shop/mail.py", "full")])     # 300
    ctl.admit([item("shop/cli.py", "api")])       # 70
    ctl.touch(fid("shop/models.py"))              # models is now the most recent
    r = ctl.admit([item("shop/db.py", "full")])   # 2170 > 1700: free 470
    assert [(e.node_id, e.from_level, e.to_level, e.tokens_freed) for e in r.evictions] == \
        [(fid("shop/mail.py"), "full", "cold", 300), (fid("shop/cli.py"), "api", "cold", 70),
         (fid("shop/models.py"), "full", "cold", 1200)]
    assert ctl.status()["policy"] == "lru"


def test_lru_keeps_pins_too(graph):
    ctl = Controller(1000, LRUPolicy(), graph)
    ctl.admit([item("shop/mail.py", "full")])
    ctl.pin(fid("shop/mail.py"))
    ctl.admit([item("shop/engine.py", "full")])
    r = ctl.admit([item("shop/cli.py", "api")])
    assert [e.node_id for e in r.evictions] == [fid("shop/engine.py")]


def test_budget_exceeded_changes_nothing(graph):
    ctl = Controller(1000, ScorePolicy(), graph)
    ctl.admit([item("shop/mail.py", "full")])
    ctl.pin(fid("shop/mail.py"))
    before = ctl.status()
    with pytest.raises(BudgetExceeded) as ei:
        ctl.admit([item("shop/app.py", "full")])                   # 300 pinned + 900 > 1000
    assert ei.value.code == "budget_exceeded" and "1000" in ei.value.message
    assert pickle.loads(pickle.dumps(ei.value)).message == ei.value.message
    after = ctl.status()
    assert after["budget"] == before["budget"] and after["focus"] == before["focus"]
    assert after["stats"] == before["stats"]
    assert ctl.headroom() == 700


def test_reserve_shortfall_is_flagged_not_silent(graph):
    ctl = Controller(1000, ScorePolicy(), graph)
    ctl.admit([item("shop/mail.py", "full")])
    ctl.pin(fid("shop/mail.py"))
    r = ctl.admit([item("shop/report.py", "full")])                # fits the limit, not the reserve
    assert r.budget.used == 1000 and r.reserve_short == 150
    assert "reserve" in r.warning


# ---- focus -------------------------------------------------------------------------------------

def test_focus_inferred_from_full_level_get(graph):
    ctl = Controller(100_000, ScorePolicy(), graph)
    ctl.admit([(USER_SAVE, "api", 20)])
    assert ctl.status()["focus"] == {"files": [], "source": "none"}
    ctl.admit([(USER_SAVE, "full", 110)])                          # a symbol at full: its file
    assert ctl.status()["focus"] == {"files": [fid("shop/models.py")], "source": "inferred"}
    st = entries(ctl)
    assert st[USER_SAVE]["in_focus"] and st[USER_SAVE]["signals"]["G"] == 1.0
    ctl.admit([item("shop/app.py", "full")])                       # by default the last file only
    assert ctl.focus_files() == (fid("shop/app.py"),)
    # explicit focus wins while set; clearing it falls back to the inferred one
    assert ctl.set_focus(["shop/db.py", USER]) == [fid("shop/db.py"), fid("shop/models.py")]
    assert ctl.status()["focus"]["source"] == "explicit"
    ctl.admit([item("shop/mail.py", "full")])
    assert ctl.focus_files() == (fid("shop/db.py"), fid("shop/models.py"))
    ctl.set_focus([])
    assert ctl.focus_files() == (fid("shop/mail.py"),)
    with pytest.raises(NotFound):
        ctl.set_focus(["shop/nope.py"])


def test_inferred_focus_is_bounded(graph):
    ctl = Controller(100_000, ScorePolicy(), graph, config=ControllerConfig(max_inferred_focus=2))
    for p in ("shop/app.py", "shop/db.py", "shop/cli.py"):
        ctl.admit([item(p, "full")])
    assert ctl.focus_files() == (fid("shop/db.py"), fid("shop/cli.py"))
    ctl.admit([(CREATE_APP, "full", 200), (NOTE, "api", 0)])       # a symbol's file moves to the end
    assert ctl.focus_files() == (fid("shop/cli.py"), fid("shop/app.py"))
    off = Controller(100_000, ScorePolicy(), graph, config=ControllerConfig(max_inferred_focus=0))
    off.admit([item("shop/app.py", "full")])
    assert off.focus_files() == ()


# ---- signals -----------------------------------------------------------------------------------

def test_score_signals_are_normalised_as_documented(graph):
    ctl = Controller(100_000, ScorePolicy(ScoreWeights(g=1, c=0, h=0, p=0)), graph)
    ctl.set_focus(["shop/app.py"])
    paths = ("shop/app.py", "shop/models.py", "shop/db.py", "shop/engine.py", "shop/cli.py",
             "tests/test_app.py")
    ctl.admit([item(p, "summary") for p in paths])
    st = entries(ctl)
    g = {p: st[fid(p)]["signals"]["G"] for p in paths}
    assert g == {"shop/app.py": 1.0, "shop/models.py": 0.5, "tests/test_app.py": 0.5,
                 "shop/db.py": pytest.approx(1 / 3, abs=1e-6), "shop/engine.py": 0.0, "shop/cli.py": 0.0}
    c = {p: st[fid(p)]["signals"]["C"] for p in paths}
    # relative to app.py's strongest partner (test_app, weight 6): cli 3/6
    assert c["tests/test_app.py"] == 1.0 and c["shop/cli.py"] == 0.5 and c["shop/app.py"] == 1.0
    assert c["shop/engine.py"] == 0.0
    assert all(e["score"] == e["signals"]["G"] for e in st.values())
    # H: one access now = 1/(1+1)
    assert st[fid("shop/db.py")]["signals"]["H"] == 0.5


def test_history_half_life_in_calls(graph):
    ctl = Controller(100_000, ScorePolicy(), graph, config=ControllerConfig(half_life=4))
    ctl.admit([item("shop/mail.py", "api")])
    for _ in range(4):
        ctl.touch(fid("shop/report.py"))
    h = entries(ctl)[fid("shop/mail.py")]["signals"]["H"]
    assert h == pytest.approx(0.5 / 1.5)                            # count 1 halved once: 0.5


def test_history_half_life_in_seconds(graph):
    clock = [100.0]
    ctl = Controller(100_000, ScorePolicy(), graph,
                     config=ControllerConfig(half_life=30, half_life_unit="seconds"), now=lambda: clock[0])
    ctl.admit([item("shop/mail.py", "api")])
    ctl.touch(fid("shop/mail.py"))                                  # count 2 at t=100
    clock[0] = 160.0                                                # two half-lives later: 0.5
    assert entries(ctl)[fid("shop/mail.py")]["signals"]["H"] == pytest.approx(0.5 / 1.5)


def test_pin_raises_score(graph):
    ctl = Controller(100_000, ScorePolicy(), graph)
    ctl.admit([item("shop/mail.py", "api"), item("shop/report.py", "api")])
    ctl.pin(fid("shop/mail.py"))
    st = ctl.status()
    assert st["entries"][0]["node_id"] == fid("shop/mail.py") and st["entries"][0]["signals"]["P"] == 1.0
    assert st["pins"] == [fid("shop/mail.py")]


# ---- prefetch ------------------------------------------------------------------------------------

def test_prefetch_plan_warms_focus_neighbours_within_budget(graph):
    ctl = Controller(100_000, ScorePolicy(), graph)
    plan = ctl.prefetch_plan(["shop/app.py"], budget=1000)
    ids = [p.node_id for p in plan]
    # imports, tests and co-change neighbours of app.py; nothing two hops away or unrelated
    assert set(ids) == {fid("shop/app.py"), fid("shop/models.py"), fid("tests/test_app.py"),
                        fid("shop/cli.py")}
    assert ids[0] == fid("shop/app.py")
    assert [p.score for p in plan] == sorted((p.score for p in plan), reverse=True)
    assert all(p.level == "api" for p in plan) and sum(p.tokens for p in plan) == 120 + 150 + 100 + 70
    # a tight budget falls back to summaries, and the total stays within it
    tight = ctl.prefetch_plan(["shop/app.py"], budget=300)
    assert sum(p.tokens for p in tight) <= 300 and "summary" in {p.level for p in tight}
    # already held at api: skipped; planning changes no state
    ctl.admit([item("shop/models.py", "api")], infer_focus=False)
    before = ctl.status()
    assert fid("shop/models.py") not in [p.node_id for p in ctl.prefetch_plan(["shop/app.py"], 1000)]
    assert ctl.status() == before
    # a node held at summary and planned at api is sent whole: all of it counts (probe P4: the plan
    # counted only the upgrade, and the answer overshot the budget)
    ctl.admit([item("shop/app.py", "summary")], infer_focus=False)
    budget = 120 + 150 + 100 - 10
    plan = ctl.prefetch_plan(["shop/app.py"], budget=budget)
    assert sum(p.tokens for p in plan) <= budget


def test_prefetch_default_budget_is_free_above_reserve(graph):
    ctl = Controller(1000, ScorePolicy(), graph)
    ctl.set_focus(["shop/app.py"])
    plan = ctl.prefetch_plan()
    assert plan and sum(p.tokens for p in plan) <= 1000 - 150


# ---- isolation, arguments, policies --------------------------------------------------------------

def test_two_controllers_share_nothing(graph):
    a = Controller(5000, ScorePolicy(), graph)
    b = Controller(5000, ScorePolicy(), graph)
    a.admit([item("shop/app.py", "full")])
    a.pin(fid("shop/db.py"))
    a.touch(fid("shop/cli.py"))
    st = b.status()
    assert st["entries"] == [] and st["pins"] == [] and st["focus"]["files"] == []
    assert st["budget"]["used"] == 0 and st["stats"]["admits"] == 0
    b.admit([item("shop/db.py", "api")])
    assert [e["node_id"] for e in a.status()["entries"]] == [fid("shop/app.py")]


def test_invalid_arguments(graph):
    with pytest.raises(InvalidArgument, match="budget"):
        Controller(0, ScorePolicy(), graph)
    with pytest.raises(InvalidArgument):
        Controller(100, ScorePolicy(), None)
    ctl = Controller(100, ScorePolicy(), graph)
    with pytest.raises(InvalidArgument, match="level"):
        ctl.admit([(fid("shop/app.py"), "source", 3)])
    with pytest.raises(InvalidArgument):
        ctl.admit([(fid("shop/app.py"), "api", -1)])
    with pytest.raises(InvalidArgument):
        ctl.admit([("just-an-id",)])
    with pytest.raises(InvalidArgument):
        ControllerConfig(half_life_unit="days")
    with pytest.raises(InvalidArgument):
        ScoreWeights(g=-1)
    with pytest.raises(InvalidArgument, match="policy"):
        policy_by_name("mru")
    assert isinstance(policy_by_name("lru"), LRUPolicy)


def test_headroom_counts_what_could_be_evicted(graph):
    ctl = Controller(2000, ScorePolicy(), graph)
    ctl.set_focus(["shop/app.py"])
    ctl.admit([item("shop/models.py", "full"), item("shop/mail.py", "full")], infer_focus=False)
    # everything may go as a last resort; with strict neighbours, models only down to api
    assert ctl.headroom() == 2000
    strict = Controller(2000, ScorePolicy(strict_neighbours=True), graph)
    strict.set_focus(["shop/app.py"])
    strict.admit([item("shop/models.py", "full"), item("shop/mail.py", "full")], infer_focus=False)
    assert strict.headroom() == 2000 - 1500 + 300 + (1200 - 150)
    strict.pin(fid("shop/mail.py"))
    assert strict.headroom() == 2000 - 1500 + (1200 - 150)
    lru = Controller(2000, LRUPolicy(), graph)
    lru.admit([item("shop/models.py", "full"), item("shop/mail.py", "full")])
    assert lru.headroom() == 2000


def test_neighbours_are_not_sacrificed_just_for_the_reserve(graph):
    ctl = Controller(2000, ScorePolicy(), graph)
    ctl.set_focus(["shop/app.py"])
    ctl.admit([item("shop/models.py", "api"), item("shop/mail.py", "full")])
    r = ctl.admit([(NOTE, "full", 1600)])                       # 2050: 50 over the limit, 350 short
    assert {e.node_id: e.to_level for e in r.evictions} == {fid("shop/mail.py"): "cold"}
    assert ctl.level_of(fid("shop/models.py")) == "api"
    assert r.budget.used == 1750 and r.reserve_short == 50 and "150 kept by the score policy" in r.warning


def test_focus_files_stay_full_until_everything_else_is_gone(graph):
    ctl = Controller(3000, ScorePolicy(), graph)
    ctl.admit([item("shop/app.py", "full")])                    # the inferred focus
    ctl.admit([item("shop/models.py", "full"), item("shop/mail.py", "api")], infer_focus=False)
    ctl.admit([item("shop/cli.py", "api")], infer_focus=False)  # 2220 used, 780 free
    assert entries(ctl)[fid("shop/app.py")]["in_focus"]
    r = ctl.admit([item("shop/report.py", "full")], infer_focus=False)   # 2920: free 370 needed
    # round 0: others to summary, the neighbour (models) to api; the focus file stays full
    assert {e.node_id: e.to_level for e in r.evictions} == {
        fid("shop/mail.py"): "summary", fid("shop/cli.py"): "summary", fid("shop/models.py"): "api"}
    assert ctl.level_of(fid("shop/app.py")) == "full"
    ctl.admit([item("shop/db.py", "full")], infer_focus=False)  # 2361: fits
    r = ctl.admit([(NOTE, "full", 1900)], infer_focus=False)    # 4261: 1711 to free
    evs = {e.node_id: (e.from_level, e.to_level, e.tokens_freed) for e in r.evictions}
    assert evs == {fid("shop/report.py"): ("full", "cold", 700), fid("shop/db.py"): ("full", "cold", 600),
                   fid("shop/mail.py"): ("summary", "cold", 6), fid("shop/cli.py"): ("summary", "cold", 5),
                   fid("shop/app.py"): ("full", "api", 780)}
    assert "focus file" in [e for e in r.evictions if e.node_id == fid("shop/app.py")][0].reason
    assert {n: e["level"] for n, e in entries(ctl).items()} == {
        fid("shop/app.py"): "api", fid("shop/models.py"): "api", NOTE: "full"}


def test_record_graph_answers_from_records(graph):
    assert graph.file_of(USER_SAVE) == fid("shop/models.py")       # method -> class -> file
    assert graph.file_of(NOTE) == fid("shop/db.py")                # a note -> the file it is about
    assert graph.file_of("unknown") is None and graph.levels("unknown") == {}
    assert graph.file_id("shop/app.py") == fid("shop/app.py") and graph.file_id("nope.py") is None
    assert set(graph.neighbors(fid("shop/app.py"), ["imports", "tests"])) == {
        fid("shop/models.py"), fid("tests/test_app.py")}
    assert graph.cochange(fid("shop/cli.py")) == {fid("shop/app.py"): 3.0}
    assert graph.levels(NOTE) == {"summary": 12, "full": 1900}


def test_set_graph_keeps_the_session(graph):
    ctl = Controller(5000, ScorePolicy(), graph)
    ctl.admit([item("shop/app.py", "full")])
    ctl.pin(fid("shop/app.py"))
    ctl.set_graph(_graph())                                        # a newly published version
    st = ctl.status()
    assert st["pins"] == [fid("shop/app.py")] and st["budget"]["used"] == 900
    assert st["focus"]["files"] == [fid("shop/app.py")]


def test_public_surface():
    import stratum.controller as c
    import stratum.policies as p
    assert set(c.__all__) == {"GraphView", "RecordGraph", "ControllerConfig", "Budget", "Eviction", "Admitted",
                              "AdmitResult", "PlannedItem", "Controller"}
    assert set(p.__all__) == {"Signals", "Policy", "ScoreWeights", "DEFAULT_WEIGHTS", "ScorePolicy", "LRUPolicy",
                              "policy_by_name", "RANK"}
    assert isinstance(_graph(), c.GraphView)


def test_attached_notes_stay_with_their_node_when_it_is_demoted(graph):
    from stratum import envelope

    ctl = Controller(1000, ScorePolicy(), graph)
    ctl.admit([(fid("shop/mail.py"), "full", 300 + 40, 40)])    # full text + 40 tokens of notes
    r = ctl.admit([item("shop/report.py", "full")])            # 1040 > 1000: mail gives way
    assert [(e.node_id, e.from_level, e.to_level, e.tokens_freed) for e in r.evictions] == [
        (fid("shop/mail.py"), "full", "summary", 300 - 6)]
    assert entries(ctl)[fid("shop/mail.py")]["tokens"] == 6 + 40 and r.budget.used == 46 + 700
    # one Budget and one Eviction type, the envelope's, from the controller to the wire
    assert type(r.budget) is envelope.Budget and type(r.evictions[0]) is envelope.Eviction
    assert r.budget.remaining == 1000 - 746 and ctl.status()["budget"]["reserve"] == 150
    with pytest.raises(InvalidArgument, match="extra"):
        ctl.admit([(fid("shop/cli.py"), "api", 10, 11)])


def test_prefetch_plan_counts_what_travels_with_a_node(graph):
    ctl = Controller(100_000, ScorePolicy(), graph)
    plain = {p.node_id: p.tokens for p in ctl.prefetch_plan(["shop/app.py"], 10_000)}
    noted = {p.node_id: p.tokens for p in ctl.prefetch_plan(["shop/app.py"], 10_000, extra=lambda n: 25)}
    assert noted == {n: t + 25 for n, t in plain.items()}
    tight = ctl.prefetch_plan(["shop/app.py"], 130, extra=lambda n: 25)
    assert sum(p.tokens for p in tight) <= 130


# ---- prefix admission: a page cut to the budget ---------------------------------------------------

def test_prefix_admits_the_leading_run_that_fits_and_says_how_many(graph):
    ctl = Controller(2000, ScorePolicy(), graph)
    ctl.admit([item("shop/mail.py", "full")], infer_focus=False)
    page = [item("shop/report.py", "full"), item("shop/models.py", "full"), item("shop/db.py", "full")]
    r = ctl.admit(page, infer_focus=False, prefix=True)
    # report and models fit once mail (300, unrelated) gives way; db would take it 500 over the limit
    assert r.count == 2 and [a.node_id for a in r.admitted] == [fid("shop/report.py"), fid("shop/models.py")]
    assert ctl.level_of(fid("shop/db.py")) is None and r.budget.used == 1900
    assert r.evictions[0].node_id == fid("shop/mail.py") and r.evictions[0].to_level == "cold"
    assert ctl.admit(page, infer_focus=False, prefix=True).count == 2      # held: adds nothing, still 2
    assert ctl.admit([item("shop/cli.py", "api")], prefix=True).count == 1     # a plain admit: count is all


def test_a_prefix_admit_with_room_reads_no_held_entrys_ladder(graph, monkeypatch):
    """A page that fits as it is must not score every held entry (what evictions could free): that
    made each search's admission grow with the session's context (9.6 vs 1.8 ms a search after ~160
    searches in one session, notes_scale.py)."""
    ctl = Controller(10**9, ScorePolicy(), graph)
    ctl.admit([item(p, "full") for p in ("shop/mail.py", "shop/report.py", "shop/models.py")])
    read = []
    real = ctl._freeable
    monkeypatch.setattr(ctl, "_freeable", lambda sig: read.append(sig) or real(sig))     # counts, still real
    r = ctl.admit([item("shop/db.py", "api"), item("shop/cli.py", "api")], prefix=True)
    assert r.count == 2 and read == []


def test_a_refusal_says_how_much_of_the_response_is_the_notes_its_items_carry(graph):
    """A file's summary carrying 290 tokens of notes (316 in all) was refused against a budget of 200
    with no word of them: a lower level saves nothing of those (a probe, session 31)."""
    ctl = Controller(200, ScorePolicy(), graph)
    with pytest.raises(BudgetExceeded, match=r"needs 316 more tokens \(290 of them the notes its items carry, "
                                             r"at any level\) but the session budget of 200"):
        ctl.admit([(fid("shop/mail.py"), "summary", 316, 290)])
    with pytest.raises(BudgetExceeded) as ei:          # no notes: said as before
        ctl.admit([(fid("shop/mail.py"), "full", 316)])
    assert "notes" not in ei.value.message, ei.value.message
    roomy = Controller(400, ScorePolicy(), graph)     # held at summary with its notes, asked at full:
    roomy.admit([(fid("shop/mail.py"), "summary", 316, 290)])   # the same notes add nothing (a review)
    with pytest.raises(BudgetExceeded) as ei:
        roomy.admit([(fid("shop/mail.py"), "full", 1290, 290)])
    assert "needs 974 more tokens but" in ei.value.message, ei.value.message


def test_prefix_counts_an_upgrade_as_what_it_adds(graph):
    """models held at api by a strict policy (a focus neighbour never goes below api) and asked at
    full adds 1200 - 150, not 1200: the run it starts holds one item more than a count of 1200 allowed."""
    ctl = Controller(2000, ScorePolicy(strict_neighbours=True), graph)
    ctl.set_focus(["shop/app.py"])
    ctl.admit([item("shop/models.py", "api")])
    assert ctl.headroom() == 2000 - 150            # what the old estimate had: 1200 + 700 > 1850
    r = ctl.admit([item("shop/models.py", "full"), item("shop/report.py", "full"), item("shop/db.py", "full")],
                  prefix=True)
    assert r.count == 2 and r.budget.used == 1200 + 700 and ctl.level_of(fid("shop/models.py")) == "full"


def test_prefix_refuses_only_when_not_even_the_first_fits(graph):
    ctl = Controller(1000, ScorePolicy(), graph)
    ctl.pin(fid("shop/mail.py"))
    ctl.admit([item("shop/mail.py", "full")])
    with pytest.raises(BudgetExceeded, match="this response needs 900 more tokens"):
        ctl.admit([item("shop/app.py", "full"), item("shop/cli.py", "summary")], prefix=True)
    assert ctl.budget().used == 300 and ctl.level_of(fid("shop/cli.py")) is None
    assert ctl.admit([], prefix=True).count == 0


def test_prefix_charges_a_held_node_asked_at_another_size_as_admit_does():
    """A probe: 30 files held at summary (a tree), then a page asking a new one and the same 30 at
    summary 10 tokens larger each (a search's `why`) was refused whole though its first item fits:
    the run finder counted the held ones as adding nothing, admit charged their 10 tokens."""
    nodes = [{"id": f"f{i}", "kind": "file", "path": f"f{i}.py"} for i in range(30)]
    ctl = Controller(1000, ScorePolicy(), RecordGraph(nodes + [{"id": "new", "kind": "file", "path": "new.py"}], []))
    ctl.admit([(f"f{i}", "summary", 30) for i in range(30)])
    r = ctl.admit([("new", "summary", 50)] + [(f"f{i}", "summary", 40) for i in range(30)], prefix=True)
    # new (50) and 23 files (+10 each) fit once the 7 files left out (30 each) are dropped; one more does not
    assert r.count == 24 and len(r.evictions) == 7 and r.budget.used == 900 + 50 + 230 - 210
    assert sum(e["tokens"] for e in ctl.status()["entries"]) == r.budget.used


@pytest.mark.parametrize("seed", range(60))
def test_prefix_is_the_run_up_to_the_first_item_a_plain_admit_refuses(seed):
    """Against admitting each leading run on its own (a fresh controller per try): pins, focus
    (explicit, inferred from full-level items in the run), upgrades, repeats, both policies."""
    import random

    rnd = random.Random(seed)
    paths = sorted(FILES)
    levels = ("summary", "api", "full")
    policy = rnd.choice([ScorePolicy(), ScorePolicy(strict_neighbours=True), LRUPolicy()])
    limit = rnd.choice([600, 1200, 2000, 3000])
    before = [item(rnd.choice(paths), rnd.choice(levels)) for _ in range(rnd.randint(0, 6))]
    pins = rnd.sample(paths, rnd.randint(0, 2))
    focus = rnd.choice([[], ["shop/app.py"], ["shop/db.py", "tests/test_app.py"]])
    # a page row may be another size than the same level held (a search hit's `why`, a tree's indent)
    page = [(n, lvl, tok + rnd.choice((0, 0, 5, 40)))
            for n, lvl, tok in (item(rnd.choice(paths), rnd.choice(levels)) for _ in range(rnd.randint(1, 8)))]
    infer = rnd.random() < 0.7

    def fresh():
        c = Controller(limit, policy, _graph())
        if focus:
            c.set_focus(focus)
        for it in before:
            try:
                c.admit([it])
            except BudgetExceeded:
                pass
        for p in pins:
            c.pin(fid(p))
        return c

    want = 0
    for k in range(1, len(page) + 1):
        try:
            fresh().admit(page[:k], infer_focus=infer)
        except BudgetExceeded:
            break
        want = k
    ctl = fresh()
    if want == 0:
        with pytest.raises(BudgetExceeded):
            ctl.admit(page, infer_focus=infer, prefix=True)
        return
    r = ctl.admit(page, infer_focus=infer, prefix=True)
    plain = fresh()
    p = plain.admit(page[:want], infer_focus=infer)
    assert r.count == want
    assert (r.budget, r.evictions, ctl.status()["entries"], ctl.focus_files()) == (
        p.budget, p.evictions, plain.status()["entries"], plain.focus_files())


def test_an_overrun_at_the_lowest_level_does_not_advise_a_lower_one(graph):
    """A probe: `get FILE --level summary --budget 30` was told to ask for a lower detail level."""
    ctl = Controller(5, ScorePolicy(), graph)
    with pytest.raises(BudgetExceeded) as ei:
        ctl.admit([item("shop/app.py", "summary")])         # 8 tokens
    assert "lower detail level" not in ei.value.message and "larger budget" in ei.value.message
    with pytest.raises(BudgetExceeded, match="lower detail level"):
        ctl.admit([item("shop/app.py", "full")])


def test_a_last_resort_eviction_names_a_focus_file_as_such():
    """A probe: the focus file's own line range, dropped as a last resort, was called a 'focus
    neighbour'."""
    pol = ScorePolicy()
    own = Signals("shop/cart.py#L100-250", "full", 900, 1.0, 0.0, 0.1, 0.0, 0, 7)
    near = Signals("shop/tax.py", "api", 90, 0.5, 0.0, 0.1, 0.0, 1, 5)
    assert "focus file dropped" in pol.reason(own, None)
    assert "focus neighbour dropped" in pol.reason(near, None)
