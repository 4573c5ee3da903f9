"""History settings a store was indexed with are kept, recorded and, when changed, recomputed.

A data probe indexed a store through the API with ``HistoryConfig(half_life_days=30, min_support=3)``;
the next plain `stratum index` (what the hooks and watch run) recomputed co-change at 180 days and
support 2, reverted ``skip_merges`` and ``bugfix_rule`` too, and said only "kept the store's settings:
embed=False"; the manifest did not say which half-life a ``decayed_weight`` used. Real git
repository, the real index job, the real CLI in this process, Polars over the published store."""

from __future__ import annotations

import json
from dataclasses import replace

import polars as pl
import pytest

from pipeline.job import index_repository
from stratum import analysis as A
from stratum.config import DEFAULT_BUGFIX_RULE, EmbedConfig, HistoryConfig, IndexConfig
from stratum.store import Store
from tests.clirun import run
from tests.historyrepo import GitRepo

pytestmark = pytest.mark.slow

RULE = r"(?i)\bmend\b"          # a custom bug-fix rule: "mend" commits are the fixes
HIST = HistoryConfig(half_life_days=30.0, min_support=3, skip_merges=False, bugfix_rule=RULE)
API = IndexConfig(ray=False, embed=EmbedConfig(enabled=False), mine_fixes=False, mine_changes=False, history=HIST)


def _history(root) -> GitRepo:
    """a.py and b.py change together 3 times, a.py and c.py twice (under min_support 3), one merge."""
    g = GitRepo(root)
    g.change("a.py", "b.py", "c.py", message="start")
    g.change("a.py", "b.py", message="mend the pair")
    g.change("a.py", "c.py", message="edit a and c")
    g.git("checkout", "-q", "-b", "side")
    g.change("d.py", message="side work")
    g.git("checkout", "-q", "main")
    g.change("a.py", "b.py", message="edit the pair")
    g.merge("side", message="merge side")
    return g


def _pairs(store) -> pl.DataFrame:
    return A.cochange(store).select("a", "b", "support", "decayed_weight").sort("a", "b").collect()


def _fresh(tmp_path, repo, cfg: IndexConfig, name: str) -> pl.DataFrame:
    """The pairs a first, full index under ``cfg`` makes (what an incremental run must equal)."""
    store = tmp_path / name
    index_repository(repo, store, cfg)
    return _pairs(store)


def test_a_plain_index_keeps_the_history_settings_an_api_index_used(tmp_path, capsys):
    g = _history(tmp_path / "repo")
    store = tmp_path / "store"
    index_repository(g.root, store, API)
    kept = Store(store).manifest().settings
    assert (kept["half_life_days"], kept["min_support"], kept["skip_merges"], kept["bugfix_rule"]) == (30.0, 3, False, RULE)

    g.change("a.py", "b.py", message="mend again")
    rc, out, err = run(capsys, "index", str(g.root), "--store", str(store), "--json")     # the hook's command
    assert rc == 0, err
    rep = json.loads(out)
    said = [m for m in rep["messages"] if m.startswith("kept the store's settings")]
    assert said and all(f in said[0] for f in ("half_life_days=30.0", "min_support=3", "skip_merges=False",
                                              "bugfix_rule=custom")), rep["messages"]
    assert rep["incremental"] and rep["history"]["bugfix_rule"] == RULE
    kept = Store(store).manifest().settings
    assert (kept["half_life_days"], kept["min_support"], kept["skip_merges"], kept["bugfix_rule"]) == (30.0, 3, False, RULE)
    # the pairs and the decayed weights are the 30-day, support-3 ones, as a full index makes them
    assert _pairs(store).equals(_fresh(tmp_path, g.root, API, "full")), _pairs(store)
    assert _pairs(store).get_column("support").min() >= 3
    fixes = A.commits(store).filter(pl.col("is_bugfix")).collect().get_column("message").to_list()
    assert sorted(m.strip() for m in fixes) == ["mend again", "mend the pair"]
    # what an analyst reads: the half-life the decayed_weight column used
    assert A.summary(store)["half_life_days"] == 30.0 and A.settings(store)["min_support"] == 3
    # a second plain run at the same HEAD is up to date (the kept settings make the same key)
    rc, out, err = run(capsys, "index", str(g.root), "--store", str(store), "--json")
    assert rc == 0 and json.loads(out)["up_to_date"], out


def test_a_run_changing_a_history_setting_says_so_and_recomputes(tmp_path):
    g = _history(tmp_path / "repo")
    store = tmp_path / "store"
    index_repository(g.root, store, API)
    other = replace(API, history=replace(HIST, half_life_days=90.0, min_support=2, bugfix_rule=DEFAULT_BUGFIX_RULE))
    rep = index_repository(g.root, store, other)            # the same HEAD: not "up to date"
    assert not rep.up_to_date and rep.incremental
    said = [m for m in rep.messages if m.startswith("settings changed from the store's")]
    assert said and all(f in said[0] for f in ("half_life_days 30.0 -> 90.0", "min_support 3 -> 2",
                                              "bugfix_rule custom -> default")), rep.messages
    assert _pairs(store).equals(_fresh(tmp_path, g.root, other, "full")), _pairs(store)
    assert _pairs(store).height > _fresh(tmp_path, g.root, API, "old").height     # a.py/c.py (support 2) is back
    kept = Store(store).manifest().settings
    # the default rule is recorded as "the default" (None): a build with a refined default re-judges
    assert (kept["half_life_days"], kept["min_support"], kept["bugfix_rule"]) == (90.0, 2, None)
    # skip_merges changed: the rows are mined again (the merge's diff is not read now)
    rep = index_repository(g.root, store, replace(other, history=replace(other.history, skip_merges=True)))
    assert any("skip_merges False -> True" in m for m in rep.messages), rep.messages
    assert any(m.startswith("history re-mined in full") for m in rep.messages), rep.messages
