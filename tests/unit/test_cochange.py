"""pipeline.cochange over a scripted history with hand-computed support, confidence and lift."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from pipeline.cochange import cochange_edges, compute, compute_with_stats
from pipeline.history import combine, mine
from stratum import schema as S
from stratum.config import HistoryConfig
from tests.historyrepo import EPOCH, GitRepo

CFG = HistoryConfig(half_life_days=10.0)


def scripted(tmp_path):
    """Transactions after the defaults (A = a.py, renamed to src/a.py; B = b.py; C = c.py; D = d.py):

    day 1 {A,B}  day 2 {A,B,C}  day 3 {A,C}  day 4 {B}  day 5 {A,B}  day 6 {A} (rename only)
    day 7 {C,D} on a side branch  day 8 merge (skipped)  day 9 {A,B} + 29 more files (31 > 30: skipped)
    day 10 {A,B}
    n_commits = 8; revs A 6, B 5, C 3, D 1; support AB 4, AC 2, BC 1, CD 1.
    """
    g = GitRepo(tmp_path / "r")
    g.change("a.py", "b.py", day=1)
    g.change("a.py", "b.py", "c.py", day=2)
    g.change("a.py", "c.py", day=3)
    g.change("b.py", day=4)
    g.change("a.py", "b.py", day=5)
    g.mv("a.py", "src/a.py")
    g.commit("move a", day=6)
    g.checkout("-b", "side")
    g.change("c.py", "d.py", day=7)
    g.checkout("main")
    g.merge("side", day=8)
    for i in range(29):
        g.write(f"gen/f{i:02d}.txt", f"{i}\n")
    g.change("src/a.py", "b.py", message="bulk", day=9)
    g.change("src/a.py", "b.py", day=10)
    return g


def by_pair(table):
    return {(r["a"], r["b"]): r for r in table.to_pylist()}


def test_exact_support_confidence_lift_degree(tmp_path):
    g = scripted(tmp_path)
    r = mine(g.root, CFG)
    table, stats = compute_with_stats(r.file_changes, r.commits, CFG, head_paths=r.head_paths)
    assert table.schema == S.COCHANGE
    assert stats["merges_skipped"] == 1 and stats["huge_commits_skipped"] == 1
    assert stats["transactions"] == 8
    pairs = by_pair(table)
    assert set(pairs) == {("b.py", "src/a.py"), ("c.py", "src/a.py")}   # BC and CD have support 1
    ab = pairs[("b.py", "src/a.py")]
    assert (ab["support"], ab["revs_a"], ab["revs_b"]) == (4, 5, 6)
    assert ab["confidence_ab"] == pytest.approx(4 / 5)
    assert ab["confidence_ba"] == pytest.approx(4 / 6)
    assert ab["lift"] == pytest.approx(4 * 8 / (5 * 6))
    assert ab["degree"] == pytest.approx(100 * 4 / 5.5)
    assert ab["first_time"] == EPOCH + timedelta(days=1)
    assert ab["last_time"] == EPOCH + timedelta(days=10)
    # shared commits on days 1, 2, 5, 10; now = newest commit (day 10); half-life 10 days
    assert ab["decayed_weight"] == pytest.approx(sum(0.5 ** ((10 - d) / 10) for d in (1, 2, 5, 10)), abs=1e-9)
    ac = pairs[("c.py", "src/a.py")]
    assert (ac["support"], ac["revs_a"], ac["revs_b"]) == (2, 3, 6)
    assert ac["confidence_ab"] == pytest.approx(2 / 3) and ac["confidence_ba"] == pytest.approx(1 / 3)
    assert ac["lift"] == pytest.approx(2 * 8 / 18)
    assert ac["degree"] == pytest.approx(100 * 2 / 4.5)


def test_a_stop_ends_the_cochange_step_between_its_arrow_calls(tmp_path):
    """SIGTERM after the mine waited for the whole co-change computation (seconds on a history of
    millions of commits); the stop flag is looked at between its steps."""
    import threading

    from pipeline.history import RunStopped

    g = scripted(tmp_path)
    r = mine(g.root, CFG)
    stop = threading.Event()
    stop.set()
    with pytest.raises(RunStopped, match="co-change"):
        compute_with_stats(r.file_changes, r.commits, CFG, head_paths=r.head_paths, stop=stop)
    assert compute_with_stats(r.file_changes, r.commits, CFG, head_paths=r.head_paths,
                              stop=threading.Event())[0].num_rows == 2       # unset: computed as before


def test_configuration_changes_the_counts(tmp_path):
    g = scripted(tmp_path)
    r = mine(g.root, CFG)
    low = by_pair(compute(r.file_changes, r.commits, HistoryConfig(min_support=1), head_paths=r.head_paths))
    assert low[("b.py", "c.py")]["support"] == 1 and low[("c.py", "d.py")]["support"] == 1
    big = by_pair(compute(r.file_changes, r.commits, HistoryConfig(max_files_per_commit=40),
                          head_paths=r.head_paths))
    assert big[("b.py", "src/a.py")]["support"] == 5                  # the bulk commit now counts
    assert ("gen/f00.txt", "src/a.py") not in big                      # support 1 still dropped
    later = datetime(2024, 1, 31, 12, tzinfo=timezone.utc)              # 30 days after the epoch
    far = by_pair(compute(r.file_changes, r.commits, CFG, now=later, head_paths=r.head_paths))
    assert far[("b.py", "src/a.py")]["decayed_weight"] == pytest.approx(
        sum(0.5 ** ((30 - d) / 10) for d in (1, 2, 5, 10)), abs=1e-9)


def test_merge_diffs_counted_when_merges_are_not_skipped(tmp_path):
    g = scripted(tmp_path)
    cfg = HistoryConfig(skip_merges=False, min_support=1)
    r = mine(g.root, cfg)
    table, stats = compute_with_stats(r.file_changes, r.commits, cfg, head_paths=r.head_paths)
    assert stats["merges_skipped"] == 0
    assert by_pair(table)[("c.py", "d.py")]["support"] == 2            # side commit + the merge's diff


def test_incremental_recompute_equals_full(tmp_path):
    g = scripted(tmp_path)
    first = mine(g.root, CFG)
    g.checkout("-b", "late")
    g.change("b.py", "c.py", day=11)
    g.checkout("main")
    g.mv("c.py", "lib/c.py")
    g.change("src/a.py", day=12)
    g.merge("late", day=13)
    g.change("src/a.py", "lib/c.py", day=14)
    inc = mine(g.root, CFG, since=first.head)
    commits, changes = combine(first.commits, first.file_changes, inc)
    full = mine(g.root, CFG)
    a = compute(changes, commits, CFG, head_paths=inc.head_paths)
    b = compute(full.file_changes, full.commits, CFG, head_paths=full.head_paths)
    assert a.to_pylist() == b.to_pylist()
    assert ("lib/c.py", "src/a.py") in by_pair(b)                         # renamed c keeps its history
    assert by_pair(b)[("lib/c.py", "src/a.py")]["support"] == 4           # days 2, 3, 12 (with the move), 14


def test_edges_both_directions_with_both_confidences(tmp_path):
    g = scripted(tmp_path)
    r = mine(g.root, CFG)
    table = compute(r.file_changes, r.commits, CFG, head_paths=r.head_paths)
    ids = {"b.py": "id-b", "src/a.py": "id-a"}                             # c.py not indexed: skipped
    edges = cochange_edges(table, ids)
    assert len(edges) == 2
    fwd = next(e for e in edges if e["src"] == "id-b")
    back = next(e for e in edges if e["src"] == "id-a")
    assert fwd["dst"] == "id-a" and fwd["kind"] == "cochange" and fwd["support"] == 4
    assert fwd["confidence_fwd"] == pytest.approx(4 / 5) and fwd["confidence_bwd"] == pytest.approx(4 / 6)
    assert back["confidence_fwd"] == pytest.approx(4 / 6) and back["weight"] == back["confidence_fwd"]
    assert json.loads(fwd["meta"])["revs_src"] == 5 and json.loads(back["meta"])["revs_src"] == 6
    for e in (fwd, back):           # the hand-written meta is what json.dumps(sort_keys=True) writes
        assert e["meta"] == json.dumps(json.loads(e["meta"]), sort_keys=True)
    assert S.to_table(edges, S.EDGES).num_rows == 2


def test_empty_history_gives_empty_table(tmp_path):
    g = GitRepo(tmp_path / "r")
    r = mine(g.root)
    table = compute(r.file_changes, r.commits, HistoryConfig())
    assert table.num_rows == 0 and table.schema == S.COCHANGE
    assert cochange_edges(table, {}) == []
